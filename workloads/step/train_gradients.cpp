// The training step's weights and gradients: ZeRO-3 gathers and releases, gradient buckets over the
// data-parallel and expert-data-parallel groups, the optimizer, and each rank's static memory.
#include <algorithm>
#include <numeric>
#include <string>

#include "workloads/step/train_step_builder.hpp"

namespace stepsim::work::detail {

double TrainStepBuilder::layer_weight_bytes(int l) const {
  return (layers_.dense_params(l) + layers_.expert_params(l)) * job_.precision.param_bytes;
}

Handle TrainStepBuilder::prefetch_point(const std::vector<Handle>& starts, Handle input) const {
  const int depth = job_.parallel.prefetch_layers;
  if (depth == 0) return input;
  if (static_cast<int>(starts.size()) < depth) return Handle{};
  return starts[starts.size() - static_cast<std::size_t>(depth)];
}

Handle TrainStepBuilder::backward_weights(RankSink& sink, int sim_rank, BackwardGathers& gathers, int l,
                                          Handle input) {
  // Nothing prefetched this layer (the chunk's first, or prefetch_layers = 0): gather it now, after
  // the previous layer's end when prefetching is off.
  for (; gathers.next >= l; --gathers.next) {
    const Handle after = job_.parallel.prefetch_layers == 0 ? input : Handle{};
    sink.set_context(Pass::backward, gathers.next, sink.microbatch());
    gathers.ready[gathers.next] = gather_layer(sink, sim_rank, gathers.next, after, Pass::backward);
  }
  const auto it = gathers.ready.find(l);
  const Handle weights = it->second;
  gathers.ready.erase(it);
  return weights;
}

void TrainStepBuilder::prefetch_below(RankSink& sink, int sim_rank, BackwardGathers& gathers, int l,
                                      Handle first) {
  const int depth = job_.parallel.prefetch_layers;
  gathers.first[l] = first;
  if (depth == 0) return;
  // Layer m's gather may start once layer m + depth does (at once when that layer is above the
  // chunk), as in the forward.
  for (; gathers.next >= std::max(gathers.bottom, l - depth); --gathers.next) {
    const auto above = gathers.first.find(gathers.next + depth);
    const Handle after = above != gathers.first.end() ? above->second : Handle{};
    sink.set_context(Pass::backward, gathers.next, sink.microbatch());
    gathers.ready[gathers.next] = gather_layer(sink, sim_rank, gathers.next, after, Pass::backward);
  }
}

Handle TrainStepBuilder::gather_layer(RankSink& sink, int sim_rank, int l, Handle prefetch_after, Pass pass) {
  if (!zero3_) return Handle{};
  auto& kept = kept_weights_[static_cast<std::size_t>(sim_rank)];
  if (!job_.parallel.reshard_after_forward) {
    // SHARD_GRAD_OP: a layer's weights stay unsharded from the forward that gathered them until a
    // backward reshards them (FSDP's reshard_after_backward), one copy shared by the micro-batches
    // in flight: a pipeline's later forwards find them there, and so does the next backward, after
    // which the next use gathers them again.
    if (const auto it = kept.find(l); it != kept.end()) {
      const Handle g = it->second;
      if (pass == Pass::backward) kept.erase(it);
      return g;
    }
  }
  if (prefetch_after.valid()) prefetch_after = Handle{a_.gpu_op(prefetch_after.id)};  // the layer's kernel
  const double dense = layers_.dense_params(l) * job_.precision.param_bytes;
  const double experts = layers_.expert_params(l) * job_.precision.param_bytes;
  const CommScope scope = job_.parallel.shard_group > 0 ? CommScope::shard : CommScope::dense;
  Handle g = sink.comm("dp.param_gather",
                       CommOp{ParallelDim::dp, CollectiveKind::all_gather, dense, 0, scope}, prefetch_after);
  // The experts' gather follows the dense one, so its end is the layer's readiness: it must wait
  // for everything the dense gather waits for (a pipeline stage's received gradient enters a
  // backward chunk at its first op, which is the dense gather; the expert scope's collectives run
  // on a channel of their own, where the expert gather would otherwise start at once).
  if (experts > 0.0 && job_.parallel.expert_dp() > 1)
    g = sink.comm("expert_dp.param_gather",
                  CommOp{ParallelDim::dp, CollectiveKind::all_gather, experts, 0, CommScope::expert}, g);
  memory(g.id, MemoryEvent::At::start, sim_rank, dense + experts);
  // FSDP2 copies the gathered buffer out into the layer's parameters on the compute stream before the
  // layer runs (split_with_sizes_copy: read and write each gathered byte).
  if (job_.parallel.fsdp_copies)
    g = sink.kernel("fsdp.copy_out", elementwise(dims_, 2.0 * (dense + experts)), g);
  if (pass == Pass::forward && !job_.parallel.reshard_after_forward) kept[l] = g;
  return g;
}

void TrainStepBuilder::release_layer(RankSink& sink, int sim_rank, int l, Handle gather, Handle last,
                                     Pass pass) {
  if (!gather.valid()) return;
  // SHARD_GRAD_OP keeps the weights until the layer's backward is done.
  if (pass == Pass::forward && !job_.parallel.reshard_after_forward) return;
  memory(last.id, MemoryEvent::At::end, sim_rank, -layer_weight_bytes(l));
  if (pass != Pass::backward) return;
  // Deferred gradient sync: the earlier micro-batches accumulate into the unsharded gradients.
  if (job_.parallel.defer_grad_sync && sink.microbatch() != m_ - 1) return;
  if (!job_.parallel.dp_overlap) {
    pending_grads_[static_cast<std::size_t>(sim_rank)].push_back(l);
    return;
  }
  reduce_layer_grads(sink, l, last);
}

void TrainStepBuilder::reduce_layer_grads(RankSink& sink, int l, Handle last) {
  const auto& par = job_.parallel;
  const double g = job_.precision.grad_bytes;
  const double dense = layers_.dense_params(l) * g;
  const bool hybrid = par.shard_group > 0;
  // FSDP2 first copies the layer's gradients (in the parameters' dtype) into the reduce-scatter's
  // input in the reduce dtype (chunk_cat), on the compute stream's side of the reduction.
  if (par.fsdp_copies)
    last = sink.kernel("fsdp.copy_in",
                       elementwise(dims_, (layers_.dense_params(l) + layers_.expert_params(l)) *
                                              (job_.precision.param_bytes + g)),
                       last);
  const Handle rs = sink.comm("dp.grad_reduce_scatter",
                              CommOp{ParallelDim::dp, CollectiveKind::reduce_scatter, dense, 0,
                                     hybrid ? CommScope::shard : CommScope::dense},
                              last);
  // HSDP: each shard's gradient is then all-reduced across the groups holding the same shard.
  if (hybrid && par.shard_replicas() > 1)
    sink.comm(
        "dp.grad_replica_allreduce",
        CommOp{ParallelDim::dp, CollectiveKind::all_reduce, dense / par.shard_group, 0, CommScope::replica},
        rs);
  if (layers_.expert_params(l) > 0.0 && par.expert_dp() > 1)
    sink.comm("expert_dp.grad_reduce_scatter",
              CommOp{ParallelDim::dp, CollectiveKind::reduce_scatter, layers_.expert_params(l) * g, 0,
                     CommScope::expert},
              last);
}

void TrainStepBuilder::flush_grad_reductions(RankSink& sink, int sim_rank, Handle after) {
  auto& pending = pending_grads_[static_cast<std::size_t>(sim_rank)];
  for (int l : pending) reduce_layer_grads(sink, l, after);
  pending.clear();
}

GradReductions TrainStepBuilder::reduce_buckets(RankSink& sink, int sim_rank, std::vector<GradSource> sources,
                                                CommScope scope, std::size_t first_bucket) {
  const auto& par = job_.parallel;
  const auto& prec = job_.precision;
  const int replicas = scope == CommScope::expert ? par.expert_dp() : par.dp * par.cp;
  const double total = std::accumulate(sources.begin(), sources.end(), 0.0,
                                       [](double a, const GradSource& g) { return a + g.params; });
  GradReductions out;
  if (replicas <= 1 || total <= 0.0) return out;
  // Buckets fill in the order gradients become final, as PyTorch DDP and Megatron fill them.
  std::sort(sources.begin(), sources.end(),
            [](const GradSource& x, const GradSource& y) { return x.ready.id < y.ready.id; });
  const bool zero = par.zero_stage >= 1;
  const std::string prefix = scope == CommScope::expert ? "expert_dp." : "dp.";
  const double bucket_target = par.dp_bucket_bytes / prec.grad_bytes;
  double in_bucket = 0.0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    in_bucket += sources[i].params;
    if (in_bucket < bucket_target && i + 1 < sources.size()) continue;
    if (in_bucket <= 0.0) continue;
    const Handle ready = par.dp_overlap ? sources[i].ready : last_op_[static_cast<std::size_t>(sim_rank)];
    const std::string name = prefix + (zero ? "grad_reduce_scatter" : "grad_allreduce") + " bucket " +
                             std::to_string(first_bucket + out.buckets.size());
    const CollectiveKind kind = zero ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
    out.reduced.push_back(
        sink.comm(name, CommOp{ParallelDim::dp, kind, in_bucket * prec.grad_bytes, 0, scope}, ready));
    out.buckets.push_back({in_bucket, scope});
    in_bucket = 0.0;
  }
  return out;
}

