// The attention half of a transformer layer: norm, projections (standard QKV or DeepSeek MLA),
// the attention core (FlashAttention, the unfused Megatron path, or decode against the KV cache),
// the output projection and the residual. Widths are per TP rank: heads split over tp.
#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {

double qk_head(const LayerDims& d) {
  return d.q_dim / d.heads;
}
double v_head(const LayerDims& d) {
  return d.o_dim / d.heads;
}

/// A fused attention kernel's work (FlashAttention-2 style): QK^T and PV, 2 (d_qk + d_v) FLOPs per
/// head and (query, key) pair, the blocks outside the causal mask (and a local layer's window) skipped:
/// a causal sequence of s tokens has s^2 / 2 pairs (causal_pairs), of which a CP rank does 1/cp
/// (causal balancing); priced at the efficiency of the kernel the job names (cuDNN,
/// FlashAttention-2 or -3).
topo::KernelWork flash_work(const LayerDims& d, double factor) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::attention;
  w.attention_kernel = d.attention_kernel;
  w.precision = d.fp8_attention ? topo::Precision::fp8 : d.precision;
  const double pairs = d.causal ? causal_pairs_in_documents(d.s, d.span, d.document) / d.cp : d.s_local * d.s;
  w.flops = units::flops(factor * 2.0 * d.b * pairs * (qk_head(d) + v_head(d)) * (d.heads / d.tp));
  const AttentionShape shape = fused_attention_shape(d);
  w.attention_keys = shape.keys;
  w.attention_tiles = shape.tiles;
  w.attention_width = shape.width;
  return w;
}

/// Width of the (latent) key/value path of MLA: kv_lora_rank + qk_rope_head_dim.
double mla_latent(const LayerDims& d) {
  return double(d.mla_dims.kv_lora_rank) + d.mla_dims.qk_rope_head_dim;
}

}  // namespace

/// Query rows per tile of the fused attention kernels (FlashAttention-2/3's and cuDNN's kBlockM).
constexpr double kAttentionQueryTile = 128.0;

AttentionShape fused_attention_shape(const LayerDims& d) {
  const double qk = qk_head(d), v = v_head(d);
  const double padded =
      topo::attention_head_tile(d.attention_kernel, qk) + topo::attention_head_tile(d.attention_kernel, v);
  double keys = d.span.global() ? d.s : std::min(d.s, d.span.window);
  if (d.document > 0.0) keys = std::min(keys, d.document);
  return {keys, d.b * (d.heads / d.tp) * std::ceil(d.s_local / kAttentionQueryTile),
          padded > 0.0 ? (qk + v) / padded : 1.0};
}

Handle DenseLayer::attention_forward(OpSink& sink, OpSink::Deps input) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp;
  // Norm: read x, write y (8 FLOPs per element covers mean, variance, scale).
  Handle h = sink.kernel_after("ln1", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h),
                               input.span());
  h = projections_forward(sink, h);
  h = norm_forward(sink, "qk_norm", qk_norm_elements(), h);
  h = rope(sink, h, "");
  if (d_.phase != WorkloadKind::train) h = write_kv_cache(sink, h);
  h = d_.phase == WorkloadKind::decode ? decode_core(sink, h) : attention_core_forward(sink, h);
  // Output gate (Qwen3-Next): o x sigmoid(gate), the gate from q_proj's second half.
  if (d_.attention_output_gate)
    h = sink.kernel("attn_gate", elementwise(d_, 3.0 * E * T * d_.o_dim / t, 4.0 * T * d_.o_dim / t), h);
  h = reduced_linear_forward(sink, d_, "proj", "tp.reduce_attn", T, d_.h, d_.o_dim / t, h,
                             UbGemm::proj_fprop);
  h = norm_forward(sink, "post_attn_norm", post_norm_elements(), h);
  // Bias + dropout + residual add: read branch and residual, write sum (+ 1-byte mask).
  const double bda = 3 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0);
  return sink.kernel("bda1", elementwise(d_, bda, 3 * Tn * d_.h), h);
}

Handle DenseLayer::projections_forward(OpSink& sink, Handle input) const {
  // MLA's several input projections share one gathered norm output.
  if (d_.mla) return mla_projections_forward(sink, sp_gather_linear_input(sink, d_, "tp.ag_ln1", input));
  return gathered_linear_forward(sink, d_, "tp.ag_ln1", "qkv", d_.tokens, qkv_width() / d_.tp, d_.h, input,
                                 UbGemm::qkv_fprop, QuantOperand::norm_output);
}

