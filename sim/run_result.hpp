#pragma once
// What one execution of a step graph produced: per-op times and run statistics.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/graph.hpp"
#include "sim/units.hpp"

namespace stepsim::sim {

/// The life of one op in a run, 24 bytes (one is kept for every op). start <= end; when its
/// explicit dependencies were done is ready_time().
struct OpRecord {
  Time start{};  ///< its dependencies done and at the head of all its streams: it began executing
  Time end{};    ///< finished
  /// Compute/memory/delay: the builder's tag. Transfers: the resource with the largest share of
  /// the network's attribution (ties to the lower tag).
  BoundTag bound = kBoundNone;
};

/// Counters describing the work the engine did (not the simulated step).
struct RunStats {
  std::uint64_t events = 0;            ///< op completions handled (queue events and network completions)
  std::uint64_t cancelled_events = 0;  ///< stale queue entries skipped (superseded by a re-timing)
  std::uint64_t retimings = 0;         ///< compute ops re-timed because comm activity changed
  std::uint64_t time_steps = 0;        ///< distinct simulated instants processed
};

struct RunResult {
  std::vector<OpRecord> ops;  ///< indexed by OpId
  Time makespan{};            ///< the latest op end (0 for an empty graph)
  RunStats stats;
};

/// When all of `op`'s explicit dependencies had finished in `run` of `graph`: the latest of their
/// ends, 0 if it has none (ready_time <= start; start is later when a stream was busy). Computed,
/// not stored: few readers need it, and a run keeps records for millions of ops.
inline Time ready_time(const StepGraph& graph, const RunResult& run, OpId op) {
  Time ready{};
  graph.for_each_dependency(op, [&](OpId d) { ready = std::max(ready, run.ops[d].end); });
  return ready;
}

}  // namespace stepsim::sim
