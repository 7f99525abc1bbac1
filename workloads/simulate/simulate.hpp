#pragma once
// One step of a job, simulated end to end: the topology, the step graph, the engine run with the
// flow-level network, and what the results mean (metrics, breakdown, critical path, memory), with
// the closed-form estimate alongside.

#include <memory>
#include <optional>
#include <vector>

#include "sim/critical_path.hpp"
#include "sim/observer.hpp"
#include "sim/run_result.hpp"
#include "topology/flow_network.hpp"
#include "topology/topology.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/simulate/step_clock.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/step_plan.hpp"
#include "workloads/step/step_report.hpp"
#include "workloads/step/step_size.hpp"
#include "workloads/step/variability.hpp"

namespace stepsim::work {

struct SimulateOptions {
  RankMode ranks = RankMode::representative;
  topo::CommConfig comm;
  topo::LinkAccounting links = topo::LinkAccounting::off;
  sim::RunObserver* observer = nullptr;  ///< receives op starts and ends as they happen; not owned
  /// Refuse (UserError) a step whose estimated size exceeds this many ops (workloads/step/step_size.hpp).
  std::uint64_t max_ops = kDefaultMaxOps;
  /// Steps to simulate (training and single inference steps). With more than one, or with
  /// [variability], the step is run `steps` times with that step's draws, the run and report
  /// describe the median step and Simulation::steps the distribution.
  int steps = 1;
  /// Every GPU replayed over the representative step (workloads/step/replay_step.hpp): with
  /// representative ranks only. Simulation::steps then holds `steps` replayed steps with
  /// [variability]'s draws, and the run and report describe the representative (nominal) step.
  bool replay = false;
};

/// Throughput and efficiency of the simulated step.
struct StepMetrics {
  double step_time_s = 0.0;
  double tokens_per_step = 0.0;  ///< across the job
  double tokens_per_s = 0.0;     ///< across the job
  double tokens_per_s_per_gpu = 0.0;
  double model_flops_per_step = 0.0;     ///< useful FLOPs (estimate's model FLOPs per token x tokens)
  double hardware_flops_per_step = 0.0;  ///< executed, recompute included
  double mfu = 0.0;                      ///< model FLOPs / (step x GPUs x dense peak)
  double hfu = 0.0;                      ///< hardware FLOPs / (step x GPUs x dense peak)
  double model_tflops_per_gpu = 0.0;     ///< model FLOPs per GPU per second / 1e12
  /// Inference: time to first token (prefill) or per-token latency (decode), the step time; 0 in
  /// training.
  double latency_s = 0.0;
  double tokens_per_s_per_replica = 0.0;  ///< tokens/s of one model replica (tokens_per_s / dp)
  /// MoE: extra time the busiest expert rank spends because routing is not balanced: its expert
  /// kernels and all-to-alls, each timed alone, against the same ops under balanced routing.
  double imbalance_s = 0.0;
};

struct Simulation {
  std::shared_ptr<const topo::Topology> topology;
  std::shared_ptr<const topo::TransferTable> transfers;
  StepPlan plan;
  sim::RunResult run;
  sim::CriticalPath critical;
  StepReport report;
  StepMetrics metrics;
  Estimate estimate;               ///< the closed-form model of the same job
  std::vector<double> link_bytes;  ///< per topology link, when options.links asks for them
  /// Link loads over the step, when options.links is timeline; the watched links are those of
  /// the simulated ranks' GPUs.
  topo::LinkTimeline link_timeline;
  Bytes usable_hbm;  ///< HBM per GPU that tensors can use (GpuSpec::usable_hbm)
  Bytes device_hbm;  ///< HBM per GPU as the device has it, before the reserve
  bool fits = true;  ///< the busiest rank's memory peak fits in HBM
  /// Several steps (SimulateOptions::steps, [variability]); empty for one step with nothing varying.
  StepDistribution steps;
  /// The SM clock the step ran at and the tensor-core duty that set it (step_clock.hpp).
  StepClock clock;
};

/// Simulates one step of `job`: a training step, or an inference step (prefill or decode).
Simulation simulate(const JobSpec& job, const SimulateOptions& options = {});
/// As above on a topology built earlier for the same cluster (sweeps share it).
Simulation simulate(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                    const SimulateOptions& options = {});

/// One job's step, built once and simulated on clusters that differ only in their scale-out fabric
/// (`cluster.fabric`: NIC speed, tiers, oversubscription, latencies). The step builder reads the
/// job, but the topology only through the payload ids its planner returns, which the topology
/// planner hands out in request order whatever the links; so the graph is the same on every such
/// cluster, and only its collectives are planned again on each topology (their table is a few
/// percent of the build). Sweeps keep one per group of points that differ only there, and skip
/// the build, a third of a simulated point. Not thread-safe: one per thread.
class StepProgram {
 public:
  /// The same Simulation as simulate(job, topology, options). The step is built on the first call
  /// (and again after a call whose plan was not reclaimed, or for another RankMode); later calls
  /// replay the first build's collectives on their topology. Every job given to one program must
  /// equal the first one except in cluster.fabric.
  Simulation simulate(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                      const SimulateOptions& options = {});
  /// Takes back the plan that `simulation`, the last this program returned, carries, so that the
  /// next call reuses it instead of building the step again (without it, it builds anew).
  void reclaim(Simulation&& simulation);

 private:
  std::optional<StepPlan> plan_;  ///< between simulations: the step, unless lent to one
  RankMode ranks_ = RankMode::representative;
  StepClock clock_;                      ///< the built step's clock
  std::optional<std::size_t> lent_ops_;  ///< ops of the plan lent to the last simulation
  /// Every CommPlanner::plan call of the build, in order, and the payload id each returned.
  std::vector<CommRequest> requests_;
  std::vector<std::uint32_t> payloads_;
};

}  // namespace stepsim::work
