// Network bytes per token for every parallel dimension, placed on the link tier each crosses.
#include <algorithm>
#include <array>
#include <numeric>
#include <optional>
#include <vector>

#include "workloads/estimate/estimate_parts.hpp"
#include "workloads/model/kv.hpp"

namespace stepsim::work {

TierBytes collective_bytes(Collective c, double bytes, const GroupPlacement& where) {
  const double n = where.size;
  if (n <= 1.0 || bytes <= 0.0) return {};
  const double k = where.per_domain;  // members sharing a scale-up domain
  TierBytes t;
  if (c == Collective::send_recv) {
    // The worst-placed rank: one neighbour outside its domain puts the whole message on the NIC.
    (where.inside_domain() ? t.scale_up : t.scale_out) = bytes;
    return t;
  }
  if (c == Collective::all_to_all) {
    // `bytes` leaves the rank split evenly over n peers (one share stays local).
    t.scale_up = bytes * (k - 1.0) / n;
    t.scale_out = bytes * (n - k) / n;
    return t;
  }
  // Ring (or hierarchical) reduce-scatter / all-gather: (n-1)/n of the buffer per rank; an
  // all-reduce is both. Spread over m domains of k ranks: reduce inside the domain over NVLink,
  // then each rank carries 1/k of the buffer across the m domains through its NIC.
  const double factor = c == Collective::all_reduce ? 2.0 : 1.0;
  if (where.inside_domain()) {
    t.scale_up = factor * (n - 1.0) / n * bytes;
  } else {
    const double m = n / k;
    t.scale_up = factor * (k - 1.0) / k * bytes;
    t.scale_out = factor * (m - 1.0) / m * bytes / k;
  }
  return t;
}

MergedCopies merged_copies(const JobSpec& job, const GroupPlacement& where) {
  const int n = where.size, per = std::max(where.per_domain, 1), domains = std::max(n / per, 1);
  const int E = job.model.experts, k = std::min(job.model.top_k, E);
  const int per_rank = std::max(E / std::max(n, 1), 1);
  double touched_domains = 0.0, touched_ranks = 0.0;
  if (job.moe.routing == MoeRouting::round_robin) {
    // AutoModel's balanced gate: token t takes experts t k .. t k + k - 1 (mod E); its windows start
    // at the E / gcd(k, E) multiples of gcd(k, E), each as often.
    const int g = std::gcd(k, E), starts = E / g;
    for (int st = 0; st < starts; ++st) {
      std::vector<int> ranks, doms;
      for (int j = 0; j < k; ++j) {
        const int r = ((st * g + j) % E) / per_rank;
        if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
        if (std::find(doms.begin(), doms.end(), r / per) == doms.end()) doms.push_back(r / per);
      }
      touched_ranks += static_cast<double>(ranks.size()) / starts;
      touched_domains += static_cast<double>(doms.size()) / starts;
    }
  } else {
    // Random routing limited to M domains: the k experts are drawn from the M x E / domains experts
    // of the chosen domains; a domain (a rank) is missed when all k come from the others.
    const int M = std::min(job.moe.max_nodes_per_token, domains);
    const double pool = double(M) * E / domains;
    const auto miss = [&](double out_of) {  // C(pool - out_of, k) / C(pool, k)
      double p = 1.0;
      for (int j = 0; j < k; ++j) p *= std::max(pool - out_of - j, 0.0) / (pool - j);
      return p;
    };
    touched_domains = M * (1.0 - miss(double(E) / domains));
    touched_ranks = double(M) * per * (1.0 - miss(per_rank));
  }
  // The sender's own domain is one of the `domains` equally often; a GPU it reaches is the receiving
  // peer (or the sender itself) once in `per`.
  return {touched_ranks * (per - 1.0) / per, touched_domains * (domains - 1.0) / domains};
}

namespace {

/// Collects terms; a term with no calls or no bytes is dropped.
class TermList {
 public:
  TermList(const StepShape& s, int domain, const ParallelSpec& par) : shape_(s), domain_(domain), par_(par) {}

  void add(const char* name, RankGroup g, Collective c, double message_bytes, double calls) {
    add_placed(name, g, c, message_bytes, calls,
               [&](const GroupPlacement& where) { return collective_bytes(c, message_bytes, where); });
  }
  /// A term whose bytes per tier `tiers(placement)` gives (a collective of its own pattern).
  template <typename Tiers>
  void add_placed(const char* name, RankGroup g, Collective c, double message_bytes, double calls,
                  Tiers&& tiers) {
    if (calls <= 0.0 || message_bytes <= 0.0) return;
    NetworkTerm t;
    t.name = name;
    t.group = g;
    t.collective = c;
    t.placement = placement(g);
    if (t.placement.size <= 1) return;
    t.message_bytes = message_bytes;
    t.calls_per_step = calls;
    const TierBytes per_call = tiers(t.placement);
    t.scale_up_bytes_per_token = calls * per_call.scale_up / shape_.tokens_per_gpu;
    t.scale_out_bytes_per_token = calls * per_call.scale_out / shape_.tokens_per_gpu;
    terms_.push_back(std::move(t));
  }
  std::vector<NetworkTerm> take() { return std::move(terms_); }

