#pragma once
// The parts of a training step outside the transformer layers: the input embedding on the first
// pipeline stage, the LM head and loss on the last, and the optimizer step on every rank.

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

/// Vocabulary-parallel input embedding (and learned positions), per micro-batch.
class Embedding {
 public:
  Embedding(const LayerDims& dims, const ModelSpec& model) : d_(dims), model_(model) {}
  OpSink::Handle forward(OpSink& sink) const;
  OpSink::Handle backward(OpSink& sink, OpSink::Handle grad) const;
  /// Weights held by one TP rank: vocab / tp rows (plus the position table, replicated).
  double params_per_rank() const;

 private:
  LayerDims d_;
  const ModelSpec& model_;
};

/// Final norm, vocabulary-parallel logits and the cross-entropy loss, per micro-batch.
class LmHead {
 public:
  LmHead(const LayerDims& dims, const ModelSpec& model) : d_(dims), model_(model) {}
  OpSink::Handle forward(OpSink& sink, OpSink::Handle input) const;
  /// Returns the op producing the gradient of the last layer's output.
  OpSink::Handle backward(OpSink& sink, OpSink::Handle loss) const;
  /// Weights held by one TP rank (the output matrix unless tied, plus the final norm).
  double params_per_rank() const;
  /// Bytes the loss keeps for the backward pass (fp32 softmax of the vocabulary shard).
  double stored_activation_bytes() const;
  /// Bytes alive beside that only while the loss runs (`backward`: its backward), PyTorch's
  /// cross_entropy's: forward, the 16-bit logits and their fp32 copy; backward, nll_loss's fp32
  /// gradient and log_softmax's (in 16 bits without the upcast). Fused and Megatron's losses: 0.
  double loss_transient_bytes(bool backward) const;

 private:
  /// The cross-entropy over the logits (workload.cross_entropy, or eager PyTorch's), and its backward
  /// up to the logits' gradient.
  OpSink::Handle loss_forward(OpSink& sink, OpSink::Handle logits) const;
  OpSink::Handle loss_backward(OpSink& sink, OpSink::Handle loss) const;

  LayerDims d_;
  const ModelSpec& model_;
};

/// The glue of one DeepSeek-V3 multi-token-prediction module (MTP, arXiv 2412.19437 section 2.2):
/// the next token's embedding and the previous depth's output are each normalised, concatenated and
/// projected from 2h to h; a transformer layer and the shared output head follow (emitted by the
/// caller). Megatron-Core keeps a copy of the embedding on the last pipeline stage for it.
class MtpGlue {
 public:
  explicit MtpGlue(const LayerDims& dims) : d_(dims) {}
  /// Lookup, norms and projection; `embed` emits the lookup. Returns the projection's output.
  OpSink::Handle forward(OpSink& sink, const Embedding& embed, OpSink::Handle input) const;
  /// Returns the gradient of the previous depth's output.
  OpSink::Handle backward(OpSink& sink, const Embedding& embed, OpSink::Handle grad) const;
  /// Two norms and the 2h x h projection, split over TP (the embedding is counted apart).
  double params_per_rank() const;
  /// The normalised halves and the projection input, per micro-batch.
  double stored_activation_bytes() const;

 private:
  LayerDims d_;
};

/// What the optimizer step touches on one rank.
struct OptimizerShard {
  double params = 0.0;            ///< parameters this rank holds (working copy)
  double optimizer_params = 0.0;  ///< parameters whose optimizer state this rank updates (ZeRO shards it)
  double linear_params = 0.0;     ///< of `params`, the transformer layers' (FP8 casts them each step)
};

/// Bytes per parameter of the FP8 weight copies Transformer Engine keeps beside the working
/// weights of linear layers (row-wise and transposed; 0 when the linears run in 16 bits).
double low_precision_weight_bytes(const PrecisionSpec& precision);

/// Gradient-norm and the Adam update as bandwidth-bound kernels; with FP8 linears, the cast of the
/// updated weights into their FP8 copies. The DP reduction and the ZeRO
/// parameter all-gather are the step builder's, because they overlap with other work.
OpSink::Handle emit_optimizer(OpSink& sink, const LayerDims& dims, const PrecisionSpec& precision,
                              const OptimizerShard& shard, std::span<const OpSink::Handle> after);

}  // namespace stepsim::work
