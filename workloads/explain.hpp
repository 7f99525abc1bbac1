#pragma once
// Why the simulated step differs from the closed-form estimate, in sentences a user can act on.

#include <string>
#include <vector>

#include "workloads/simulate.hpp"

namespace stepsim::work {

/// One effect that separates the simulation from the estimate, with its size.
struct Difference {
  std::string effect;    ///< "pipeline bubble", "exposed DP communication", ...
  double seconds = 0.0;  ///< its share of the simulated step
  std::string detail;    ///< a sentence: what the simulation saw and what the estimate assumes
};

/// The effects, largest first; only those worth at least 1% of the step.
std::vector<Difference> explain_differences(const Simulation& s);

/// The resource with the largest share of the critical path, excluding waiting on dependencies
/// unless nothing else bounds it (the step's bottleneck as the simulation sees it).
topo::Resource critical_bottleneck(const StepReport& report);

}  // namespace stepsim::work
