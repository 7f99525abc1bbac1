#pragma once
// Every GPU of a representative step replayed (sim/replay.hpp): the representative plan holds one
// program per pipeline stage, every GPU of the stage runs a copy of it, and each collective's
// copies start together in the groups the build planned it for. [variability] then varies single
// GPUs (a slow part, jitter, host stalls) at a cost per op and GPU of a few nanoseconds, with no
// graph of every rank built (stepsim run --ranks replay).

#include <vector>

#include "sim/replay.hpp"
#include "sim/run_result.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/model/job.hpp"
#include "workloads/step/step_plan.hpp"
#include "workloads/step/variability.hpp"

namespace stepsim::work {

/// The copies of a representative plan's ops: width = GPUs per pipeline stage; copy j of the stage-s
/// program is the GPU RankLayout::stage_rank(s, j), and copy j of an op between two stages joins
/// their j-th GPUs (they differ only in pp). Each comm op's groups become groups of copies.
/// Throws std::logic_error for a plan of every rank (it has no shared programs).
sim::ReplayLayout replay_layout(const JobSpec& job, const StepPlan& plan);

/// The GPU that copy `copy` of processor `processor`'s program stands for.
int replay_gpu(const RankLayout& layout, const StepPlan& plan, sim::ProcessorId processor,
               std::uint32_t copy);

/// [variability] for a replay of `plan`: row p x width + j is the GPU replay_gpu(p, j).
sim::Variation replay_variation(const VariabilitySpec& v, const StepPlan& plan, const RankLayout& layout,
                                std::uint32_t width, const std::vector<double>& gpu_factors);

/// `count` steps of every GPU replayed over `run` (the representative run of `plan`), each with its
/// step's draws of job.variability: the distribution, what the slowest step waited on, the slowness
/// map. StepDistribution::replayed is set; nominal_s is the run's makespan, which a replay with
/// nothing varying reproduces exactly.
StepDistribution replay_steps(const JobSpec& job, const StepPlan& plan, const sim::RunResult& run, int count);

/// What one replayed step's critical chain waited on (as step_waits for a run of every rank).
StepWaits replay_waits(const StepPlan& plan, const RankLayout& layout, const sim::Replay& replay,
                       const sim::ReplayResult& result, const sim::Variation* variation,
                       const std::vector<double>& gpu_factors, std::size_t top);

}  // namespace stepsim::work