Handle DenseLayer::mla_projections_forward(OpSink& sink, Handle input) const {
  // Megatron-Core MLA: the down projections are duplicated on every TP rank (they are small), the up
  // projections are column-parallel over heads.
  const MlaDims& m = d_.mla_dims;
  const double T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  Handle h = input;
  if (m.q_lora_rank > 0) {
    const double r = m.q_lora_rank;
    h = linear_forward(sink, d_, "q_down", T, r, d_.h, h);
    h = sink.kernel("q_norm", elementwise(d_, T * r * norm_forward_bytes(d_), 8 * T * r), h);
    h = linear_forward(sink, d_, "q_up", T, d_.q_dim / t, r, h, QuantOperand::norm_output);
  } else {
    h = linear_forward(sink, d_, "q_proj", T, d_.q_dim / t, d_.h, h);
  }
  const double r = m.kv_lora_rank;
  h = linear_forward(sink, d_, "kv_down", T, mla_latent(d_), d_.h, h);
  h = sink.kernel("kv_norm", elementwise(d_, T * r * norm_forward_bytes(d_), 8 * T * r), h);
  // Decode absorbs the up projections into the query and the output (decode_core): the cache and
  // the keys stay latent. Training and prefill expand keys and values for every head.
  if (d_.phase == WorkloadKind::decode) return h;
  return linear_forward(sink, d_, "kv_up", T, hl * (m.qk_nope_head_dim + m.v_head_dim), r, h,
                        QuantOperand::norm_output);
}

double DenseLayer::qk_norm_elements() const {
  // Qwen3's q_norm and k_norm (Megatron-Core's qk_layernorm): each query and key head normed over
  // its head_dim before RoPE, one kernel over both.
  return d_.qk_norm ? d_.tokens * (d_.q_dim + d_.kv_dim) / d_.tp : 0.0;
}

double DenseLayer::post_norm_elements() const {
  return d_.sandwich_norms ? norm_tokens() * d_.h : 0.0;
}

Handle DenseLayer::norm_forward(OpSink& sink, std::string_view name, double elements, Handle ready) const {
  if (elements <= 0.0) return ready;
  return sink.kernel(name, elementwise(d_, elements * norm_forward_bytes(d_), 8 * elements), ready);
}

Handle DenseLayer::norm_backward(OpSink& sink, std::string_view name, double elements, Handle grad) const {
  if (elements <= 0.0) return grad;
  return sink.kernel(std::string(name) + ".bwd",
                     elementwise(d_, elements * norm_backward_bytes(d_, false), 10 * elements), grad);
}

Handle DenseLayer::rope(OpSink& sink, Handle ready, std::string_view suffix) const {
  if (!d_.rope_kernels) return ready;
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  if (!d_.mla) {
    // Megatron-Core's apply_rotary_pos_emb (Transformer Engine's fused RoPE) on the queries and
    // the keys: each read and written once, 3 FLOPs per element (a multiply-add and a multiply).
    // Eager PyTorch rotates in complex fp32 (kEagerRopeExtra more per element).
    const double elements = T * (d_.q_dim + d_.kv_dim) / t;
    return sink.kernel(std::string("rope") + std::string(suffix),
                       elementwise(d_, rope_bytes() * elements, 3 * elements), ready);
  }
  // MLA (Megatron-Core multi_latent_attention.py, DeepSeek's rotary kernels): each head's rotary
  // query part and the shared rotary key are rotated (read, write), then every head's query and key
  // are assembled from their no-position and rotary parts (torch.cat: read both, write the whole).
  const MlaDims& m = d_.mla_dims;
  const double hl = d_.heads / t, nope = m.qk_nope_head_dim, rot = m.qk_rope_head_dim;
  const double rotated = T * (hl + 1.0) * rot;
  Handle h = sink.kernel(std::string("rope") + std::string(suffix),
                         elementwise(d_, rope_bytes() * rotated, 3 * rotated), ready);
  const double q = T * hl * (nope + rot), k_parts = T * (hl * nope + rot), k = T * hl * (nope + rot);
  return sink.kernel(std::string("qk_cat") + std::string(suffix), elementwise(d_, E * (2 * q + k_parts + k)),
                     h);
}

Handle DenseLayer::write_kv_cache(OpSink& sink, Handle qkv) const {
  // Read the new keys and values (MLA: the latent), write them into the cache in its precision.
  const double w = d_.kv_cache_width();
  return sink.kernel("kv_write", elementwise(d_, d_.tokens * w * (d_.act_bytes + d_.kv_bytes)), qkv);
}

