// DenseLayer: one dense transformer layer's forward and backward kernels, its stored activations
// and parameters, from the per-op builders of workloads/step/layer_ops.cpp (its attention block in
// workloads/step/layer_attention.cpp).
#include <algorithm>
#include <string>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

Handle DenseLayer::forward(OpSink& sink, OpSink::Deps input) const {
  if (d_.parallel_block) return parallel_forward(sink, input);
  const Handle attn = attention_forward(sink, input);
  return mlp_forward(sink, attn);
}

Handle DenseLayer::parallel_forward(OpSink& sink, OpSink::Deps input) const {
  // GPT-J / Falcon: x + AllReduce(Attn(LN(x)) + MLP(LN(x))). Each branch's row-parallel output GEMM
  // leaves a partial sum; one all-reduce of their sum replaces the two of a sequential block.
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp, f = d_.ffn / t;
  const Handle ln = sink.kernel_after("ln1", elementwise(d_, T * d_.h * norm_forward_bytes(d_), 8 * T * d_.h),
                                      input.span());
  Handle a = write_kv_cache(sink, rope(sink, projections_forward(sink, ln), ""));
  a = d_.phase == WorkloadKind::decode ? decode_core(sink, a) : attention_core_forward(sink, a);
  a = linear_forward(sink, d_, "proj", T, d_.h, d_.o_dim / t, a);
  Handle m = linear_forward(sink, d_, "mlp_up", T, mlp_up_width(d_), d_.h, ln, QuantOperand::norm_output);
  m = sink.kernel("act", elementwise(d_, act_forward_bytes(d_) * T * f, 8 * T * f), m);
  m = linear_forward(sink, d_, "mlp_down", T, d_.h, f, m);
  const Handle both[] = {a, m};
  Handle h = sink.kernel_after("branch_sum", elementwise(d_, 3 * T * d_.h * E, T * d_.h), both);
  h = tp_reduce(sink, d_, "tp.reduce_block", h);
  return sink.kernel("residual", elementwise(d_, 3 * T * d_.h * E, T * d_.h), h);
}

Handle DenseLayer::mlp_forward(OpSink& sink, OpSink::Deps input) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, f = d_.ffn / t;
  Handle h = sink.kernel_after("ln2", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h),
                               input.span());
  h = gathered_linear_forward(sink, d_, "tp.ag_ln2", "mlp_up", T, mlp_up_width(d_), d_.h, h,
                              UbGemm::fc1_fprop, QuantOperand::norm_output);
  // GeLU: read x, write y. SwiGLU: read gate and up, write their product.
  h = sink.kernel("act", elementwise(d_, act_forward_bytes(d_) * T * f, 8 * T * f), h);
  h = reduced_linear_forward(sink, d_, "mlp_down", "tp.reduce_mlp", T, d_.h, f, h, UbGemm::fc2_fprop);
  h = norm_forward(sink, "post_mlp_norm", post_norm_elements(), h);
  const double bda = 3 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0);
  return sink.kernel("bda2", elementwise(d_, bda, 3 * Tn * d_.h), h);
}

Handle DenseLayer::backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute) const {
  const RecomputeModules rc = selective_modules(d_, recompute);
  // torchtitan's per-op policy replays the block's forward first (layer_op_sac.cpp).
  const OpSink::Deps grad = rc.alternate_mm ? OpSink::Deps{op_sac_replay(sink, grad_output)} : grad_output;
  const Handle g = mlp_backward(sink, grad, rc);
  return attention_backward(sink, g, recompute);
}

