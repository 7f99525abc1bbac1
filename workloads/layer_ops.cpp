#include "workloads/layer_ops.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace stepsim::work {

using Handle = OpSink::Handle;

LayerDims layer_dims(const JobSpec& job, double micro_batch) {
  const ModelSpec& m = job.model;
  LayerDims d;
  d.b = micro_batch;
  d.s = job.workload.seq_len;
  d.cp = job.parallel.cp;
  d.s_local = d.s / d.cp;
  d.tokens = d.b * d.s_local;
  d.tp = job.parallel.tp;
  d.sp = job.parallel.sequence_parallel && d.tp > 1;
  d.h = m.hidden;
  const double head_dim = m.head_dim > 0 ? m.head_dim : static_cast<double>(m.hidden) / m.heads;
  d.q_dim = m.heads * head_dim;
  d.kv_dim = m.kv_heads * head_dim;
  d.heads = m.heads;
  d.ffn = m.ffn;
  d.act_bytes = job.precision.activation_bytes;
  d.param_bytes = job.precision.param_bytes;
  d.grad_bytes = job.precision.grad_bytes;
  d.precision = job.precision.compute;
  d.activation = m.activation;
  d.norm = m.norm;
  d.attention = job.workload.attention_impl;
  d.dropout = m.dropout && job.workload.kind == WorkloadKind::train;
  d.linear_bias = m.linear_bias;
  d.grad_accumulation = job.workload.grad_accumulation;
  return d;
}

topo::KernelWork gemm(const LayerDims& d, double m, double n, double k, double count) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::large_gemm;
  w.precision = d.precision;
  w.flops = 2.0 * m * n * k * count;
  w.hbm_bytes = d.act_bytes * count * (m * k + k * n + m * n);
  w.gemm_min_dim = std::min({m, n, k});
  return w;
}

topo::KernelWork elementwise(const LayerDims& d, double bytes, double flops) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::elementwise;
  w.precision = d.precision;
  w.flops = flops;
  w.hbm_bytes = bytes;
  return w;
}

namespace {

/// dgrad of Y[m x n] = X[m x k] W[k x n]: dX[m x k] = dY[m x n] W^T[n x k].
topo::KernelWork dgrad(const LayerDims& d, double m, double n, double k) { return gemm(d, m, k, n); }


Handle tp_comm(OpSink& sink, const LayerDims& d, std::string_view name, CollectiveKind kind, Handle dep) {
  if (d.tp <= 1) return dep;
  return sink.comm(name, CommOp{ParallelDim::tp, kind, d.tokens * d.h * d.act_bytes, 0}, dep);
}

/// The reduction after a row-parallel GEMM (forward) or column-parallel dgrad (backward).
Handle tp_reduce(OpSink& sink, const LayerDims& d, std::string_view name, Handle dep) {
  return tp_comm(sink, d, name, d.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, dep);
}

/// With sequence parallelism, the sharded tokens are gathered before a column-parallel GEMM.
Handle sp_gather(OpSink& sink, const LayerDims& d, std::string_view name, Handle dep) {
  return d.sp ? tp_comm(sink, d, name, CollectiveKind::all_gather, dep) : dep;
}

double mlp_up_width(const LayerDims& d) {
  return (d.activation == Activation::swiglu ? 2.0 : 1.0) * d.ffn / d.tp;
}

}  // namespace

Handle emit_wgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n, double k,
                  Handle dep) {
  // dW[k x n] += X^T[k x m] dY[m x n].
  topo::KernelWork w = gemm(d, k, n, m);
  if (d.grad_accumulation == GradAccumulation::fused) {
    // Accumulating in the GEMM epilogue reads and writes the gradient buffer instead of writing dW.
    w.hbm_bytes += k * n * (2.0 * d.grad_bytes - d.act_bytes);
    return sink.kernel(name, w, dep);
  }
  const Handle g = sink.kernel(name, w, dep);
  // Read the fresh gradient, read and write the buffer.
  const double params = k * n;
  return sink.kernel(std::string(name) + ".accumulate",
                     elementwise(d, params * (d.act_bytes + 2.0 * d.grad_bytes), params), g);
}

