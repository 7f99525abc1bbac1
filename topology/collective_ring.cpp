// Ring-based algorithms: NCCL's ring (all-reduce, reduce-scatter, all-gather), the pipelined chain
// broadcast, and the hierarchical all-reduce built from rings inside and across hosts.
#include <algorithm>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

// A ring all-reduce takes 2(p-1) steps (reduce-scatter then all-gather), the others p-1.
double ring_steps(CollectiveOp op, std::size_t p) {
  const double s = static_cast<double>(p) - 1.0;
  return op == CollectiveOp::all_reduce ? 2.0 * s : s;
}

std::vector<GpuId> rotated(const std::vector<GpuId>& host, std::uint32_t channel) {
  std::vector<GpuId> out(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) out[i] = host[(channel + i) % host.size()];
  return out;
}

}  // namespace

Plan build_ring(AlgoContext& ctx) {
  std::vector<RingSet> rings(ctx.channels);
  for (std::uint32_t c = 0; c < ctx.channels; ++c)
    for (const GroupLayout& layout : ctx.layouts) rings[c].push_back(ring_order(layout, c));
  const double steps = ring_steps(ctx.request.op, ctx.layouts[0].ranks);
  return Plan{CollectiveAlgorithm::ring, {ring_phase(ctx, rings, steps, 1.0)}};
}

// Pipelined chain from the root along the ring order: every edge carries the whole buffer (per
// channel its share), and chunks stream, so the time is S / bandwidth plus a fill of p-2 chunks.
Plan build_chain_broadcast(AlgoContext& ctx) {
  PlanPhase phase;
  phase.channels = ctx.channels;
  const double w = 1.0 / ctx.channels;
  for (std::uint32_t c = 0; c < ctx.channels; ++c) {
    for (std::size_t g = 0; g < ctx.layouts.size(); ++g) {
      std::vector<GpuId> order = ring_order(ctx.layouts[g], c);
      const GpuId root = ctx.request.groups[g][ctx.request.root];
      std::rotate(order.begin(), std::find(order.begin(), order.end(), root), order.end());
      double latency = 0.0;
      for (std::size_t i = 0; i + 1 < order.size(); ++i)
        latency += ctx.builder.add_flow(order[i], order[i + 1], c, w);
      phase.latency_s = std::max(phase.latency_s, latency);
    }
  }
  phase.fill_hops = std::max(0.0, static_cast<double>(ctx.layouts[0].ranks) - 2.0);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::ring, {std::move(phase)}};
}

// Reduce-scatter inside each host (m ranks), all-reduce of the 1/m shard across hosts among the
// ranks with the same position (one ring per rail), all-gather inside each host. The stages are
// pipelined in chunks (as NCCL's NVLS-tree and CollNet schemes are), so they run concurrently at
// one rate: a single coupled variable whose pattern sums the three stages' traffic. Scale-out
// traffic per rank is 2(n-1)/n x S/m, against about 2S/m for a flat ring over all p ranks.
Plan build_hierarchical_all_reduce(AlgoContext& ctx) {
  const std::size_t m = ctx.layouts[0].max_per_node;
  const std::size_t n = ctx.layouts[0].nodes.size();
  std::vector<RingSet> intra(ctx.channels), inter(ctx.channels);
  for (std::uint32_t c = 0; c < ctx.channels; ++c) {
    for (const GroupLayout& layout : ctx.layouts) {
      for (const auto& host : layout.nodes) intra[c].push_back(rotated(host, c));
      for (std::size_t i = 0; i < m; ++i) {
        std::vector<GpuId> ring;
        for (const auto& host : layout.nodes) ring.push_back(host[i]);
        inter[c].push_back(std::move(ring));
      }
    }
  }
  const double intra_steps = static_cast<double>(m) - 1.0;
  PlanPhase phase;
  phase.channels = ctx.channels;
  phase.latency_s = 2.0 * add_ring_flows(ctx, intra, intra_steps, 1.0);  // reduce-scatter + all-gather
  phase.latency_s += add_ring_flows(ctx, inter, 2.0 * (static_cast<double>(n) - 1.0), 1.0 / m);
  add_ring_flows(ctx, intra, intra_steps, 1.0);  // the all-gather's traffic mirrors the reduce-scatter's
  phase.fill_hops = 2.0;                         // a chunk crosses two stages before the last starts
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::hierarchical, {std::move(phase)}};
}

}  // namespace stepsim::topo
