#include "workloads/step/routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "sim/error.hpp"

namespace stepsim::work {
namespace {

/// splitmix64: a portable, seedable generator (std distributions differ between standard libraries).
std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Expected share of all token copies per expert, sorted busiest first; max / mean = imbalance.
std::vector<double> load_profile(int experts, double imbalance) {
  std::vector<double> share(static_cast<std::size_t>(experts), 1.0 / experts);
  if (experts < 2 || imbalance <= 1.0) return share;
  const auto weights = [&](double beta) {
    std::vector<double> w(share.size());
    for (std::size_t j = 0; j < w.size(); ++j) w[j] = std::exp(-beta * double(j) / (experts - 1.0));
    return w;
  };
  // max / mean = E / sum(w) grows from 1 (beta = 0) towards E: bisect for the target.
  const auto ratio = [&](double beta) {
    const auto w = weights(beta);
    return experts / std::accumulate(w.begin(), w.end(), 0.0);
  };
  double lo = 0.0, hi = 1.0;
  while (ratio(hi) < imbalance && hi < 1e6) hi *= 2.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (ratio(mid) < imbalance ? lo : hi) = mid;
  }
  auto w = weights(0.5 * (lo + hi));
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= sum;
  return w;
}

/// Share of copies per expert id: the profile dealt to experts in a seeded order for this layer.
std::vector<double> expert_shares(const RoutingInputs& in, int layer) {
  const std::vector<double> profile = load_profile(in.experts, in.moe.imbalance);
  std::vector<int> order(profile.size());
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t state = in.moe.seed ^ (0xD1B54A32D192ED03ull * static_cast<std::uint64_t>(layer + 1));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitmix(state) % i]);
  std::vector<double> share(profile.size());
  for (std::size_t j = 0; j < profile.size(); ++j) share[static_cast<std::size_t>(order[j])] = profile[j];
  return share;
}

/// The EP ranks by node: the nodes in first-appearance order, each one's ranks in EP order, and
/// for every rank its node's index and its position among that node's ranks (its rail).
struct NodeGroups {
  std::vector<std::vector<std::size_t>> members;
  std::vector<std::size_t> group;     ///< by EP index: index into members
  std::vector<std::size_t> position;  ///< by EP index: index within its group
};

NodeGroups node_groups(const std::vector<int>& node_of) {
  NodeGroups g;
  std::vector<int> nodes;
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    const auto it = std::find(nodes.begin(), nodes.end(), node_of[r]);
    const auto n = static_cast<std::size_t>(it - nodes.begin());
    if (it == nodes.end()) {
      nodes.push_back(node_of[r]);
      g.members.emplace_back();
    }
    g.group.push_back(n);
    g.position.push_back(g.members[n].size());
    g.members[n].push_back(r);
  }
  return g;
}

/// Relabels EP ranks so that `hot` becomes 0, by swapping whole nodes and in-node positions (a
/// symmetry of a uniform cluster); returns new index per old index.
std::vector<int> relabel_hot_first(const std::vector<int>& node_of, int hot) {
  const NodeGroups g = node_groups(node_of);
  const std::size_t ep = node_of.size(), h = static_cast<std::size_t>(hot);
  std::vector<int> to(ep);
  std::iota(to.begin(), to.end(), 0);
  const bool even = std::all_of(g.members.begin(), g.members.end(),
                                [&](const auto& m) { return m.size() == g.members[0].size(); });
  if (!even) {
    std::swap(to[0], to[h]);
    return to;
  }
  const std::size_t nh = g.group[h], n0 = g.group[0], ph = g.position[h], p0 = g.position[0];
  for (std::size_t r = 0; r < ep; ++r) {
    std::size_t n = g.group[r], p = g.position[r];
    n = n == nh ? n0 : n == n0 ? nh : n;
    p = p == ph ? p0 : p == p0 ? ph : p;
    to[r] = static_cast<int>(g.members[n][p]);
  }
  return to;
}