Handle DenseLayer::forward(OpSink& sink, OpSink::Deps input) const {
  const Handle attn = attention_forward(sink, input);
  return mlp_forward(sink, attn);
}

Handle DenseLayer::attention_forward(OpSink& sink, OpSink::Deps input) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp;
  // Norm: read x, write y (8 FLOPs per element covers mean, variance, scale).
  Handle h = sink.kernel_after("ln1", elementwise(d_, 2 * Tn * d_.h * E, 8 * Tn * d_.h), input.span());
  h = sp_gather(sink, d_, "tp.ag_ln1", h);
  h = sink.kernel("qkv", gemm(d_, T, (d_.q_dim + 2 * d_.kv_dim) / t, d_.h), h);
  h = attention_core_forward(sink, h, CoreScope::whole);
  h = sink.kernel("proj", gemm(d_, T, d_.h, d_.q_dim / t), h);
  h = tp_reduce(sink, d_, "tp.reduce_attn", h);
  // Bias + dropout + residual add: read branch and residual, write sum (+ 1-byte mask).
  const double bda = 3 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0);
  return sink.kernel("bda1", elementwise(d_, bda, 3 * Tn * d_.h), h);
}

Handle DenseLayer::attention_core_forward(OpSink& sink, Handle qkv, CoreScope scope) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  const double head_dim = d_.q_dim / d_.heads;
  if (d_.attention == AttentionImpl::flash) {
    // QK^T and PV: 2 x 2 s_q s_kv head_dim FLOPs per head; causal masking skips half the blocks.
    const double causal = d_.causal ? 0.5 : 1.0;
    topo::KernelWork w;
    w.op_class = topo::OpClass::attention;
    w.precision = d_.precision;
    w.flops = 4.0 * d_.b * d_.s_local * d_.s * head_dim * hl * causal;
    // Read Q, K, V (keys of the whole sequence under CP), write O and the fp32 log-sum-exp.
    w.hbm_bytes = E * (2 * T * d_.q_dim / t + 2 * d_.b * d_.s * d_.kv_dim / t) + 4 * T * hl;
    return ring_attention(sink, qkv, w, "attn", 1.0);
  }
  // Unfused (Megatron-LM before FlashAttention): scores materialised in HBM.
  const double s = d_.s, scores = d_.b * hl * s * s;
  Handle h = sink.kernel("attn_scores", gemm(d_, s, s, head_dim, d_.b * hl), qkv);
  h = sink.kernel("softmax", elementwise(d_, 2 * scores * E, 5 * scores), h);
  if (d_.dropout) h = sink.kernel("attn_dropout", elementwise(d_, scores * (2 * E + 1), 2 * scores), h);
  if (scope == CoreScope::up_to_probabilities) return h;
  return sink.kernel("attn_av", gemm(d_, s, head_dim, s, d_.b * hl), h);
}

Handle DenseLayer::ring_attention(OpSink& sink, Handle ready, const topo::KernelWork& whole,
                                  std::string_view name, double blocks_per_exchange) const {
  if (d_.cp <= 1) return sink.kernel(name, whole, ready);
  // Ring attention (context parallel): cp steps, each attending to one key/value block while the
  // next block travels from the neighbouring CP rank. Causal work is balanced across ranks, so each
  // step does 1/cp of this rank's attention.
  topo::KernelWork step = whole;
  step.flops /= d_.cp;
  step.hbm_bytes /= d_.cp;
  const double kv_block = 2 * d_.tokens * d_.kv_dim / d_.tp * d_.act_bytes;
  Handle block = ready, out;
  for (int i = 0; i < d_.cp; ++i) {
    Handle next;
    if (i + 1 < d_.cp)
      next = sink.comm("cp.kv_exchange",
                       CommOp{ParallelDim::cp, CollectiveKind::ring_exchange, kv_block * blocks_per_exchange, 1},
                       block);
    out = sink.kernel(std::string(name) + " cp" + std::to_string(i), step, block);
    block = next;
  }
  return out;
}