Handle DenseLayer::decode_core(OpSink& sink, Handle qkv) const {
  // Each sequence's new token attends to its context and itself, or to what its window leaves of it.
  const double E = d_.act_bytes, T = d_.tokens, hl = d_.heads / d_.tp;
  const double keys = d_.b * attended_keys_at(d_.s, d_.span);
  topo::KernelWork w;
  w.op_class = topo::OpClass::attention;
  w.precision = d_.precision;
  // Its shape where compute binds (MLA's absorbed heads): rows of the keys it attends, one query
  // tile per sequence and head (a tile's rows are that head's one new query).
  w.attention_keys = attended_keys_at(d_.s, d_.span);
  w.attention_tiles = d_.b * hl;
  if (!d_.mla) {
    // One query per sequence against its whole cache: every cached key and value is read once,
    // or once per query head of its group by a per-query-head kernel.
    w.flops = units::flops(2.0 * keys * (qk_head(d_) + v_head(d_)) * hl);
    w.hbm_bytes = units::bytes(E * T * (d_.q_dim + d_.o_dim) / d_.tp +
                               d_.kv_bytes * keys * d_.kv_cache_width() * d_.decode_kv_reads);
    return sink.kernel("attn", w, qkv);
  }
  // MLA with absorbed projections (DeepSeek-V2 section 2.1.2): q_nope W_UK^T puts each head's query
  // into the latent space; scores use latent + RoPE key (kv_lora + rope), values the latent.
  const MlaDims& m = d_.mla_dims;
  const double lora = m.kv_lora_rank, latent = mla_latent(d_);
  Handle h = sink.kernel("q_absorb", weight_gemm(d_, d_.b, lora, m.qk_nope_head_dim, hl), qkv);
  w.flops = units::flops(2.0 * keys * hl * (latent + lora));
  w.hbm_bytes = units::bytes(E * T * hl * (latent + lora) + d_.kv_bytes * keys * latent);
  h = sink.kernel("attn", w, h);
  return sink.kernel("v_absorb", weight_gemm(d_, d_.b, m.v_head_dim, lora, hl), h);
}

Handle DenseLayer::attention_core_forward(OpSink& sink, Handle qkv) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  if (d_.attention == AttentionImpl::flash) {
    topo::KernelWork w = flash_work(d_, 1.0);
    // Read Q, K, V (keys of the whole sequence under CP), write O and the fp32 log-sum-exp.
    w.hbm_bytes = units::bytes(
        E * (T * (d_.q_dim + d_.o_dim) / t + d_.b * d_.s * (d_.kv_dim + d_.v_dim) / t) + 4 * T * hl);
    Handle h = d_.attention_unpad ? unpad_forward(sink, qkv) : qkv;
    // Eager PyTorch (torchtitan's Llama): repeat_kv copies each key and value head for every query
    // head of its group (expand + reshape), and the output, transposed back, is made contiguous.
    if (d_.eager_pointwise && d_.kv_dim < d_.q_dim)
      h = sink.kernel("repeat_kv", elementwise(d_, repeat_kv_bytes()), h);
    h = cp_attention(sink, h, w, "attn", false);
    if (d_.attention_unpad) h = pad_forward(sink, h);
    if (d_.sink_rescale) h = sink.kernel("attn_sink", elementwise(d_, attention_sink_bytes(false)), h);
    return d_.eager_pointwise ? sink.kernel("attn_out_copy", elementwise(d_, 2 * E * T * d_.o_dim / t), h)
                              : h;
  }
  // Unfused (Megatron-LM before FlashAttention): scores materialised in HBM.
  const double s = d_.s, scores = d_.b * hl * s * s;
  Handle h = sink.kernel("attn_scores", gemm(d_, s, s, qk_head(d_), d_.b * hl), qkv);
  h = sink.kernel("softmax", elementwise(d_, 2 * scores * E, 5 * scores), h);
  if (d_.dropout) h = sink.kernel("attn_dropout", elementwise(d_, scores * (2 * E + 1), 2 * scores), h);
  return sink.kernel("attn_av", gemm(d_, s, v_head(d_), s, d_.b * hl), h);
}

