#include "workloads/step/gated_delta_layer.hpp"

#include <algorithm>

#include "workloads/model/kv.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {
constexpr double kGdnF32 = 4.0;  ///< the decay's cumulative sums and A = beta K K^T are kept in fp32
}  // namespace

double GatedDeltaLayer::chunk() const {
  return std::max(1.0, std::min(double(d_.gated_delta.chunk), d_.s_local));
}

topo::KernelWork GatedDeltaLayer::rule_gemm(double m, double n, double k, double count, double bytes) const {
  // 16-bit tensor-core products whatever the linears' recipe (FP8 recipes quantise the linear layers).
  topo::KernelWork w = gemm(d_, m, n, k, count);
  w.hbm_bytes = units::bytes(bytes);
  return w;
}

topo::KernelWork GatedDeltaLayer::wy_work() const {
  // w = A (beta k), u = A (beta v) per chunk and value head: [C x C] by [C x (dk + dv)]; reads A, k,
  // v, beta and the decays, writes w and u.
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads();
  const double bytes = E * chunks() * H * C * C + 2.0 * E * T * (qk_expanded() + v()) + (E + kGdnF32) * T * H;
  return rule_gemm(C, dk() + dv(), C, chunks() * H, bytes);
}

topo::KernelWork GatedDeltaLayer::state_work() const {
  // chunk_gated_delta_rule_fwd_h: per chunk, v_new = u - w h ([C x dk] by [dk x dv]) and
  // h = h decay + k^T v_new ([dk x C] by [C x dv]); reads k, w, u and the decays, writes v_new and
  // every chunk's state (16-bit).
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads();
  const double bytes =
      E * T * (2.0 * qk_expanded() + 2.0 * v()) + kGdnF32 * T * H + E * chunks() * H * dk() * dv();
  return rule_gemm(C, dv(), dk(), 2.0 * chunks() * H, bytes);
}

double GatedDeltaLayer::rule_forward_flops() const {
  const double T = d_.tokens, C = chunk(), H = value_heads(), K = dk(), V = dv();
  // K K^T 2 T H C K, the triangular inverse (2/3) C^2 per token, w and u 2 T H C (K + V), the state
  // 4 T H K V, the output 2 T H V (K + C / 2) + its causal q k^T 2 T H (C / 2) K.
  return T * H *
         (2.0 * C * K + (2.0 / 3.0) * C * C + 2.0 * C * (K + V) + 4.0 * K * V + 2.0 * V * (K + 0.5 * C) +
          C * K);
}

Handle GatedDeltaLayer::rule_forward(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads(), K = dk(), V = dv();
  const double a = chunks() * H * C * C;  // A's elements
  // L2-normalise q and k and repeat them to the value heads (Qwen3NextGatedDeltaNet's
  // repeat_interleave, then fla's l2norm_fwd); beta = sigmoid(b), the decays and their chunk sums.
  Handle h = sink.kernel(
      "gdn_l2norm",
      elementwise(d_, E * T * (2.0 * qk() + 2.0 * qk_expanded()) + (2.0 * E + 2.0 * kGdnF32) * T * H,
                  8.0 * T * qk_expanded() + 12.0 * T * H),
      ready);
  // A = beta K K^T within each chunk (fp32), then (I + A)^-1 (solve_tril).
  h = sink.kernel(
      "gdn_kkt",
      rule_gemm(C, C, K, chunks() * H, E * T * qk_expanded() + (E + kGdnF32) * T * H + kGdnF32 * a), h);
  topo::KernelWork solve = elementwise(d_, (kGdnF32 + E) * a, (2.0 / 3.0) * a * C);
  h = sink.kernel("gdn_solve_tril", solve, h);
  h = sink.kernel("gdn_wy", wy_work(), h);
  h = sink.kernel("gdn_state", state_work(), h);
  // o = q h + (q k^T o M) v_new per chunk: K + C / 2 per output (the causal half of the chunk), and
  // q k^T itself; reads q, k, v_new, the states and the decays, writes o.
  topo::KernelWork out =
      rule_gemm(C, V, K + 0.5 * C, chunks() * H,
                E * T * (2.0 * qk_expanded() + 2.0 * V * H) + E * chunks() * H * K * V + kGdnF32 * T * H);
  out.flops = units::flops(out.flops.value() + T * H * C * K);
  return sink.kernel("gdn_output", out, h);
}