Handle DenseLayer::mlp_forward(OpSink& sink, Handle input) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, f = d_.ffn / t;
  Handle h = sink.kernel("ln2", elementwise(d_, 2 * Tn * d_.h * E, 8 * Tn * d_.h), input);
  h = sp_gather(sink, d_, "tp.ag_ln2", h);
  h = sink.kernel("mlp_up", gemm(d_, T, mlp_up_width(d_), d_.h), h);
  // GeLU: read x, write y. SwiGLU: read gate and up, write their product.
  const double act = (d_.activation == Activation::swiglu ? 3.0 : 2.0) * T * f * E;
  h = sink.kernel("act", elementwise(d_, act, 8 * T * f), h);
  h = sink.kernel("mlp_down", gemm(d_, T, d_.h, f), h);
  h = tp_reduce(sink, d_, "tp.reduce_mlp", h);
  const double bda = 3 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0);
  return sink.kernel("bda2", elementwise(d_, bda, 3 * Tn * d_.h), h);
}

Handle DenseLayer::backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute) const {
  const Handle g = mlp_backward(sink, grad_output);
  return attention_backward(sink, g, recompute);
}

Handle DenseLayer::mlp_backward(OpSink& sink, OpSink::Deps grad) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, f = d_.ffn / t;
  const double up = mlp_up_width(d_);
  // Dropout backward: read dy and mask, write dx.
  Handle h = sink.kernel_after("bda2.bwd", elementwise(d_, 2 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0)),
                              grad.span());
  h = sp_gather(sink, d_, "tp.ag_grad_mlp", h);
  h = sink.kernel("mlp_down.dgrad", dgrad(d_, T, d_.h, f), h);
  emit_wgrad(sink, d_, "mlp_down.wgrad", T, d_.h, f);
  // GeLU backward reads x and dy, writes dx; SwiGLU reads gate, up, dy and writes both gradients.
  const double act = (d_.activation == Activation::swiglu ? 5.0 : 3.0) * T * f * E;
  h = sink.kernel("act.bwd", elementwise(d_, act, 8 * T * f), h);
  h = sink.kernel("mlp_up.dgrad", dgrad(d_, T, up, d_.h), h);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_mlp", h);
  // The weight gradient overlaps the input-gradient reduction; with SP it needs the gathered input.
  const Handle gathered = sp_gather(sink, d_, "tp.ag_ln2_wgrad", h);
  emit_wgrad(sink, d_, "mlp_up.wgrad", T, up, d_.h, d_.sp ? gathered : Handle{});
  // Norm backward reads x, dy and the residual gradient, writes their sum.
  return sink.kernel("ln2.bwd", elementwise(d_, 4 * Tn * d_.h * E, 10 * Tn * d_.h), reduced);
}

