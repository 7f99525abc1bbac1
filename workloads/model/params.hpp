#pragma once
// Parameter counts computed from a model's dimensions (never stored in the catalog), split by
// component so reports can say where the weights are.

#include "workloads/model/model.hpp"

namespace stepsim::work {

/// Parameters of a model by component. Every field is a count of scalar weights (not bytes).
/// Main-model fields cover the `layers` transformer layers; `mtp` holds the multi-token-prediction
/// modules (DeepSeek-V3), which share the main model's embedding and output head.
struct ParamBreakdown {
  double embedding = 0.0;       ///< token embedding table, vocab x hidden
  double position = 0.0;        ///< learned position table, max_positions x hidden (0 for RoPE)
  double lm_head = 0.0;         ///< output projection, vocab x hidden; 0 when tied to the embedding
  double attention = 0.0;       ///< attention projections (and their biases, MLA's norms), all layers
  double dense_mlp = 0.0;       ///< FFN of dense layers (every layer of a dense model)
  double routed_experts = 0.0;  ///< all routed experts of all MoE layers
  double shared_experts = 0.0;  ///< always-active experts of all MoE layers
  double routers = 0.0;         ///< expert-routing projections
  double mamba = 0.0;           ///< Mamba-2 mixers of a hybrid model (projections, conv, gated norm)
  double linear_attention = 0.0;  ///< Gated DeltaNet mixers of a hybrid model
  double norms = 0.0;           ///< per-layer norms and the final norm
  double mtp = 0.0;             ///< MTP modules: their transformer layer, projection and norms
  double total = 0.0;           ///< sum of all the above: what is trained and stored
  double active = 0.0;          ///< used per token: total less the routed experts a token skips
  double mtp_active = 0.0;      ///< the part of `active` spent in MTP modules

  /// Total without the MTP modules: the figure model cards quote as "total parameters".
  double main_total() const { return total - mtp; }
  /// Active without the MTP modules: the figure model cards quote as "activated parameters".
  double main_active() const { return active - mtp_active; }
};

/// Counts the parameters of `m`. Requires a model that passed validation (positive dimensions).
ParamBreakdown count_params(const ModelSpec& m);

/// Parameters of one transformer layer's attention block (projections, biases, MLA norms).
double attention_params(const ModelSpec& m);
/// Parameters of one Mamba-2 mixer (without its layer's pre-norm).
double mamba_params(const ModelSpec& m);
/// Parameters of one Gated DeltaNet mixer (without its layer's pre-norm).
double gated_delta_params(const ModelSpec& m);
/// Parameters of one FFN of width `ffn` (gelu/relu: 2 matrices; swiglu: 3), with biases if the
/// model has linear biases.
double mlp_params(const ModelSpec& m, int ffn);

}  // namespace stepsim::work