/// Direct dispatch: every copy goes to its expert's rank; every source spreads its T k copies alike.
void direct_dispatch(const RoutingInputs& in, const std::vector<double>& rank_share, LayerRouting& r) {
  const auto ep = static_cast<std::size_t>(r.ep);
  for (std::size_t i = 0; i < ep; ++i)
    for (std::size_t j = 0; j < ep; ++j)
      r.dispatch[i * ep + j] = in.tokens_per_rank * in.top_k * rank_share[j];
}

/// Node-limited dispatch (module comment): remote nodes once per token via the rail peer, then
/// NVLink forwarding; the source's own node directly, once per GPU.
void node_limited_dispatch(const RoutingInputs& in, const std::vector<double>& rank_share, LayerRouting& r) {
  const auto ep = static_cast<std::size_t>(r.ep);
  const NodeGroups groups = node_groups(in.node_of);
  const double kept = std::accumulate(rank_share.begin(), rank_share.end(), 0.0);
  const double k_eff = in.top_k * kept, T = in.tokens_per_rank;
  const double limit = in.moe.max_nodes_per_token;
  for (std::size_t n = 0; n < groups.members.size(); ++n) {
    const std::vector<std::size_t>& on = groups.members[n];  // ranks of node n, EP order
    double node_share = 0.0;
    for (std::size_t j : on) node_share += rank_share[j];
    if (!(node_share > 0.0)) continue;
    // P(a token reaches node n), and its copies there given it does (expected copies = k_eff x share).
    // Whichever binds: the limit (M of the nodes; the gate picks nodes by their best experts, so a
    // picked node nearly always gets a copy), or none of the k_eff copies landing on n. DeepEP's
    // test gating, top-8 of 256: 3.61 of 4 nodes unlimited, 3.98 of 8 with M = 4
    // (tests/workloads/step/deepep_h800_test.cpp).
    const double reach =
        std::min({1.0, limit * node_share / kept, 1.0 - std::pow(1.0 - node_share / kept, k_eff)});
    const double copies = k_eff * node_share / kept / reach;
    std::vector<double> used(on.size());  // P(GPU used | node reached)
    for (std::size_t g = 0; g < on.size(); ++g)
      used[g] = 1.0 - std::pow(1.0 - rank_share[on[g]] / node_share, copies);
    for (std::size_t i = 0; i < ep; ++i) {
      for (std::size_t g = 0; g < on.size(); ++g) r.delivered[on[g]] += T * reach * used[g];
      if (groups.group[i] == n) {  // own node: straight to each GPU used
        for (std::size_t g = 0; g < on.size(); ++g) r.dispatch[i * ep + on[g]] += T * reach * used[g];
        continue;
      }
      // Remote: once to the rail peer (same in-node position), which forwards to the other GPUs used.
      const std::size_t peer = on[groups.position[i] % on.size()];
      r.dispatch[i * ep + peer] += T * reach;
      for (std::size_t g = 0; g < on.size(); ++g)
        if (on[g] != peer) r.dispatch[peer * ep + on[g]] += T * reach * used[g];
    }
  }
}

/// A balanced gate's fixed pattern (MoeRouting::round_robin): a rank's token t takes experts
/// t k .. t k + k - 1 (mod E), so the block's starts cycle over the multiples of g = gcd(k, E), each
/// start E / g-th of the tokens. Through DeepEP's dispatch (node-limited: once per GPU, once per
/// remote node via the rail peer) a token reaches only the ranks holding its block; the fixed
/// pattern has no node limit to respect.
void round_robin_dispatch(const RoutingInputs& in, LayerRouting& r) {
  const auto ep = static_cast<std::size_t>(r.ep);
  const NodeGroups groups = node_groups(in.node_of);
  const int E = in.experts, k = in.top_k, per = r.experts_per_rank;
  const int g = std::gcd(k, E), starts = E / g;
  const double w = in.tokens_per_rank / starts;
  for (int s = 0; s < starts; ++s) {
    std::vector<std::size_t> ranks;  // the ranks holding this start's block
    for (int j = 0; j < std::min(k, E); ++j) {
      const auto rank = static_cast<std::size_t>(((s * g + j) % E) / per);
      if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) ranks.push_back(rank);
    }
    for (std::size_t i = 0; i < ep; ++i) {
      std::vector<std::size_t> done;  // remote nodes already sent to
      for (const std::size_t j : ranks) {
        r.delivered[j] += w;
        const std::size_t n = groups.group[j];
        if (n == groups.group[i]) {
          r.dispatch[i * ep + j] += w;
          continue;
        }
        if (std::find(done.begin(), done.end(), n) != done.end()) continue;
        done.push_back(n);
        const std::vector<std::size_t>& on = groups.members[n];
        const std::size_t peer = on[groups.position[i] % on.size()];
        r.dispatch[i * ep + peer] += w;
        for (const std::size_t x : ranks)
          if (x != peer && groups.group[x] == n) r.dispatch[peer * ep + x] += w;
      }
    }
  }
}

