#pragma once
// Builds the step graph of one training step: every micro-batch's forward and backward through
// the pipeline in the configured schedule, tensor/sequence-parallel collectives inside layers,
// pipeline sends between stages, data-parallel gradient reduction in buckets (overlapped with the
// last backward pass or after it), the ZeRO parameter all-gather, and the optimizer.

#include "workloads/layout/comm_planner.hpp"
#include "workloads/step/model_ops.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

struct TrainStepOptions {
  RankMode ranks = RankMode::representative;
};

/// Builds the training step of `job` (kind train). Communication is planned through `planner`,
/// whose network must run the resulting graph. Throws UserError for layouts it cannot build.
StepPlan build_train_step(const JobSpec& job, CommPlanner& planner, const TrainStepOptions& options = {});

/// The weights one training rank computes gradients for, summed as the builder sums them.
struct RankParams {
  double dense = 0.0;        ///< reduced over dp x cp: layers, embedding, LM head, MTP glue
  double experts = 0.0;      ///< routed experts, reduced over the expert-data-parallel group
  double layer_dense = 0.0;  ///< of `dense`, the transformer layers' and MTP modules' (ZeRO-3 shards these)
  double linear = 0.0;       ///< the layers' and MTP modules' dense and expert weights (FP8 casts them)
};
/// Weights, gradients, optimizer state and FP8 weight copies of a rank holding `params`, sharded
/// as the job's ZeRO stage says.
StaticMemory train_static_memory(const JobSpec& job, const RankParams& params);
/// What the optimizer step of that rank touches.
OptimizerShard train_optimizer_shard(const JobSpec& job, const RankParams& params);

}  // namespace stepsim::work