 private:
  /// place() walks every rank; terms on the same group share one walk.
  const GroupPlacement& placement(RankGroup g) {
    auto& slot = cache_[static_cast<std::size_t>(g)];
    if (!slot) slot = place(par_, g, domain_);
    return *slot;
  }

  const StepShape& shape_;
  int domain_;
  const ParallelSpec& par_;
  std::vector<NetworkTerm> terms_;
  static_assert(static_cast<int>(RankGroup::expert_dp) == 6, "one cache slot per RankGroup");
  std::array<std::optional<GroupPlacement>, 7> cache_;  ///< by RankGroup
};

/// Passes over each micro-batch whose activations cross the network: forward, backward, and the
/// recomputed forward under full recomputation.
double comm_passes(const JobSpec& job, const StepShape& s) {
  if (!s.training()) return 1.0;
  return 2.0 + job.full_recompute_share();
}

void add_tensor_parallel(TermList& out, const JobSpec& job, const StepShape& s) {
  const ModelSpec& m = job.model;
  const ParallelSpec& par = job.parallel;
  // One all-reduce after the attention output projection and one after the FFN down projection,
  // each mirrored in backward; a MoE layer's FFN reduces only when it has TP-sharded shared experts.
  const double dense_per_stage = s.layers_per_stage - s.moe_layers_per_stage;
  const double moe_ffn = m.shared_experts > 0 ? 1.0 : 0.0;
  // A parallel (GPT-J / Falcon) block reduces its two branches' sum once.
  const double per_pass = m.parallel_block ? s.layers_per_stage
                                           : s.layers_per_stage + dense_per_stage + s.moe_layers_per_stage * moe_ffn;
  const double calls = s.micro_batches * comm_passes(job, s) * per_pass;
  const double bytes = s.tokens_per_micro_batch / par.cp * m.hidden * job.precision.activation_bytes;
  if (par.sequence_parallel) {
    // Sequence parallelism splits each all-reduce into a reduce-scatter and an all-gather.
    out.add("tp.reduce_scatter", RankGroup::tp, Collective::reduce_scatter, bytes, calls);
    out.add("tp.all_gather", RankGroup::tp, Collective::all_gather, bytes, calls);
  } else {
    out.add("tp.all_reduce", RankGroup::tp, Collective::all_reduce, bytes, calls);
  }
}

void add_context_parallel(TermList& out, const JobSpec& job, const StepShape& s) {
  const ModelSpec& m = job.model;
  const ParallelSpec& par = job.parallel;
  if (par.cp <= 1 || s.kind == WorkloadKind::decode) return;
  // Each rank gathers the keys and values of the other chunks of the sequence (ring attention, or
  // the all-gather); backward gathers them again and reduce-scatters their gradients.
  const LayerWidths w = layer_widths(m);
  const double kv_width = m.attention == AttentionKind::mla
                              ? (w.k + w.v) / par.tp
                              : 2.0 * std::max(1.0, double(m.kv_heads) / par.tp) * m.head_dim;
  const double per_layer = s.micro_batches * s.layers_per_stage;
  if (par.cp_comm == CpComm::a2a) {
    // All-to-all (Ulysses): queries, keys and values to head shards and the output back in every
    // forward pass (recomputation repeats it), their gradients mirrored in backward.
    const double widths = (w.q + w.k + w.v + w.o) / par.tp;
    const double bytes = s.tokens_per_micro_batch / par.cp * widths * job.precision.activation_bytes;
    out.add("cp.qkvo_all_to_all", RankGroup::cp, Collective::all_to_all, bytes,
            per_layer * comm_passes(job, s));
    return;
  }
  const double chunk = s.tokens_per_micro_batch / par.cp * kv_width * job.precision.activation_bytes;
  const double gathers = s.training() ? comm_passes(job, s) : 1.0;
  out.add("cp.kv_all_gather", RankGroup::cp, Collective::all_gather, chunk * par.cp, per_layer * gathers);
  if (s.training())
    out.add("cp.kv_grad_reduce_scatter", RankGroup::cp, Collective::reduce_scatter, chunk * par.cp,
            per_layer);
}

void add_pipeline(TermList& out, const JobSpec& job, const StepShape& s) {
  const ParallelSpec& par = job.parallel;
  // Each micro-batch crosses every stage boundary forward (activations) and, training, backward
  // (their gradients); Megatron sends 1/tp of the tensor per TP rank. Interleaving multiplies the
  // boundaries by the virtual stages.
  const double bytes =
      s.tokens_per_micro_batch / par.cp * job.model.hidden * job.precision.activation_bytes / par.tp;
  const double directions = s.training() ? 2.0 : 1.0;
  out.add("pp.send_recv", RankGroup::pp, Collective::send_recv, bytes,
          s.micro_batches * par.virtual_stages * directions);
}

void add_expert_parallel(TermList& out, const JobSpec& job, const StepShape& s) {
  const ModelSpec& m = job.model;
  const ParallelSpec& par = job.parallel;
  if (!m.is_moe()) return;
  // Dispatch sends each of the rank's tokens (1/tp of the micro-batch: Megatron splits them across
  // TP ranks) to top_k experts, combine brings them back; backward mirrors both. The busiest rank
  // receives `imbalance` times the mean.
  const double tokens = s.tokens_per_micro_batch / (double(par.cp) * par.tp);
  const double vector = m.hidden * job.precision.activation_bytes * job.moe.imbalance;
  const double calls = s.micro_batches * s.moe_layers_per_stage * 2.0 * comm_passes(job, s);
  const bool merged = job.moe.max_nodes_per_token > 0 && job.moe.dispatcher != MoeDispatcher::low_latency;
  if (!merged) {
    out.add("ep.all_to_all", RankGroup::ep, Collective::all_to_all, tokens * vector * m.top_k, calls);
    return;
  }
  // DeepEP's normal kernels (node-limited dispatch): a token crosses the fabric once per remote
  // scale-up domain its experts are in and reaches each GPU holding them once, over NVLink from the
  // rail peer (or from the sender, in its own domain), however many of that GPU's experts it picked.
  out.add_placed("ep.dispatch_combine", RankGroup::ep, Collective::all_to_all, tokens * vector * m.top_k,
                 calls, [&](const GroupPlacement& where) {
                   const MergedCopies c = merged_copies(job, where);
                   return TierBytes{tokens * vector * c.scale_up, tokens * vector * c.scale_out};
                 });
}

void add_data_parallel(TermList& out, const JobSpec& job, const ParamShares& params, const StepShape& s) {
  if (!s.training()) return;
  const ParallelSpec& par = job.parallel;
  const PrecisionSpec& prec = job.precision;
  const GpuParams gp = params_on_gpu(job, params);
  const double m = s.micro_batches;
  const double gathers = 2.0 + job.full_recompute_share();
  struct Part {
    const char* rs;
    const char* ag;
    const char* ar;
    RankGroup group;
    double params;
  };
  for (const Part& p : {Part{"dp.grad_reduce_scatter", "dp.param_all_gather", "dp.grad_all_reduce",
                             RankGroup::dp_cp, gp.nonexpert},
                        Part{"expert_dp.grad_reduce_scatter", "expert_dp.param_all_gather",
                             "expert_dp.grad_all_reduce", RankGroup::expert_dp, gp.expert}}) {
    const double grads = p.params * prec.grad_bytes;
    const double weights = p.params * prec.param_bytes;
    switch (par.zero_stage) {
      case 0: out.add(p.ar, p.group, Collective::all_reduce, grads, 1.0); break;
      case 1:  // distributed optimizer: reduce-scatter gradients, all-gather updated weights
        out.add(p.rs, p.group, Collective::reduce_scatter, grads, 1.0);
        out.add(p.ag, p.group, Collective::all_gather, weights, 1.0);
        break;
      case 2:  // gradients are sharded, so every micro-batch's gradients are reduce-scattered
        out.add(p.rs, p.group, Collective::reduce_scatter, grads, m);
        out.add(p.ag, p.group, Collective::all_gather, weights, 1.0);
        break;
      default:  // ZeRO-3: weights gathered for forward, backward (and recompute) of every micro-batch;
                // gradients reduced after every micro-batch, or only the last (defer_grad_sync)
        out.add(p.rs, p.group, Collective::reduce_scatter, grads, par.defer_grad_sync ? 1.0 : m);
        out.add(p.ag, p.group, Collective::all_gather, weights, m * gathers);
        break;
    }
  }
}

}  // namespace

std::vector<NetworkTerm> network_terms(const JobSpec& job, const ParamShares& params, const StepShape& s,
                                       int scale_up_domain) {
  TermList out(s, scale_up_domain, job.parallel);
  add_data_parallel(out, job, params, s);
  add_tensor_parallel(out, job, s);
  add_context_parallel(out, job, s);
  add_pipeline(out, job, s);
  add_expert_parallel(out, job, s);
  return out.take();
}

}  // namespace stepsim::work
