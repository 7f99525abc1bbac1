// NVLink SHARP (NVLS): in-switch reduction and multicast inside an NVLink domain, alone or with
// double binary trees across domains (NVLS-tree).
//
// All-reduce in one domain. Reduce-scatter by multimem loads: for its 1/p slice each GPU has the
// switch fetch that slice from all p GPUs and return the sum, so every GPU's uplink carries S (all
// slices) and its downlink S/p. All-gather by multimem stores: each GPU sends its reduced slice
// once (S/p up) and the switch multicasts it, so every downlink receives S. Per GPU and direction:
// S (1 + 1/p), at the GPU's NVLS efficiency; plus the fixed NVLS cost and one NVLink step per half.
#include <algorithm>
#include <cmath>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

double add_nvls_links(AlgoContext& ctx, const std::vector<GpuId>& ranks, double up, double down) {
  double step = 0.0;
  for (GpuId g : ranks) {
    ctx.builder.add_link(ctx.topo.scaleup_up(g), up, ctx.nvls_efficiency);
    ctx.builder.add_link(ctx.topo.scaleup_down(g), down, ctx.nvls_efficiency);
    step =
        ctx.topo.link(ctx.topo.scaleup_up(g)).latency_s + ctx.topo.link(ctx.topo.scaleup_down(g)).latency_s;
  }
  return step;
}

namespace {

std::vector<GpuId> all_ranks(const GroupLayout& layout) {
  std::vector<GpuId> out;
  for (const auto& host : layout.hosts) out.insert(out.end(), host.begin(), host.end());
  return out;
}

}  // namespace

Plan build_nvls_all_reduce(AlgoContext& ctx) {
  const double p = static_cast<double>(ctx.layouts[0].ranks);
  const double per_direction = 1.0 + 1.0 / p;
  double step = 0.0;
  for (const GroupLayout& layout : ctx.layouts)
    step = add_nvls_links(ctx, all_ranks(layout), per_direction, per_direction);
  PlanPhase phase;
  phase.latency_s = ctx.topo.spec().gpu.nvls_latency_s + 2.0 * step;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls, {std::move(phase)}};
}

// All-gather by multimem stores: each GPU sends its S/p once and the switch multicasts it, so
// every downlink receives the other (p-1)/p of S.
Plan build_nvls_all_gather(AlgoContext& ctx) {
  const double p = static_cast<double>(ctx.layouts[0].ranks);
  double step = 0.0;
  for (const GroupLayout& layout : ctx.layouts)
    step = add_nvls_links(ctx, all_ranks(layout), 1.0 / p, (p - 1.0) / p);
  PlanPhase phase;
  phase.latency_s = ctx.topo.spec().gpu.nvls_latency_s + step;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls, {std::move(phase)}};
}

// NVLS-tree (NCCL's NVLS_TREE): NVLS reduce-scatter inside each of the D domains leaves each of the
// domain's h heads (h = min(m, 32) of its m ranks, NCCL_MAX_NVLS_ARITY) with a slice S/h; the i-th
// heads of all domains all-reduce their slice over NCCL's two complementary binary trees (half the
// slice each) through their NICs; NVLS all-gathers inside each domain. The stages are pipelined,
// so they share one coupled variable. Per head NIC and direction that is S/h with two domains
// (each tree is one edge) and up to 2 S/h with more (an interior node receives from two children
// and its parent), against a ring's 2 (p-1)/p S/m.
Plan build_nvls_tree_all_reduce(AlgoContext& ctx) {
  double step = 0.0, inter = 0.0;
  std::size_t domains = 0, heads = 0;
  for (const GroupLayout& layout : ctx.layouts) {
    const auto doms = by_domain(ctx.topo, layout);
    domains = doms.size();
    const double m = static_cast<double>(doms.front().size());
    step = add_nvls_links(ctx, all_ranks(layout), 1.0 + 1.0 / m, 1.0 + 1.0 / m);
    heads = nvls_heads(doms.front().size());
    const double w = 0.5 / static_cast<double>(heads);  // each tree carries half of a head's slice
    for (std::size_t i = 0; i < heads; ++i)
      for (std::uint32_t t = 0; t < 2; ++t)
        for (std::size_t d = 0; d < domains; ++d) {
          const int up = double_tree_parent(static_cast<int>(d), static_cast<int>(domains), t);
          if (up < 0) continue;
          const GpuId child = doms[d][i], parent = doms[static_cast<std::size_t>(up)][i];
          inter = std::max(inter, ctx.builder.add_flow(child, parent, static_cast<std::uint32_t>(i), w));
          ctx.builder.add_flow(parent, child, static_cast<std::uint32_t>(i), w);
        }
  }
  const double depth = std::floor(std::log2(static_cast<double>(domains)));
  PlanPhase phase;
  phase.latency_s = ctx.topo.spec().gpu.nvls_latency_s + 2.0 * step + 2.0 * depth * inter;
  phase.fill_hops = 2.0 * depth;
  phase.channels = static_cast<std::uint32_t>(heads);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls_tree, {std::move(phase)}};
}

}  // namespace stepsim::topo
