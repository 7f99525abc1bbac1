// NCCL's double binary tree all-reduce: a chain inside each host, two complementary binary trees
// across hosts, reduce up and broadcast down pipelined in chunks.
#include <algorithm>
#include <cmath>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

// Host at heap position `pos` of tree `t`: tree 0 numbers hosts in order, tree 1 in reverse, so
// the interior hosts of one tree (positions < n/2) are leaves of the other.
std::size_t host_at(std::size_t pos, std::size_t n, std::uint32_t t) {
  return t == 0 ? pos : n - 1 - pos;
}

struct TreeLatency {
  double intra = 0.0;  // largest chain-edge latency
  double inter = 0.0;  // largest tree-edge latency
};

// Adds one channel of one group: chains up/down inside hosts, tree edges up/down between them.
void add_channel(AlgoContext& ctx, const GroupLayout& layout, std::uint32_t c, TreeLatency& lat) {
  const double w = 1.0 / ctx.channels;
  const std::size_t n = layout.hosts.size();
  // Channels 2r and 2r+1 use rank r of each host as its representative, one per tree, so every
  // rank (and NIC) takes part in both trees equally.
  const std::uint32_t rot = c / 2;
  std::vector<GpuId> rep(n);
  for (std::size_t h = 0; h < n; ++h) {
    const auto& host = layout.hosts[h];
    const std::size_t m = host.size();
    rep[h] = host[rot % m];
    for (std::size_t i = 1; i < m; ++i) {
      const GpuId below = host[(rot + i) % m], above = host[(rot + i - 1) % m];
      lat.intra = std::max(lat.intra, ctx.builder.add_flow(below, above, c, w));  // reduce
      ctx.builder.add_flow(above, below, c, w);                                   // broadcast
    }
  }
  const std::uint32_t t = c % 2;
  for (std::size_t pos = 1; pos < n; ++pos) {
    const GpuId child = rep[host_at(pos, n, t)], parent = rep[host_at((pos - 1) / 2, n, t)];
    lat.inter = std::max(lat.inter, ctx.builder.add_flow(child, parent, c, w));
    ctx.builder.add_flow(parent, child, c, w);
  }
}

}  // namespace

// Each channel carries 1/k of the buffer through one of the two trees (even channels tree 0, odd
// tree 1), so every chain and tree edge moves S/k each way: one unit flow = the whole buffer S.
Plan build_tree_all_reduce(AlgoContext& ctx) {
  TreeLatency lat;
  for (std::uint32_t c = 0; c < ctx.channels; ++c)
    for (const GroupLayout& layout : ctx.layouts) add_channel(ctx, layout, c, lat);
  const GroupLayout& l0 = ctx.layouts[0];
  const double depth = std::floor(std::log2(static_cast<double>(l0.hosts.size())));
  const double chain = static_cast<double>(l0.max_per_host) - 1.0;
  PlanPhase phase;
  phase.channels = ctx.channels;
  phase.latency_s = 2.0 * (depth * lat.inter + chain * lat.intra);  // up the tree and back down
  phase.fill_hops = 2.0 * (depth + chain);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::tree, {std::move(phase)}};
}

}  // namespace stepsim::topo
