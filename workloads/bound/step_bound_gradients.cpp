// The data-parallel side of a stage's step in the step bound (step_bound.hpp): gradient buckets, ZeRO-3's
// per-layer collectives and the updated weights' gathers, as train_gradients.cpp emits them.
#include <algorithm>

#include "workloads/bound/bounder.hpp"

namespace stepsim::work::detail {

std::int64_t Bounder::dp_bound(int rank, CollectiveKind kind, double bytes, CommScope scope) {
  if (comm_ == nullptr) return 0;
  const CommKey key = detail::comm_key(detail::grid_key(job_.parallel, layout_), kind, ParallelDim::dp, scope,
                                       0, rank, 0, bytes);
  return comm_
      ->at_least(key,
                 [&] {
                   CommRequest req;
                   req.kind = kind;
                   req.dim = ParallelDim::dp;
                   req.bytes = bytes;
                   req.groups = groups_.groups(ParallelDim::dp, rank, scope);
                   req.peer_offset = 0;  // as the builder's CommOp has it
                   req.average = averages_in_collective(job_, ParallelDim::dp, kind);
                   return req;
                 })
      .count();
}

std::vector<Bounder::GradSource> Bounder::gradient_sources(int stage, const std::vector<PipeStep>& steps) {
  // The builder's bucket order is the order of their last gradients: the chunks by their last
  // backward step; in a chunk the MTP modules, their embedding copy and the head, then the layers
  // from the last, then the embedding.
  const int L = job_.model.layers, D = job_.model.mtp_layers;
  std::vector<std::pair<std::size_t, int>> chunks;  // (last backward step, chunk)
  for (int c = 0; c < v_; ++c) chunks.emplace_back(0, c);
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].kind == PipeStep::Kind::backward) chunks[static_cast<std::size_t>(steps[i].chunk)].first = i;
  std::sort(chunks.begin(), chunks.end());
  std::vector<GradSource> out;
  for (const auto& [last, chunk] : chunks) {
    const int vs = chunk * pp_ + stage;
    if (vs == vstages() - 1) {
      for (int d = D - 1; d >= 0; --d)
        out.push_back(
            {layers_.dense_params(L + d) + mtp_.params_per_rank(), layers_.expert_params(L + d), L + d});
      if (D > 0) out.push_back({embed_.params_per_rank(), 0.0, -1});
      out.push_back({head_.params_per_rank(), 0.0, -1});
    }
    const auto [begin, end] = layers_of(vs);
    for (int l = end - 1; l >= begin; --l)
      out.push_back({layers_.dense_params(l), layers_.expert_params(l), l});
    if (vs == 0) out.push_back({embed_.params_per_rank(), 0.0, -1});
  }
  return out;
}

std::array<std::int64_t, 2> Bounder::zero3_busy(int stage, const std::vector<GradSource>& sources,
                                                std::int64_t m) {
  // In each of the m micro-batches, each layer's weights gathered for its forward and again for its
  // backward (once with reshard_after_forward = false), and its gradients reduce-scattered after
  // the backward (gather_layer, release_layer; only the last micro-batch's with defer_grad_sync),
  // inside the HSDP shard group when there is one, whose shards are then all-reduced over their
  // replicas (reduce_layer_grads).
  const auto& prec = job_.precision;
  const auto& par = job_.parallel;
  const int rank = rank_of(stage);
  const std::int64_t gathers = m * (par.reshard_after_forward ? 2 : 1);
  const std::int64_t reductions = par.defer_grad_sync ? 1 : m;
  const bool hybrid = par.shard_group > 0;
  const CommScope scope = hybrid ? CommScope::shard : CommScope::dense;
  std::array<std::int64_t, 2> t{0, 0};
  for (const GradSource& src : sources) {
    if (src.layer < 0) continue;
    const double dense = layers_.dense_params(src.layer), experts = layers_.expert_params(src.layer);
    t[0] += gathers * dp_bound(rank, CollectiveKind::all_gather, dense * prec.param_bytes, scope) +
            reductions * dp_bound(rank, CollectiveKind::reduce_scatter, dense * prec.grad_bytes, scope);
    if (hybrid && par.shard_replicas() > 1)
      t[0] += reductions * dp_bound(rank, CollectiveKind::all_reduce,
                                    dense * prec.grad_bytes / par.shard_group, CommScope::replica);
    if (experts > 0.0 && job_.parallel.expert_dp() > 1)
      t[1] += gathers *
                  dp_bound(rank, CollectiveKind::all_gather, experts * prec.param_bytes, CommScope::expert) +
              reductions * dp_bound(rank, CollectiveKind::reduce_scatter, experts * prec.grad_bytes,
                                    CommScope::expert);
  }
  return t;
}

