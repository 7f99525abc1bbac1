#include "workloads/step/mixer_layer.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {
double mixer_norm_tokens(const LayerDims& d) {
  return d.sp ? d.tokens / d.tp : d.tokens;
}
}  // namespace

topo::KernelWork chunk_gemm(const LayerDims& d, double m, double n, double k, double count, double bytes) {
  topo::KernelWork w = gemm(d, m, n, k, count);
  w.hbm_bytes = units::bytes(bytes);
  return w;
}

topo::KernelWork conv_update_work(const LayerDims& d, const MixerShape& s) {
  const double E = d.act_bytes, T = d.tokens, state = d.b * s.conv_channels * (s.conv_kernel - 1.0);
  return elementwise(d, E * (2.0 * state + 2.0 * T * s.conv_channels),
                     (2.0 * s.conv_kernel + 4.0) * T * s.conv_channels);
}

Handle mixer_forward(OpSink& sink, const LayerDims& d, const MixerShape& s, OpSink::Deps input,
                     const MixerKernels& core, const MixerKernels& decode_update) {
  const double E = d.act_bytes, Tn = mixer_norm_tokens(d), T = d.tokens, K = s.conv_kernel;
  const std::string& p = s.prefix;
  Handle h = sink.kernel_after("ln_" + p, elementwise(d, Tn * d.h * norm_forward_bytes(d), 8 * Tn * d.h),
                               input.span());
  // Megatron-Core's mixers name their input and output projections' userbuffers fc1 and fc2.
  h = gathered_linear_forward(sink, d, "tp.ag_" + p + "_in", p + "_in", T, s.in_width, d.h, h,
                              UbGemm::fc1_fprop, QuantOperand::norm_output);
  if (d.phase == WorkloadKind::decode) {
    h = decode_update(sink, h);
  } else {
    // The causal convolution with SiLU: read its channels, write them.
    h = sink.kernel(p + "_conv",
                    elementwise(d, 2.0 * E * T * s.conv_channels, (2.0 * K + 4.0) * T * s.conv_channels), h);
    h = core(sink, h);
    // Prefill keeps each sequence's final state and convolution inputs for the decode steps.
    if (d.phase == WorkloadKind::prefill)
      h = sink.kernel(p + "_state.write", elementwise(d, d.b * s.state_bytes_per_sequence), h);
  }
  // Gated RMSNorm: reads the mixer's output and the gate z, writes their normalised product.
  h = sink.kernel(p + "_norm", elementwise(d, 3.0 * E * T * s.out_width, 12.0 * T * s.out_width), h);
  h = reduced_linear_forward(sink, d, p + "_out", "tp.reduce_" + p, T, d.h, s.out_width, h,
                             UbGemm::fc2_fprop);
  return sink.kernel("bda_" + p, elementwise(d, 3 * Tn * d.h * E, 3 * Tn * d.h), h);
}

Handle mixer_backward(OpSink& sink, const LayerDims& d, const MixerShape& s, OpSink::Deps grad,
                      const MixerKernels& core_backward) {
  const double E = d.act_bytes, Tn = mixer_norm_tokens(d), T = d.tokens, K = s.conv_kernel;
  const std::string& p = s.prefix;
  Handle h = sink.kernel_after("bda_" + p + ".bwd", elementwise(d, 2 * Tn * d.h * E), grad.span());
  h = gathered_linear_dgrad(sink, d, "tp.ag_grad_" + p, p + "_out.dgrad", T, d.h, s.out_width, h,
                            UbGemm::fc2_dgrad);
  emit_wgrad(sink, d, p + "_out.wgrad", T, d.h, s.out_width);
  // Gated norm backward: reads the output, z and the gradient, writes both gradients.
  h = sink.kernel(p + "_norm.bwd", elementwise(d, 5.0 * E * T * s.out_width, 16.0 * T * s.out_width), h);
  h = core_backward(sink, h);
  // Convolution backward: reads its input and the gradient, writes dx (the taps' gradient is a
  // reduction over tokens in the same kernel).
  h = sink.kernel(p + "_conv.bwd",
                  elementwise(d, 3.0 * E * T * s.conv_channels, 4.0 * K * T * s.conv_channels), h);
  const Handle gathered = sp_gather_linear_input(sink, d, "tp.ag_" + p + "_in_wgrad", h, UbGemm::fc1_dgrad);
  h = linear_dgrad(sink, d, p + "_in.dgrad", T, s.in_width, d.h, h, ub_sm_margin(d, UbGemm::fc1_dgrad));
  const Handle reduced = tp_reduce(sink, d, "tp.reduce_grad_" + p, h, UbGemm::fc1_wgrad);
  emit_wgrad(sink, d, p + "_in.wgrad", T, s.in_width, d.h, d.sp ? gathered : Handle{}, 1.0,
             ub_sm_margin(d, UbGemm::fc1_wgrad));
  return sink.kernel("ln_" + p + ".bwd",
                     elementwise(d, Tn * d.h * norm_backward_bytes(d, true), 10 * Tn * d.h), reduced);
}

}  // namespace stepsim::work
