#include "workloads/step/mamba_layer.hpp"

#include "workloads/model/kv.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

double MambaLayer::chunk() const {
  return d_.mamba.chunk_for(d_.s_local);
}

topo::KernelWork MambaLayer::chunk_state_work() const {
  // Per chunk and head, states[P x N] = X^T[P x Q] B[Q x N] weighted by the decays: reads x, B,
  // dt and dA's cumsum, writes the fp32 states.
  const double E = d_.act_bytes, T = d_.tokens, P = d_.mamba.head_dim, N = d_.mamba.state, Q = chunk();
  const double bytes =
      E * T * (inner() + bc()) + 2.0 * kMixerF32Bytes * T * heads() + kMixerF32Bytes * state_elements();
  return chunk_gemm(d_, P, N, Q, chunks() * heads(), bytes);
}

topo::KernelWork MambaLayer::state_passing_work() const {
  // Sequential over chunks: each chunk's state += decayed previous state; reads the fp32 chunk
  // states, writes the passed states in the activations' precision (mamba_ssm: out_dtype = C's).
  return elementwise(d_, (kMixerF32Bytes + d_.act_bytes) * state_elements(), 2.0 * state_elements());
}

double MambaLayer::scan_forward_flops() const {
  return d_.tokens * d_.mamba.scan_flops_per_token(d_.s_local) / d_.tp;  // heads and groups split over TP
}

Handle MambaLayer::scan_forward(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, P = d_.mamba.head_dim, N = d_.mamba.state, Q = chunk();
  const double cb = chunks() * groups() * Q * Q;  // C B^T elements, fp32
  // dt: softplus with its bias, then dA = dt x A and its cumulative sum within each chunk.
  Handle h = sink.kernel(
      "ssd_cumsum", elementwise(d_, T * heads() * (E + 2.0 * kMixerF32Bytes), 10.0 * T * heads()), ready);
  h = sink.kernel("ssd_chunk_state", chunk_state_work(), h);
  h = sink.kernel("ssd_state_passing", state_passing_work(), h);
  // C B^T per chunk and group: reads B and C, writes the fp32 products.
  h = sink.kernel("ssd_bmm_cb",
                  chunk_gemm(d_, Q, Q, N, chunks() * groups(), 2.0 * E * T * bc() + kMixerF32Bytes * cb), h);
  // Y = (L o C B^T) X + C states (+ D x): one product of K = Q / 2 + N per chunk and head (the
  // causal half of the chunk, then the state term); reads C B^T, x, C, the states, dt and dA, writes y.
  const double scan_bytes = kMixerF32Bytes * cb + E * T * (2.0 * inner() + bc()) + E * state_elements() +
                            2.0 * kMixerF32Bytes * T * heads();
  return sink.kernel("ssd_chunk_scan", chunk_gemm(d_, Q, P, 0.5 * Q + N, chunks() * heads(), scan_bytes), h);
}

