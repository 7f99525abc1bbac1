#pragma once
// The transformer layers of a job as the step builders see them: a dense layer or an MoE layer per
// layer index (DeepSeek-V3's first 3 layers are dense), and each MoE layer's routing.
//
// Routing is computed once per MoE layer, on first use, for the EP group of the rank that asks
// (every EP group of a stage has the same shape). In representative mode the routing is relabelled
// so that the simulated rank (EP index 0) is the busiest of its group in every layer: the
// all-to-alls synchronise the group twice per layer, so each layer ends when its busiest rank
// ends, and a rank that is the busiest everywhere pays the sum of the per-layer maxima, which is
// what the synchronised group pays (docs/model.md, "Routing imbalance").

#include <map>
#include <optional>

#include "workloads/layout/rank_layout.hpp"
#include "workloads/step/gated_delta_layer.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/mamba_layer.hpp"
#include "workloads/step/moe_layer.hpp"
#include "workloads/step/rank_sink.hpp"

namespace stepsim::work {

class LayerStack {
 public:
  /// `dims`: the dense layer's dimensions for one micro-batch. Throws UserError for MoE layouts the
  /// builders cannot run (tensor parallelism in training without sequence parallelism).
  LayerStack(const JobSpec& job, const LayerDims& dims, const RankLayout& layout, RankMode mode);

  bool is_moe(int layer) const { return moe_.has_value() && job_.model.is_moe_layer(layer); }
  /// Whether `layer` attends through the model's window (its local variant runs).
  bool is_local(int layer) const {
    return dense_local_.has_value() && job_.model.is_local_attention_layer(layer);
  }
  /// Forward (or recompute) of `layer` on global rank `rank`; returns the output op.
  OpSink::Handle forward(OpSink& sink, int layer, int rank, OpSink::Deps input);
  OpSink::Handle backward(OpSink& sink, int layer, int rank, OpSink::Deps grad, Recompute recompute);
  double stored_activation_bytes(int layer, int rank, Recompute recompute);
  /// Weights of `layer` on one rank that reduce over the data-parallel (x CP) group.
  double dense_params(int layer) const;
  /// Routed-expert weights of `layer` on one rank (reduce over the expert-data-parallel group).
  double expert_params(int layer) const;
  const DenseLayer& dense() const { return dense_; }
  /// A hybrid model's Mamba layer (nullptr without Mamba layers).
  const MambaLayer* mamba() const { return mamba_ ? &*mamba_ : nullptr; }
  RoutingSummary routing_summary() const;

 private:
  MoeRank moe_rank(int layer, int rank);
  RoutingInputs routing_inputs(int rank, double imbalance) const;

  const JobSpec& job_;
  const RankLayout& layout_;
  RankMode mode_;
  const DenseLayer& dense_of(int layer) const { return is_local(layer) ? *dense_local_ : dense_; }
  const MoeLayer& moe_of(int layer) const { return is_local(layer) ? *moe_local_ : *moe_; }

  DenseLayer dense_;
  std::optional<MoeLayer> moe_;
  std::optional<MambaLayer> mamba_;
  std::optional<GatedDeltaLayer> gated_delta_;
  // The same layers with the model's attention window (models with local attention only).
  std::optional<DenseLayer> dense_local_;
  std::optional<MoeLayer> moe_local_;
  std::map<int, LayerRouting> routing_;  ///< by layer; node-based, so references stay valid
  std::optional<LayerRouting> balanced_;
};

/// Executed FLOPs of the whole job per step. Representative ranks stand for tp x cp x dp ranks
/// each; since they carry the busiest expert load, their expert kernels count at the balanced (mean)
/// load, which is what the ranks they stand for do on average.
double job_hardware_flops(const StepPlan& plan, RankMode mode, const ParallelSpec& parallel);

/// What every step builder does last: moves the assembler's op info and simulated ranks into
/// `plan`, then fills the balanced-routing costs, the executed FLOPs and the routing summary.
void finish_plan(StepPlan& plan, StepAssembler& assembler, const LayerStack& layers);

}  // namespace stepsim::work