TrainStepBuilder::GradSources TrainStepBuilder::bucketed_sources(int sim_rank) const {
  GradSources out;
  for (const auto& [layer, src] : grads_[static_cast<std::size_t>(sim_rank)]) {
    out.params.dense += src.params;
    out.params.experts += src.expert_params;
    if (src.layer) out.params.layer_dense += src.params;
    if (src.layer) out.params.linear += src.params + src.expert_params;
    // ZeRO-3 reduced the layers' gradients after each micro-batch; only the embedding and the head,
    // kept whole, still need a reduction here.
    if (zero3_ && src.layer) continue;
    out.dense.push_back(src);
    if (src.expert_params > 0.0) out.experts.push_back({src.ready, src.expert_params, 0.0, src.layer});
  }
  return out;
}

GradReductions TrainStepBuilder::reduce_all_buckets(RankSink& sink, int sim_rank,
                                                    const GradSources& sources) {
  GradReductions grads = reduce_buckets(sink, sim_rank, sources.dense, CommScope::dense, 0);
  const GradReductions expert_grads =
      reduce_buckets(sink, sim_rank, sources.experts, CommScope::expert, grads.buckets.size());
  grads.reduced.insert(grads.reduced.end(), expert_grads.reduced.begin(), expert_grads.reduced.end());
  grads.buckets.insert(grads.buckets.end(), expert_grads.buckets.begin(), expert_grads.buckets.end());
  return grads;
}

