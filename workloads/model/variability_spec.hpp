#pragma once
// A scenario's [variability]: slow GPUs and nodes, part-to-part spread, kernel jitter and host
// stalls (simulated by sim::Variation through workloads/step/variability.hpp; docs/model.md section 18).

#include <cstdint>
#include <vector>

namespace stepsim::work {

/// One GPU or node made slower than its peers by `factor` (a time multiplier: 1.1 = 10% slower).
struct SlowPart {
  int index = 0;  ///< global rank, or node index (rank / gpus_per_node)
  double factor = 1.0;
};

/// [variability]: how GPUs differ from one another and from step to step. Seeded: one seed gives
/// one set of per-GPU speeds and one sequence of per-step draws.
struct VariabilitySpec {
  std::uint64_t seed = 1;
  std::vector<SlowPart> slow_gpus;   ///< named slow GPUs
  std::vector<SlowPart> slow_nodes;  ///< named slow nodes: every GPU of the node
  /// Part-to-part spread: each GPU's kernels take 1 + gpu_speed_sd z longer (z standard normal,
  /// drawn once per GPU), as a fraction; 0 = identical parts.
  double gpu_speed_sd = 0.0;
  /// A tail of throttled parts: this fraction of GPUs (drawn per GPU) is slower by
  /// `throttled_factor` on top of the spread.
  double throttled_fraction = 0.0;
  double throttled_factor = 1.0;
  /// Per-kernel jitter: each kernel's time is multiplied by a mean-1 lognormal draw of this
  /// coefficient of variation, independently per kernel and step; 0 = none.
  double kernel_jitter_cv = 0.0;
  /// Clock wander: each GPU's kernel speed holds for windows of clock_wander_ms and changes from
  /// window to window by a mean-1 lognormal draw of this coefficient of variation, independently
  /// per GPU, window and step; 0 = none.
  double clock_wander_cv = 0.0;
  double clock_wander_ms = 0.0;
  /// Host hiccups: the expected number of stalls per GPU per step, each stall_ms long, before a
  /// kernel drawn uniformly among the GPU's kernels.
  double host_stalls_per_step = 0.0;
  double host_stall_ms = 0.0;
  /// Links below their line rate or down: how many (the links themselves are the cluster's,
  /// topo::ClusterSpec::degraded, since the topology is built from them).
  int degraded_links = 0;
  /// Switches below their line rate or down: how many (topo::ClusterSpec::degraded_switches).
  int degraded_switches = 0;

  /// Whether anything varies (a scenario without [variability] has nothing).
  bool active() const {
    return degraded_links > 0 || degraded_switches > 0 || !slow_gpus.empty() || !slow_nodes.empty() ||
           gpu_speed_sd > 0.0 || (throttled_fraction > 0.0 && throttled_factor != 1.0) ||
           kernel_jitter_cv > 0.0 || (clock_wander_cv > 0.0 && clock_wander_ms > 0.0) ||
           (host_stalls_per_step > 0.0 && host_stall_ms > 0.0);
  }
};

}  // namespace stepsim::work
