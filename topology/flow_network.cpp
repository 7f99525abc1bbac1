#include "topology/flow_network.hpp"

#include <algorithm>
#include <cmath>

namespace stepsim::topo {

FlowNetwork::FlowNetwork(std::shared_ptr<const TransferTable> table, FlowNetworkOptions options)
    : table_(std::move(table)), options_(options) {
  const auto links = table_->topology().links();
  link_resource_.reserve(links.size());
  for (const Link& l : links) {
    sys_.add_constraint(l.bw_Bps);  // constraint id == link id
    link_resource_.push_back(resource_of(l.kind));
  }
  if (options_.accounting == LinkAccounting::totals) link_bytes_.assign(links.size(), 0.0);
}

void FlowNetwork::push(Time t, EventKind kind, std::uint32_t target, std::uint32_t generation) {
  events_.push(Event{t, seq_++, kind, target, generation});
}

void FlowNetwork::start(sim::OpId op, std::uint32_t payload, Time now) {
  std::uint32_t slot;
  if (!free_actives_.empty()) {
    slot = free_actives_.back();
    free_actives_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(actives_.size());
    actives_.emplace_back();
  }
  actives_[slot] = Active{op, payload, 0, 0, {}, {}};
  ++active_count_;
  begin_phase(slot, now);
  settle(now);
}

Time FlowNetwork::next_event_time() const {
  return events_.empty() ? kTimeNever : events_.top().time;
}

void FlowNetwork::advance_to(Time now, std::vector<sim::OpId>& completed) {
  // Events at `now` may schedule more at `now` (zero-latency phases); the loop takes them too.
  while (!events_.empty() && events_.top().time <= now) {
    const Event ev = events_.top();
    events_.pop();
    switch (ev.kind) {
      case EventKind::phase_ready: start_flows(ev.target, now); break;
      case EventKind::flow_done:
        if (flows_[ev.target].alive && flows_[ev.target].generation == ev.generation)
          finish_flow(ev.target, now);
        break;
      case EventKind::transfer_done: {
        const Active& a = actives_[ev.target];
        if (a.op >= op_shares_.size()) op_shares_.resize(a.op + 1);
        op_shares_[a.op] = a.shares;
        completed.push_back(a.op);
        free_actives_.push_back(ev.target);
        --active_count_;
        break;
      }
    }
  }
  settle(now);
}

void FlowNetwork::attribution(sim::OpId op, std::vector<sim::BoundShare>& out) const {
  if (op >= op_shares_.size()) return;
  for (std::size_t r = 0; r < kResources; ++r)
    if (op_shares_[op][r] > Time::zero())
      out.push_back(sim::BoundShare{static_cast<sim::BoundTag>(r), op_shares_[op][r]});
}

void FlowNetwork::begin_phase(std::uint32_t slot, Time now) {
  Active& a = actives_[slot];
  const auto phases = table_->phases(a.payload);
  if (a.phase >= phases.size()) {
    push(now, EventKind::transfer_done, slot);
    return;
  }
  const Time latency = phases[a.phase].latency;
  a.shares[static_cast<std::size_t>(Resource::latency)] += latency;
  if (latency > Time::zero())
    push(now + latency, EventKind::phase_ready, slot);
  else
    start_flows(slot, now);
}

void FlowNetwork::start_flows(std::uint32_t slot, Time now) {
  Active& a = actives_[slot];
  a.last_flow = Shares{};
  const TransferPhase& phase = table_->phases(a.payload)[a.phase];
  for (const TransferFlow& tf : table_->flows(phase)) {
    if (!(tf.bytes > 0.0)) continue;
    usage_scratch_.clear();
    for (const LinkUse& u : table_->pattern(tf.pattern)) usage_scratch_.push_back({u.link, u.coefficient});
    const auto var = sys_.add_variable(1.0, MaxMinSystem::kUnbounded, usage_scratch_);
    if (var >= flows_.size()) flows_.resize(var + 1);
    flows_[var] =
        Flow{slot, tf.pattern, tf.bytes, 0.0, now, flows_[var].generation + 1, Resource::none, {}, true};
    ++a.flows_left;
  }
  if (a.flows_left == 0) end_phase(slot, now);
}

void FlowNetwork::finish_flow(std::uint32_t var, Time now) {
  Flow& f = flows_[var];
  progress(f, now);
  if (!link_bytes_.empty())  // rounding leftovers: the flow did move all its bytes
    for (const LinkUse& u : table_->pattern(f.pattern)) link_bytes_[u.link] += u.coefficient * f.remaining;
  f.remaining = 0.0;
  f.alive = false;
  sys_.remove_variable(var);
  Active& a = actives_[f.active];
  a.last_flow = f.time_by;
  if (--a.flows_left == 0) end_phase(f.active, now);
}

// The phase's bandwidth time is that of its last flow (it ran from the phase's start to now).
void FlowNetwork::end_phase(std::uint32_t slot, Time now) {
  Active& a = actives_[slot];
  for (std::size_t r = 0; r < kResources; ++r) a.shares[r] += a.last_flow[r];
  ++a.phase;
  begin_phase(slot, now);
}

// Brings a flow's remaining bytes and its time-by-limiter up to `now` at its current rate.
void FlowNetwork::progress(Flow& f, Time now) {
  const Time dt = now - f.last;
  if (dt <= Time::zero()) return;
  const double moved = std::min(f.remaining, f.rate * to_seconds(dt));
  f.remaining = std::max(0.0, f.remaining - moved);
  f.time_by[static_cast<std::size_t>(f.limiter)] += dt;
  f.last = now;
  if (!link_bytes_.empty())
    for (const LinkUse& u : table_->pattern(f.pattern)) link_bytes_[u.link] += u.coefficient * moved;
}

// Re-solves what changed and reschedules the completions of the flows whose rates were recomputed.
void FlowNetwork::settle(Time now) {
  for (const auto var : sys_.solve()) {
    Flow& f = flows_[var];
    progress(f, now);
    f.rate = sys_.rate(var);
    const auto lim = sys_.limiter(var);
    f.limiter = lim == MaxMinSystem::kNone ? Resource::none : link_resource_[lim];
    ++f.generation;
    Time finish = kTimeNever;
    if (std::isinf(f.rate) || f.remaining <= 0.0)
      finish = now;
    else if (f.rate > 0.0)
      finish = now + from_seconds(f.remaining / f.rate);
    if (finish != kTimeNever) push(finish, EventKind::flow_done, var, f.generation);
  }
  drop_stale();
}

void FlowNetwork::drop_stale() {
  while (!events_.empty()) {
    const Event& ev = events_.top();
    if (ev.kind != EventKind::flow_done) return;
    const Flow& f = flows_[ev.target];
    if (f.alive && f.generation == ev.generation) return;
    events_.pop();
  }
}

std::vector<Time> run_transfers(FlowNetwork& net, std::span<const std::uint32_t> payloads, Time start) {
  for (std::size_t i = 0; i < payloads.size(); ++i) net.start(static_cast<sim::OpId>(i), payloads[i], start);
  std::vector<Time> done(payloads.size(), kTimeNever);
  std::vector<sim::OpId> completed;
  while (net.next_event_time() != kTimeNever) {
    const Time t = net.next_event_time();
    completed.clear();
    net.advance_to(t, completed);
    for (sim::OpId op : completed) done[op] = t;
  }
  return done;
}

}  // namespace stepsim::topo
