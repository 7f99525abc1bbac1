#pragma once
// Builds the step graph of one training step: every micro-batch's forward and backward through
// the pipeline in the configured schedule, tensor/sequence-parallel collectives inside layers,
// pipeline sends between stages, data-parallel gradient reduction in buckets (overlapped with the
// last backward pass or after it), the ZeRO parameter all-gather, and the optimizer.

#include "workloads/comm_planner.hpp"
#include "workloads/rank_sink.hpp"
#include "workloads/step_plan.hpp"

namespace stepsim::work {

struct TrainStepOptions {
  RankMode ranks = RankMode::representative;
};

/// Builds the training step of `job` (kind train). Communication is planned through `planner`,
/// whose network must run the resulting graph. Throws UserError for layouts it cannot build.
StepPlan build_train_step(const JobSpec& job, CommPlanner& planner, const TrainStepOptions& options = {});

}  // namespace stepsim::work
