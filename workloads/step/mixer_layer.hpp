#pragma once
// The shape a hybrid model's recurrent mixers share (the Mamba-2 and Gated DeltaNet layers): a
// pre-norm, a column-parallel input projection, a causal depthwise convolution with SiLU, the
// mixer's own chunked kernels (or, in decode, its state update), a gated RMSNorm, a row-parallel
// output projection with its TP reduction, and the residual add. Each layer gives its widths and
// the kernels of its own middle; these emit the rest, with op names prefixed as the layer says
// ("ln_<prefix>", "<prefix>_in", "<prefix>_conv", "<prefix>_norm", "<prefix>_out", "bda_<prefix>").

#include <functional>
#include <string>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

struct MixerShape {
  std::string prefix;                     ///< op-name prefix: "mamba", "gdn"
  double in_width = 0.0;                  ///< the input projection's output per rank
  double conv_channels = 0.0;             ///< channels the convolution runs over per rank
  double out_width = 0.0;                 ///< the gated norm's and the output projection's input per rank
  double conv_kernel = 4.0;               ///< the convolution's taps
  double state_bytes_per_sequence = 0.0;  ///< what prefill writes for each sequence's decode state
};

/// The mixer's own kernels after the convolution (training, prefill) or after the input projection
/// (decode: the convolution's and the state's update), returning the op that produces its output.
using MixerKernels = std::function<OpSink::Handle(OpSink&, OpSink::Handle)>;

OpSink::Handle mixer_forward(OpSink& sink, const LayerDims& d, const MixerShape& s, OpSink::Deps input,
                             const MixerKernels& core, const MixerKernels& decode_update);
/// `core_backward`: the mixer's kernels' backward, between the gated norm's and the convolution's.
OpSink::Handle mixer_backward(OpSink& sink, const LayerDims& d, const MixerShape& s, OpSink::Deps grad,
                              const MixerKernels& core_backward);
/// Bytes of the fp32 tensors the mixers' kernels keep whatever the activations' precision (mamba_ssm's
/// chunk states, C B^T and cumulative decays; flash-linear-attention's A and decay sums).
inline constexpr double kMixerF32Bytes = 4.0;
/// A chunked mixer kernel: `count` products of [m x k] by [k x n] (its per-chunk shape, on the GPU's
/// GEMM curve) moving `bytes`, in 16 bits whatever the linears' recipe (FP8 recipes quantise the
/// linear layers only, and these are not linear layers).
topo::KernelWork chunk_gemm(const LayerDims& d, double m, double n, double k, double count, double bytes);
/// Decode's causal_conv1d_update for `d.b` sequences: shift each sequence's last conv_kernel - 1
/// inputs, convolve the new token, SiLU.
topo::KernelWork conv_update_work(const LayerDims& d, const MixerShape& s);

}  // namespace stepsim::work
