#pragma once
// The pieces the stepsim estimate is assembled from, exposed for tests: the shape of one step,
// FLOPs, HBM traffic, network terms and memory capacity. Each takes the job and its StepShape.

#include <vector>

#include "workloads/estimate/estimate.hpp"
#include "workloads/model/param_shares.hpp"

namespace stepsim::work {

/// Quantities of one step every part of the estimate needs.
struct StepShape {
  WorkloadKind kind = WorkloadKind::train;
  int world = 1;
  double tokens_per_step = 0.0;         ///< global
  double tokens_per_gpu = 0.0;          ///< tokens_per_step / world: the GPU-token
  double micro_batches = 1.0;           ///< per step per replica (train: B / (dp b); inference: 1)
  double tokens_per_micro_batch = 0.0;  ///< per replica: b s (train), batch s (prefill), batch (decode)
  double seq_len = 0.0;  ///< train/prefill sequence length; decode: 1 (new tokens per sequence)
  double sequences_per_micro_batch = 0.0;
  double attended_keys = 0.0;         ///< keys one query attends on average (s/2 causal; decode: context)
  double layers_per_stage = 0.0;      ///< layers of the fullest pipeline stage (L / p when even)
  double moe_layers_per_stage = 0.0;  ///< its MoE layers, in proportion
  /// The fullest stage's layers over the mean (1 for an even split): the pipeline runs at its pace.
  double stage_imbalance = 1.0;
  bool training() const { return kind == WorkloadKind::train; }
};

/// Widths (elements per token) of the tensors one transformer layer produces, summed over heads.
struct LayerWidths {
  double hidden = 0.0;
  double q = 0.0;          ///< queries: heads x qk head dim
  double k = 0.0;          ///< keys: kv_heads x qk head dim (MLA: keys are expanded per head)
  double v = 0.0;          ///< values
  double o = 0.0;          ///< attention output before the output projection: heads x v head dim
  double ffn_in = 0.0;     ///< dense FFN up-projection output (2 x ffn when gated)
  double ffn = 0.0;        ///< dense FFN inner width
  double expert_in = 0.0;  ///< one expert's up-projection output
  double expert = 0.0;     ///< one expert's inner width
  double top_k = 0.0;
  double shared_experts = 0.0;
  double heads = 0.0;
};
LayerWidths layer_widths(const ModelSpec& m);

/// Throws UserError when the job's sizes do not divide (global batch by dp x micro batch, ...).
StepShape step_shape(const JobSpec& job);

/// FLOPs per token (see FlopsPerToken).
FlopsPerToken flops_per_token(const JobSpec& job, const ParamShares& params, const StepShape& shape);

/// Parameters resident on the most loaded GPU before ZeRO sharding, split by how data parallelism
/// reduces them (non-expert weights over dp x cp, expert weights over the expert-data-parallel group).
struct GpuParams {
  double nonexpert = 0.0;
  double expert = 0.0;
  double total() const { return nonexpert + expert; }
};
GpuParams params_on_gpu(const JobSpec& job, const ParamShares& params);
/// Parameters on one GPU of pipeline stage `stage` (0-based): its layers' share, plus the
/// embedding on the first stage and the head (and MTP modules) on the last; with the dualpipe
/// schedule, plus those of stage pp - 1 - stage (its copy for the other direction).
GpuParams stage_params(const JobSpec& job, const ParamShares& params, int stage);

/// HBM bytes per GPU-token.
HbmPerToken hbm_per_token(const JobSpec& job, const ParamShares& params, const StepShape& shape);

/// Network terms of one step with the tier each crosses; `scale_up_domain` is the number of GPUs
/// that share NVLink (or PCIe when the GPU has no NVLink).
std::vector<NetworkTerm> network_terms(const JobSpec& job, const ParamShares& params, const StepShape& shape,
                                       int scale_up_domain);

/// Peak memory of the most loaded GPU: every pipeline stage is evaluated and the largest kept.
MemoryEstimate memory_per_gpu(const JobSpec& job, const ParamShares& params, const StepShape& shape);

/// Activation bytes one transformer layer keeps for one micro-batch on one GPU (Korthikanti et al.
/// 2022, generalised to any FFN width, gated FFNs and grouped-query attention), before pipelining.
double layer_activation_bytes(const JobSpec& job, const StepShape& shape);

/// Cost lines of one GPU at a bound rate of `tokens_per_s_per_gpu`.
CostEstimate cost_lines(const JobSpec& job, double tokens_per_s_per_gpu);

/// Bytes a collective sends per GPU over each tier, per call, for a buffer of `bytes`.
struct TierBytes {
  double scale_up = 0.0;
  double scale_out = 0.0;
};
TierBytes collective_bytes(Collective c, double bytes, const GroupPlacement& where);

/// Hidden-vector copies per routed token that DeepEP's normal kernels move for a node-limited MoE
/// dispatch (moe.max_nodes_per_token > 0) over an EP group placed as `where` (a scale-up domain as
/// the node): one per GPU holding the token's experts over NVLink, except the receiving peer, and
/// one per remote domain through the NIC. Round-robin routing is enumerated over its windows;
/// random routing is limited to max_nodes_per_token domains and drawn without replacement.
struct MergedCopies {
  double scale_up = 0.0;
  double scale_out = 0.0;
};
MergedCopies merged_copies(const JobSpec& job, const GroupPlacement& where);

/// ceil() that ignores floating-point noise below 1e-9 relative, so that 1120.0000000000002 GPUs
/// is 1120 and not 1121.
int ceil_count(double x);

}  // namespace stepsim::work
