#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "sim/error.hpp"
#include "sim/memory.hpp"

namespace stepsim::sim {

Time ceil_to_time(double ps) {
  if (!(ps > 0.0)) return Time::zero();
  // Re-timing subtracts elapsed * rate from the remaining work; the products carry a few ulps of
  // error. Snapping to the nearest integer within that noise keeps exact cases exact.
  const double nearest = std::round(ps);
  const double noise = std::max(1e-6, ps * 1e-14);
  const double rounded = std::abs(ps - nearest) <= noise ? nearest : std::ceil(ps);
  return ps_to_time_saturating(rounded);
}

Engine::Engine(const StepGraph& graph, Network* network) : graph_(graph), network_(network) {
  if (graph.has_transfers() && network == nullptr)
    throw std::logic_error("engine: the step graph has transfer ops but no network was given");
}

void Engine::initialise() {
  const std::size_t n = graph_.op_count();
  reserve_huge(records_, n);
  records_.assign(n, OpRecord{});
  reserve_huge(state_, n);
  state_.resize(n);
  for (OpId id = 0; id < n; ++id)
    state_[id] = {graph_.dependency_in_degree(id) + static_cast<std::uint32_t>(graph_.streams_of(id).size()),
                  0};
  processors_.resize(graph_.processor_count());
  for (ProcessorId p = 0; p < processors_.size(); ++p) {
    const Processor& spec = graph_.processor(p);
    processors_[p].busy = (1.0 - spec.comm_slowdown) / spec.comm_interference;
    processors_[p].busy_alt = spec.alt_comm_slowdown < 0.0
                                  ? processors_[p].busy
                                  : (1.0 - spec.alt_comm_slowdown) / spec.comm_interference;
    processors_[p].idle = spec.reserved_comm ? 1.0 - spec.comm_slowdown : 1.0;
    processors_[p].share = spec.share_compute;
    processors_[p].transfer_shares = spec.transfer_shares && !spec.reserved_comm && network_ != nullptr;
    processors_[p].default_share = spec.comm_slowdown;
    processors_[p].alt_share = spec.alt_comm_slowdown < 0.0 ? spec.comm_slowdown : spec.alt_comm_slowdown;
    processors_[p].interference = spec.comm_interference;
  }
  for (StreamId s = 0; s < graph_.stream_count(); ++s)
    if (graph_.first_on(s) != StepGraph::kNoOp) --state_[graph_.first_on(s)].waiting;
  queue_.reserve(graph_.stream_count() + 16);
  if (network_ != nullptr) network_->reserve(n, graph_.transfer_count());
  for (OpId id = 0; id < n; ++id)
    if (state_[id].waiting == 0) start(id);
}

RunResult Engine::run() {
  if (ran_) throw std::logic_error("engine: run() called twice; use a new Engine and Network per run");
  ran_ = true;
  initialise();
  for (;;) {
    // A cancelled event at the top may wake the engine for nothing; step() discards it. Checking
    // here instead would cost every event a lookup.
    const Time queue_next = queue_.empty() ? kTimeNever : queue_.top().time;
    const Time network_next = network_ != nullptr ? network_->next_event_time() : kTimeNever;
    const Time next = std::min(queue_next, network_next);
    // Times saturate at kTimeRangeEnd instead of wrapping: reaching it means an op would end
    // past the range (unless only cancelled events wait there). One compare, as `== never` was.
    if (next >= kTimeRangeEnd) [[unlikely]] {
      if (next == kTimeNever) break;
      check_time_range(network_next);
      continue;
    }
    if (next != now_ || stats_.time_steps == 0) ++stats_.time_steps;
    now_ = next;
    step(network_next);
  }
  if (finished_ != graph_.op_count()) throw_deadlock();

  RunResult result;
  result.ops = std::move(records_);
  result.makespan = last_end_;
  result.stats = stats_;
  result.stats.events = finished_;
  return result;
}

void Engine::step(Time network_next) {
  // Network completions first, then the engine's own events at this instant (including ones the
  // completions just scheduled, such as zero-duration ops): a fixed, reproducible order.
  if (network_next == now_) {
    network_->advance_to(now_, completed_);
    network_time_ = now_;
    for (std::size_t i = 0; i < completed_.size(); ++i) finish(completed_[i]);
    completed_.clear();
  }
  while (!queue_.empty() && queue_.top().time == now_) {
    const Event e = queue_.pop();
    if (e.generation != state_[e.target].generation) {
      ++stats_.cancelled_events;
      continue;
    }
    finish(e.target);
  }
}

void Engine::start(OpId id) {
  records_[id].start = now_;
  if (observer_ != nullptr) observer_->on_op_start(id, now_);
  const OpExec& op = graph_.exec(id);
  switch (op.kind) {
    case OpKind::compute:
      start_compute(id, op,
                    variation_ != nullptr ? variation_->duration(id, op.aux, op.work, now_) : op.work);
      break;
    case OpKind::transfer: start_transfer(id, op); break;
    case OpKind::memory:
      schedule(id, variation_ != nullptr ? variation_->duration(id, op.aux, op.work, now_) : op.work);
      break;
    case OpKind::delay: schedule(id, op.work); break;
  }
}

void Engine::finish(OpId id) {
  // Both lists are read before anything starts: their loads overlap the bookkeeping below.
  const auto successors = graph_.successors(id);
  const auto stream_successors = graph_.next_on_streams(id);
  const OpExec& op = graph_.exec(id);
  OpRecord& record = records_[id];
  OpState& self = state_[id];
  record.end = now_;
  record.bound = op.bound;
  if (op.kind == OpKind::transfer)
    finish_transfer(id);
  else if (op.kind == OpKind::compute && processors_[op.aux].tracks())
    untrack_compute(id);
  self.waiting = kFinished;
  ++finished_;
  last_end_ = now_;  // events come in time order
  if (observer_ != nullptr) observer_->on_op_end(id, record);

  for (const OpId next : successors)
    if (--state_[next].waiting == 0) start(next);
  for (const OpId next : stream_successors)
    if (next != StepGraph::kNoOp && --state_[next].waiting == 0) start(next);
}

void Engine::start_compute(OpId id, const OpExec& op, Time work) {
  ProcessorState& p = processors_[op.aux];
  const double margin = static_cast<double>(op.sm_margin) * kSmMarginUnit;
  if (!p.tracks()) {  // no interference that changes while it runs: nothing to track
    const double rate = p.rate(margin);
    return schedule(id, rate == 1.0 ? work : ceil_to_time(static_cast<double>(work.count()) / rate));
  }
  const bool sharing = p.share && !p.running.empty();  // the others slow down from now
  if (sharing) settle(p);                              // their progress so far, at the old rate
  p.running.push_back({id, static_cast<double>(work.count()), now_, 1.0, margin});
  if (sharing) return reschedule(p);
  const double rate = p.rate(margin);
  p.running.back().rate = rate;
  schedule(id, rate == 1.0 ? work : ceil_to_time(static_cast<double>(work.count()) / rate));
}

void Engine::untrack_compute(OpId id) {
  ProcessorState& p = processors_[graph_.processor_of(id)];
  const auto it =
      std::find_if(p.running.begin(), p.running.end(), [id](const auto& r) { return r.op == id; });
  // Erase in place (not swap-with-last) so re-timing order, and with it event order, stays the
  // order in which the ops started.
  p.running.erase(it);
  if (p.share && !p.running.empty()) retime(p);  // the others speed up
}

void Engine::start_transfer(OpId id, const OpExec& op) {
  if (network_time_ < now_) {
    // The network only hears about instants with its own events; bring it to `now` first. It
    // promised nothing finishes before its next_event_time(), which is later than now.
    network_->advance_to(now_, completed_);
    network_time_ = now_;
    if (!completed_.empty())
      throw std::logic_error("engine: network completed " + graph_.describe(completed_.front()) +
                             " before its own next_event_time()");
  }
  change_comm_activity(id, +1);
  network_->start(id, op.aux, now_);
}

void Engine::finish_transfer(OpId id) {
  change_comm_activity(id, -1);
  shares_.clear();
  network_->attribution(id, shares_);
  BoundShare best{kBoundNone, Time{-1}};
  for (const BoundShare& s : shares_)
    if (s.duration > best.duration || (s.duration == best.duration && s.bound < best.bound)) best = s;
  records_[id].bound = best.bound;
}

void Engine::change_comm_activity(OpId transfer, int delta) {
  // The share the transfer's own kernels hold (Processor::transfer_shares): the same on every
  // processor it occupies, so asked of the network once, and only if one of them counts it.
  bool asked = false;
  double own_share = -1.0;
  for (const StreamId s : graph_.streams_of(transfer)) {
    const Stream& stream = graph_.stream(s);
    if (stream.role != StreamRole::comm) continue;
    ProcessorState& p = processors_[stream.processor];
    const double old_comm_rate = p.comm_rate();
    p.active_transfers = static_cast<std::uint32_t>(static_cast<int>(p.active_transfers) + delta);
    if (stream.alt_comm) p.active_alt = static_cast<std::uint32_t>(static_cast<int>(p.active_alt) + delta);
    if (p.transfer_shares) {
      if (!stream.alt_comm && !asked) {
        own_share = network_->sm_share(graph_.exec(transfer).aux);
        asked = true;
      }
      const double share = stream.alt_comm ? p.alt_share : own_share;
      if (share < 0.0)
        p.active_unknown = static_cast<std::uint32_t>(static_cast<int>(p.active_unknown) + delta);
      else
        p.known_share_units += delta * std::llround(share / kShareUnit);
    }
    if (p.comm_retimes() && p.comm_rate() != old_comm_rate && !p.running.empty()) retime(p);
  }
}

void Engine::retime(ProcessorState& p) {
  settle(p);
  reschedule(p);
}

void Engine::settle(ProcessorState& p) {
  for (RunningCompute& r : p.running) {
    r.remaining_ps = std::max(0.0, r.remaining_ps - static_cast<double>((now_ - r.since).count()) * r.rate);
    r.since = now_;
  }
}

void Engine::reschedule(ProcessorState& p) {
  const double base = p.rate();
  for (RunningCompute& r : p.running) {
    r.rate = r.margin > 0.0 ? p.rate(r.margin) : base;
    ++state_[r.op].generation;
    schedule(r.op, ceil_to_time(r.remaining_ps / r.rate));
    ++stats_.retimings;
  }
}

}  // namespace stepsim::sim

