#pragma once
// One mixture-of-experts transformer layer: the attention block of a dense layer, then the MoE
// FFN as Megatron-Core runs it with the all-to-all token dispatcher:
//
//   norm -> router GEMM + top-k -> permute -> dispatch all-to-all over the EP group
//        -> [expert-TP all-gather] -> grouped expert GEMMs -> [expert-TP reduce-scatter]
//        -> combine all-to-all -> unpermute (weighted sum of the k copies) -> + shared experts, residual
//
// Shared experts are a TP-sharded dense MLP, run before the dispatch (Megatron-Core's default) or
// while it is in flight (--moe-shared-expert-overlap, DeepSeek-V3). Each TP rank routes 1/tp of the tokens:
// with sequence parallelism they are its shard; without it (inference) it takes a slice and all-gathers the
// result over TP. Which tokens go where, how many copies each rank's experts process and how many of
// its experts are touched come from the layer's routing (workloads/step/routing.hpp).

#include "workloads/step/layer_ops.hpp"
#include "workloads/step/routing.hpp"

namespace stepsim::work {

/// The MoE FFN's shape, whole-model figures.
struct MoeDims {
  int experts = 0;
  int top_k = 0;
  int shared_experts = 0;
  double expert_ffn = 0;
  int ep = 1;
  int expert_tp = 1;
  bool shared_overlap = false;  ///< shared experts run during the dispatch (MoeSpec::shared_expert_overlap)
  bool fp8_dispatch = false;    ///< MoeSpec::fp8_dispatch
  MoeDispatcher dispatcher = MoeDispatcher::normal;  ///< MoeSpec::dispatcher
  MoeProbs probs = MoeProbs::activation;              ///< MoeSpec::probs
  bool dropless = false;  ///< no capacity limit: the split sizes are known only on the GPU
  /// DeepEP's normal kernels (MoeSpec::max_nodes_per_token > 0 with the normal dispatcher): a token
  /// travels once per GPU, so the permute into per-expert copies runs after the dispatch on the
  /// tokens received, and the unpermute before the combine; Megatron's all-to-all permutes before it.
  bool permute_after_dispatch = false;
};

MoeDims moe_dims(const JobSpec& job);

/// The forward's permute: read `tokens`, write their `copies` (token, expert) in expert order,
/// `bytes` per element. Megatron's all-to-all permutes the tokens a rank routes before sending
/// them; under DeepEP's normal kernels the receiving rank expands the tokens it got (FP8 with block
/// scales after an FP8 dispatch); under its low-latency dispatcher the dispatch kernel does this
/// itself (its send phase reads each token, its receive phase packs the copies per expert) and the
/// layer prices it as this kernel either way.
topo::KernelWork permute_work(const LayerDims& d, double tokens, double copies, double bytes);
/// The forward's unpermute: read the `copies` (and, `weigh`, `probabilities` fp32 routing
/// probabilities) and write each of the `tokens`' (weighted) sum: after the combine for the
/// all-to-all (top_k probabilities per token), before it under DeepEP (one per copy; the combine adds
/// up the ranks' partial sums). DeepEP's low-latency combine does it in its receive phase.
topo::KernelWork unpermute_work(const LayerDims& d, double tokens, double copies, double probabilities,
                                bool weigh);

/// One EP rank's view of one MoE layer: the layer's routing and the rank's place in it.
struct MoeRank {
  const LayerRouting* routing = nullptr;   ///< not owned; outlives the emitters' calls
  const LayerRouting* balanced = nullptr;  ///< the same layer with imbalance 1 (for its cost)
  int ep_index = 0;
  int pattern = 0;           ///< cache id of this layer's dispatch matrix (the combine uses pattern + 1)
  int balanced_pattern = 0;  ///< the same for `balanced`
};

class MoeLayer {
 public:
  MoeLayer(const LayerDims& dims, const MoeDims& moe) : attention_(dims), d_(dims), m_(moe) {}

  OpSink::Handle forward(OpSink& sink, OpSink::Deps input, const MoeRank& rank) const;
  OpSink::Handle backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute,
                          const MoeRank& rank) const;
  /// Activations kept from forward to backward for one micro-batch on this rank (its load).
  double stored_activation_bytes(Recompute recompute, const MoeRank& rank) const;
  /// Weights every rank of a TP group shares the work of: attention, norms, router, shared experts.
  double dense_params_per_rank() const;
  /// Routed experts held by one rank: experts / ep of them, each split over expert_tp.
  double expert_params_per_rank() const;
  /// Tokens each rank routes per micro-batch (1/tp of the micro-batch's tokens on this CP rank).
  double routed_tokens() const { return d_.tokens / d_.tp; }

