#pragma once
// Sizing a cluster from the simulated rate: the smallest data-parallel degree at which the scenario's
// own layout, simulated, reaches a target rate. The model-parallel shape (TP, PP, CP, EP) and each
// replica's batch (micro-batch size and micro-batches per replica) stay as the scenario has them; DP,
// and with it the GPU count, the node count and the global batch, scale. Every size is loaded through
// the scenario reader (so its checks apply) and simulated; the closed-form sizing is reported beside it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::out {

/// A run of `tokens` tokens to finish within `days` days (both positive).
struct TokenBudget {
  double tokens = 0.0;
  double days = 0.0;
  /// The cluster-wide rate that finishes in time: tokens / (days x 86,400 s).
  double tokens_per_s() const { return tokens / (days * 86400.0); }
};

/// What to size for, as the command line gives it: a rate, or a run of so many tokens in so many days.
struct SizingGoal {
  std::optional<double> tokens_per_s;  ///< cluster-wide (--tokens-per-s)
  std::optional<double> tokens;        ///< --tokens, with --days
  std::optional<double> days;
  /// The rate the cluster must sustain. Throws UserError naming the option when the goal is missing,
  /// given twice over, incomplete (tokens without days) or not positive and finite.
  double target_tokens_per_s() const;
  /// The token budget, when the goal is one (after target_tokens_per_s() has accepted it).
  std::optional<TokenBudget> budget() const;
};

struct SizingOptions {
  SizingGoal goal;
  std::vector<std::string> set;  ///< scenario overrides ("dotted.key=value"), applied to every size
  work::RankMode ranks = work::RankMode::representative;
  /// The most GPUs a sized cluster may have; a target beyond it is reported unreachable.
  int max_gpus = 131072;
  /// Sizes whose step is estimated above this many ops are refused (workloads/step/step_size.hpp).
  std::uint64_t max_ops = work::kDefaultMaxOps;
};

/// One simulated size of the job.
struct SizedRun {
  int dp = 0;
  int gpus = 0;
  int nodes = 0;
  int global_batch = 0;       ///< training: sequences per step at this size; 0 for inference
  double tokens_per_s = 0.0;  ///< the whole job, simulated
  double tokens_per_s_per_gpu = 0.0;
  double step_time_s = 0.0;
  double mfu = 0.0;
  double peak_bytes = 0.0;      ///< the busiest rank's simulated memory peak
  double capacity_bytes = 0.0;  ///< usable HBM per GPU
  bool fits = true;
  bool meets_target = false;
  /// The closed-form rate of this same job (what the estimate says at this size).
  double closed_form_tokens_per_s = 0.0;
};

/// `stepsim estimate --target`'s answer for the scenario as given, for comparison.
struct ClosedFormSizing {
  bool reachable = true;
  int gpus = 0;
  int dp = 0;
  double tokens_per_s_per_gpu = 0.0;  ///< the closed-form per-GPU rate at that size
  std::string note;                   ///< the estimate's caveat, if any
};

enum class SizingOutcome : std::uint8_t {
  sized,         ///< the smallest DP that reaches the target was found and fits in memory
  does_not_fit,  ///< the DP that reaches the target does not fit in GPU memory: nothing is sized
  unreachable,   ///< no DP up to SizingOptions::max_gpus reaches the target
};

/// The layout kept fixed while DP scales.
struct KeptLayout {
  int tp = 1, pp = 1, cp = 1, ep = 1, expert_tp = 1, virtual_stages = 1;
  int gpus_per_replica = 1;  ///< tp x pp x cp
  int micro_batch = 0;       ///< training: sequences per micro-batch
  int micro_batches = 0;     ///< training: micro-batches per replica per step
  int batch = 0;             ///< inference: sequences per replica
  int dp_step = 1;           ///< DP moves in multiples of this (whole nodes, EP groups, HSDP groups)
};

struct SizingResult {
  std::string scenario;  ///< display name
  std::string model;
  std::string gpu;
  double target_tokens_per_s = 0.0;
  std::optional<TokenBudget> run;
  KeptLayout layout;
  SizedRun given;  ///< the scenario as written
  SizingOutcome outcome = SizingOutcome::sized;
  /// The size the search ended on: the answer when `outcome` is sized, the smallest DP reaching the
  /// target when it does not fit, the largest one tried when the target is unreachable.
  SizedRun chosen;
  /// The next smaller valid DP's simulation, which falls short of the target; absent when `chosen`
  /// is the smallest valid DP.
  std::optional<SizedRun> smaller;
  std::vector<SizedRun> simulated;  ///< every size simulated, in the order simulated (the given one first)
  ClosedFormSizing closed_form;
  double price_per_gpu_hour = 0.0;  ///< the catalog's USD per GPU-hour; 0 when it has none
  std::string message;              ///< why nothing was sized (outcomes other than sized)

  int gpus() const { return chosen.gpus; }
  /// The share of the simulated GPU count the closed form leaves out: 1 - closed-form GPUs / GPUs.
  double closed_form_shortfall() const;
  /// USD per hour for the chosen cluster; NaN without a price.
  double cluster_per_hour() const;
  /// USD per million tokens at the chosen cluster's simulated rate; NaN without a price.
  double per_million_tokens() const;
  /// With a token budget: days the chosen cluster takes at its simulated rate, its GPU-hours and USD
  /// (NaN without a price).
  double run_days() const;
  double run_gpu_hours() const;
  double run_usd() const;
};

/// Sizes the scenario at `path` for `options.goal` from simulated rates: simulates the scenario as
/// given, proposes the DP its per-GPU rate implies, then simulates candidate sizes (each one loaded
/// with dp, the GPU count and the global batch replaced) until the smallest DP reaching the target is
/// bracketed by one that does not. A target above what `max_gpus` could do at the given per-GPU rate
/// (which only falls as replicas are added) is unreachable without simulating that size. Throws
/// UserError for a bad goal or `max_gpus`, a scenario that cannot be loaded or simulated at some size,
/// or a workload that is not a single step (generate, serve).
SizingResult size_cluster(const std::filesystem::path& path, const scen::Catalog& catalog,
                          const SizingOptions& options);

}  // namespace stepsim::out
