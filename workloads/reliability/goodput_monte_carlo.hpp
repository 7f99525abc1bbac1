#pragma once
// A Monte Carlo over a whole training run with failures and checkpoints (docs/reliability.md).
//
// The run is `steps` steps of `step_s` each. Every K steps a checkpoint stops training for
// `checkpoint_block_s` (none after the last step); it can be restored `checkpoint_durable_s` after
// that (an asynchronous checkpoint's write to storage; 0 for a synchronous one). Failures arrive as
// a Poisson process in wall time at `failures_per_hour`, at any moment: during steps, checkpoints
// and restarts. A failure rolls the run back to the newest restorable checkpoint (or the start),
// losing everything since, then restarts, which takes `restart_s` (rescheduling, initialisation and
// reading the checkpoint); a failure during a restart starts it over.
//
// Time runs in integer nanoseconds, so a run without failures lasts exactly steps x step +
// checkpoints x block. A trial draws only the failure times and jumps from one to the next: its
// cost grows with the number of failures, not of steps.

#include <cstdint>
#include <span>
#include <vector>

namespace stepsim::work {

/// The run and what stops it; every duration in seconds.
struct GoodputPlan {
  std::int64_t steps = 0;
  double step_s = 0.0;
  double checkpoint_block_s = 0.0;    ///< C: training stops this long per checkpoint
  double checkpoint_durable_s = 0.0;  ///< D: after the block, until the checkpoint can be restored
  double restart_s = 0.0;             ///< R: a failure to running again, checkpoint read included
  double failures_per_hour = 0.0;     ///< the job's failure rate (its components' summed)
};

struct MonteCarloOptions {
  int trials = 200;
  std::uint64_t seed = 1;  ///< trial i draws from a generator seeded by (seed, i)
};

/// Wall-clock time of the run and where it goes, over the trials; seconds.
struct GoodputStats {
  std::int64_t interval_steps = 0;
  double useful_s = 0.0;  ///< steps x step: the same in every trial
  double mean_wall_s = 0.0;
  double stddev_wall_s = 0.0;  ///< sample standard deviation over the trials
  double p10_wall_s = 0.0, p50_wall_s = 0.0, p90_wall_s = 0.0;
  /// useful / mean wall: the expected share of the wall time that trains.
  double goodput = 0.0;
  /// Per-trial useful / wall, percentiles over the trials (p10 is the unlucky tenth).
  double p10_goodput = 0.0, p50_goodput = 0.0, p90_goodput = 0.0;
  double mean_failures = 0.0;  ///< failures per run, those during restarts included
  /// Means; useful + checkpoints + rework + restarts = mean wall. checkpoints: the blocks of the
  /// checkpoints the run keeps ((steps - 1) / K of them); rework: time from the restored state to
  /// each failure (steps and checkpoint blocks lost); restarts: restart time, interrupted ones too.
  double checkpoint_s = 0.0, rework_s = 0.0, restart_s = 0.0;
};

/// The longest failure-free run, restart or checkpoint write the Monte Carlo accepts: 2^60 ns, about
/// 36.5 years, so that its integer nanoseconds never overflow.
inline constexpr double kGoodputLongestSeconds = static_cast<double>(std::int64_t{1} << 60) * 1e-9;

/// Checkpoints a run of `steps` writes every `interval_steps`: one after every K steps but the last.
std::int64_t checkpoint_count(std::int64_t steps, std::int64_t interval_steps);

/// Runs `options.trials` trials of `plan` with a checkpoint every `interval_steps` (>= 1). The same
/// plan, interval and options give the same result. A trial still running after 1,000 times the
/// failure-free time plus a restart (goodput under 0.1%) or a million failures stops the
/// simulation: the result then has an infinite mean wall time and goodput 0 (the run does not
/// finish). Throws std::invalid_argument for a plan out of
/// range (no steps, a non-positive step, negative durations or rate, a run past about 290 years).
GoodputStats simulate_goodput(const GoodputPlan& plan, std::int64_t interval_steps,
                              const MonteCarloOptions& options);

/// simulate_goodput at each interval, trial i drawing the same numbers at every interval (common
/// random numbers), so that differences between intervals are not noise between trials.
std::vector<GoodputStats> goodput_over_intervals(const GoodputPlan& plan,
                                                 std::span<const std::int64_t> intervals,
                                                 const MonteCarloOptions& options);

/// Young (1974) and Daly (2006) to first order, for failures at mean time M = 1 / rate apart:
/// checkpoint every tau_opt = sqrt(2 C M) of compute; a share C / tau + (tau / 2 + D + R) / M of the
/// time is lost (D, the time until an asynchronous checkpoint is restorable, is lost too when a
/// failure comes before it). Valid for C << tau << M.
struct YoungDaly {
  double mtbf_s = 0.0;              ///< M
  double tau_opt_s = 0.0;           ///< compute between checkpoints
  std::int64_t interval_steps = 1;  ///< tau_opt in whole steps, at least 1
};
YoungDaly young_daly(const GoodputPlan& plan);
/// The first-order waste C / tau + (tau / 2 + D + R) / M at `tau_s` of compute between checkpoints.
double first_order_waste(const GoodputPlan& plan, double tau_s);

}  // namespace stepsim::work
