// Memory capacity per GPU: weights, gradients, optimizer state (by ZeRO stage), activations (by
// recompute mode, Korthikanti et al. 2022) and the KV cache.
#include <algorithm>

#include "workloads/estimate/estimate_parts.hpp"
#include "workloads/model/attention_window.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/model/pointwise.hpp"

namespace stepsim::work {

namespace {

/// What fraction of the layers has each block: 1 attention and 1 FFN (dense or MoE) per layer of a
/// transformer; one block per layer of a hybrid model.
struct LayerShares {
  double attention = 1.0, dense_ffn = 1.0, moe = 0.0, mamba = 0.0, gated_delta = 0.0;
};
LayerShares layer_shares(const ModelSpec& m) {
  LayerShares s;
  if (m.layers < 1) return s;
  const double L = m.layers;
  s.attention = m.attention_layers() / L;
  s.moe = m.moe_layers() / L;
  s.dense_ffn = (m.ffn_layers() - m.moe_layers()) / L;
  s.mamba = m.mamba_layers() / L;
  s.gated_delta = m.gated_delta_layers() / L;
  return s;
}

/// Korthikanti et al.'s per-token activation bytes of one layer, split by how TP shards them.
struct LayerActivations {
  double replicated = 0.0;  ///< norm inputs, GEMM inputs at hidden width, dropout masks (10h in the paper)
  double sharded = 0.0;     ///< Q, K, V, attention output, FFN inner tensors
  double scores = 0.0;      ///< softmax output, its dropout mask and output (5as in the paper)
  double eager_norms = 0.0;     ///< eager PyTorch: the norms' fp32 tensors (gone if they are recomputed)
  double eager_repeated = 0.0;  ///< eager PyTorch: SDPA's repeated keys and values (gone if the core is)
};

/// Bytes per token of an average layer with 2-byte activations and 1-byte masks in the paper's
/// case; `act` generalises the 2. For GPT (4h GELU FFN, MHA) this is 34h + 5as.
LayerActivations layer_activations(const JobSpec& job, const StepShape& s) {
  const ModelSpec& m = job.model;
  const LayerWidths w = layer_widths(m);
  const double act = job.precision.activation_bytes;
  const double h = w.hidden;
  const LayerShares share = layer_shares(m);
  LayerActivations a;
  // Two norm inputs, the QKV and FFN-up GEMM inputs (act bytes each) and two dropout masks (1 byte);
  // a hybrid model's layer is one block: one norm input, one GEMM input, one mask.
  a.replicated = m.is_hybrid() ? 2.0 * act * h + h : 4.0 * act * h + 2.0 * h;
  const double attention = act * (w.q + w.k + w.v + w.o);
  const double dense_ffn = act * (w.ffn_in + w.ffn);
  // MoE FFN: shared experts like a dense FFN; each routed copy keeps its input, activation input,
  // down-projection input and output (for the combine's backward); the busiest rank holds `imbalance`x.
  const double moe_ffn = act * w.shared_experts * (w.expert_in + w.expert) +
                         act * w.top_k * job.moe.imbalance * (2.0 * h + w.expert_in + w.expert);
  // Mamba-2 mixer (MambaLayer::stored_activation_bytes): in_proj's output, the convolution's output,
  // the scan's output and out_proj's input, and dt with dA's cumsum in fp32.
  const MambaDims& mb = m.mamba;
  const double mamba = act * (mb.in_proj_width() + mb.conv_channels() + 2.0 * mb.inner()) + 8.0 * mb.heads;
  // Gated DeltaNet mixer (GatedDeltaLayer::stored_activation_bytes, per token): in_proj's output, the
  // convolution's output, q and k normalised and repeated, the output and out_proj's input, the decays
  // in fp32 and (I + A)^-1 (chunk x value heads per token).
  const GatedDeltaDims& g = m.gated_delta;
  const double gdn =
      act * (g.in_proj_width() + g.conv_channels() + 2.0 * g.value_heads * g.key_dim + 2.0 * g.v_width()) +
      4.0 * g.value_heads + act * g.chunk * g.value_heads;
  a.sharded = share.attention * attention + share.dense_ffn * dense_ffn + share.moe * moe_ffn +
              share.mamba * mamba + share.gated_delta * gdn;
  // Scores: heads x keys per query, full sequence of keys even when context parallelism splits queries.
  const double keys = s.kind == WorkloadKind::decode ? s.attended_keys : s.seq_len;
  a.scores = share.attention * (2.0 * act + 1.0) * w.heads * keys;
  // Eager PyTorch keeps more, as the simulated layer's stored_activation_bytes: each norm's fp32
  // upcast input and product (kEagerNormKept), SwiGLU's silu output (dense layers), and SDPA's keys
  // and values repeated to every query head.
  if (job.workload.pointwise == Pointwise::eager) {
    a.eager_norms = (m.is_hybrid() ? 1.0 : 2.0) * kEagerNormKept * h;
    if (m.activation == Activation::swiglu) a.sharded += share.dense_ffn * act * w.ffn;
    if (job.workload.attention_impl == AttentionImpl::flash && w.k < w.q)
      a.eager_repeated = share.attention * act * (w.q + w.o - w.k - w.v);
  }
  return a;
}

/// Selective recomputation's other modules (Megatron-Core recompute_modules): the two norm outputs
/// ("layernorm"), MLA's Q, K and V ("mla_up_proj") and each routed copy's activation output ("moe_act").
void drop_recomputed(const JobSpec& job, LayerActivations& a) {
  const RecomputeModules& rc = job.recompute_modules;
  const ModelSpec& m = job.model;
  const LayerWidths w = layer_widths(m);
  const double act = job.precision.activation_bytes;
  const LayerShares share = layer_shares(m);
  if (rc.layernorm) a.replicated -= (m.is_hybrid() ? 1.0 : 2.0) * act * w.hidden, a.eager_norms = 0.0;
  if (rc.core_attn) a.eager_repeated = 0.0;
  if (rc.mla_up_proj && m.attention == AttentionKind::mla)
    a.sharded -= share.attention * act * (w.q + w.k + w.v);
  if (rc.moe_act) a.sharded -= share.moe * act * w.top_k * job.moe.imbalance * w.expert;
  if (rc.alternate_mm) {
    // torchtitan's per-op policy (DenseLayer::op_sac_stored_bytes): the block's input, wq's, wv's
    // and w1's outputs, SDPA's output unless cuDNN's kernel runs it, and eager keeps w2's output.
    const bool eager = job.workload.pointwise == Pointwise::eager;
    const bool core = job.workload.attention_kernel != topo::AttentionKernel::cudnn;
    // Under TP: the attention's reduce-scatter output too, and eager the MLP's; w2's output is a
    // whole partial sum on every rank (t x h of the sharded widths).
    const double t = job.parallel.tp;
    const double scattered = t > 1.0 ? (eager ? 2.0 : 1.0) : 0.0;  // reduce-scatter outputs kept
    const bool w2 = eager && m.activation == Activation::swiglu;
    a.replicated = act * w.hidden * (1.0 + scattered);
    a.sharded = act * (w.q + w.v + (core ? w.o : 0.0) + w.ffn + (w2 ? t * w.hidden : 0.0));
    a.eager_norms = a.eager_repeated = 0.0;
  }
}

/// Bytes one layer keeps for one micro-batch on one GPU under `mode`.
double layer_bytes(const JobSpec& job, const StepShape& s, Recompute mode) {
  const ParallelSpec& par = job.parallel;
  const double t = par.tp;
  const double tokens = s.tokens_per_micro_batch / par.cp;
  const double rep_split = par.sequence_parallel ? t : 1.0;
  if (mode == Recompute::full)  // only the layer's input survives: 2sbh (/t with SP)
    return tokens * job.precision.activation_bytes * job.model.hidden / rep_split;
  LayerActivations a = layer_activations(job, s);
  const bool selective = mode == Recompute::selective;
  if (selective) drop_recomputed(job, a);
  const double kept = (a.replicated + a.eager_norms) / rep_split + (a.sharded + a.eager_repeated) / t;
  // Selective recomputation of the attention core drops the scores; fused attention never stores them.
  const bool scores = !(selective && job.recompute_modules.core_attn) &&
                      job.workload.attention_impl == AttentionImpl::unfused;
  return tokens * (scores ? kept + a.scores / t : kept);
}

/// Activation sets alive on pipeline stage `i` at its peak (Narayanan 2021, Korthikanti 2022):
/// 1F1B warms up p - i micro-batches; the interleaved schedule 2(p-i-1) + (v-1)p + 1 model chunks
/// of L/(pv) layers (stage 0: p (1 + (p-1)/(pv)) layer sets); GPipe keeps all m.
double micro_batches_in_flight(const JobSpec& job, const StepShape& s, int i) {
  const ParallelSpec& par = job.parallel;
  const double p = par.pp;
  if (p <= 1.0) return 1.0;  // gradient accumulation runs micro-batches one after another
  switch (par.schedule) {
    case PipelineSchedule::gpipe: return s.micro_batches;
    case PipelineSchedule::one_f_one_b: return std::min(s.micro_batches, p - i);
    case PipelineSchedule::interleaved: break;
    // DualPipe: pp + 1 chunk activations on every rank (deepseek-ai/DualPipe README), with the
    // zero-bubble weight steps freeing theirs when they run.
    case PipelineSchedule::dualpipe: return std::min(s.micro_batches, p + 1.0);
    // DualPipeV: 2p + 1 chunks of half a rank's layers.
    case PipelineSchedule::dualpipev: return std::min(s.micro_batches, p + 0.5);
  }
  const double v = par.virtual_stages;
  return std::min(s.micro_batches, (2.0 * (p - i - 1.0) + (v - 1.0) * p + 1.0) / v);
}

/// ZeRO shards optimizer state (stage 1), gradients (2) and weights (3) over the ranks that hold
/// the same weights: dp x cp for dense weights, expert_dp (tp x cp x dp / (ep x expert_tp)) for experts.
void add_states(const JobSpec& job, const GpuParams& gp, MemoryEstimate& mem) {
  const ParallelSpec& par = job.parallel;
  const PrecisionSpec& prec = job.precision;
  const double dense_group = par.zero_stage >= 3 ? par.dense_shard_ranks() : double(par.dp) * par.cp;
  const double expert_group = par.expert_dp();
  auto sharded = [&](int from_stage, double bytes_per_param) {
    const bool on = par.zero_stage >= from_stage;
    return bytes_per_param *
           (gp.nonexpert / (on ? dense_group : 1.0) + gp.expert / (on ? expert_group : 1.0));
  };
  mem.weights = units::bytes(sharded(3, prec.param_bytes));
  mem.gradients = units::bytes(sharded(2, prec.grad_bytes));
  mem.optimizer = units::bytes(sharded(1, prec.optimizer_bytes));
}

MemoryEstimate inference_stage(const JobSpec& job, const ParamShares& params, const StepShape& s, int i) {
  const ParallelSpec& par = job.parallel;
  MemoryEstimate mem;
  mem.weights = units::bytes(stage_params(job, params, i).total() * job.precision.param_bytes);
  const double kv_layer = kv_bytes_per_token_layer_rank(job.model, job.precision.kv_bytes, par.tp);
  const double cached = s.kind == WorkloadKind::decode ? job.workload.context_len + 1.0 : s.seq_len;
  // Local layers keep at most their window (workloads/model/attention_window.hpp).
  int begin = 0;
  for (int stage = 0; stage < i; ++stage) begin += par.stage_layers(stage, job.model.layers);
  const double layer_tokens =
      cached_layer_tokens(job.model, cached, begin, begin + par.stage_layers(i, job.model.layers));
  const int end = begin + par.stage_layers(i, job.model.layers);
  const double state =
      state_bytes_per_sequence(job.model, job.precision.activation_bytes, par.tp, begin, end);
  mem.kv_cache = units::bytes(s.sequences_per_micro_batch * (layer_tokens / par.cp * kv_layer + state));
  // Forward only: one layer's working set at a time.
  mem.activations = units::bytes(layer_bytes(job, s, Recompute::selective));
  mem.micro_batches_in_flight = 1.0;
  return mem;
}

MemoryEstimate training_stage(const JobSpec& job, const ParamShares& params, const StepShape& s, int i) {
  const ParallelSpec& par = job.parallel;
  const ModelSpec& m = job.model;
  MemoryEstimate mem;
  add_states(job, stage_params(job, params, i), mem);
  mem.micro_batches_in_flight = micro_batches_in_flight(job, s, i);
  // DualPipe's rank i runs stages i and pp - 1 - i, half of its micro-batches each.
  const double layers =
      par.schedule == PipelineSchedule::dualpipe
          ? 0.5 * (par.stage_layers(i, m.layers) + par.stage_layers(par.pp - 1 - i, m.layers))
          : par.stage_layers(i, m.layers);
  // Partial full recomputation (recompute_layers, recompute_every): its share of the layers keep
  // their input only, the rest everything.
  const double share = job.full_recompute_share();
  const double per_layer = job.recompute == Recompute::full
                               ? share * layer_bytes(job, s, Recompute::full) +
                                     (1.0 - share) * layer_bytes(job, s, Recompute::none)
                               : layer_bytes(job, s, job.recompute);
  double act = per_layer * layers * mem.micro_batches_in_flight;
  // Full recomputation rebuilds one layer at a time, whose whole working set is then alive.
  if (share > 0.0) act += layer_bytes(job, s, Recompute::none);
  // The last stage's final norm input, logits and cross-entropy in fp32: 4sbh/t (1 + v/h).
  const bool dual = par.schedule == PipelineSchedule::dualpipe;
  // The loss keeps its softmax and, while its backward runs, holds its gradients beside it
  // (loss_kept_bytes, loss_transient_bytes: 4 B per logit fused, 12 for PyTorch's on fp32 logits).
  const CrossEntropy ce = loss_kernels(job.workload);
  const double E = job.precision.activation_bytes;
  const double loss_bytes = loss_kept_bytes(ce, E) + loss_transient_bytes(ce, E, true);
  if (i == par.loss_stage() || (dual && i == 0))
    act += s.tokens_per_micro_batch / par.cp * (4.0 * m.hidden + loss_bytes * double(m.vocab)) / par.tp;
  mem.activations = units::bytes(act);
  return mem;
}

}  // namespace

double layer_activation_bytes(const JobSpec& job, const StepShape& shape) {
  return layer_bytes(job, shape, shape.training() ? job.recompute : Recompute::selective);
}

MemoryEstimate memory_per_gpu(const JobSpec& job, const ParamShares& params, const StepShape& s) {
  MemoryEstimate worst;
  for (int i = 0; i < job.parallel.pp; ++i) {
    MemoryEstimate mem =
        s.training() ? training_stage(job, params, s, i) : inference_stage(job, params, s, i);
    mem.stage = i;
    if (i == 0 || mem.total() > worst.total()) worst = mem;
  }
  worst.capacity = job.cluster.gpu.usable_hbm();
  return worst;
}

}  // namespace stepsim::work
