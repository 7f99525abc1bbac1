#include "workloads/step/layer_stack.hpp"

#include <string>

#include "sim/error.hpp"

namespace stepsim::work {

LayerStack::LayerStack(const JobSpec& job, const LayerDims& dims, const RankLayout& layout, RankMode mode)
    : job_(job), layout_(layout), mode_(mode), dense_(dims) {
  if (job.model.mamba_layers() > 0) mamba_.emplace(dims);
  if (job.model.gated_delta_layers() > 0) gated_delta_.emplace(dims);
  LayerDims local = dims;
  if (job.model.has_local_attention()) {
    local.span = {static_cast<double>(job.model.attention_window), job.model.window_kind};
    dense_local_.emplace(local);
  }
  if (!job.model.is_moe()) return;
  if (dims.phase == WorkloadKind::train && dims.tp > 1 && !dims.sp)
    throw UserError("MoE training with tp = " + std::to_string(dims.tp) +
                    " needs parallelism.sequence_parallel = true (Megatron-Core requires it: each TP rank "
                    "routes its own sequence shard)");
  moe_.emplace(dims, moe_dims(job));
  if (dense_local_) moe_local_.emplace(local, moe_dims(job));
}

RoutingInputs LayerStack::routing_inputs(int rank, double imbalance) const {
  RoutingInputs in;
  in.experts = job_.model.experts;
  in.top_k = job_.model.top_k;
  in.tokens_per_rank = moe_->routed_tokens();
  in.vector_bytes = job_.model.hidden * job_.precision.activation_bytes;
  if (job_.moe.fp8_dispatch) in.dispatch_vector_bytes = job_.model.hidden * kFp8BlockBytes;
  in.moe = job_.moe;
  in.moe.imbalance = imbalance;
  const int per_node = job_.cluster.gpus_per_node > 0 ? job_.cluster.gpus_per_node : 1;
  for (int member : layout_.ep_group(rank)) in.node_of.push_back(member / per_node);
  return in;
}

MoeRank LayerStack::moe_rank(int layer, int rank) {
  const HotRank hot = mode_ == RankMode::representative ? HotRank::first : HotRank::as_drawn;
  auto it = routing_.find(layer);
  if (it == routing_.end())
    it = routing_.emplace(layer, route_layer(routing_inputs(rank, job_.moe.imbalance), layer, hot)).first;
  if (!balanced_) balanced_ = route_layer(routing_inputs(rank, 1.0), 0, HotRank::as_drawn);
  MoeRank r;
  r.routing = &it->second;
  r.balanced = &*balanced_;
  r.ep_index = layout_.ep_index(rank);
  r.pattern = 2 + 2 * layer;
  r.balanced_pattern = 0;
  return r;
}

// A hybrid model's layers are one block each: a Mamba mixer, the attention half, the dense MLP
// half or the MoE FFN of a transformer layer, each behind its own norm and residual.
OpSink::Handle LayerStack::forward(OpSink& sink, int layer, int rank, OpSink::Deps input) {
  switch (job_.model.layer_kind(layer)) {
    case LayerKind::mamba: return mamba_->forward(sink, input);
    case LayerKind::gated_delta: return gated_delta_->forward(sink, input);
    case LayerKind::attention: return dense_of(layer).attention_forward(sink, input);
    case LayerKind::mlp: return dense_.mlp_forward(sink, input);
    case LayerKind::moe: return moe_->ffn_forward(sink, input, moe_rank(layer, rank));
    case LayerKind::transformer: break;
  }
  if (!is_moe(layer)) return dense_of(layer).forward(sink, input);
  return moe_of(layer).forward(sink, input, moe_rank(layer, rank));
}

OpSink::Handle LayerStack::backward(OpSink& sink, int layer, int rank, OpSink::Deps grad,
                                    Recompute recompute) {
  const RecomputeModules rc = selective_modules(dense_.dims(), recompute);
  switch (job_.model.layer_kind(layer)) {
    case LayerKind::mamba: return mamba_->backward(sink, grad);
    case LayerKind::gated_delta: return gated_delta_->backward(sink, grad);
    case LayerKind::attention: return dense_of(layer).attention_backward(sink, grad, recompute);
    case LayerKind::mlp: return dense_.mlp_backward(sink, grad, rc);
    case LayerKind::moe: return moe_->ffn_backward(sink, grad, moe_rank(layer, rank), rc);
    case LayerKind::transformer: break;
  }
  if (!is_moe(layer)) return dense_of(layer).backward(sink, grad, recompute);
  return moe_of(layer).backward(sink, grad, recompute, moe_rank(layer, rank));
}

double LayerStack::stored_activation_bytes(int layer, int rank, Recompute recompute) {
  switch (job_.model.layer_kind(layer)) {
    case LayerKind::mamba: return mamba_->stored_activation_bytes(recompute);
    case LayerKind::gated_delta: return gated_delta_->stored_activation_bytes(recompute);
    case LayerKind::attention: return dense_of(layer).attention_stored_bytes(recompute);
    case LayerKind::mlp: return dense_.mlp_stored_bytes(recompute);
    case LayerKind::moe: return moe_->ffn_stored_bytes(recompute, moe_rank(layer, rank));
    case LayerKind::transformer: break;
  }
  if (!is_moe(layer)) return dense_of(layer).stored_activation_bytes(recompute);
  return moe_of(layer).stored_activation_bytes(recompute, moe_rank(layer, rank));
}

double LayerStack::dense_params(int layer) const {
  switch (job_.model.layer_kind(layer)) {
    case LayerKind::mamba: return mamba_->params_per_rank();
    case LayerKind::gated_delta: return gated_delta_->params_per_rank();
    case LayerKind::attention: return dense_.attention_params_per_rank();
    case LayerKind::mlp: return dense_.mlp_params_per_rank();
    case LayerKind::moe: return moe_->ffn_dense_params_per_rank();
    case LayerKind::transformer: break;
  }
  return is_moe(layer) ? moe_->dense_params_per_rank() : dense_.params_per_rank();
}

double LayerStack::expert_params(int layer) const {
  return is_moe(layer) ? moe_->expert_params_per_rank() : 0.0;
}

RoutingSummary LayerStack::routing_summary() const {
  RoutingSummary s;
  if (routing_.empty()) return s;
  s.moe_layers = static_cast<int>(routing_.size());
  s.expert_imbalance = s.rank_imbalance = 0.0;
  for (const auto& [layer, r] : routing_) {
    s.expert_imbalance += r.expert_imbalance / s.moe_layers;
    s.rank_imbalance += r.rank_imbalance / s.moe_layers;
    s.dropped_fraction += r.dropped_fraction / s.moe_layers;
  }
  return s;
}

double job_hardware_flops(const StepPlan& plan, RankMode mode, const ParallelSpec& par) {
  const bool representative = mode == RankMode::representative;
  const double per_sim_rank = representative ? double(par.tp) * par.cp * par.dp : 1.0;
  double flops = 0.0;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) flops += plan.graph.info(op).flops * per_sim_rank;
  if (representative)
    for (const BalancedOp& b : plan.balanced)
      if (b.payload == BalancedOp{}.payload) flops += (b.flops - plan.graph.info(b.op).flops) * per_sim_rank;
  return flops;
}

void finish_plan(StepPlan& plan, StepAssembler& assembler, const LayerStack& layers) {
  plan.info = assembler.take_info();
  plan.ranks = assembler.take_ranks();
  plan.balanced = assembler.take_balanced();
  plan.comm_groups = assembler.take_comm_groups();
  plan.hardware_flops_per_step = job_hardware_flops(plan, assembler.mode(), assembler.job().parallel);
  plan.routing = layers.routing_summary();
}

}  // namespace stepsim::work