void summarise(const RoutingInputs& in, const std::vector<double>& share, LayerRouting& r) {
  const double kept = std::accumulate(share.begin(), share.end(), 0.0);
  r.expert_imbalance = kept > 0.0 ? *std::max_element(share.begin(), share.end()) * in.experts / kept : 1.0;
  double most = 0.0, total = 0.0;
  for (const ExpertLoad& l : r.ranks) most = std::max(most, l.copies), total += l.copies;
  r.rank_imbalance = total > 0.0 ? most * r.ep / total : 1.0;
  const auto ep = static_cast<std::size_t>(r.ep);
  r.combine.assign(r.dispatch.size(), 0.0);
  for (std::size_t i = 0; i < ep; ++i)
    for (std::size_t j = 0; j < ep; ++j) r.combine[j * ep + i] = r.dispatch[i * ep + j];
  r.dispatch_bytes = r.dispatch;
  r.combine_bytes = r.combine;
  const double dispatched = in.dispatch_vector_bytes > 0.0 ? in.dispatch_vector_bytes : in.vector_bytes;
  for (double& b : r.dispatch_bytes) b *= dispatched;
  for (double& b : r.combine_bytes) b *= in.vector_bytes;
  if (in.moe.dispatcher == MoeDispatcher::low_latency) {
    // DeepEP's low-latency kernels send every (token, expert) copy to its expert's rank: every
    // sender's share of rank j's copies, copies_j / ep, with no per-GPU or per-node merging.
    for (std::size_t i = 0; i < ep; ++i)
      for (std::size_t j = 0; j < ep; ++j) {
        const double copies = r.ranks[j].copies / static_cast<double>(ep);
        r.dispatch_bytes[i * ep + j] = copies * dispatched;
        r.combine_bytes[j * ep + i] = copies * in.vector_bytes;
      }
  }
  r.mean_sent_bytes = std::accumulate(r.dispatch_bytes.begin(), r.dispatch_bytes.end(), 0.0) / r.ep;
  r.mean_combine_bytes = std::accumulate(r.combine_bytes.begin(), r.combine_bytes.end(), 0.0) / r.ep;
  const auto& pairs = in.moe.dispatcher == MoeDispatcher::low_latency ? r.dispatch_bytes : r.dispatch;
  const double first = pairs.empty() ? 0.0 : pairs[0];
  r.uniform = std::all_of(pairs.begin(), pairs.end(),
                          [&](double x) { return std::abs(x - first) <= 1e-12 * std::max(1.0, first); });
}

/// Drops copies above the capacity (c / E of all copies per expert); returns the dropped share.
double apply_capacity(double capacity_factor, std::vector<double>& share) {
  if (!(capacity_factor > 0.0)) return 0.0;
  const double cap = capacity_factor / static_cast<double>(share.size());
  double dropped = 0.0;
  for (double& s : share) {
    dropped += std::max(0.0, s - cap);
    s = std::min(s, cap);
  }
  return dropped;
}

