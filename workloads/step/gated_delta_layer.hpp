#pragma once
// One Gated DeltaNet layer of a hybrid model (Qwen3-Next's and Qwen3.5's linear-attention layers,
// stepsim's "G"), as Hugging Face's Qwen3NextGatedDeltaNet runs it with flash-linear-attention's
// kernels:
//
//   norm -> in_proj_qkvz + in_proj_ba (column-parallel: q, k, v, z, beta, decay input)
//        -> causal depthwise conv1d + SiLU over q, k, v -> q and k L2-normalised and repeated to the
//           value heads -> chunk_gated_delta_rule (A = beta K K^T per chunk, its triangular inverse,
//           the WY factors w and u, the state recurrence over chunks, the output) -> gated RMSNorm
//           (o x silu(z)) -> out_proj (row-parallel) -> TP reduction, residual
//
// Tensor parallelism splits the key and value heads. As with the Mamba layer, each chunked kernel is
// priced as a batched GEMM of its per-chunk shape on the GPU's GEMM curve, or by the bytes of the
// tensors it moves, whichever is longer (an assumption: no such kernel was timed here). The state is a
// key_dim x value_dim matrix per value head, kept in fp32 in decode (fused_recurrent_gated_delta_rule;
// Qwen3.5's config sets mamba_ssm_dtype float32). docs/model.md ("Hybrid models") derives each op.

#include "workloads/step/layer_ops.hpp"
#include "workloads/step/mixer_layer.hpp"

namespace stepsim::work {

class GatedDeltaLayer {
 public:
  explicit GatedDeltaLayer(const LayerDims& dims) : d_(dims) {}

  OpSink::Handle forward(OpSink& sink, OpSink::Deps input) const;
  OpSink::Handle backward(OpSink& sink, OpSink::Deps grad_output) const;
  double stored_activation_bytes(Recompute recompute) const;
  double params_per_rank() const;
  /// The chunked delta rule's forward FLOPs for this rank's micro-batch (docs/model.md).
  double rule_forward_flops() const;

 private:
  double key_heads() const { return d_.gated_delta.key_heads / double(d_.tp); }
  double value_heads() const { return d_.gated_delta.value_heads / double(d_.tp); }
  double dk() const { return d_.gated_delta.key_dim; }
  double dv() const { return d_.gated_delta.value_dim; }
  double qk() const { return key_heads() * dk(); }             ///< q (or k) channels on this rank
  double v() const { return value_heads() * dv(); }            ///< v (or z, or the output) channels
  double qk_expanded() const { return value_heads() * dk(); }  ///< q (or k) repeated to the value heads
  double conv_channels() const { return 2.0 * qk() + v(); }
  double in_width() const { return 2.0 * qk() + 2.0 * v() + 2.0 * value_heads(); }
  double chunk() const;
  double chunks() const { return d_.tokens / chunk(); }
  double norm_tokens() const { return d_.sp ? d_.tokens / d_.tp : d_.tokens; }

  topo::KernelWork wy_work() const;
  topo::KernelWork state_work() const;
  OpSink::Handle rule_forward(OpSink& sink, OpSink::Handle ready) const;
  OpSink::Handle rule_backward(OpSink& sink, OpSink::Handle ready) const;
  OpSink::Handle decode_update(OpSink& sink, OpSink::Handle ready) const;
  MixerShape shape() const;

  LayerDims d_;
};

}  // namespace stepsim::work
