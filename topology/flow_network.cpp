#include "topology/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

#include "sim/error.hpp"

namespace stepsim::topo {

FlowNetwork::FlowNetwork(std::shared_ptr<const TransferTable> table, FlowNetworkOptions options)
    : table_(std::move(table)), options_(options) {
  const auto links = table_->topology().links();
  link_resource_.reserve(links.size());
  for (const Link& l : links) link_resource_.push_back(resource_of(l.kind));
  // A constraint for each link some pattern crosses, less twins (TransferTable::solver_pattern).
  const auto constraint_links = table_->constraint_links();
  sys_.reserve_constraints(constraint_links.size());
  for (const LinkId l : constraint_links) sys_.add_constraint(links[l].bw.value());
  if (options_.accounting != LinkAccounting::off) link_bytes_.assign(links.size(), 0.0);
  if (options_.accounting == LinkAccounting::timeline) {
    link_state_.reserve(links.size());
    for (const Link& l : links)
      link_state_.push_back(LinkState{0.0, 0.0, l.bw.value(), {}, {}, MaxMinSystem::kNone, l.kind});
  }
}

void FlowNetwork::watch(std::span<const LinkId> links) {
  if (link_state_.empty()) return;
  for (const LinkId l : links) link_state_.at(l).watched = true;
}

LinkTimeline FlowNetwork::take_timeline() {
  timeline_.stats.clear();
  for (const LinkState& st : link_state_) timeline_.stats.push_back(LinkStats{st.peak, st.busy});
  return std::move(timeline_);
}

void FlowNetwork::push(Time t, EventKind kind, std::uint32_t target, std::uint32_t generation) {
  events_.push(t, kind, target, generation);
}

void FlowNetwork::reserve(std::size_t ops, std::size_t transfers) {
  if (first_share_.size() < ops) first_share_.resize(ops, kNotCompleted);
  completed_.reserve(2 * transfers);
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
    const auto ev = events_.pop();
    switch (ev.kind()) {
      case EventKind::phase_ready: start_flows(ev.target, now); break;
      case EventKind::flow_done:
        if (flows_[ev.target].alive && flows_[ev.target].generation == ev.generation)
          finish_flow(ev.target, now);
        break;
      case EventKind::transfer_done: {
        const Active& a = actives_[ev.target];
        if (a.op >= first_share_.size()) first_share_.resize(a.op + 1, kNotCompleted);  // no reserve()
        first_share_[a.op] = static_cast<std::uint32_t>(completed_.size());
        for (std::size_t r = 0; r < kResources; ++r)
          if (a.shares[r] > Time::zero()) completed_.push_back({a.shares[r], a.op, static_cast<Resource>(r)});
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
  if (op >= first_share_.size() || first_share_[op] == kNotCompleted) return;
  for (std::size_t k = first_share_[op]; k < completed_.size() && completed_[k].op == op; ++k)
    out.push_back(sim::BoundShare{tag(completed_[k].resource), completed_[k].duration});
}

namespace {
/// A number in 4 significant digits for messages: 1.25e+06, 0.5.
std::string short_number(double v) {
  std::ostringstream out;
  out << std::setprecision(4) << v;
  return out.str();
}
}  // namespace

double FlowNetwork::sm_share(std::uint32_t payload) const {
  const int sms = table_->topology().spec().gpu.sms;
  const std::uint32_t ctas = table_->info(payload).ctas;
  if (sms <= 0 || ctas == 0) return -1.0;
  return std::min(1.0, static_cast<double>(ctas) / sms);
}

std::string FlowNetwork::describe_transfer(sim::OpId op) const {
  const auto slot =
      std::find_if(actives_.begin(), actives_.end(), [op](const Active& a) { return a.op == op; });
  if (slot == actives_.end()) return {};
  const Active& a = *slot;
  const auto phases = table_->phases(a.payload);
  if (a.phase >= phases.size()) return {};
  const std::string where = "phase " + std::to_string(a.phase + 1) + " of " + std::to_string(phases.size());
  const auto index = static_cast<std::uint32_t>(slot - actives_.begin());
  const Flow* slowest = nullptr;
  for (const Flow& f : flows_)
    if (f.alive && f.active == index && (slowest == nullptr || f.rate < slowest->rate)) slowest = &f;
  if (slowest == nullptr) {
    const Time latency = phases[a.phase].latency;
    return where + ": a latency of " +
           (latency >= kTimeRangeEnd ? std::string("more than 106 days")
                                     : short_number(to_seconds(latency)) + " s");
  }
  const std::string limiter = slowest->limiter == Resource::none
                                  ? "its protocol's ceiling"
                                  : "the " + std::string(name(slowest->limiter)) + " links";
  return where + ": a flow with " + short_number(slowest->remaining) + " bytes left moves at " +
         short_number(slowest->rate) + " bytes/s, limited by " + limiter;
}

void FlowNetwork::begin_phase(std::uint32_t slot, Time now) {
  Active& a = actives_[slot];
  const auto phases = table_->phases(a.payload);
  if (a.phase >= phases.size()) {
    push(now, EventKind::transfer_done, slot);
    return;
  }
  const Time latency = phases[a.phase].latency;
  Time& latency_share = a.shares[static_cast<std::size_t>(Resource::latency)];
  latency_share = saturating_add(latency_share, latency);
  // Past the time range the timer fires at kTimeRangeEnd, where the engine stops with an error.
  if (latency > Time::zero())
    push(saturating_add(now, latency), EventKind::phase_ready, slot);
  else
    start_flows(slot, now);
}

void FlowNetwork::start_flows(std::uint32_t slot, Time now) {
  Active& a = actives_[slot];
  a.last_flow = Shares{};
  const TransferPhase& phase = table_->phases(a.payload)[a.phase];
  for (const TransferFlow& tf : table_->flows(phase)) {
    if (!(tf.bytes > 0.0)) continue;
    const auto var = sys_.add_variable(1.0, tf.max_rate > 0.0 ? tf.max_rate : MaxMinSystem::kUnbounded,
                                       table_->solver_pattern(tf.pattern));
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
  if (!link_state_.empty()) touch_links(f.pattern);  // its links lose its load
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
    const double old_rate = f.rate;
    f.rate = sys_.rate(var);
    const auto constraint = sys_.limiter(var);
    // A variable held at its protocol ceiling (NCCL's per-channel limit) rather than by a saturated
    // link is charged to the kind of its busiest link: the links it would otherwise fill.
    const LinkId lim = constraint == MaxMinSystem::kNone ? table_->pattern_bottleneck(f.pattern)
                                                         : table_->constraint_links()[constraint];
    f.limiter = lim == kNoLink ? Resource::none : link_resource_[lim];
    ++f.generation;
    Time finish = kTimeNever;
    if (std::isinf(f.rate) || f.remaining <= 0.0)
      finish = now;
    else if (f.rate > 0.0)  // saturates at kTimeRangeEnd: a later re-solve may still bring it back
      finish = saturating_add(now, from_seconds(f.remaining / f.rate));
    if (finish != kTimeNever) push(finish, EventKind::flow_done, var, f.generation);
    if (!link_state_.empty() && f.rate != old_rate) touch_links(f.pattern);
  }
  if (!touched_.empty()) record_loads(now);
  drop_stale();
}

void FlowNetwork::touch_links(std::uint32_t pattern) {
  for (const LinkUse& u : table_->pattern(pattern)) {
    LinkState& st = link_state_[u.link];
    if (st.touched) continue;
    st.touched = true;
    touched_.push_back(u.link);
  }
}

// Reads the solver's load of every touched link (exact: no accumulated deltas per link) and
// records what changed. Several settles at one instant (transfers started one by one) update
// that instant's records instead of adding more. touched_ follows the solver's deterministic
// order, so the tier sums do too.
void FlowNetwork::record_loads(Time now) {
  for (const LinkId l : touched_) {
    LinkState& st = link_state_[l];
    st.touched = false;
    const double load = sys_.load(table_->solver_constraint(l));  // a twin's load is its head's
    if (load != st.load) record_link(l, st, load, now);
  }
  touched_.clear();
  for (std::size_t k = 0; k < kLinkKindCount; ++k) {
    TierState& t = tier_[k];
    if (!t.touched) continue;
    t.touched = false;
    auto& rows = timeline_.tiers;
    if (t.last != MaxMinSystem::kNone && rows[t.last].time == now) {
      rows[t.last].load_Bps = t.load;
      rows[t.last].busy_capacity_Bps = t.busy_capacity;
      continue;
    }
    t.last = static_cast<std::uint32_t>(rows.size());
    rows.push_back(TierLoadChange{now, static_cast<LinkKind>(k), t.load, t.busy_capacity});
  }
}

void FlowNetwork::record_link(LinkId l, LinkState& st, double load, Time now) {
  const double before = st.load;
  if (before > 0.0) st.busy += now - st.since;
  st.peak = std::max(st.peak, load);
  st.since = now;
  st.load = load;
  TierState& t = tier_[static_cast<std::size_t>(st.kind)];
  t.touched = true;
  t.load += load - before;
  if (before <= 0.0 && load > 0.0) {
    ++t.busy_links;
    t.busy_capacity += st.bw;
  } else if (before > 0.0 && load <= 0.0) {
    t.busy_capacity -= st.bw;
    if (--t.busy_links == 0)
      t.load = t.busy_capacity = 0.0;  // idle reads exactly zero, whatever rounding left
  }
  if (!st.watched) return;
  auto& rows = timeline_.watched;
  if (st.last_watched != MaxMinSystem::kNone && rows[st.last_watched].time == now) {
    rows[st.last_watched].load_Bps = load;
    return;
  }
  st.last_watched = static_cast<std::uint32_t>(rows.size());
  rows.push_back(LinkLoadChange{now, l, load});
}

void FlowNetwork::drop_stale() {
  while (!events_.empty()) {
    const auto& ev = events_.top();
    if (ev.kind() != EventKind::flow_done) return;
    const Flow& f = flows_[ev.target];
    if (f.alive && f.generation == ev.generation) return;
    events_.pop();
  }
}

std::vector<Time> run_transfers(FlowNetwork& net, std::span<const std::uint32_t> payloads, Time start) {
  net.reserve(payloads.size(), payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) net.start(static_cast<sim::OpId>(i), payloads[i], start);
  std::vector<Time> done(payloads.size(), kTimeNever);
  std::vector<sim::OpId> completed;
  while (net.next_event_time() != kTimeNever) {
    const Time t = net.next_event_time();
    if (t >= kTimeRangeEnd) {
      for (sim::OpId op = 0; op < done.size(); ++op)
        if (done[op] == kTimeNever) {
          const std::string why = net.describe_transfer(op);
          throw time_range_error("transfer " + std::to_string(op) + " would end past it" +
                                 (why.empty() ? "" : " (" + why + ")"));
        }
    }
    completed.clear();
    net.advance_to(t, completed);
    for (sim::OpId op : completed) done[op] = t;
  }
  return done;
}

}  // namespace stepsim::topo