Handle DenseLayer::attention_backward(OpSink& sink, Handle grad, Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, hl = d_.heads / t;
  const double head_dim = d_.q_dim / d_.heads;
  Handle h = sink.kernel("bda1.bwd", elementwise(d_, 2 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0)), grad);
  h = sp_gather(sink, d_, "tp.ag_grad_attn", h);
  h = sink.kernel("proj.dgrad", dgrad(d_, T, d_.h, d_.q_dim / t), h);
  emit_wgrad(sink, d_, "proj.wgrad", T, d_.h, d_.q_dim / t);
  if (d_.attention == AttentionImpl::flash) {
    // FlashAttention-2 backward: 5 matmuls against the forward's 2 (it recomputes QK^T itself).
    const double causal = d_.causal ? 0.5 : 1.0;
    topo::KernelWork w;
    w.op_class = topo::OpClass::attention;
    w.precision = d_.precision;
    w.flops = 2.5 * 4.0 * d_.b * d_.s_local * d_.s * head_dim * hl * causal;
    // Read Q, O, dO and K, V; write dQ and dK, dV.
    w.hbm_bytes = E * (4 * T * d_.q_dim / t + 4 * d_.b * d_.s * d_.kv_dim / t) + 4 * T * hl;
    // Ring attention backward circulates the key/value blocks and their gradients.
    h = ring_attention(sink, h, w, "attn.bwd", 2.0);
  } else {
    if (recompute == Recompute::selective) h = attention_core_forward(sink, h, CoreScope::up_to_probabilities);
    const double s = d_.s, scores = d_.b * hl * s * s;
    // PV backward: dP = dO V^T and dV = P^T dO.
    h = sink.kernel("attn_av.bwd", gemm(d_, s, s, head_dim, 2 * d_.b * hl), h);
    if (d_.dropout)
      h = sink.kernel("attn_dropout.bwd", elementwise(d_, scores * (2 * E + 1), scores), h);
    h = sink.kernel("softmax.bwd", elementwise(d_, 3 * scores * E, 4 * scores), h);
    // dQ = dS K and dK = dS^T Q.
    h = sink.kernel("attn_scores.bwd", gemm(d_, s, head_dim, s, 2 * d_.b * hl), h);
  }
  const double qkv = (d_.q_dim + 2 * d_.kv_dim) / t;
  h = sink.kernel("qkv.dgrad", dgrad(d_, T, qkv, d_.h), h);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_attn", h);
  const Handle gathered = sp_gather(sink, d_, "tp.ag_ln1_wgrad", h);
  emit_wgrad(sink, d_, "qkv.wgrad", T, qkv, d_.h, d_.sp ? gathered : Handle{});
  return sink.kernel("ln1.bwd", elementwise(d_, 4 * Tn * d_.h * E, 10 * Tn * d_.h), reduced);
}

double DenseLayer::stored_activation_bytes(Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp;
  if (recompute == Recompute::full) return E * Tn * d_.h;  // only the layer input
  // Korthikanti's "10 sbh" (SP divides it by t): two norm inputs, the QKV and MLP inputs, two masks.
  const double replicated = 4 * E * Tn * d_.h + (d_.dropout ? 2 * Tn * d_.h : 0.0);
  // Korthikanti's "24 sbh / t": Q, K, V, the projection input, and the MLP's inner activations.
  const double mlp_inner = (d_.activation == Activation::swiglu ? 3.0 : 2.0) * E * T * d_.ffn / t;
  const double split = E * T * (2 * d_.q_dim + 2 * d_.kv_dim) / t + mlp_inner;
  // Korthikanti's "5 a s^2 b / t": softmax output, dropout mask and output (unfused attention only).
  double scores = 0.0;
  const double hl = d_.heads / t;
  if (d_.attention == AttentionImpl::unfused && recompute == Recompute::none)
    scores = d_.b * hl * d_.s * d_.s * (E + (d_.dropout ? 1.0 + E : 0.0));
  if (d_.attention == AttentionImpl::flash) scores = 4 * T * hl;  // fp32 log-sum-exp per row
  return replicated + split + scores;
}

double DenseLayer::params_per_rank() const {
  const double t = d_.tp, up = mlp_up_width(d_) * t;
  double p = d_.h * (d_.q_dim + 2 * d_.kv_dim) / t + d_.q_dim / t * d_.h;  // QKV and projection
  p += d_.h * up / t + d_.ffn / t * d_.h;                                    // MLP
  if (d_.linear_bias) p += (d_.q_dim + 2 * d_.kv_dim) / t + d_.h + up / t + d_.h;
  return p + 2 * d_.h * (d_.norm == NormKind::layernorm ? 2.0 : 1.0);  // two norms (layernorm: + bias)
}

}  // namespace stepsim::work
