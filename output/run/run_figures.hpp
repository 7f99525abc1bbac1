#pragma once
// The headline figures of a simulated step, gathered once for the terminal report, the JSON
// summary, the HTML report and the comparison, so that they print the same numbers from the same
// sources: whether the step fits, what it waits on, and its rates.

#include <array>
#include <string>

#include "workloads/simulate/explain.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

struct RunFigures {
  double step_time_s = 0.0;
  double tokens_per_s = 0.0;  ///< the whole job
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  std::string mfu_peak;         ///< the precision whose dense peak MFU divides by: "BF16", "FP8"
  double mfu_peak_flops = 0.0;  ///< that peak, FLOP/s per GPU
  work::StepVerdict verdict;    ///< what the step waits on most (workloads/simulate/explain.hpp)
  std::string bottleneck;       ///< the verdict in words (verdict_text)
  std::array<double, work::kDimCount> exposed_comm_s{};  ///< mean over ranks, by ParallelDim
  /// The busiest simulated rank's host busy time (eager launches, framework code); 0 without them.
  double host_busy_s = 0.0;
  bool fits = true;
  double peak_bytes = 0.0;          ///< busiest rank's memory peak
  double capacity_bytes = 0.0;      ///< HBM per GPU that tensors can use
  double headroom_bytes = 0.0;      ///< capacity less peak: negative when the step does not fit
  double cluster_per_hour = 0.0;    ///< USD
  double per_million_tokens = 0.0;  ///< USD; 0 when nothing was produced
  int gpus = 0;
};

RunFigures run_figures(const work::JobSpec& job, const work::Simulation& s);

/// "exposed ep communication (38.2% of the step), then compute (36.0%)"; the second
/// part is left out when nothing else took time.
std::string verdict_text(const work::StepVerdict& v);

/// "fits: peak 61.20 GB of 76.84 GB usable per GPU, 15.64 GB headroom", or
/// "DOES NOT FIT: peak 118.18 GB of 80.00 GB usable per GPU, 38.18 GB over".
std::string feasibility_text(const RunFigures& f);

/// What marks a rate of a step that does not fit: "not achievable: does not fit in memory".
inline constexpr const char* kNotAchievable = "not achievable: does not fit in memory";

}  // namespace stepsim::out
