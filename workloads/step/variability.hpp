#pragma once
// [variability] turned into what the engine varies: each GPU's kernel time factor (named slow
// GPUs and nodes, the part-to-part spread, a throttled tail; drawn once from the seed, the same in
// every step) and each step's kernel jitter and host stalls (drawn per step).

#include <cstdint>
#include <string>
#include <vector>

#include "sim/critical_path.hpp"
#include "sim/run_result.hpp"
#include "sim/variation.hpp"
#include "workloads/model/job.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

/// Per global rank: the time multiplier of its kernels (1 = nominal), from `v` over `world` GPUs
/// of `gpus_per_node` each. Named GPUs and nodes multiply the drawn factor.
std::vector<double> gpu_time_factors(const VariabilitySpec& v, int world, int gpus_per_node);

/// What the engine varies in every step of `plan` (a plan of every rank): the simulated ranks'
/// factors from `gpu_factors` (per global rank), the jitter's sigma and each GPU's stall
/// probability per kernel. The draws of one step come from its seed (step_seed).
sim::Variation plan_variation(const VariabilitySpec& v, const StepPlan& plan,
                              const std::vector<double>& gpu_factors);
/// The seed of step `step`'s draws.
std::uint64_t step_seed(const VariabilitySpec& v, std::uint64_t step);

/// One GPU's kernels on a step's critical path.
struct RankWait {
  int rank = 0;
  double kernel_s = 0.0;  ///< time of its kernels on the critical path
  double factor = 1.0;    ///< its kernel time multiplier (gpu_time_factors)
};

/// One kernel on a step's critical path that variation lengthened.
struct OpWait {
  std::string label;
  int rank = 0;
  double duration_s = 0.0;
  double added_s = 0.0;  ///< what jitter, the GPU's factor and any stall added to its nominal time
  bool stalled = false;
};

/// What one step's critical path waited on: the GPUs whose kernels take most of it, and the
/// kernels that variation lengthened most. At most `top` of each, largest first.
struct StepWaits {
  std::vector<RankWait> ranks;
  std::vector<OpWait> ops;
};
StepWaits step_waits(const StepPlan& plan, const sim::RunResult& run, const sim::CriticalPath& path,
                     const sim::Variation& variation, const std::vector<double>& gpu_factors,
                     std::size_t top);
/// Orders `w`'s GPUs by their time on the path and its kernels by what variation added, largest
/// first, and keeps `top` of each.
void sort_waits(StepWaits& w, std::size_t top);

/// One of several simulated steps.
struct StepSample {
  std::uint64_t seed = 0;  ///< the seed of its draws (step_seed)
  double time_s = 0.0;
  int waited_on_rank = -1;  ///< the GPU whose kernels take the most of its critical path
  double waited_on_s = 0.0;
};

/// Several steps of one job under [variability] (stepsim run --steps N).
struct StepDistribution {
  std::vector<StepSample> steps;  ///< in step order
  double nominal_s = 0.0;         ///< the step with nothing varying
  double mean_s = 0.0, p50_s = 0.0, p90_s = 0.0, p99_s = 0.0, min_s = 0.0, max_s = 0.0;
  int median_step = 0;   ///< the step the run's report describes (the lower median)
  int slowest_step = 0;  ///< the step `slowest` describes
  StepWaits slowest;     ///< what the slowest step waited on
  /// GPUs whose kernel factor is not 1, slowest first (at most 16): the slowness map's tail.
  std::vector<RankWait> slow_gpus;
  int gpus_varied = 0;  ///< GPUs whose factor is not 1
  /// Every GPU's kernel time factor, by global rank (gpu_time_factors): the whole slowness map.
  std::vector<double> gpu_factors;
  /// Every GPU replayed over the representative step (stepsim run --ranks replay) rather than a
  /// graph of every rank run once per step; the report beside it is then the nominal step.
  bool replayed = false;
  std::uint64_t instances = 0;   ///< replay: op copies replayed over all steps
  std::size_t replay_bytes = 0;  ///< replay: the memory its per-copy times took
  /// Replay with degraded links: collectives with copies whose group a degraded link reaches, those
  /// copies, and the largest time factor among them (workloads/step/replay_fabric.hpp).
  std::size_t degraded_ops = 0;
  std::size_t degraded_copies = 0;
  double degraded_max_factor = 1.0;
  bool empty() const { return steps.empty(); }
};

/// Appends the next step (its seed, time and what its critical path waited on) to `out`, keeping
/// the slowest step's waits.
void record_step(StepDistribution& out, std::uint64_t seed, double time_s, StepWaits waits);
/// Fills `out`'s statistics, median and slowest GPUs from its steps and every GPU's factor.
void summarise_steps(StepDistribution& out, const std::vector<double>& gpu_factors);

}  // namespace stepsim::work
