#pragma once
// One Mamba-2 layer of a hybrid model (Nemotron-H's "M"), as Megatron-Core's MambaLayer runs it:
//
//   norm -> in_proj (column-parallel: z, x, B, C, dt) -> causal depthwise conv1d + SiLU over x, B, C
//        -> SSD chunked scan (mamba_chunk_scan_combined: cumsum, chunk states, state passing,
//           C B^T per chunk, chunk scan) -> gated RMSNorm (y x silu(z)) -> out_proj (row-parallel)
//        -> TP reduction, residual
//
// Tensor parallelism splits the SSM heads and the B/C groups (Megatron-Core asserts groups % tp == 0).
// The scan's kernels are Triton tensor-core products over one chunk at a time; each is priced as a
// batched GEMM of its real per-chunk shape (the GPU's GEMM curve, whose small-shape terms make them
// slow) and the HBM bytes of the tensors it reads and writes, whichever is longer. The backward
// recomputes the chunk states (mamba_ssm saves none) and runs the scan's gradient kernels. Decode
// updates each sequence's conv and SSM state in place (selective_state_update): no KV cache grows.
// docs/model.md ("Hybrid models") derives each op.

#include "workloads/step/layer_ops.hpp"
#include "workloads/step/mixer_layer.hpp"

namespace stepsim::work {

class MambaLayer {
 public:
  explicit MambaLayer(const LayerDims& dims) : d_(dims) {}

  OpSink::Handle forward(OpSink& sink, OpSink::Deps input) const;
  OpSink::Handle backward(OpSink& sink, OpSink::Deps grad_output) const;
  /// Activations kept from forward to backward for one micro-batch (full recompute: the input).
  double stored_activation_bytes(Recompute recompute) const;
  /// Weights of this layer on one TP rank (the norm's scale is replicated).
  double params_per_rank() const;
  /// Decode-state bytes of one sequence on one TP rank: the SSM state (heads x head_dim x state)
  /// and the convolution's last conv_kernel - 1 inputs, in the activations' precision.
  double state_bytes_per_sequence() const;

  /// The SSD scan's forward FLOPs for this rank's micro-batch (docs/model.md).
  double scan_forward_flops() const;

 private:
  // Per-rank widths.
  double heads() const { return d_.mamba.heads / double(d_.tp); }
  double groups() const { return d_.mamba.groups / double(d_.tp); }
  double inner() const { return heads() * d_.mamba.head_dim; }
  double bc() const { return groups() * d_.mamba.state; }  ///< B (or C) channels
  double conv_channels() const { return inner() + 2.0 * bc(); }
  double in_width() const { return 2.0 * inner() + 2.0 * bc() + heads(); }
  /// Chunk length as run: the configured chunk, or the whole sequence when it is shorter.
  double chunk() const;
  /// Chunks of this rank's micro-batch (continuous: tokens / chunk).
  double chunks() const { return d_.tokens / chunk(); }
  double state_elements() const { return chunks() * heads() * d_.mamba.head_dim * d_.mamba.state; }
  double norm_tokens() const { return d_.sp ? d_.tokens / d_.tp : d_.tokens; }

  topo::KernelWork chunk_state_work() const;
  topo::KernelWork state_passing_work() const;
  OpSink::Handle scan_forward(OpSink& sink, OpSink::Handle ready) const;
  OpSink::Handle scan_backward(OpSink& sink, OpSink::Handle ready) const;
  OpSink::Handle decode_update(OpSink& sink, OpSink::Handle ready) const;
  MixerShape shape() const;

  LayerDims d_;
};

}  // namespace stepsim::work