Bounder::Buckets Bounder::buckets(int stage, const std::vector<GradSource>& sources,
                                  std::int64_t last_output) {
  // reduce_buckets: filled in source order up to dp_bucket_mb; ZeRO-3 reduced the layers already.
  const auto& par = job_.parallel;
  const auto& prec = job_.precision;
  const bool zero3 = par.zero_stage >= 3 && par.dp * par.cp > 1;
  const double target = par.dp_bucket_bytes / prec.grad_bytes;
  Buckets b;
  for (const CommScope scope : {CommScope::dense, CommScope::expert}) {
    const int replicas = scope == CommScope::expert ? par.expert_dp() : par.dp * par.cp;
    std::vector<double> params;
    for (const GradSource& src : sources) {
      if (zero3 && src.layer >= 0) continue;
      if (scope == CommScope::dense) params.push_back(src.params);
      if (scope == CommScope::expert && src.experts > 0.0) params.push_back(src.experts);
    }
    double total = 0.0;
    for (double p : params) total += p;
    if (replicas <= 1 || total <= 0.0) continue;
    const auto ch = static_cast<std::size_t>(channel_of(scope));
    std::int64_t channel = 0;
    double in_bucket = 0.0;
    for (std::size_t i = 0; i < params.size(); ++i) {
      in_bucket += params[i];
      if (in_bucket < target && i + 1 < params.size()) continue;
      if (in_bucket <= 0.0) continue;
      // A bucket waits for its last gradient, known here only for the step's last one (the last
      // dense source is the last gradient emitted), or for all when they wait for the backward.
      const bool last_gradient = scope == CommScope::dense && !zero3 && i + 1 == params.size();
      const std::int64_t ready = (!par.dp_overlap || last_gradient) ? last_output : 0;
      const std::int64_t t = dp_bound(
          rank_of(stage), par.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce,
          in_bucket * prec.grad_bytes, scope);
      channel = std::max(channel, ready) + t;
      b.busy[ch] += t;
      b.sizes.emplace_back(in_bucket, scope);
      in_bucket = 0.0;
    }
    b.reduced[ch] = channel;
  }
  return b;
}

// The data-parallel side of a stage's step (train_gradients.cpp), on its two channels (dense and,
// for MoE, expert): ZeRO-3's per-layer gathers and reduce-scatters, the gradient buckets the
// optimizer waits for, and the weight all-gathers that follow it. Ops on one channel run one at a
// time, so the channel's busy time bounds the step; and the optimizer cannot start before the last
// bucket is reduced, nor the gathers before the optimizer ends.
std::int64_t Bounder::with_gradients(int stage, const std::vector<PipeStep>& steps, std::int64_t stream,
                                     std::int64_t last_output, const Segment& optimizer) {
  const auto& par = job_.parallel;
  const std::vector<GradSource> sources = gradient_sources(stage, steps);
  Buckets b = buckets(stage, sources, last_output);
  if (par.zero_stage >= 3 && par.dp * par.cp > 1) {
    const std::int64_t m = job_.workload.global_batch / (job_.workload.micro_batch * par.dp);
    const auto busy = zero3_busy(stage, sources, m);
    for (std::size_t c = 0; c < 2; ++c) b.busy[c] += busy[c];
  }
  State st{std::max({stream, b.reduced[0], b.reduced[1]}), kNone};
  st.apply(optimizer, Feed::alone);
  std::int64_t end = st.stream;
  if (par.zero_stage >= 1 && !par.overlap_param_gather) {
    // The updated weights' all-gathers, one per bucket, after the optimizer, each channel in turn.
    std::array<std::int64_t, 2> gathers{0, 0};
    for (const auto& [params, scope] : b.sizes)
      gathers[static_cast<std::size_t>(channel_of(scope))] +=
          dp_bound(rank_of(stage), CollectiveKind::all_gather, params * job_.precision.param_bytes, scope);
    for (std::size_t c = 0; c < 2; ++c) {
      b.busy[c] += gathers[c];
      end = std::max(end, st.stream + gathers[c]);
    }
  }
  return std::max({end, b.busy[0], b.busy[1]});
}

}  // namespace stepsim::work::detail
