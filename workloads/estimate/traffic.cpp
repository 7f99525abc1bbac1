// HBM traffic per token: weights, gradients, optimizer state, activations and KV cache.
#include <algorithm>

#include "workloads/estimate/estimate_parts.hpp"
#include "workloads/model/kv.hpp"

namespace stepsim::work {

namespace {

/// The share of the layers whose forward runs again (full recomputation, maybe of some layers).
double full_recompute(const JobSpec& job, const StepShape& s) {
  return s.training() ? job.full_recompute_share() : 0.0;
}

/// Stage extras (embedding, head, MTP) for the first and the last pipeline stage.
struct StageExtras {
  GpuParams first;
  GpuParams last;
};

StageExtras stage_extras(const JobSpec& job, const ParamShares& p) {
  const bool training = job.workload.kind == WorkloadKind::train;
  // MTP modules sit after the last layer and only train; their routed experts shard like the rest.
  const double mtp_expert = training ? p.mtp_routed() : 0.0;
  const double mtp_nonexpert = training ? p.mtp - p.mtp_routed() : 0.0;
  const double t = job.parallel.tp;
  const double expert_split = double(job.parallel.ep) * job.parallel.expert_tp;
  StageExtras e;
  // Vocabulary-parallel embedding and head; with pipelining and tied embeddings the last stage
  // keeps its own copy of the table for the output projection (Megatron).
  const double head = p.lm_head > 0.0 ? p.lm_head : (job.parallel.pp > 1 ? p.embedding : 0.0);
  e.first.nonexpert = (p.embedding + p.position) / t;
  e.last.nonexpert = (head + mtp_nonexpert) / t;
  e.last.expert = mtp_expert / expert_split;
  if (job.parallel.pp == 1) {
    e.first.nonexpert += e.last.nonexpert;
    e.first.expert += e.last.expert;
  }
  return e;
}

}  // namespace

LayerWidths layer_widths(const ModelSpec& m) {
  LayerWidths w;
  w.hidden = m.hidden;
  w.heads = m.heads;
  if (m.attention == AttentionKind::mla) {
    const double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    w.q = w.k = m.heads * qk;  // latent keys are expanded to every head before attention
    w.v = w.o = double(m.heads) * m.mla.v_head_dim;
  } else {
    w.q = w.o = double(m.heads) * m.head_dim;
    w.k = w.v = double(m.kv_heads) * m.head_dim;
  }
  const double gate = m.activation == Activation::swiglu ? 2.0 : 1.0;
  w.ffn = m.ffn;
  w.ffn_in = gate * m.ffn;
  w.expert = m.expert_ffn;
  w.expert_in = gate * m.expert_ffn;
  w.top_k = m.top_k;
  w.shared_experts = m.shared_experts;
  return w;
}

namespace {

GpuParams one_stage_params(const JobSpec& job, const ParamShares& p, int stage) {
  const ParallelSpec& par = job.parallel;
  // Layer weights in proportion to the stage's layers (uneven end stages: first/last_stage_layers).
  const double share = double(par.stage_layers(stage, job.model.layers)) / job.model.layers;
  GpuParams g;
  g.nonexpert = p.layer_nonexpert() * share / par.tp;
  g.expert = p.routed_experts * share / (double(par.ep) * par.expert_tp);
  const StageExtras e = stage_extras(job, p);
  if (stage == 0) {
    g.nonexpert += e.first.nonexpert;
    g.expert += e.first.expert;
  }
  if (stage == par.loss_stage() && par.pp > 1) {  // pp = 1: stage_extras folded it into `first`
    g.nonexpert += e.last.nonexpert;
    g.expert += e.last.expert;
  }
  return g;
}

}  // namespace

GpuParams stage_params(const JobSpec& job, const ParamShares& p, int stage) {
  GpuParams g = one_stage_params(job, p, stage);
  const int pp = job.parallel.pp;
  if (job.parallel.schedule == PipelineSchedule::dualpipe && pp > 1) {
    // DualPipe: pipeline rank r also holds stage pp - 1 - r, for the other direction.
    const GpuParams mirror = one_stage_params(job, p, pp - 1 - stage);
    g.nonexpert += mirror.nonexpert;
    g.expert += mirror.expert;
  }
  return g;
}

GpuParams params_on_gpu(const JobSpec& job, const ParamShares& p) {
  GpuParams most;
  for (int stage = 0; stage < job.parallel.pp; ++stage) {
    const GpuParams g = stage_params(job, p, stage);
    if (g.total() > most.total()) most = g;
  }
  return most;
}

namespace {

/// Forward activation elements read and written per token, summed over every GPU of a replica
/// (tensor-parallel ranks duplicate what they do not shard).
double activation_io_per_token(const JobSpec& job, const LayerWidths& w) {
  const ModelSpec& m = job.model;
  const double t = job.parallel.tp;
  const double h = w.hidden;
  // Norms and residual adds: read and write the hidden vector (10h); sharded only with SP.
  const double norm_residual = 10.0 * h * (job.parallel.sequence_parallel ? 1.0 : t);
  // GEMM inputs and outputs at hidden width (QKV in, out-proj out, MLP in, MLP out): every rank.
  const double gemm_edges = 4.0 * h * t;
  const double attention = 2.0 * (w.q + w.k + w.v) + 2.0 * w.o;  // QKV out, core in/out, out-proj in
  const double dense_ffn = 2.0 * w.ffn_in + 2.0 * w.ffn;         // up out, act in/out, down in
  const double shared = w.shared_experts * (2.0 * w.expert_in + 2.0 * w.expert);
  // Dispatch and combine permute the hidden vector to and from top_k copies; each copy runs an expert.
  const double routed =
      2.0 * h + w.top_k * (2.0 * h + job.moe.imbalance * (2.0 * h + 2.0 * w.expert_in + 2.0 * w.expert));
  const double moe_layers = m.moe_layers();
  const double dense_layers = m.ffn_layers() - moe_layers;
  // Embedding lookup writes h; the head reads h on every rank and writes and reads the logits.
  const double head = h + h * t + 2.0 * m.vocab;
  // A hybrid model's layers are one block each: half a transformer layer's norms, residuals and
  // hidden-width GEMM edges; a Mamba-2 mixer moves in_proj's output, the convolution's input and
  // output, the scan's input and output and the gated norm's (MambaLayer's kernels).
  const double blocks = m.is_hybrid() ? 0.5 : 1.0;
  const MambaDims& a = m.mamba;
  const double mamba = 2.0 * a.in_proj_width() + 2.0 * a.conv_channels() + 4.0 * a.inner();
  // A Gated DeltaNet mixer: in_proj's output, the convolution's, q and k normalised and repeated, the
  // rule's w, u, v_new and output, the gated norm's.
  const GatedDeltaDims& g = m.gated_delta;
  const double gdn =
      2.0 * g.in_proj_width() + 2.0 * g.conv_channels() + 4.0 * g.value_heads * g.key_dim + 8.0 * g.v_width();
  return m.layers * blocks * (norm_residual + gemm_edges) + m.attention_layers() * attention +
         dense_layers * dense_ffn + moe_layers * (shared + routed) + m.mamba_layers() * mamba +
         m.gated_delta_layers() * gdn + head;
}

double attention_core_io_per_token(const JobSpec& job, const LayerWidths& w) {
  return job.model.attention_layers() * (w.q + w.k + w.v + w.o);
}

}  // namespace

namespace {

HbmPerToken training_hbm(const JobSpec& job, const ParamShares& params, const StepShape& s) {
  const PrecisionSpec& prec = job.precision;
  const ParallelSpec& par = job.parallel;
  const GpuParams gp = params_on_gpu(job, params);
  const double full = full_recompute(job, s);
  const LayerWidths w = layer_widths(job.model);
  HbmPerToken b;
  // Forward and backward (input gradient) stream the weights; full recompute adds a forward;
  // ZeRO-3 first writes each gathered layer into HBM, then reads it.
  const double passes = (2.0 + full) * (par.zero_stage >= 3 ? 2.0 : 1.0);
  b.weights = s.micro_batches * passes * gp.total() * prec.param_bytes / s.tokens_per_gpu;
  // The first micro-batch writes the gradient buffer, later ones read-modify-write it.
  b.gradients = (2.0 * s.micro_batches - 1.0) * gp.total() * prec.grad_bytes / s.tokens_per_gpu;
  const double dense_group = par.zero_stage >= 1 ? double(par.dp) * par.cp : 1.0;
  const double expert_group = par.zero_stage >= 1 ? double(par.expert_dp()) : 1.0;
  const double shard = gp.nonexpert / dense_group + gp.expert / expert_group;
  // Adam reads the gradient, reads and writes master weights and moments, and every working
  // weight is rewritten once: by the update (ZeRO-0, ZeRO-3) or by the all-gather after it.
  const double written = par.zero_stage >= 3 ? shard : gp.total();
  b.optimizer = (shard * (prec.grad_bytes + 2.0 * prec.optimizer_bytes) + written * prec.param_bytes) /
                s.tokens_per_gpu;
  const double act_passes = 3.0 + full;  // backward touches twice what forward does
  b.activations = act_passes * activation_io_per_token(job, w) * prec.activation_bytes;
  if (job.recompute == Recompute::selective)
    b.activations += attention_core_io_per_token(job, w) * prec.activation_bytes;
  return b;
}

}  // namespace

HbmPerToken hbm_per_token(const JobSpec& job, const ParamShares& params, const StepShape& s) {
  if (s.training()) return training_hbm(job, params, s);
  const PrecisionSpec& prec = job.precision;
  const double kv_per_token =  // all TP ranks of a replica
      kv_bytes_per_token_layer_rank(job.model, prec.kv_bytes, job.parallel.tp) * job.model.layers *
      job.parallel.tp;  // x the attention layers' share below (attended_keys is a mean over all layers)
  HbmPerToken b;
  // Inference: one forward per step; the weights are read once per step for the whole batch.
  b.weights = params_on_gpu(job, params).total() * prec.param_bytes / s.tokens_per_gpu;
  b.activations = activation_io_per_token(job, layer_widths(job.model)) * prec.activation_bytes;
  // A hybrid model caches keys and values in its attention layers only (attended_keys is a mean
  // over all layers, 0 for the others).
  const double attention_share =
      job.model.layers > 0 ? double(job.model.attention_layers()) / job.model.layers : 1.0;
  if (s.kind == WorkloadKind::decode)
    // Read the context (per-query-head kernels once per query head of a group), write the new token;
    // read and write each sequence's Mamba state (one token per sequence).
    b.kv_cache = (s.attended_keys * decode_kv_reads(job) + attention_share) * kv_per_token +
                 2.0 * state_bytes_per_sequence(job.model, prec.activation_bytes, 1, 0, job.model.layers);
  else
    b.kv_cache = attention_share * kv_per_token;  // prefill writes each token's K and V once
  return b;
}

}  // namespace stepsim::work
