#pragma once
// Parameter counts arranged the way the closed-form estimate shards them: tensor parallelism
// splits attention, dense FFNs, shared experts and routers; expert parallelism the routed experts;
// pipeline parallelism the layers; the embedding and head sit on the first and last stages.

#include "workloads/model/model.hpp"

namespace stepsim::work {

/// Component totals of one model (elements, all layers) plus the counts needed to split them.
struct ParamShares {
  double embedding = 0.0;       ///< token table, vocab x hidden
  double position = 0.0;        ///< learned position table (0 with RoPE)
  double lm_head = 0.0;         ///< output projection; 0 when tied to the embedding
  double attention = 0.0;       ///< attention projections of all layers
  double mamba = 0.0;           ///< Mamba-2 mixers of all layers (hybrid models)
  double linear_attention = 0.0;  ///< Gated DeltaNet mixers of all layers (hybrid models)
  double norms = 0.0;           ///< per-layer and final norms
  double dense_mlp = 0.0;       ///< FFNs of the dense layers
  double routed_experts = 0.0;  ///< all routed experts of all MoE layers
  double shared_experts = 0.0;
  double routers = 0.0;
  double mtp = 0.0;         ///< multi-token-prediction modules (train only)
  double mtp_active = 0.0;  ///< of which one token uses
  int moe_layers = 0;
  int experts = 0;
  int top_k = 0;
  int mtp_layers = 0;

  /// What tensor parallelism shards: attention, Mamba mixers, norms, dense FFNs, shared experts, routers.
  double layer_nonexpert() const {
    return attention + mamba + linear_attention + norms + dense_mlp + shared_experts + routers;
  }
  /// One routed expert.
  double expert() const {
    return experts > 0 && moe_layers > 0 ? routed_experts / (double(experts) * moe_layers) : 0.0;
  }
  /// Routed-expert parameters one token activates: top_k experts in every MoE layer.
  double routed_active() const { return expert() * top_k * moe_layers; }
  /// Routed experts inside the MTP modules (their share of `mtp`).
  double mtp_routed() const { return double(mtp_layers) * experts * expert(); }
  /// Every parameter, as a checkpoint stores it.
  double total() const { return embedding + position + lm_head + layer_nonexpert() + routed_experts + mtp; }
  /// Parameters one token uses in the main model (MTP excluded), as model cards quote them.
  double active() const { return embedding + position + lm_head + layer_nonexpert() + routed_active(); }
  /// Active parameters that take part in matrix products for one token: active() less the norms and
  /// the lookup tables (the token table stays when it doubles as the tied output head). Training
  /// adds the MTP modules, each with its own pass through the shared output head.
  double active_matmul(bool training) const;
};

/// Arranges count_params(m) (workloads/model/params.hpp) by how parallelism shards each component.
ParamShares param_shares(const ModelSpec& m);

}  // namespace stepsim::work