void TrainStepBuilder::end_schedule(RankSink& sink, int sim_rank) {
  // torch.distributed.pipelining's stage, at each chunk's last backward of a schedule.step():
  // FSDP's post-backward (reduce-scatter, reshard) or DDP's all-reduce runs whatever the training
  // loop accumulates, so every call reduces what it computed; ZeRO-3 reduced its layers already.
  sink.set_plain_context(Pass::backward);
  const GradReductions grads = reduce_all_buckets(sink, sim_rank, bucketed_sources(sim_rank));
  auto& done = schedule_reductions_[static_cast<std::size_t>(sim_rank)];
  done.insert(done.end(), grads.reduced.begin(), grads.reduced.end());
  // Resharded after the backward, the weights are gathered again for the next call's forwards.
  if (job_.parallel.overlap_param_gather) issue_param_gathers(sink, sim_rank);
}

void TrainStepBuilder::gradients_and_optimizer(RankSink& sink, int sim_rank) {
  const auto& par = job_.parallel;
  const auto& prec = job_.precision;
  const GradSources sources = bucketed_sources(sim_rank);
  sink.set_plain_context(Pass::optimizer);
  GradReductions grads = reduce_all_buckets(sink, sim_rank, sources);
  const auto& earlier = schedule_reductions_[static_cast<std::size_t>(sim_rank)];
  grads.reduced.insert(grads.reduced.begin(), earlier.begin(), earlier.end());
  if (grads.reduced.empty()) grads.reduced.push_back(last_op_[static_cast<std::size_t>(sim_rank)]);
  // The channels of overlapped pairs' backwards (ZeRO-3's per-layer reduce-scatters among them).
  for (const Handle& h : sink.pair_dp_tails())
    if (h.valid()) grads.reduced.push_back(h);
  const bool zero = par.zero_stage >= 1;
  const Handle updated =
      emit_optimizer(sink, dims_, prec, train_optimizer_shard(job_, sources.params), grads.reduced);
  // Overlapped, the gathers ran at the start of the step (issue_param_gathers): in a steady state
  // this step's updated weights are gathered under the next step's forward.
  if (!zero || par.overlap_param_gather) return;
  for (std::size_t b = 0; b < grads.buckets.size(); ++b) {
    const GradBucket& bucket = grads.buckets[b];
    sink.comm(std::string(bucket.scope == CommScope::expert ? "expert_dp" : "dp") +
                  ".param_allgather bucket " + std::to_string(b),
              CommOp{ParallelDim::dp, CollectiveKind::all_gather, bucket.params * prec.param_bytes, 0,
                     bucket.scope},
              updated);
  }
}

