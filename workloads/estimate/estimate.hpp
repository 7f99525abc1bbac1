#pragma once
// The closed-form bottleneck estimate: for a job, what each token demands of every resource of a
// GPU (FLOPs, HBM bytes, NVLink/PCIe bytes, NIC bytes), the rate each resource can sustain, which
// one binds, whether the job fits in memory, and what it costs. docs/model.md states every equation.
//
// Per-token demands are "per GPU-token": the work one GPU does per step divided by the tokens each
// GPU accounts for (global tokens per step / GPUs), so a resource's rate in tokens/s per GPU is its
// usable capacity divided by the demand, and the cluster rate is that times the GPU count.

#include <memory>  // sim/graph.hpp (via topology/resource.hpp) uses std::shared_ptr
#include <optional>
#include <string>
#include <vector>

#include "topology/resource.hpp"
#include "workloads/model/job.hpp"
#include "workloads/layout/placement.hpp"

namespace stepsim::work {

/// FLOPs per token. Model FLOPs are the useful work (6N-style for training, 2N for a forward);
/// hardware FLOPs add what recomputation repeats.
struct FlopsPerToken {
  double matmul_forward = 0.0;     ///< 2 x active matmul parameters (one forward)
  double attention_forward = 0.0;  ///< score and value products of one forward, causal where it applies
  double scan_forward = 0.0;       ///< a hybrid model's Mamba-2 scans and Gated DeltaNet rules (one forward)
  double model = 0.0;              ///< forward (+ backward = 2 x forward when training)
  double recompute = 0.0;  ///< repeated forward work (full: a whole forward; selective: attention core)
  double hardware = 0.0;   ///< model + recompute
  /// hardware FLOPs the busiest GPU does per GPU-token: routed-expert work scaled by the MoE
  /// imbalance (max/mean load); equals `hardware` for dense models.
  double busiest_gpu = 0.0;
};

/// HBM bytes per GPU-token, by what moves them.
struct HbmPerToken {
  double weights = 0.0;      ///< weight reads: each pass over a micro-batch streams the GPU's shard
  double gradients = 0.0;    ///< gradient accumulation writes and reads
  double optimizer = 0.0;    ///< optimizer step over the rank's own shard, amortised over its own tokens
  double activations = 0.0;  ///< kernel inputs and outputs
  double kv_cache = 0.0;     ///< inference: KV reads (decode) and writes
  double total() const { return weights + gradients + optimizer + activations + kv_cache; }
};

enum class Collective : std::uint8_t { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };

/// One communication pattern of the step and the link tier(s) its bytes cross.
struct NetworkTerm {
  std::string name;  ///< e.g. "dp.grad_all_reduce", "tp.all_reduce", "ep.all_to_all"
  RankGroup group = RankGroup::dp;
  Collective collective = Collective::all_reduce;
  GroupPlacement placement;
  double message_bytes = 0.0;              ///< buffer per call per GPU (all-reduce: the whole buffer)
  double calls_per_step = 0.0;             ///< per GPU
  double scale_up_bytes_per_token = 0.0;   ///< sent per GPU-token over NVLink (or PCIe)
  double scale_out_bytes_per_token = 0.0;  ///< sent per GPU-token through the NIC
};

/// One resource's sustainable rate for this job on one GPU.
struct ResourceRate {
  topo::Resource resource = topo::Resource::compute;
  double demand_per_token = 0.0;  ///< FLOPs (compute) or bytes (others) per GPU-token
  double usable_per_s = 0.0;      ///< peak x the GPU's estimate efficiency for this resource
  /// usable / demand: tokens/s per GPU this resource alone allows; +inf when demand is 0.
  double tokens_per_s = 0.0;
};

/// Memory held by the most loaded GPU at its peak: every pipeline stage is evaluated (its layers,
/// the embedding on the first, the head on the last, the micro-batches it keeps in flight).
struct MemoryEstimate {
  int stage = 0;  ///< pipeline stage of the most loaded GPU
  Bytes weights;
  Bytes gradients;
  Bytes optimizer;
  Bytes activations;
  Bytes kv_cache;
  Bytes capacity;                        ///< HBM per GPU that tensors can use (GpuSpec::usable_hbm)
  double micro_batches_in_flight = 0.0;  ///< activation sets alive on that stage at its peak
  Bytes total() const { return weights + gradients + optimizer + activations + kv_cache; }
  bool fits() const { return total() <= capacity; }
  /// Over capacity; 0 when it fits.
  Bytes shortfall() const { return fits() ? Bytes{} : total() - capacity; }
};

/// Prices of each resource and of the work, from the GPU's hourly price.
struct CostEstimate {
  double per_gpu_hour = 0.0;
  double per_tflop_hour = 0.0;      ///< per dense TFLOP/s at the compute precision
  double per_tb_s_hour = 0.0;       ///< per TB/s of HBM bandwidth
  double per_gb_hour = 0.0;         ///< per GB of HBM capacity
  double per_gbps_hour = 0.0;       ///< per Gb/s of NIC bandwidth
  double per_million_tokens = 0.0;  ///< at the bound rate
  double cluster_per_hour = 0.0;    ///< the scenario's GPUs
};

/// GPUs needed for a cluster-wide target rate.
struct Sizing {
  double target_tokens_per_s = 0.0;
  bool feasible = true;  ///< false when the target cannot be reached (see note)
  int gpus_needed = 0;
  int dp_needed = 0;                  ///< replicas (stepsim formulas; the notebook has no replicas)
  double tokens_per_s_per_gpu = 0.0;  ///< per-GPU rate at that size
  double cluster_cost_per_hour = 0.0;
  double cluster_hbm_Bps = 0.0;  ///< HBM traffic the whole cluster moves at the target rate
  std::string note;
};

struct Estimate {
  EstimateFormulas formulas = EstimateFormulas::stepsim;
  WorkloadKind kind = WorkloadKind::train;
  int gpus = 0;  ///< the scenario's GPU count
  double tokens_per_step =
      0.0;                     ///< global: train B x s, prefill replicas x batch x s, decode replicas x batch
  double params = 0.0;         ///< N (total)
  double active_params = 0.0;  ///< N per token (MoE: active)
  FlopsPerToken flops;
  HbmPerToken hbm;
  std::vector<NetworkTerm> network;  ///< empty for the notebook formulas
  std::vector<ResourceRate> rates;   ///< compute, hbm, then the link tiers
  topo::Resource bound = topo::Resource::compute;
  double pipeline_bubble = 0.0;  ///< idle fraction added to compute time: (p-1)/(v m)
  double tokens_per_s_per_gpu = 0.0;
  double tokens_per_s_cluster = 0.0;
  double step_time_s = 0.0;
  double mfu = 0.0;                       ///< model FLOPs at the bound / dense peak
  double intensity_flops_per_byte = 0.0;  ///< hardware FLOPs per HBM byte
  double ridge_flops_per_byte = 0.0;      ///< peak FLOP/s / HBM B/s of the GPU
  std::optional<MemoryEstimate> memory;   ///< absent for the notebook formulas (it has no check)
  CostEstimate cost;
  std::optional<Sizing> sizing;    ///< when a target rate is set
  std::vector<std::string> notes;  ///< assumptions and warnings worth reading
};

/// Estimates `job` with the formulas it asks for (job.estimate.formulas). Throws UserError when
/// the job cannot be estimated (zero peak, an indivisible split).
Estimate estimate(const JobSpec& job);

/// The stepsim model regardless of job.estimate.formulas.
Estimate estimate_stepsim(const JobSpec& job);

/// The seed notebook's formulas exactly (reference.md section 1), from job.estimate.notebook and the
/// GPU's peaks, efficiencies and price.
Estimate estimate_notebook(const JobSpec& job);

std::string_view name(Collective c);

}  // namespace stepsim::work