Handle DenseLayer::mlp_backward(OpSink& sink, OpSink::Deps grad, RecomputeModules rc) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, t = d_.tp, f = d_.ffn / t;
  const double up = mlp_up_width(d_);
  // Dropout backward: read dy and mask, write dx.
  Handle h = sink.kernel_after(
      "bda2.bwd", elementwise(d_, 2 * Tn * d_.h * E + (d_.dropout ? Tn * d_.h : 0.0)), grad.span());
  h = norm_backward(sink, "post_mlp_norm", post_norm_elements(), h);
  // The down projection's bias is added to the tokens the residual holds (Megatron: after the
  // reduction, on the sequence-parallel shard), so its gradient sums those rows.
  emit_bias_grad(sink, d_, "mlp_down", Tn, d_.h, h);
  h = gathered_linear_dgrad(sink, d_, "tp.ag_grad_mlp", "mlp_down.dgrad", T, d_.h, f, h, UbGemm::fc2_dgrad);
  emit_wgrad(sink, d_, "mlp_down.wgrad", T, d_.h, f);
  // GeLU backward reads x and dy, writes dx; SwiGLU reads gate, up, dy and writes both gradients.
  h = sink.kernel("act.bwd", elementwise(d_, act_backward_bytes(d_) * T * f, 8 * T * f), h);
  emit_bias_grad(sink, d_, "mlp_up", T, up, h);
  // With SP the weight gradient needs the gathered norm output: Megatron-Core and Transformer
  // Engine issue that all-gather before the dgrad GEMM, which hides it, and reduce-scatter the
  // input gradient under the weight-gradient GEMM. Recomputing the norm first delays the gather.
  // Userbuffers runs both as bulk overlaps (fc1_dgrad, fc1_wgrad): each collective on its kernels'
  // SMs beside the GEMM, which leaves them to it where the configuration sets the margin.
  // torchtitan's per-op policy has the gathered input from its replay (layer_op_sac.cpp).
  Handle gathered = rc.layernorm || rc.alternate_mm
                        ? Handle{}
                        : sp_gather_linear_input(sink, d_, "tp.ag_ln2_wgrad", h, UbGemm::fc1_dgrad);
  h = linear_dgrad(sink, d_, "mlp_up.dgrad", T, up, d_.h, h, ub_sm_margin(d_, UbGemm::fc1_dgrad));
  if (rc.layernorm)
    h = sink.kernel("ln2.recompute", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h), h);
  if (rc.layernorm) gathered = sp_gather_linear_input(sink, d_, "tp.ag_ln2_wgrad", h, UbGemm::fc1_dgrad);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_mlp", h, UbGemm::fc1_wgrad);
  emit_wgrad(sink, d_, "mlp_up.wgrad", T, up, d_.h, d_.sp ? gathered : Handle{}, 1.0,
             ub_sm_margin(d_, UbGemm::fc1_wgrad));
  // Norm backward reads x, dy and the residual gradient, writes their sum.
  return sink.kernel("ln2.bwd", elementwise(d_, Tn * d_.h * norm_backward_bytes(d_, true), 10 * Tn * d_.h),
                     reduced);
}

double DenseLayer::stored_activation_bytes(Recompute recompute) const {
  if (selective_modules(d_, recompute).alternate_mm) return op_sac_stored_bytes();
  const double attention = attention_stored_bytes(recompute);
  if (recompute == Recompute::full) return attention;  // only the layer input
  return attention + mlp_stored_bytes(recompute);
}

double DenseLayer::mlp_stored_bytes(Recompute recompute) const {
  if (recompute == Recompute::full) return d_.act_bytes * norm_tokens() * d_.h;  // only the block input
  const double E = d_.act_bytes, Q = saved_linear_input_bytes(d_), Tn = norm_tokens(), T = d_.tokens;
  // Korthikanti's "10 sbh", MLP half: norm input, MLP input (the norm output, unless selective
  // "layernorm" recomputes it: as the up projection keeps it, Q bytes), one mask; "24 sbh / t", MLP
  // half: the up projection's output (kept by the activation's backward) and the activation's
  // output (kept by the down projection: Q bytes).
  const double norm_out = selective_modules(d_, recompute).layernorm ? 0.0 : Q;
  // Gemma's norm of the MLP output keeps its input (sandwich_norms).
  const double replicated =
      (E + norm_out) * Tn * d_.h + E * post_norm_elements() + (d_.dropout ? Tn * d_.h : 0.0);
  const double up = d_.activation == Activation::swiglu ? 2.0 : 1.0;
  const double mlp_inner = (up * d_.act_input_bytes + Q) * T * d_.ffn / d_.tp;
  // Eager PyTorch: the norm's fp32 tensors (unless recomputed) and SwiGLU's silu output, which the
  // product keeps for its backward.
  double eager = 0.0;
  if (d_.eager_pointwise && !selective_modules(d_, recompute).layernorm) eager += kEagerNormKept * Tn * d_.h;
  if (d_.eager_pointwise && d_.activation == Activation::swiglu) eager += E * T * d_.ffn / d_.tp;
  return replicated + mlp_inner + eager;
}

double DenseLayer::params_per_rank() const {
  return attention_params_per_rank() + mlp_params_per_rank();
}

double DenseLayer::mlp_params_per_rank() const {
  const double t = d_.tp, up = mlp_up_width(d_) * t;
  double p = d_.h * up / t + d_.ffn / t * d_.h;  // MLP
  if (d_.linear_bias) p += up / t + d_.h;
  // + its norm (and Gemma's norm of its output)
  return p + (d_.sandwich_norms ? 2.0 : 1.0) * hidden_norm_params(d_);
}

}  // namespace stepsim::work