void TrainStepBuilder::issue_param_gathers(RankSink& sink, int sim_rank) {
  const auto& prec = job_.precision;
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  auto& pending = param_gathers_[static_cast<std::size_t>(sim_rank)];
  for (const int vs : model_chunks(kind_, pp_, v_, stage)) {
    const auto [begin, end] = layers_of(vs);
    for (int l = begin; l < end; ++l) {
      double dense = layers_.dense_params(l);
      if (vs == 0 && l == begin) dense += embed_.params_per_rank();
      if (vs == vstages() - 1 && l == end - 1) dense += head_.params_per_rank();
      sink.set_context(Pass::optimizer, l, -1);
      Handle g = sink.comm("dp.param_allgather",
                           CommOp{ParallelDim::dp, CollectiveKind::all_gather, dense * prec.param_bytes, 0},
                           Handle{});
      const double experts = layers_.expert_params(l);
      if (experts > 0.0 && job_.parallel.expert_dp() > 1)
        g = sink.comm("expert_dp.param_allgather",
                      CommOp{ParallelDim::dp, CollectiveKind::all_gather, experts * prec.param_bytes, 0,
                             CommScope::expert},
                      Handle{});
      pending[l] = g;
    }
  }
}

StaticMemory TrainStepBuilder::static_memory(std::size_t r) const {
  RankParams p;
  for (const auto& [layer, src] : grads_[r]) {
    p.dense += src.params;
    p.experts += src.expert_params;
    p.layer_dense += src.layer ? src.params : 0.0;
    p.linear += src.layer ? src.params + src.expert_params : 0.0;
  }
  return train_static_memory(job_, p);
}

}  // namespace stepsim::work::detail

namespace stepsim::work {

OptimizerShard train_optimizer_shard(const JobSpec& job, const RankParams& p) {
  const auto& par = job.parallel;
  const double shard =
      par.zero_stage >= 1 ? p.dense / par.dense_shard_ranks() + p.experts / par.expert_dp() : p.dense + p.experts;
  return OptimizerShard{p.dense + p.experts, shard, p.linear};
}

StaticMemory train_static_memory(const JobSpec& job, const RankParams& p) {
  const auto& par = job.parallel;
  const auto& prec = job.precision;
  const bool zero3 = par.zero_stage >= 3 && par.dp * par.cp > 1;
  // ZeRO shards over dp x cp (HSDP under ZeRO-3: over the shard group); experts over expert-dp.
  const double replicas = zero3 ? par.dense_shard_ranks() : double(par.dp) * par.cp;
  const double expert_replicas = par.expert_dp();
  const auto sharded = [&](int from_stage, double bytes) {
    const bool on = par.zero_stage >= from_stage;
    return bytes * (p.dense / (on ? replicas : 1.0) + p.experts / (on ? expert_replicas : 1.0));
  };
  StaticMemory m;
  // ZeRO-3 shards the transformer layers' weights (experts over their own group); the embedding and
  // head stay whole.
  m.weights = zero3 ? (p.dense - p.layer_dense + p.layer_dense / replicas + p.experts / expert_replicas) *
                          prec.param_bytes
                    : (p.dense + p.experts) * prec.param_bytes;
  m.gradients = sharded(2, prec.grad_bytes);
  // Deferred gradient sync: the layers' unsharded gradients accumulate between reductions.
  if (zero3 && par.defer_grad_sync) m.gradients += p.layer_dense * prec.param_bytes;
  // FP8 copies of the layers' weights (ZeRO-3 gathers layers per use and keeps none).
  if (!zero3) m.low_precision_weights = (p.layer_dense + p.experts) * low_precision_weight_bytes(prec);
  m.optimizer = sharded(1, prec.optimizer_bytes);
  return m;
}

}  // namespace stepsim::work
