#include "workloads/step/gated_delta_layer.hpp"

#include "workloads/model/kv.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

double GatedDeltaLayer::chunk() const {
  return d_.gated_delta.chunk_for(d_.s_local);
}

topo::KernelWork GatedDeltaLayer::wy_work() const {
  // w = A (beta k), u = A (beta v) per chunk and value head: [C x C] by [C x (dk + dv)]; reads A, k,
  // v, beta and the decays, writes w and u.
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads();
  const double bytes =
      E * chunks() * H * C * C + 2.0 * E * T * (qk_expanded() + v()) + (E + kMixerF32Bytes) * T * H;
  return chunk_gemm(d_, C, dk() + dv(), C, chunks() * H, bytes);
}

topo::KernelWork GatedDeltaLayer::state_work() const {
  // chunk_gated_delta_rule_fwd_h: per chunk, v_new = u - w h ([C x dk] by [dk x dv]) and
  // h = h decay + k^T v_new ([dk x C] by [C x dv]); reads k, w, u and the decays, writes v_new and
  // every chunk's state (16-bit).
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads();
  const double bytes =
      E * T * (2.0 * qk_expanded() + 2.0 * v()) + kMixerF32Bytes * T * H + E * chunks() * H * dk() * dv();
  return chunk_gemm(d_, C, dv(), dk(), 2.0 * chunks() * H, bytes);
}

double GatedDeltaLayer::rule_forward_flops() const {
  return d_.tokens * d_.gated_delta.rule_flops_per_token(d_.s_local) / d_.tp;  // value heads split over TP
}

Handle GatedDeltaLayer::rule_forward(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, C = chunk(), H = value_heads(), K = dk(), V = dv();
  const double a = chunks() * H * C * C;  // A's elements
  // L2-normalise q and k and repeat them to the value heads (Qwen3NextGatedDeltaNet's
  // repeat_interleave, then fla's l2norm_fwd); beta = sigmoid(b), the decays and their chunk sums.
  Handle h = sink.kernel(
      "gdn_l2norm",
      elementwise(d_, E * T * (2.0 * qk() + 2.0 * qk_expanded()) + (2.0 * E + 2.0 * kMixerF32Bytes) * T * H,
                  8.0 * T * qk_expanded() + 12.0 * T * H),
      ready);
  // A = beta K K^T within each chunk (fp32), then (I + A)^-1 (solve_tril).
  h = sink.kernel("gdn_kkt",
                  chunk_gemm(d_, C, C, K, chunks() * H,
                             E * T * qk_expanded() + (E + kMixerF32Bytes) * T * H + kMixerF32Bytes * a),
                  h);
  topo::KernelWork solve = elementwise(d_, (kMixerF32Bytes + E) * a, (2.0 / 3.0) * a * C);
  h = sink.kernel("gdn_solve_tril", solve, h);
  h = sink.kernel("gdn_wy", wy_work(), h);
  h = sink.kernel("gdn_state", state_work(), h);
  // o = q h + (q k^T o M) v_new per chunk: K + C / 2 per output (the causal half of the chunk), and
  // q k^T itself; reads q, k, v_new, the states and the decays, writes o.
  topo::KernelWork out = chunk_gemm(
      d_, C, V, K + 0.5 * C, chunks() * H,
      E * T * (2.0 * qk_expanded() + 2.0 * V * H) + E * chunks() * H * K * V + kMixerF32Bytes * T * H);
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
  h = sink.kernel("gdn_dv_local.bwd", chunk_gemm(d_, C, V, C, chunks() * H, 2.0 * q + 2.0 * vb), h);
  // The states' gradients backwards over the chunks, and v_new's (chunk_gated_delta_rule_bwd_dhu):
  // three [dk x C] by [C x dv]-sized products per chunk.
  h = sink.kernel("gdn_dh.bwd",
                  chunk_gemm(d_, K, V, C, 3.0 * chunks() * H, 2.0 * q + 3.0 * vb + 2.0 * states), h);
  // dq, dk, dw and the decays' gradient (chunk_bwd_dqkwg): three [C x dv] by [dv x dk] products and
  // two [C x C]-sized ones per chunk.
  topo::KernelWork dqk = chunk_gemm(d_, C, K, V, 3.0 * chunks() * H, 4.0 * q + 2.0 * vb + 2.0 * states);
  dqk.flops = units::flops(dqk.flops.value() + 2.0 * 2.0 * T * H * C * K);
  h = sink.kernel("gdn_dqkwg.bwd", dqk, h);
  // Back through the WY factors (prepare_wy_repr_bwd): dA, dk, dv, dbeta.
  h = sink.kernel("gdn_wy.bwd",
                  chunk_gemm(d_, C, K + V, C, 2.0 * chunks() * H,
                             3.0 * (q + vb) + 2.0 * kMixerF32Bytes * chunks() * H * C * C),
                  h);
  // The L2 norm's backward, the repeat's sum back onto the key heads, the gates' gradients.
  return sink.kernel(
      "gdn_l2norm.bwd",
      elementwise(d_, E * T * (3.0 * qk_expanded() * 2.0 + 2.0 * qk()) + 4.0 * kMixerF32Bytes * T * H,
                  10.0 * T * qk_expanded()),
      h);
}

MixerShape GatedDeltaLayer::shape() const {
  return {"gdn",
          in_width(),
          conv_channels(),
          v(),
          double(d_.gated_delta.conv_kernel),
          state_bytes_per_sequence_layer(d_.gated_delta, d_.act_bytes, d_.tp)};
}

Handle GatedDeltaLayer::decode_update(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, b = d_.b;
  Handle h = sink.kernel("gdn_conv.update", conv_update_work(d_, shape()), ready);
  // fused_recurrent_gated_delta_rule: per sequence and value head, decay the fp32 state, read k^T h,
  // write the delta rule's rank-one update, and read q h: every state read and written once.
  const double state = b * value_heads() * dk() * dv();
  const double io =
      E * T * (2.0 * qk_expanded() + 2.0 * v()) + (2.0 * E + 2.0 * kMixerF32Bytes) * T * value_heads();
  return sink.kernel(
      "gdn_state.update",
      elementwise(d_, 2.0 * kMixerF32Bytes * state + io, T * d_.gated_delta.update_flops_per_token() / d_.tp),
      h);
}

Handle GatedDeltaLayer::forward(OpSink& sink, OpSink::Deps input) const {
  return mixer_forward(
      sink, d_, shape(), input, [this](OpSink& s, Handle h) { return rule_forward(s, h); },
      [this](OpSink& s, Handle h) { return decode_update(s, h); });
}

Handle GatedDeltaLayer::backward(OpSink& sink, OpSink::Deps grad_output) const {
  return mixer_backward(sink, d_, shape(), grad_output,
                        [this](OpSink& s, Handle h) { return rule_backward(s, h); });
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
         kMixerF32Bytes * T * H + E * chunks() * H * C * C + E * T * v() + Q * T * v();
}

double GatedDeltaLayer::params_per_rank() const {
  const double norm = hidden_norm_params(d_);
  return norm + d_.h * in_width() + conv_channels() * d_.gated_delta.conv_kernel + 2.0 * value_heads() +
         dv() + v() * d_.h;
}

}  // namespace stepsim::work
