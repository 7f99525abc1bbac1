// NCCL's double binary tree all-reduce: a chain inside each host, two complementary binary trees
// across hosts (NCCL's own, src/graph/trees.cc), reduce up and broadcast down pipelined in chunks.
#include <algorithm>
#include <cmath>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

// ncclGetBtree's parent: the lowest set bit b of rank; parent (rank ^ b) | (b << 1), or rank ^ b
// when that is out of range.
int btree_parent(int rank, int n) {
  if (rank == 0) return -1;
  int bit = 1;
  while (bit < n && !(bit & rank)) bit <<= 1;
  const int up = (rank ^ bit) | (bit << 1);
  return up >= n ? (rank ^ bit) : up;
}

}  // namespace

int double_tree_parent(int rank, int n, std::uint32_t t) {
  if (t == 0) return btree_parent(rank, n);
  if (n % 2 == 1) {  // shift by one
    const int u = btree_parent((rank - 1 + n) % n, n);
    return u < 0 ? -1 : (u + 1) % n;
  }
  const int u = btree_parent(n - 1 - rank, n);  // mirror
  return u < 0 ? -1 : n - 1 - u;
}

namespace {

struct TreeLatency {
  double intra = 0.0;  // largest chain-edge latency
  double inter = 0.0;  // largest tree-edge latency
};

// Adds one channel of one group: chains up/down inside hosts, tree edges up/down between them.
void add_channel(AlgoContext& ctx, const GroupLayout& layout, std::uint32_t c, TreeLatency& lat) {
  const double w = 1.0 / ctx.channels;
  const std::size_t n = layout.nodes.size();
  // Channels 2r and 2r+1 use rank r of each host as its representative, one per tree, so every
  // rank (and NIC) takes part in both trees equally.
  const std::uint32_t rot = c / 2;
  std::vector<GpuId> rep(n);
  for (std::size_t h = 0; h < n; ++h) {
    const auto& host = layout.nodes[h];
    const std::size_t m = host.size();
    rep[h] = host[rot % m];
    for (std::size_t i = 1; i < m; ++i) {
      const GpuId below = host[(rot + i) % m], above = host[(rot + i - 1) % m];
      lat.intra = std::max(lat.intra, ctx.builder.add_flow(below, above, c, w));  // reduce
      ctx.builder.add_flow(above, below, c, w);                                   // broadcast
    }
  }
  const std::uint32_t t = c % 2;
  for (std::size_t h = 0; h < n; ++h) {
    const int up = double_tree_parent(static_cast<int>(h), static_cast<int>(n), t);
    if (up < 0) continue;
    const GpuId child = rep[h], parent = rep[static_cast<std::size_t>(up)];
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
  const double depth = std::floor(std::log2(static_cast<double>(l0.nodes.size())));
  const double chain = static_cast<double>(l0.max_per_node) - 1.0;
  PlanPhase phase;
  phase.channels = ctx.channels;
  phase.latency_s = 2.0 * (depth * lat.inter + chain * lat.intra);  // up the tree and back down
  phase.fill_hops = 2.0 * (depth + chain);
  phase.simple_chunk_fixed = true;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::tree, {std::move(phase)}};
}

}  // namespace stepsim::topo
