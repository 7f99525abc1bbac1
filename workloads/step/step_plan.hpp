#pragma once
// A built step: the immutable graph plus what the reports need to read its results (which pass,
// layer and micro-batch each op belongs to, which simulated rank runs it, how memory changes).

#include <cstdint>
#include <vector>

#include "sim/graph.hpp"
#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/step/op_sink.hpp"

namespace stepsim::work {

/// What one graph op is, for reports and traces. Indexed by sim::OpId.
struct OpInfo {
  Pass pass = Pass::forward;
  bool is_comm = false;
  bool is_host = false;  ///< a host-side launch or synchronisation (eager PyTorch), not a GPU op
  ParallelDim comm_dim = ParallelDim::tp;  ///< comm ops: the group that communicates
  topo::OpClass op_class = topo::OpClass::elementwise;
  std::int16_t layer = -1;       ///< global layer index; -1 for embedding/head/optimizer/DP
  std::int32_t microbatch = -1;  ///< -1 outside micro-batches
  std::uint16_t rank = 0;        ///< index into StepPlan::ranks
  /// Representative comm ops: index into StepPlan::comm_groups, the groups whose members start this
  /// op together; kNoCommGroups for other ops and in full mode.
  std::uint16_t comm_groups = kNoCommGroups;
  static constexpr std::uint16_t kNoCommGroups = 0xffff;
};

/// A change of one simulated rank's memory in use, tied to an op's start or end.
struct MemoryEvent {
  sim::OpId op = 0;
  enum class At : std::uint8_t { start, end } at = At::start;
  std::uint16_t rank = 0;
  double bytes = 0.0;  ///< positive: allocated; negative: freed
};

/// What one op would have cost with perfectly balanced MoE routing: a kernel's duration alone, or
/// the payload of the balanced collective (planned but never run).
struct BalancedOp {
  sim::OpId op = 0;
  Time kernel{};                        ///< kernels: balanced duration
  double flops = 0.0;                   ///< kernels: balanced FLOPs
  std::uint32_t payload = 0xffffffffu;  ///< collectives: the balanced transfer's payload
};

/// How MoE routing turned out over the MoE layers the plan holds (for reports); 1, 1, 0 when dense.
struct RoutingSummary {
  int moe_layers = 0;
  double expert_imbalance = 1.0;  ///< mean over layers of max / mean expert load
  double rank_imbalance = 1.0;    ///< mean over layers of max / mean copies per EP rank
  double dropped_fraction = 0.0;  ///< mean over layers: token copies dropped by the capacity limit
};

/// One simulated GPU.
struct SimRank {
  int rank = 0;   ///< global rank (= GPU index)
  int stage = 0;  ///< pipeline rank
  sim::ProcessorId processor = 0;
  sim::StreamId compute = 0;
  /// The second compute stream of overlapped forward-backward pairs (ep_overlap), else kNoStream.
  sim::StreamId compute_pair = kNoStream;
  /// DualPipe: the stream of the weight-gradient kernels a zero-bubble backward defers, else kNoStream.
  sim::StreamId compute_weights = kNoStream;
  static constexpr sim::StreamId kNoStream = 0xffffffffu;
};

/// Memory that lives for the whole step on one rank, by kind.
struct StaticMemory {
  double weights = 0.0;
  double gradients = 0.0;
  double optimizer = 0.0;
  double kv_cache = 0.0;               ///< inference: the KV cache of every sequence in the batch
  double low_precision_weights = 0.0;  ///< FP8 copies of the linear layers' weights
  double total() const { return weights + gradients + optimizer + kv_cache + low_precision_weights; }
};

/// Inference: how much KV cache fits beside the weights on the most loaded GPU.
struct KvCapacity {
  double bytes_per_token = 0.0;  ///< KV bytes one cached token takes on that GPU (its layers, its TP share)
  double free_bytes = 0.0;       ///< HBM capacity minus its weights
  long long max_batch = 0;       ///< sequences that fit at the scenario's context (0: weights alone overflow)
  long long max_context = 0;     ///< tokens per sequence that fit at the scenario's batch
  /// A hybrid model's Mamba layers: the fixed decode state one sequence holds on that GPU.
  double state_bytes_per_sequence = 0.0;
};

struct StepPlan {
  sim::StepGraph graph;
  std::vector<OpInfo> info;                 ///< per op
  std::vector<SimRank> ranks;               ///< simulated ranks
  std::vector<StaticMemory> static_memory;  ///< per simulated rank
  std::vector<MemoryEvent> memory_events;   ///< in op order
  int world = 1;                            ///< GPUs in the job
  int microbatches = 1;                     ///< per pipeline per step
  double tokens_per_step = 0.0;             ///< across the whole job
  double hardware_flops_per_step = 0.0;     ///< executed FLOPs (incl. recompute) across the job
  std::vector<BalancedOp> balanced;         ///< MoE ops whose cost depends on routing imbalance, by op id
  RoutingSummary routing;
  KvCapacity kv;  ///< inference only
  /// Representative mode: each comm op's groups (global ranks) at its stage or stage pair: its own
  /// group and every image (OpInfo::comm_groups indexes this). Every GPU's replay
  /// (workloads/step/replay_step.hpp) starts each group's copies of the op together.
  std::vector<std::vector<std::vector<int>>> comm_groups;
};

}  // namespace stepsim::work