Handle GatedDeltaLayer::rule_backward(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads(), K = dk(), V = dv();
  const double q = E * T * qk_expanded(), vb = E * T * v(), states = E * chunks() * H * K * V;
  // fla's chunk_gated_delta_rule_bwd recomputes w, u and the states the forward did not keep.
  Handle h = sink.kernel("gdn_wy.recompute", wy_work(), ready);
  h = sink.kernel("gdn_state.recompute", state_work(), h);
  // dv from the output's gradient within each chunk (chunk_bwd_dv_local).
  h = sink.kernel("gdn_dv_local.bwd", rule_gemm(C, V, C, chunks() * H, 2.0 * q + 2.0 * vb), h);
  // The states' gradients backwards over the chunks, and v_new's (chunk_gated_delta_rule_bwd_dhu):
  // three [dk x C] by [C x dv]-sized products per chunk.
  h = sink.kernel("gdn_dh.bwd", rule_gemm(K, V, C, 3.0 * chunks() * H, 2.0 * q + 3.0 * vb + 2.0 * states), h);
  // dq, dk, dw and the decays' gradient (chunk_bwd_dqkwg): three [C x dv] by [dv x dk] products and
  // two [C x C]-sized ones per chunk.
  topo::KernelWork dqk = rule_gemm(C, K, V, 3.0 * chunks() * H, 4.0 * q + 2.0 * vb + 2.0 * states);
  dqk.flops = units::flops(dqk.flops.value() + 2.0 * 2.0 * T * H * C * K);
  h = sink.kernel("gdn_dqkwg.bwd", dqk, h);
  // Back through the WY factors (prepare_wy_repr_bwd): dA, dk, dv, dbeta.
  h = sink.kernel(
      "gdn_wy.bwd",
      rule_gemm(C, K + V, C, 2.0 * chunks() * H, 3.0 * (q + vb) + 2.0 * kGdnF32 * chunks() * H * C * C), h);
  // The L2 norm's backward, the repeat's sum back onto the key heads, the gates' gradients.
  return sink.kernel("gdn_l2norm.bwd",
                     elementwise(d_, E * T * (3.0 * qk_expanded() * 2.0 + 2.0 * qk()) + 4.0 * kGdnF32 * T * H,
                                 10.0 * T * qk_expanded()),
                     h);
}

Handle GatedDeltaLayer::decode_update(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, b = d_.b, K = d_.gated_delta.conv_kernel;
  const double conv_state = b * conv_channels() * (K - 1.0);
  Handle h = sink.kernel("gdn_conv.update",
                         elementwise(d_, E * (2.0 * conv_state + 2.0 * T * conv_channels()),
                                     (2.0 * K + 4.0) * T * conv_channels()),
                         ready);
  // fused_recurrent_gated_delta_rule: per sequence and value head, decay the fp32 state, read k^T h,
  // write the delta rule's rank-one update, and read q h: every state read and written once.
  const double state = b * value_heads() * dk() * dv();
  const double io = E * T * (2.0 * qk_expanded() + 2.0 * v()) + (2.0 * E + 2.0 * kGdnF32) * T * value_heads();
  return sink.kernel("gdn_state.update", elementwise(d_, 2.0 * kGdnF32 * state + io, 8.0 * state), h);
}

