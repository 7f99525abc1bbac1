#pragma once
// Goodput of a training run with failures and checkpoints: the job's failure rate from its
// components, the checkpoint's size and times from the model and the storage, and the Monte Carlo
// (goodput_monte_carlo.hpp) at the chosen checkpoint interval and over a range of intervals.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/quantity.hpp"
#include "topology/topology.hpp"
#include "workloads/model/job.hpp"
#include "workloads/reliability/goodput_monte_carlo.hpp"
#include "workloads/reliability/reliability_spec.hpp"

namespace stepsim::work {

/// The parts of a job that can fail and stop it, counted from its topology: every GPU, every node
/// (gpus_per_node GPUs), every GPU's scale-out NIC and every scale-out switch (leaf, spine, core or
/// custom). NVSwitches are not counted apart: the Llama 3 report files NVLink failures under its
/// GPU rows.
struct ComponentCounts {
  double gpus = 0.0;
  double nodes = 0.0;
  double nics = 0.0;
  double switches = 0.0;
};
ComponentCounts component_counts(const topo::Topology& topology);

/// One kind of component and what its failures contribute to the job's rate.
struct ComponentFailures {
  std::string_view name;  ///< "GPU", "node", "NIC", "switch"
  double count = 0.0;
  double mtbf_hours = 0.0;         ///< of one component
  double failures_per_hour = 0.0;  ///< count / mtbf
};

/// The job fails when any of its components does: the rates add.
struct JobFailureRate {
  std::array<ComponentFailures, 4> components;  ///< GPU, node, NIC, switch
  double failures_per_hour = 0.0;
  double mtbf_hours() const;  ///< 1 / rate; infinity when nothing fails
};
JobFailureRate job_failure_rate(const FailureRates& rates, const ComponentCounts& counts);

/// A checkpoint holds one copy of the model state: every parameter's working copy
/// (precision.param_bytes, bf16: 2) and its optimizer state (precision.optimizer_bytes, Adam: fp32
/// master weights and two moments, 12), the per-parameter bytes the memory estimate charges, summed
/// over the whole model once (the ranks of one replica together hold it; data-parallel copies
/// are not written twice).
struct CheckpointCost {
  double params = 0.0;
  double bytes_per_param = 0.0;
  Bytes bytes;           ///< params x bytes_per_param
  Bytes bytes_per_gpu;   ///< bytes / GPUs: every GPU saves an equal share (fully parallel save)
  double write_s = 0.0;  ///< bytes / storage write bandwidth
  double read_s = 0.0;   ///< bytes / storage read bandwidth
  /// What stops training per checkpoint: write_s (sync), or bytes_per_gpu over the GPU's PCIe
  /// link to host memory (async).
  double block_s = 0.0;
  double durable_s = 0.0;  ///< after the block until restorable: 0 (sync), write_s (async)
};
/// Throws UserError for an asynchronous checkpoint on a GPU with no PCIe bandwidth in the catalog.
CheckpointCost checkpoint_cost(const JobSpec& job, double params, const CheckpointSpec& spec);

/// How long the run is: `tokens` (> 0) training tokens, or `steps` (> 0) when tokens is 0.
struct RunLength {
  double tokens = 0.0;
  std::int64_t steps = 0;
};

/// What the goodput command reports.
struct GoodputAssessment {
  double step_s = 0.0;
  double tokens_per_step = 0.0;
  std::int64_t steps = 0;
  ReliabilitySpec spec;
  JobFailureRate failures;
  CheckpointCost checkpoint;
  GoodputPlan plan;
  MonteCarloOptions monte_carlo;
  YoungDaly young_daly;
  std::int64_t interval_steps = 1;  ///< the interval asked for, or Young/Daly's when none was
  bool interval_from_young_daly = false;
  GoodputStats at_interval;         ///< the Monte Carlo at interval_steps
  std::vector<GoodputStats> sweep;  ///< intervals around Young/Daly's, in increasing order
  std::size_t best = 0;             ///< the sweep's highest goodput
  std::vector<std::string> notes;   ///< where the model's assumptions are stretched
  /// The simulated step's busiest GPU memory peak against usable HBM (the caller fills them from
  /// its simulation): a step that does not fit makes every wall time here not achievable.
  double memory_peak_bytes = 0.0;
  double usable_hbm_bytes = 0.0;
  bool step_fits() const { return memory_peak_bytes <= usable_hbm_bytes; }
  double failure_free_s() const { return at_interval.useful_s + at_interval.checkpoint_s; }
};

/// Goodput of `length` of training at the simulated step `step_s` (with `tokens_per_step` across
/// the job) on `topology`. Throws UserError for a run length out of range (no steps, a run past
/// the Monte Carlo's time range).
GoodputAssessment assess_goodput(const JobSpec& job, const topo::Topology& topology, double step_s,
                                 double tokens_per_step, double params, const ReliabilitySpec& spec,
                                 const RunLength& length, const MonteCarloOptions& options);

/// The intervals the sweep tries: Young/Daly's K times 2^(j/4) for j = -12..12 (1/8x to 8x),
/// rounded, between 1 and `steps`, with `chosen` added; sorted, without repeats.
std::vector<std::int64_t> sweep_intervals(std::int64_t young_daly_steps, std::int64_t chosen,
                                          std::int64_t steps);

}  // namespace stepsim::work