Handle MambaLayer::scan_backward(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, P = d_.mamba.head_dim, N = d_.mamba.state, Q = chunk();
  const double cb = chunks() * groups() * Q * Q, states = state_elements(),
               dt = 2.0 * kMixerF32Bytes * T * heads();
  const double x = E * T * inner(), b = E * T * bc();
  // mamba_ssm's backward recomputes the chunk states the forward did not keep.
  Handle h = sink.kernel("ssd_chunk_state.recompute", chunk_state_work(), ready);
  h = sink.kernel("ssd_state_passing.recompute", state_passing_work(), h);
  // dstates[P x N] = dY^T C per chunk and head, then passed backwards over the chunks.
  h = sink.kernel("ssd_dstates.bwd",
                  chunk_gemm(d_, P, N, Q, chunks() * heads(), x + b + dt + kMixerF32Bytes * states), h);
  h = sink.kernel("ssd_state_passing.bwd", elementwise(d_, 3.0 * kMixerF32Bytes * states, 2.0 * states), h);
  // dx = B dstates + (L o C B^T)^T dY (and ddt): K = N + Q / 2 per chunk and head.
  h = sink.kernel("ssd_dx.bwd",
                  chunk_gemm(d_, Q, P, N + 0.5 * Q, chunks() * heads(),
                             kMixerF32Bytes * cb + 3.0 * x + b + kMixerF32Bytes * states + 2.0 * dt),
                  h);
  // dC = dY states^T and dB = x dstates^T: two [Q x P] x [P x N] products per chunk and head.
  h = sink.kernel("ssd_dbc.bwd",
                  chunk_gemm(d_, Q, N, P, 2.0 * chunks() * heads(),
                             2.0 * x + 2.0 * kMixerF32Bytes * states + 2.0 * kMixerF32Bytes * T * bc()),
                  h);
  // d(C B^T) = dY x^T within each chunk (causal half), then its products with B and C for dC, dB.
  h = sink.kernel("ssd_dcb.bwd",
                  chunk_gemm(d_, Q, 0.5 * Q, P, chunks() * heads(), 2.0 * x + kMixerF32Bytes * cb), h);
  h = sink.kernel("ssd_bmm_cb.bwd",
                  chunk_gemm(d_, Q, N, Q, 2.0 * chunks() * groups(), kMixerF32Bytes * cb + 4.0 * b), h);
  // ddA's cumsum, ddt through softplus, dD and the dt bias.
  return sink.kernel(
      "ssd_cumsum.bwd",
      elementwise(d_, 4.0 * kMixerF32Bytes * T * heads() + E * T * heads(), 12.0 * T * heads()), h);
}

double MambaLayer::state_bytes_per_sequence() const {
  return d_.act_bytes * mamba_state_elements(d_.mamba, d_.tp);
}

MixerShape MambaLayer::shape() const {
  return {"mamba",
          in_width(),
          conv_channels(),
          inner(),
          double(d_.mamba.conv_kernel),
          state_bytes_per_sequence()};
}

Handle MambaLayer::decode_update(OpSink& sink, Handle ready) const {
  const double E = d_.act_bytes, T = d_.tokens, b = d_.b;
  Handle h = sink.kernel("mamba_conv.update", conv_update_work(d_, shape()), ready);
  // selective_state_update: state = exp(dt A) state + dt B x, y = C state + D x, per head; reads and
  // writes every sequence's SSM state once.
  const double ssm = b * heads() * d_.mamba.head_dim * d_.mamba.state;
  const double io = E * T * (inner() + 2.0 * bc() + heads() + inner());
  return sink.kernel("ssm_state.update",
                     elementwise(d_, 2.0 * E * ssm + io, T * d_.mamba.update_flops_per_token() / d_.tp), h);
}

Handle MambaLayer::forward(OpSink& sink, OpSink::Deps input) const {
  return mixer_forward(
      sink, d_, shape(), input, [this](OpSink& s, Handle h) { return scan_forward(s, h); },
      [this](OpSink& s, Handle h) { return decode_update(s, h); });
}

Handle MambaLayer::backward(OpSink& sink, OpSink::Deps grad_output) const {
  return mixer_backward(sink, d_, shape(), grad_output,
                        [this](OpSink& s, Handle h) { return scan_backward(s, h); });
}

double MambaLayer::stored_activation_bytes(Recompute recompute) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), T = d_.tokens;
  if (recompute == Recompute::full) return E * Tn * d_.h;  // only the layer input
  const double Q = saved_linear_input_bytes(d_);
  // Norm input and in_proj input (the norm output as the linear keeps it); in_proj's output (z for
  // the gated norm, x, B, C before the convolution for its backward, dt); the convolution's output
  // and dt, dA's cumsum (fp32), which the scan keeps; the scan's output y, kept by the scan and the
  // gated norm; out_proj's input as that linear keeps it.
  return (E + Q) * Tn * d_.h + E * T * in_width() + E * T * conv_channels() +
         2.0 * kMixerF32Bytes * T * heads() + E * T * inner() + Q * T * inner();
}

double MambaLayer::params_per_rank() const {
  const double norm = hidden_norm_params(d_);
  return norm + d_.h * in_width() + conv_channels() * (d_.mamba.conv_kernel + 1.0) + 3.0 * heads() + inner() +
         inner() * d_.h;
}

}  // namespace stepsim::work