/// Moves expert shares to their (possibly relabelled) ranks: experts of EP rank i are ids
/// [i E/ep, (i+1) E/ep) (Megatron). Returns shares by expert slot; fills rank loads.
std::vector<double> place_experts(const RoutingInputs& in, const std::vector<double>& share, HotRank hot,
                                  LayerRouting& r) {
  const auto ep = static_cast<std::size_t>(r.ep), per = static_cast<std::size_t>(r.experts_per_rank);
  std::vector<double> rank_share(ep, 0.0);
  for (std::size_t e = 0; e < share.size(); ++e) rank_share[e / per] += share[e];
  std::vector<int> to(ep);
  std::iota(to.begin(), to.end(), 0);
  if (hot == HotRank::first) {
    const auto busiest = std::max_element(rank_share.begin(), rank_share.end()) - rank_share.begin();
    to = relabel_hot_first(in.node_of, static_cast<int>(busiest));
  }
  std::vector<double> moved(share.size());
  for (std::size_t e = 0; e < share.size(); ++e)
    moved[static_cast<std::size_t>(to[e / per]) * per + e % per] = share[e];
  r.ranks.assign(ep, ExpertLoad{});
  const double tokens = in.tokens_per_rank * static_cast<double>(ep);  // every token of the group
  for (std::size_t e = 0; e < moved.size(); ++e) {
    ExpertLoad& l = r.ranks[e / per];
    l.copies += tokens * in.top_k * moved[e];
    // A token picks this expert with probability k x share: used unless all tokens miss it.
    l.active_experts += 1.0 - std::pow(1.0 - std::min(1.0, in.top_k * moved[e]), tokens);
  }
  return moved;
}

}  // namespace

double LayerRouting::sent(int i) const {
  const auto p = static_cast<std::size_t>(ep);
  return std::accumulate(dispatch.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * p),
                         dispatch.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i + 1) * p),
                         0.0);
}

double LayerRouting::received(int j) const {
  double sum = 0.0;
  for (int i = 0; i < ep; ++i) sum += dispatch[static_cast<std::size_t>(i * ep + j)];
  return sum;
}

LayerRouting route_layer(const RoutingInputs& in, int layer, HotRank hot) {
  const int ep = static_cast<int>(in.node_of.size());
  if (ep < 1 || in.top_k < 1 || in.experts % ep != 0)
    throw UserError("MoE routing: ep = " + std::to_string(ep) +
                    " must divide experts = " + std::to_string(in.experts));
  if (in.moe.imbalance > double(in.experts) / in.top_k * (1.0 + 1e-9))
    throw UserError("moe.imbalance = " + std::to_string(in.moe.imbalance) +
                    " exceeds experts / top_k = " + std::to_string(in.experts) + " / " +
                    std::to_string(in.top_k) + ": a token reaches an expert at most once");
  LayerRouting r;
  r.ep = ep;
  r.experts_per_rank = in.experts / ep;
  std::vector<double> share = expert_shares(in, layer);
  r.dropped_fraction = apply_capacity(in.moe.capacity_factor, share);
  const std::vector<double> moved = place_experts(in, share, hot, r);
  std::vector<double> rank_share(static_cast<std::size_t>(ep), 0.0);
  for (std::size_t e = 0; e < moved.size(); ++e)
    rank_share[e / static_cast<std::size_t>(r.experts_per_rank)] += moved[e];
  r.dispatch.assign(static_cast<std::size_t>(ep * ep), 0.0);
  r.delivered.assign(static_cast<std::size_t>(ep), 0.0);
  // Node-limited dispatch sends a token once per GPU (DeepEP), also when the group fits in one node.
  if (in.moe.max_nodes_per_token > 0 && in.moe.routing == MoeRouting::round_robin)
    round_robin_dispatch(in, r);
  else if (in.moe.max_nodes_per_token > 0)
    node_limited_dispatch(in, rank_share, r);
  else
    direct_dispatch(in, rank_share, r);
  if (in.moe.max_nodes_per_token <= 0)
    for (int j = 0; j < ep; ++j) r.delivered[static_cast<std::size_t>(j)] = r.received(j);
  summarise(in, moved, r);
  return r;
}

}  // namespace stepsim::work
