#include "sim/critical_path.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace stepsim::sim {

namespace {

/// The predecessor whose end gates `id`'s start: latest end, lowest id on ties; kNoOp if none.
OpId gating_predecessor(const StepGraph& g, const StreamPredecessors& before, const RunResult& run, OpId id) {
  OpId best = StepGraph::kNoOp;
  const auto consider = [&](OpId p) {
    if (p == StepGraph::kNoOp) return;
    if (best == StepGraph::kNoOp || run.ops[p].end > run.ops[best].end ||
        (run.ops[p].end == run.ops[best].end && p < best))
      best = p;
  };
  g.for_each_dependency(id, consider);
  for (const OpId p : before.of(id)) consider(p);
  return best;
}

/// Adds op `id`'s own duration to `time`, split by the network for transfers.
void charge_op(const StepGraph& g, const RunResult& run, const Network* network, OpId id,
               std::array<Time, 256>& time, std::vector<BoundShare>& scratch) {
  const Time duration = run.ops[id].end - run.ops[id].start;
  if (g.exec(id).kind != OpKind::transfer) {
    time[g.exec(id).bound] += duration;
    return;
  }
  if (network == nullptr)
    throw std::logic_error("critical path: crosses transfer " + g.describe(id) + " but no network was given");
  scratch.clear();
  network->attribution(id, scratch);
  Time sum{};
  for (const BoundShare& s : scratch) {
    time[s.bound] += s.duration;
    sum += s.duration;
  }
  if (sum != duration)
    throw std::logic_error("critical path: the network attributes " + std::to_string(sum.count()) +
                           " ps to " + g.describe(id) + ", which took " + std::to_string(duration.count()) +
                           " ps");
}

}  // namespace

Time CriticalPath::time_of(BoundTag bound) const {
  for (const BoundShare& s : by_bound)
    if (s.bound == bound) return s.duration;
  return Time::zero();
}

CriticalPath critical_path(const StepGraph& graph, const RunResult& run, const Network* network) {
  CriticalPath path;
  if (run.ops.size() != graph.op_count())
    throw std::logic_error("critical path: the run is not of this graph");
  if (run.ops.empty()) return path;
  OpId last = 0;
  for (OpId id = 1; id < run.ops.size(); ++id)
    if (run.ops[id].end > run.ops[last].end) last = id;

  std::array<Time, 256> time{};
  std::vector<BoundShare> scratch;
  const StreamPredecessors before(graph);
  for (OpId id = last; id != StepGraph::kNoOp;) {
    path.ops.push_back(id);
    charge_op(graph, run, network, id, time, scratch);
    const OpId gate = gating_predecessor(graph, before, run, id);
    const Time gate_end = gate == StepGraph::kNoOp ? Time::zero() : run.ops[gate].end;
    time[kBoundDependency] += run.ops[id].start - gate_end;
    id = gate;
  }
  std::reverse(path.ops.begin(), path.ops.end());
  for (std::size_t tag = 0; tag < time.size(); ++tag) {
    if (time[tag] == Time::zero()) continue;
    path.by_bound.push_back({static_cast<BoundTag>(tag), time[tag]});
    path.makespan += time[tag];
  }
  return path;
}

}  // namespace stepsim::sim