// Ring attention's merges, as Transformer Engine's AttnFuncWithCPAndKVP2P runs them (and any ring
// attention must: each step's partial result covers one key/value block). Forward: the first step's
// output is rescaled into the result (read it, write the result: 2 E per element), each later step's
// is rescaled by its log-sum-exp and added (flash_attn_fwd_out_correction: read the step's output and
// the result, write the result: 3 E), after the log-sum-exp merges (fp32 per query and head: left
// out). Backward: the first step's dQ, dK, dV are copied into the accumulators (2 E), each later
// step's added (3 E). Causal balancing halves a later step for some ranks: step i >= 1 is whole on
// the cp - i ranks at or past it and half on the i before it, 1 - i / (2 cp) of a whole step on
// average, and over the steps 1 .. cp - 1 that sums to 0.75 (cp - 1) whole steps (0.75 each).
Handle DenseLayer::attention_backward(OpSink& sink, OpSink::Deps grad, Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  Handle h = sink.kernel_after(
      "bda1.bwd", elementwise(d_, 2 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0)), grad.span());
  h = norm_backward(sink, "post_attn_norm", post_norm_elements(), h);
  emit_bias_grad(sink, d_, "proj", Tn, d_.h, h);
  h = gathered_linear_dgrad(sink, d_, "tp.ag_grad_attn", "proj.dgrad", T, d_.h, d_.o_dim / t, h,
                            UbGemm::proj_dgrad);
  emit_wgrad(sink, d_, "proj.wgrad", T, d_.h, d_.o_dim / t);
  // The output gate's backward: reads o, the gate and the gradient, writes both gradients.
  if (d_.attention_output_gate)
    h = sink.kernel("attn_gate.bwd", elementwise(d_, 5.0 * E * T * d_.o_dim / t, 6.0 * T * d_.o_dim / t), h);
  const RecomputeModules rc = selective_modules(d_, recompute);
  if (d_.mla && rc.mla_up_proj) h = rope(sink, mla_up_recompute(sink, h), ".recompute");
  // Selective "core_attn" recompute re-runs the whole core attention forward before its backward:
  // Megatron checkpoints the core attention call (_checkpointed_attention_forward), whichever
  // kernels it runs, and the checkpoint replays all of it, the product with V included.
  if (rc.core_attn) h = attention_core_forward(sink, h);
  if (d_.attention == AttentionImpl::flash) {
    // FlashAttention-2 backward: 5 matmuls against the forward's 2 (it recomputes QK^T itself).
    topo::KernelWork w = flash_work(d_, 2.5);
    // Read Q, O, dO and K, V; write dQ and dK, dV.
    w.hbm_bytes = units::bytes(
        E * (2 * T * (d_.q_dim + d_.o_dim) / t + 2 * d_.b * d_.s * (d_.kv_dim + d_.v_dim) / t) + 4 * T * hl);
    // Under CP: the ring circulates the key/value blocks and their gradients; the all-gather
    // gathers them again and reduce-scatters their gradients; the all-to-all moves the gradients.
    if (d_.sink_rescale) h = sink.kernel("attn_sink.bwd", elementwise(d_, attention_sink_bytes(true)), h);
    if (d_.attention_unpad) h = pad_backward(sink, h);
    h = cp_attention(sink, h, w, "attn.bwd", true);
    if (d_.attention_unpad) h = unpad_backward(sink, h);
    // Eager: the repeated heads' gradients are summed back onto each key and value head.
    if (d_.eager_pointwise && d_.kv_dim < d_.q_dim)
      h = sink.kernel("repeat_kv.bwd", elementwise(d_, repeat_kv_bytes()), h);
  } else {
    const double s = d_.s, scores = d_.b * hl * s * s;
    // PV backward: dP = dO V^T and dV = P^T dO.
    h = sink.kernel("attn_av.bwd", gemm(d_, s, s, v_head(d_), 2 * d_.b * hl), h);
    if (d_.dropout) h = sink.kernel("attn_dropout.bwd", elementwise(d_, scores * (2 * E + 1), scores), h);
    h = sink.kernel("softmax.bwd", elementwise(d_, 3 * scores * E, 4 * scores), h);
    // dQ = dS K and dK = dS^T Q.
    h = sink.kernel("attn_scores.bwd", gemm(d_, s, qk_head(d_), s, 2 * d_.b * hl), h);
  }
  // The input projections' weight gradients need the (gathered, with SP) norm output; the gather
  // is issued before the dgrad GEMMs and hides under them (as in the MLP), unless selective
  // "layernorm" recompute must first regenerate the norm output.
  // Userbuffers runs both as bulk overlaps (qkv_dgrad, qkv_wgrad), as in the MLP's backward.
  Handle gathered = rc.layernorm || rc.alternate_mm
                        ? Handle{}
                        : sp_gather_linear_input(sink, d_, "tp.ag_ln1_wgrad", h, UbGemm::qkv_dgrad);
  // The rotation's and the assembly's backward: the same bytes on the gradients.
  h = norm_backward(sink, "qk_norm", qk_norm_elements(), rope(sink, h, ".bwd"));
  // Views of the projection's output: autograd's split backward copies the three gradients into one.
  if (d_.qkv_grad_concat && !d_.mla)
    h = sink.kernel("qkv_grad.concat", elementwise(d_, 2.0 * E * T * qkv_width() / t, 0.0), h);
  if (!d_.mla) emit_bias_grad(sink, d_, "qkv", T, qkv_width() / t, h);
  h = projections_backward(sink, h);
  if (rc.layernorm)
    h = sink.kernel("ln1.recompute", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h), h);
  if (rc.layernorm) gathered = sp_gather_linear_input(sink, d_, "tp.ag_ln1_wgrad", h, UbGemm::qkv_dgrad);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_attn", h, UbGemm::qkv_wgrad);
  const Handle after = d_.sp ? gathered : Handle{};
  if (!d_.mla) {
    emit_wgrad(sink, d_, "qkv.wgrad", T, qkv_width() / t, d_.h, after, 1.0,
               ub_sm_margin(d_, UbGemm::qkv_wgrad));
  } else {
    const double q_in = d_.mla_dims.q_lora_rank > 0 ? d_.mla_dims.q_lora_rank : d_.q_dim / t;
    emit_wgrad(sink, d_, d_.mla_dims.q_lora_rank > 0 ? "q_down.wgrad" : "q_proj.wgrad", T, q_in, d_.h, after);
    emit_wgrad(sink, d_, "kv_down.wgrad", T, mla_latent(d_), d_.h);
  }
  return sink.kernel("ln1.bwd", elementwise(d_, Tn * d_.h * norm_backward_bytes(d_, true), 10 * Tn * d_.h),
                     reduced);
}

