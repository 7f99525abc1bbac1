#pragma once
// The headline figures of a simulated step, gathered once for the report and the comparison
// (the JSON summary prints the same numbers from the same sources).

#include <array>
#include <string>

#include "workloads/simulate.hpp"

namespace stepsim::out {

struct RunFigures {
  double step_time_s = 0.0;
  double tokens_per_s = 0.0;  ///< the whole job
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  std::string bottleneck;  ///< the critical path's main resource ("compute", "nic", ...)
  std::array<double, work::kDimCount> exposed_comm_s{};  ///< mean over ranks, by ParallelDim
  bool fits = true;
  double peak_bytes = 0.0;          ///< busiest rank's memory peak
  double capacity_bytes = 0.0;      ///< HBM per GPU
  double cluster_per_hour = 0.0;    ///< USD
  double per_million_tokens = 0.0;  ///< USD; 0 when nothing was produced
  int gpus = 0;
};

RunFigures run_figures(const work::JobSpec& job, const work::Simulation& s);

}  // namespace stepsim::out
