#pragma once
// Why the simulated step differs from the closed-form estimate, in sentences a user can act on; and
// what the step waits on most (the verdict every output prints).

#include <string>
#include <vector>

#include "workloads/simulate/simulate.hpp"

namespace stepsim::work {

/// One effect that separates the simulation from the estimate, with its size.
struct Difference {
  std::string effect;    ///< "pipeline bubble", "exposed DP communication", ...
  double seconds = 0.0;  ///< its share of the simulated step
  std::string detail;    ///< a sentence: what the simulation saw and what the estimate assumes
};

/// The effects, largest first; only those worth at least 1% of the step.
std::vector<Difference> explain_differences(const Simulation& s);

/// One entry of a step's breakdown, named as the "where the time goes" table names it.
struct BreakdownEntry {
  std::string key;    ///< "compute", "memory_bound", "exposed_comm.ep", "bubble", "host_bound"
  std::string label;  ///< "compute", "memory-bound kernels", "exposed ep communication", ...
  double seconds = 0.0;
};

/// The entries of `b` in the table's order: compute, memory-bound kernels, exposed communication
/// of each group that has some, pipeline bubble, and host-bound launches when there are any.
std::vector<BreakdownEntry> breakdown_entries(const Breakdown& b);

/// What a step waits on most: the largest and second-largest entries of its mean breakdown (ties
/// go to the earlier entry in table order), each with its share of the step time.
struct StepVerdict {
  BreakdownEntry primary;
  BreakdownEntry secondary;  ///< seconds 0 when the step has a single entry above zero
  double primary_share = 0.0;
  double secondary_share = 0.0;
};
StepVerdict step_verdict(const StepReport& report);

/// The resource with the largest share of the critical path, excluding waiting on dependencies
/// unless nothing else bounds it (the step's bottleneck as the simulation sees it).
topo::Resource critical_bottleneck(const StepReport& report);

}  // namespace stepsim::work
