#pragma once
// The critical path of a finished run, and what the step's time was spent on.
//
// Starting from the op that finished last, walk back through each op's gating predecessor: among
// its explicit dependencies and its predecessors on each of its streams, the one that finished
// last (the engine starts an op the instant its last predecessor ends, so that one's end equals
// the op's start). Ties go to the lowest op id. Every picosecond from 0 to the makespan is then
// charged to a bound tag: an op's own duration to its builder's tag (compute, memory, delay) or to
// the network's attribution (transfers); any idle gap before an op starts to kBoundDependency.

#include <vector>

#include "sim/graph.hpp"
#include "sim/network.hpp"
#include "sim/run_result.hpp"

namespace stepsim::sim {

struct CriticalPath {
  std::vector<OpId> ops;             ///< in execution order; the last one ends at the makespan
  std::vector<BoundShare> by_bound;  ///< time per tag, ascending tag, zero shares omitted
  Time makespan{};                   ///< the sum of by_bound

  /// The time charged to `bound` (0 if none).
  Time time_of(BoundTag bound) const;
};

/// Computes the critical path of `run`, a result of executing `graph`. `network` must be the one the
/// run used when the path crosses transfer ops (std::logic_error otherwise, or when its attribution
/// of an op does not sum to the op's duration).
CriticalPath critical_path(const StepGraph& graph, const RunResult& run, const Network* network = nullptr);

}  // namespace stepsim::sim
