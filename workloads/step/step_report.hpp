#pragma once
// What a simulated step's records mean: where each rank's time went, how much communication was
// hidden, what bounded the critical path, and how memory rose and fell over the schedule.

#include <array>
#include <vector>

#include "sim/critical_path.hpp"
#include "sim/run_result.hpp"
#include "topology/resource.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

inline constexpr std::size_t kDimCount = 5;  ///< ParallelDim values

/// One rank's step time, partitioned: every second of [0, step] is in exactly one field.
struct Breakdown {
  double compute_s = 0.0;                          ///< kernels bound by tensor/ALU throughput
  double memory_bound_s = 0.0;                     ///< kernels bound by HBM bandwidth
  std::array<double, kDimCount> exposed_comm_s{};  ///< compute idle while a comm op of the group ran
  double bubble_s = 0.0;      ///< compute idle waiting on other ranks' compute (pipeline fill/drain)
  double host_bound_s = 0.0;  ///< compute idle waiting for the host to launch the next kernel
  double total() const;
};

/// Time spent in communication per group and how much of it compute hid.
struct CommOverlap {
  std::array<double, kDimCount> busy_s{};     ///< union of the group's comm intervals on the rank
  std::array<double, kDimCount> exposed_s{};  ///< the part during which compute was idle
};

struct MemoryPeak {
  Bytes static_state;  ///< weights + gradients + optimizer state
  Bytes activations;   ///< activations (and recompute transients) at the peak
  Bytes peak;          ///< static + activations at the peak
  double peak_time_s = 0.0;
  std::vector<std::pair<double, double>> timeline;  ///< (time s, bytes in use) at each change
};

struct RankReport {
  int rank = 0;
  int stage = 0;
  Breakdown breakdown;
  /// The time the rank's host spends running its launches and framework code (the union of its host
  /// ops; waits on the GPU excluded): a lower bound on the step that the host alone sets.
  double host_busy_s = 0.0;
  CommOverlap overlap;
  MemoryPeak memory;
};

struct StepReport {
  double step_time_s = 0.0;
  std::vector<RankReport> ranks;  ///< per simulated rank
  Breakdown mean;                 ///< average over simulated ranks (also sums to the step time)
  CommOverlap mean_overlap;
  std::array<double, static_cast<std::size_t>(topo::Resource::count)> critical_s{};  ///< by Resource
  std::size_t peak_rank = 0;  ///< the simulated rank with the highest memory peak
  double host_busy_s = 0.0;   ///< the largest RankReport::host_busy_s of the simulated ranks
};

/// Analyses a finished run of `plan`.
StepReport analyse_step(const StepPlan& plan, const sim::RunResult& run, const sim::CriticalPath& path);

}  // namespace stepsim::work
