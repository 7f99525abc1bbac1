#pragma once
// Stable lower-case names of the workload enums, as scenarios spell them and JSON prints them.

#include <string_view>
#include <vector>

#include "workloads/job.hpp"
#include "workloads/model.hpp"

namespace stepsim::work {

std::string_view name(Activation a);
std::string_view name(WorkloadKind k);
std::string_view name(Recompute r);
std::string_view name(AttentionImpl k);
std::string_view name(P2pMode m);
std::string_view name(LowPrecisionRecipe r);
std::string_view name(GradAccumulation g);
std::string_view name(PipelineSchedule s);
std::string_view name(TpCommOverlap m);
std::string_view name(ParallelDim d);
/// The Megatron-Core names of the modules `m` recomputes, in a fixed order.
std::vector<std::string_view> names(const RecomputeModules& m);

}  // namespace stepsim::work