Handle DenseLayer::projections_backward(OpSink& sink, Handle grad) const {
  if (d_.mla) return mla_projections_backward(sink, grad);
  return linear_dgrad(sink, d_, "qkv.dgrad", d_.tokens, qkv_width() / d_.tp, d_.h, grad,
                      ub_sm_margin(d_, UbGemm::qkv_dgrad));
}

Handle DenseLayer::mla_projections_backward(OpSink& sink, Handle grad) const {
  const MlaDims& m = d_.mla_dims;
  const double T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  const double r = m.kv_lora_rank, up = hl * (m.qk_nope_head_dim + m.v_head_dim);
  Handle h = linear_dgrad(sink, d_, "kv_up.dgrad", T, up, r, grad);
  emit_wgrad(sink, d_, "kv_up.wgrad", T, up, r);
  h = sink.kernel("kv_norm.bwd", elementwise(d_, T * r * norm_backward_bytes(d_, false), 10 * T * r), h);
  h = linear_dgrad(sink, d_, "kv_down.dgrad", T, mla_latent(d_), d_.h, h);
  if (m.q_lora_rank <= 0) return linear_dgrad(sink, d_, "q_proj.dgrad", T, d_.q_dim / t, d_.h, h);
  const double q = m.q_lora_rank;
  h = linear_dgrad(sink, d_, "q_up.dgrad", T, d_.q_dim / t, q, h);
  emit_wgrad(sink, d_, "q_up.wgrad", T, d_.q_dim / t, q);
  h = sink.kernel("q_norm.bwd", elementwise(d_, T * q * norm_backward_bytes(d_, false), 10 * T * q), h);
  // Accumulates into the input gradient the kv path started.
  return linear_dgrad(sink, d_, "q_down.dgrad", T, q, d_.h, h);
}

Handle DenseLayer::mla_up_recompute(OpSink& sink, Handle ready) const {
  const MlaDims& m = d_.mla_dims;
  const double T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  Handle h = m.q_lora_rank > 0 ? linear_forward(sink, d_, "q_up.recompute", T, d_.q_dim / t, m.q_lora_rank,
                                                ready, QuantOperand::norm_output)
                               : linear_forward(sink, d_, "q_proj.recompute", T, d_.q_dim / t, d_.h, ready);
  return linear_forward(sink, d_, "kv_up.recompute", T, hl * (m.qk_nope_head_dim + m.v_head_dim),
                        m.kv_lora_rank, h, QuantOperand::norm_output);
}