  /// The MoE FFN alone, behind its own norm and residual: a hybrid model's MoE layer (E).
  OpSink::Handle ffn_forward(OpSink& sink, OpSink::Deps input, const MoeRank& rank) const;
  OpSink::Handle ffn_backward(OpSink& sink, OpSink::Deps grad, const MoeRank& rank,
                              RecomputeModules rc) const;
  /// The FFN's share of stored_activation_bytes (under full recomputation, its input).
  double ffn_stored_bytes(Recompute recompute, const MoeRank& rank) const;
  /// The FFN's share of dense_params_per_rank: its norm, router and shared experts.
  double ffn_dense_params_per_rank() const;

 private:
  /// Token copies a rank's experts process and the experts whose weights are read.
  struct Load {
    double copies = 0.0;
    double touched = 0.0;
    double per_expert() const { return touched > 0.0 ? copies / touched : 0.0; }
  };
  struct ExpertLoadPair {
    Load actual;
    Load balanced;  ///< under perfectly balanced routing
  };
  ExpertLoadPair loads(const MoeRank& rank) const;
  /// Grouped expert GEMMs and activation, forward and backward.
  OpSink::Handle experts_forward(OpSink& sink, OpSink::Handle ready, const ExpertLoadPair& load) const;
  /// `recompute_act`: selective "moe_act" recomputes the activation before the down projection.
  /// Returns the data gradient; `wgrad` is set to the last weight-gradient kernel (none when the
  /// sink defers weight gradients to a weight step).
  OpSink::Handle experts_backward(OpSink& sink, OpSink::Handle ready, const ExpertLoadPair& load,
                                  bool recompute_act, OpSink::Handle& wgrad) const;
  /// Which way an all-to-all moves data: as the dispatch (tokens to their experts' ranks, the
  /// routing matrix) or as the combine (expert outputs back, its transpose). The backward moves
  /// the combine's gradients as the dispatch and the dispatch's as the combine.
  enum class A2aPhase : std::uint8_t { dispatch, combine };
  /// The all-to-all of `rank`'s layer in direction `phase`.
  CommOp all_to_all(const MoeRank& rank, A2aPhase phase) const;
  /// The same collective under perfectly balanced routing (for the imbalance cost).
  CommOp balanced_all_to_all(const MoeRank& rank, A2aPhase phase) const;
  OpSink::Handle shared_forward(OpSink& sink, OpSink::Handle input) const;
  OpSink::Handle shared_backward(OpSink& sink, OpSink::Handle grad) const;
  double up_width() const;  ///< one expert's up-projection output per expert-TP rank
  /// Hidden vectors the rank holds for its experts after the dispatch (LayerRouting::delivered),
  /// per expert-TP rank as loads() counts its copies.
  double received_tokens(const MoeRank& rank) const;
  double norm_tokens() const { return d_.sp ? d_.tokens / d_.tp : d_.tokens; }
  bool fp8_dispatch() const { return m_.fp8_dispatch && d_.low_precision_linears(); }
  /// An all-to-all delivers the copies grouped by source rank, then by expert; with more than one
  /// expert per rank the grouped GEMM needs them by expert, so the rank sorts them after the
  /// dispatch and unsorts the outputs before the combine (Megatron-Core's alltoall dispatcher,
  /// "permutation 2"; torchtitan's _permute after its all-to-all). DeepEP's receiving side and its
  /// low-latency per-expert buffers deliver expert order already.
  bool sorts_by_local_expert() const;
  /// One such pass over the rank's copies (`bytes` per element) after `dep`, or `dep` itself where
  /// no sort runs; `with_probs`: the dispatch's, which also moves the routing probabilities when the
  /// experts apply them.
  OpSink::Handle local_sort(OpSink& sink, std::string_view name, const ExpertLoadPair& load, double bytes,
                            bool with_probs, OpSink::Handle dep) const;

  DenseLayer attention_;
  LayerDims d_;
  MoeDims m_;
};

}  // namespace stepsim::work
