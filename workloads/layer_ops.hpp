#pragma once
// One transformer layer (and the embedding, LM head and optimizer) as kernels and communication.
//
// Every figure is per rank and per micro-batch: a rank holds 1/tp of each weight matrix and
// 1/cp of each sequence. FLOPs are hardware FLOPs (what the kernels execute); bytes are HBM traffic
// (inputs read, outputs written, weights read). docs/model.md derives each op; tests check them by
// hand counts.

#include <string_view>

#include "workloads/job.hpp"
#include "workloads/op_sink.hpp"

namespace stepsim::work {

/// The per-rank dimensions of one layer for one micro-batch.
struct LayerDims {
  double b = 1;            ///< sequences in the micro-batch
  double s = 1;            ///< full sequence length (keys each query can see)
  double s_local = 1;      ///< query tokens per sequence on this CP rank (s / cp)
  double tokens = 1;       ///< b x s_local
  int tp = 1;
  int cp = 1;
  bool sp = false;         ///< sequence parallelism: norms/dropouts on tokens / tp
  double h = 0;            ///< hidden size
  double q_dim = 0;        ///< heads x head_dim (whole layer)
  double kv_dim = 0;       ///< kv_heads x head_dim (whole layer)
  double heads = 0;        ///< attention heads (whole layer)
  double ffn = 0;          ///< FFN width of this layer's dense MLP
  double act_bytes = 2;    ///< bytes per activation element
  double param_bytes = 2;  ///< bytes per weight
  double grad_bytes = 2;   ///< bytes per gradient element (wgrad accumulation buffer)
  topo::Precision precision = topo::Precision::bf16;
  Activation activation = Activation::swiglu;
  NormKind norm = NormKind::rmsnorm;
  AttentionImpl attention = AttentionImpl::flash;
  bool dropout = false;
  bool linear_bias = false;
  bool causal = true;
  GradAccumulation grad_accumulation = GradAccumulation::fused;
};

/// Dimensions of a dense layer of `job` for micro-batches of `micro_batch` sequences.
LayerDims layer_dims(const JobSpec& job, double micro_batch);

/// Emits the kernels and TP/CP communication of one dense transformer layer.
class DenseLayer {
 public:
  explicit DenseLayer(const LayerDims& dims) : d_(dims) {}

  /// Forward (also used to recompute it). Returns the op that produces the output.
  OpSink::Handle forward(OpSink& sink, OpSink::Deps input) const;
  /// Backward; with selective recompute the attention core is recomputed first. Returns the op
  /// that produces the input gradient.
  OpSink::Handle backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute) const;

  /// Activation bytes this layer keeps from forward to backward for one micro-batch
  /// (Korthikanti et al. 2022, generalised to GQA, SwiGLU and FlashAttention).
  double stored_activation_bytes(Recompute recompute) const;
  /// Weights of this layer held by one TP rank (norm weights are replicated).
  double params_per_rank() const;

 private:
  OpSink::Handle attention_forward(OpSink& sink, OpSink::Deps input) const;
  /// Which part of the unfused attention core to run: all of it, or up to the probabilities (what
  /// selective recompute regenerates before the backward pass).
  enum class CoreScope : std::uint8_t { whole, up_to_probabilities };
  OpSink::Handle attention_core_forward(OpSink& sink, OpSink::Handle qkv, CoreScope scope) const;
  /// The attention kernel `whole`, split into a ring over the CP ranks when cp > 1; each exchange
  /// moves `blocks_per_exchange` key/value-sized blocks.
  OpSink::Handle ring_attention(OpSink& sink, OpSink::Handle ready, const topo::KernelWork& whole,
                                std::string_view name, double blocks_per_exchange) const;
  OpSink::Handle mlp_forward(OpSink& sink, OpSink::Handle input) const;
  OpSink::Handle attention_backward(OpSink& sink, OpSink::Handle grad, Recompute recompute) const;
  OpSink::Handle mlp_backward(OpSink& sink, OpSink::Deps grad) const;
  /// Tokens an element-wise op over hidden vectors touches (divided by tp with SP).
  double norm_tokens() const { return d_.sp ? d_.tokens / d_.tp : d_.tokens; }
  LayerDims d_;
};

/// A GEMM of an [m x k] by [k x n] product, `count` times (batched), as kernel work.
topo::KernelWork gemm(const LayerDims& d, double m, double n, double k, double count = 1.0);
/// Emits the weight-gradient work of Y[m x n] = X[m x k] W[k x n] after `dep`: one GEMM that
/// accumulates into the gradient buffer, or (separate accumulation) a GEMM and an add kernel.
OpSink::Handle emit_wgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n, double k,
                          OpSink::Handle dep = {});
/// A bandwidth-bound element-wise kernel moving `bytes` with `flops` of arithmetic.
topo::KernelWork elementwise(const LayerDims& d, double bytes, double flops = 0.0);

}  // namespace stepsim::work