double DenseLayer::attention_stored_bytes(Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  if (recompute == Recompute::full) return E * Tn * d_.h;  // only the layer input
  const RecomputeModules rc = selective_modules(d_, recompute);
  // Linear inputs as the linears keep them (saved_linear_input_bytes): a low-precision linear keeps
  // its own quantised copy, so a tensor another op also keeps costs both.
  const double Q = saved_linear_input_bytes(d_);
  const bool copy = d_.low_precision_linears();
  // Korthikanti's "10 sbh", attention half (SP divides it by t): norm input, QKV input (the norm
  // output, unless selective "layernorm" recomputes it), one mask.
  const double replicated = (E + (rc.layernorm ? 0.0 : Q)) * Tn * d_.h + (d_.dropout ? Tn * d_.h : 0.0);
  // Korthikanti's "24 sbh / t", attention half: Q, K, V (unless "mla_up_proj" recomputes them), kept
  // by the attention core, and the projection input: the core's output, which FlashAttention keeps
  // for its backward, and the output projection's quantised copy of it in low precision.
  double split = E * T * (d_.mla && rc.mla_up_proj ? 0.0 : qkv_width()) / t +
                 (d_.attention == AttentionImpl::flash && copy ? E + Q : E) * T * d_.o_dim / t;
  // The query and key norms keep their inputs (the projections' outputs before the norm).
  split += E * qk_norm_elements();
  // Gemma's norm of the attention output keeps its input.
  const double post_norm = E * post_norm_elements();
  // MLA also keeps its latents: the query latent before (for its norm) and after its norm (the up
  // projection's input), the KV latent + RoPE key (for the norm and RoPE) and the normed latent
  // (the KV up projection's input); duplicated on every TP rank.
  if (d_.mla)
    split += T * (E * (d_.mla_dims.q_lora_rank + mla_latent(d_)) +
                  Q * (d_.mla_dims.q_lora_rank + d_.mla_dims.kv_lora_rank));
  // Korthikanti's "5 a s^2 b / t": softmax output, dropout mask and output (unfused attention only).
  double scores = 0.0;
  if (d_.attention == AttentionImpl::unfused && !rc.core_attn)
    scores = d_.b * hl * d_.s * d_.s * (E + (d_.dropout ? 1.0 + E : 0.0));
  // FlashAttention's fp32 log-sum-exp per row, unless the core's checkpoint drops it.
  if (d_.attention == AttentionImpl::flash && !rc.core_attn) scores = 4 * T * hl;
  // Eager PyTorch: the norm's fp32 tensors (unless recomputed), and SDPA keeps the keys and values
  // repeat_kv expanded to every query head instead of the grouped ones (unless checkpointed).
  double eager = 0.0;
  if (d_.eager_pointwise && !rc.layernorm) eager += kEagerNormKept * Tn * d_.h;
  if (d_.eager_pointwise && d_.attention == AttentionImpl::flash && !rc.core_attn && d_.kv_dim < d_.q_dim)
    eager += E * T * (d_.q_dim + d_.o_dim - d_.kv_dim - d_.v_dim) / t;
  return replicated + split + scores + eager + post_norm;
}

double DenseLayer::attention_params_per_rank() const {
  const double t = d_.tp, norm = d_.norm == NormKind::layernorm ? 2.0 : 1.0;
  double p = norm * d_.h + d_.o_dim / t * d_.h;  // input norm, output projection
  if (d_.sandwich_norms) p += norm * d_.h;       // the norm of the attention output
  if (!d_.mla) {
    p += d_.h * qkv_width() / t;
    if (d_.qk_norm) p += 2.0 * norm * d_.q_dim / d_.heads;  // q_norm, k_norm: a head wide, whole per rank
    if (d_.linear_bias) p += qkv_width() / t + d_.h;
    return p;
  }
  const MlaDims& m = d_.mla_dims;
  const double q = m.q_lora_rank, r = m.kv_lora_rank;
  p += q > 0 ? d_.h * q + norm * q + q * d_.q_dim / t : d_.h * d_.q_dim / t;
  p += d_.h * mla_latent(d_) + norm * r + r * d_.heads / t * (m.qk_nope_head_dim + m.v_head_dim);
  return p;
}

}  // namespace stepsim::work
