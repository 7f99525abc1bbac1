#pragma once
// How big the simulation of one step would be, from the closed form, before anything is built:
// the pre-flight check that refuses a step too large to simulate (a million layers, ten million
// GPUs) with a message instead of running out of memory or time. docs/simulation.md, "Limits".

#include <cstdint>
#include <string>

#include "workloads/model/job.hpp"
#include "workloads/step/rank_sink.hpp"

namespace stepsim::work {

/// The default of SimulateOptions::max_ops (--max-ops): at most about 17 GB and several minutes of
/// simulation at the measured cost per op (the estimate is 1.1 to 2.7 times the ops emitted, so
/// usually less); the largest bundled example is estimated at 1.9 M ops, the largest validation
/// case at 11.5 M.
inline constexpr std::uint64_t kDefaultMaxOps = 50'000'000;

/// An upper estimate of a step's simulation size. Work grows with the step graph's ops and, for
/// the network (topology links, and every collective's flows for all the groups a simulated rank
/// stands for), with the cluster's GPUs; ops() counts both in op-equivalents.
struct StepSize {
  double graph_ops = 0.0;  ///< ops of the step graph, an upper estimate (within ~3x of the builders')
  int simulated_ranks = 0;
  int gpus = 0;
  std::int64_t layers = 0;  ///< transformer layers and MTP modules per model replica
  double micro_batches = 0.0;
  double network_ops = 0.0;  ///< the network's share: kNetworkOpsPerGpu x GPUs
  /// What --max-ops bounds: graph ops plus the network's op-equivalents.
  double ops() const { return graph_ops + network_ops; }
  /// Memory the simulation is expected to take, in bytes (measured per op and per GPU).
  double bytes() const;
};

/// The size of simulating one step of `job` (train, prefill or decode) with `ranks`. Cheap: a few
/// multiplications, no graph, no topology.
StepSize step_size(const JobSpec& job, RankMode ranks);

/// Throws UserError (exit 2) when step_size(job, ranks).ops() exceeds `max_ops`: the size, the
/// limit, and the hints --max-ops N and `stepsim estimate`.
void check_step_size(const JobSpec& job, RankMode ranks, std::uint64_t max_ops);

}  // namespace stepsim::work
