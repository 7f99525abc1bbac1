#pragma once
// Several jobs simulated together on one cluster: every GPU of every job in one step graph over one
// topology and one flow network, so that their collectives share links by max-min fairness.
//
// Each job's step is built with every rank simulated (RankMode::all), its GPU ids mapped to the
// cluster GPUs its placement gives, and its collectives planned into one shared transfer table.
// The combined graph repeats each job's step back to back (a zero-length barrier after each step
// waits for all of its ops; the next step's first op on every stream waits for the barrier), each
// job starting at its ClusterJob::start_s. Jobs with shorter steps run more of them, so that the
// fabric stays loaded while the longest job runs its steps. A job's shared step time is the mean of its steps
// that end before the first job finishes (the window in which every job runs); its time alone is
// the same step simulated by itself at the same placement.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topology/topology.hpp"
#include "workloads/cluster/cluster_jobs.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::work {

struct ClusterSimOptions {
  int steps = 0;  ///< steps each job runs at least; 0 = ClusterJobs::steps
  int max_steps_per_job = 1000;
  /// Refuse (UserError) a combined graph above this many ops (every job's steps together).
  std::uint64_t max_ops = kDefaultMaxOps;
};

/// One job of the cluster, alone and among the others.
struct ClusterJobOutcome {
  std::string name;
  std::vector<int> nodes;  ///< the cluster nodes it ran on
  int gpus = 0;
  double tokens_per_step = 0.0;
  double alone_step_s = 0.0;   ///< its step simulated by itself at the same placement
  double start_s = 0.0;        ///< when its first step started
  double shared_step_s = 0.0;  ///< mean of its steps in the window (its first step if none ended in it)
  int steps_run = 0;           ///< steps simulated in the shared run
  int steps_in_window = 0;     ///< of those, ended while every job was still running
  std::vector<double> shared_steps_s;  ///< every simulated step, in order
  /// The busiest GPU's memory peak in its step alone, against the GPU's usable HBM: a job that
  /// does not fit is reported as such, its times not achievable as configured.
  double memory_peak_bytes = 0.0;
  double usable_hbm_bytes = 0.0;
  bool fits() const { return memory_peak_bytes <= usable_hbm_bytes; }
  double slowdown() const { return alone_step_s > 0.0 ? shared_step_s / alone_step_s - 1.0 : 0.0; }
};

/// A link that carries traffic of more than one job.
struct ContendedLink {
  topo::LinkId link = 0;
  topo::LinkKind kind = topo::LinkKind::nic;
  std::string from, to;                ///< "gpu12", "leaf0", "spine3", "nvswitch1"
  double capacity_Bps = 0.0;           ///< line rate, one direction
  std::vector<double> bytes_per_step;  ///< per job (0 when the job does not use it), wire bytes
  double busy_s = 0.0;                 ///< time it carried any load in the shared run
  double peak_utilisation = 0.0;       ///< highest load / line rate in the shared run
};

struct ClusterSimulation {
  std::shared_ptr<const topo::Topology> topology;
  std::vector<ClusterJobOutcome> jobs;
  std::vector<ContendedLink> contended;  ///< fabric tiers first, then by bytes
  double window_s = 0.0;                 ///< time until the first job finished all its steps
  double makespan_s = 0.0;               ///< time until the last one did
  std::size_t ops = 0;                   ///< ops of the combined graph
};

/// Simulates `jobs` together (see the file comment). Throws UserError for jobs that cannot share
/// the cluster (check_cluster_job, place_jobs) or a combined graph above options.max_ops.
ClusterSimulation simulate_cluster(const ClusterJobs& jobs, const ClusterSimOptions& options = {});

}  // namespace stepsim::work