Handle GatedDeltaLayer::forward(OpSink& sink, OpSink::Deps input) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, K = d_.gated_delta.conv_kernel;
  Handle h = sink.kernel_after("ln_gdn", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h),
                               input.span());
  h = gathered_linear_forward(sink, d_, "tp.ag_gdn_in", "gdn_in", T, in_width(), d_.h, h,
                              QuantOperand::norm_output);
  if (d_.phase == WorkloadKind::decode) {
    h = decode_update(sink, h);
  } else {
    h = sink.kernel("gdn_conv",
                    elementwise(d_, 2.0 * E * T * conv_channels(), (2.0 * K + 4.0) * T * conv_channels()), h);
    h = rule_forward(sink, h);
    // Prefill keeps each sequence's final state and convolution inputs for the decode steps.
    if (d_.phase == WorkloadKind::prefill)
      h = sink.kernel(
          "gdn_state.write",
          elementwise(d_, d_.b * state_bytes_per_sequence_layer(d_.gated_delta, d_.act_bytes, d_.tp)), h);
  }
  // Gated RMSNorm over each value head: rmsnorm(o) x silu(z); reads o and z, writes the product.
  h = sink.kernel("gdn_norm", elementwise(d_, 3.0 * E * T * v(), 12.0 * T * v()), h);
  h = reduced_linear_forward(sink, d_, "gdn_out", "tp.reduce_gdn", T, d_.h, v(), h);
  return sink.kernel("bda_gdn", elementwise(d_, 3 * Tn * d_.h * E, 3 * Tn * d_.h), h);
}

Handle GatedDeltaLayer::backward(OpSink& sink, OpSink::Deps grad_output) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, K = d_.gated_delta.conv_kernel;
  Handle h = sink.kernel_after("bda_gdn.bwd", elementwise(d_, 2 * Tn * d_.h * E), grad_output.span());
  h = gathered_linear_dgrad(sink, d_, "tp.ag_grad_gdn", "gdn_out.dgrad", T, d_.h, v(), h);
  emit_wgrad(sink, d_, "gdn_out.wgrad", T, d_.h, v());
  h = sink.kernel("gdn_norm.bwd", elementwise(d_, 5.0 * E * T * v(), 16.0 * T * v()), h);
  h = rule_backward(sink, h);
  h = sink.kernel("gdn_conv.bwd",
                  elementwise(d_, 3.0 * E * T * conv_channels(), 4.0 * K * T * conv_channels()), h);
  const Handle gathered = sp_gather_linear_input(sink, d_, "tp.ag_gdn_in_wgrad", h);
  h = linear_dgrad(sink, d_, "gdn_in.dgrad", T, in_width(), d_.h, h);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_gdn", h);
  emit_wgrad(sink, d_, "gdn_in.wgrad", T, in_width(), d_.h, d_.sp ? gathered : Handle{});
  return sink.kernel("ln_gdn.bwd", elementwise(d_, Tn * d_.h * norm_backward_bytes(d_, true), 10 * Tn * d_.h),
                     reduced);
}

double GatedDeltaLayer::stored_activation_bytes(Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens, H = value_heads(), C = chunk();
  if (recompute == Recompute::full) return E * Tn * d_.h;  // only the layer input
  const double Q = saved_linear_input_bytes(d_);
  // Norm input and in_proj's input; in_proj's output (z for the gated norm, q, k, v before the
  // convolution, beta and the decays); the convolution's output; q and k normalised and repeated,
  // the decays' chunk sums (fp32) and (I + A)^-1, which fla's rule keeps; its output o, kept by the
  // gated norm; out_proj's input as that linear keeps it.
  return (E + Q) * Tn * d_.h + E * T * in_width() + E * T * conv_channels() + 2.0 * E * T * qk_expanded() +
         kGdnF32 * T * H + E * chunks() * H * C * C + E * T * v() + Q * T * v();
}

double GatedDeltaLayer::params_per_rank() const {
  const double norm = d_.h * (d_.norm == NormKind::layernorm ? 2.0 : 1.0);
  return norm + d_.h * in_width() + conv_channels() * d_.gated_delta.conv_kernel + 2.0 * value_heads() +
         dv() + v() * d_.h;
}

}  // namespace stepsim::work
