#pragma once
// Every GPU of a representative step replayed (sim/replay.hpp): the representative plan holds one
// program per pipeline stage, every GPU of the stage runs a copy of it, and each collective's
// copies start together in the groups the build planned it for. [variability] then varies single
// GPUs (a slow part, jitter, host stalls) at a cost per op and GPU of a few nanoseconds, with no
// graph of every rank built (stepsim run --ranks replay).

#include <vector>

#include "sim/run_result.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/model/job.hpp"
#include "workloads/step/step_plan.hpp"
#include "workloads/step/variability.hpp"

namespace stepsim::work {

/// `count` steps of every GPU replayed over `run` (the representative run of `plan`), each with its
/// step's draws of job.variability. Copy j of the stage-s program is the GPU
/// RankLayout::stage_rank(s, j); a pipeline transfer joins copy j of two stages (they differ only
/// in pp); each comm op's recorded groups (StepPlan::comm_groups) start it together. Gives the
/// distribution, what the slowest step waited on, the slowness map. StepDistribution::replayed is set;
/// nominal_s is the run's makespan, which a replay with nothing varying reproduces exactly.
///
/// With degraded links or switches (job.cluster) `run` must be the healthy fabric's, its collectives
/// planned in `transfers` with `config`, and `fabric` the job's topology with them: the copies of
/// the groups a degraded part reaches take longer by the factor workloads/step/replay_fabric.hpp
/// gives them, and nominal_s is the healthy step.
StepDistribution replay_steps(const JobSpec& job, const StepPlan& plan, const sim::RunResult& run, int count,
                              const topo::TransferTable& transfers,
                              std::shared_ptr<const topo::Topology> fabric, const topo::CommConfig& config);

}  // namespace stepsim::work
