#pragma once
// What one execution of a step graph produced: per-op times and run statistics.

#include <cstdint>
#include <vector>

#include "sim/graph.hpp"
#include "sim/units.hpp"

namespace stepsim::sim {

/// The life of one op in a run. ready <= start <= end.
struct OpRecord {
  Time ready{};  ///< all explicit dependencies finished (0 if it has none)
  Time start{};  ///< also at the head of all its streams: it began executing
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

}  // namespace stepsim::sim