namespace stepsim::sim {

void Engine::check_time_range(Time network_next) {
  // Ends that were re-timed to earlier instants leave cancelled events behind: drop those first.
  while (!queue_.empty() && queue_.top().time >= kTimeRangeEnd &&
         queue_.top().generation != state_[queue_.top().target].generation) {
    queue_.pop();
    ++stats_.cancelled_events;
  }
  OpId culprit = StepGraph::kNoOp;
  if (!queue_.empty() && queue_.top().time >= kTimeRangeEnd) {
    culprit = queue_.top().target;
  } else if (network_next >= kTimeRangeEnd && network_next != kTimeNever) {
    // The network's next event is out of range: blame the transfer running longest.
    for (OpId id = 0; id < graph_.op_count(); ++id) {
      if (state_[id].waiting == kRunning && graph_.exec(id).kind == OpKind::transfer &&
          (culprit == StepGraph::kNoOp || records_[id].start < records_[culprit].start))
        culprit = id;
    }
  }
  if (culprit == StepGraph::kNoOp) return;  // only cancelled events were there: carry on
  std::ostringstream cause;
  cause << graph_.describe(culprit) << ", started at " << std::setprecision(4)
        << to_seconds(records_[culprit].start) << " s, would end past it";
  if (network_ != nullptr && graph_.exec(culprit).kind == OpKind::transfer) {
    const std::string why = network_->describe_transfer(culprit);
    if (!why.empty()) cause << " (" << why << ")";
  }
  throw time_range_error(cause.str());
}

std::string Engine::stuck_state(OpId id) const {
  if (state_[id].waiting == kRunning) {
    std::string s = "running since " + std::to_string(records_[id].start.count()) + " ps";
    if (graph_.exec(id).kind == OpKind::transfer) s += " (the network never completed it)";
    return s;
  }
  std::string s;
  std::uint32_t deps = 0;  // not yet finished
  OpId first_dep = StepGraph::kNoOp;
  graph_.for_each_dependency(id, [&](OpId d) {
    if (state_[d].waiting == kFinished) return;
    if (deps++ == 0) first_dep = d;
  });
  if (deps > 0)
    s += "waiting for " + std::to_string(deps) + " dependencies, e.g. op " + std::to_string(first_dep);
  for (const StreamId st : graph_.streams_of(id)) {
    const auto on = graph_.ops_on(st);
    const OpId head =
        *std::find_if(on.begin(), on.end(), [&](OpId o) { return state_[o].waiting != kFinished; });
    if (head == id) continue;
    const std::string_view name = graph_.label_text(graph_.stream(st).label);
    s += (s.empty() ? "" : "; ") + std::string("behind op ") + std::to_string(head) + " on " +
         (name.empty() ? "stream " + std::to_string(st) : std::string(name));
  }
  return s;
}

void Engine::throw_deadlock() const {
  constexpr std::size_t kShownPerKind = 3;
  std::vector<OpId> running;
  std::vector<OpId> waiting;
  for (OpId id = 0; id < graph_.op_count(); ++id) {
    const std::uint32_t w = state_[id].waiting;
    if (w == kFinished) continue;
    auto& list = w == kRunning ? running : waiting;
    if (list.size() < kShownPerKind) list.push_back(id);
  }
  std::string msg = "engine: deadlock at " + std::to_string(now_.count()) +
                    " ps: " + std::to_string(graph_.op_count() - finished_) + " of " +
                    std::to_string(graph_.op_count()) + " ops never finished, and nothing is scheduled.";
  for (const auto* list : {&running, &waiting})
    for (const OpId id : *list) msg += "\n  " + graph_.describe(id) + ": " + stuck_state(id);
  throw std::logic_error(msg);
}

}  // namespace stepsim::sim
