// NVLink SHARP (NVLS): in-switch reduction and multicast inside an NVLink domain, alone or with
// double binary trees across domains (NVLS-tree).
//
// All-reduce in one domain. Reduce-scatter by multimem loads: for its 1/p slice each GPU has the
// switch fetch that slice from all p GPUs and return the sum, so every GPU's uplink carries S (all
// slices) and its downlink S/p. All-gather by multimem stores: each GPU sends its reduced slice
// once (S/p up) and the switch multicasts it, so every downlink receives S. Per GPU and direction
// that is S (1 + 1/p), which would make the bus bandwidth, S 2 (p - 1) / p per unit time, grow by
// a quarter from 8 to 72 ranks. It does not: NCCL's cost model (src/graph/tuning.cc) takes NVLS
// all-reduce bus bandwidth as nChannels x bwIntra x nvlsEfficiency x 2 whatever the rank count,
// and nccl-tests measure the same ~840 GB/s on 8 B200 and on 72 GB200 of an NVL72 rack. What
// holds it back on the wire is not modelled; the time follows NCCL's form, traffic proportional
// to (p - 1) / p, scaled to equal S (1 + 1/8) at the 8 ranks where eff.nvls was fitted
// (nvls_all_reduce_traffic). Plus one NVLink step per half and the fixed cost of the kernel's
// pipeline (nvls_fixed_s).
//
// The pipeline. Each NVLS channel loops over its share in steps of heads x chunk (128 KiB,
// NCCL_NVLS_CHUNKSIZE): scatter warps fill the heads' buffers, the heads reduce and multicast,
// gather warps copy out (src/device/all_reduce.h), so about two loops pass before the last stage
// runs. On 8 H100 (8 heads, 16 channels) two loops at the fitted 275.5 GB/s are 121.8 us of the
// fit's 126.6 us fixed cost, leaving nvls_latency_s = 4.8 us; on a 72-GPU NVL72 rack (32 heads,
// 24 channels) the same rule gives about 0.47 ms. NCCL halves the chunk below 64 concurrent loops
// (src/enqueue.cc); the 8-H100 measurements do not show the fill halving (512 MiB: about 200 us
// over its bandwidth time), so stepsim keeps the full chunk.
#include <algorithm>
#include <cmath>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

double add_nvls_links(AlgoContext& ctx, const std::vector<GpuId>& ranks, double up, double down,
                      double efficiency) {
  const double eff = efficiency > 0.0 ? efficiency : ctx.nvls_efficiency;
  double step = 0.0;
  for (GpuId g : ranks) {
    ctx.builder.add_link(ctx.topo.scaleup_up(g), up, eff);
    ctx.builder.add_link(ctx.topo.scaleup_down(g), down, eff);
    step =
        ctx.topo.link(ctx.topo.scaleup_up(g)).latency_s + ctx.topo.link(ctx.topo.scaleup_down(g)).latency_s;
  }
  return step;
}

double nvls_all_reduce_traffic(double m) {
  constexpr double kFitRanks = 8.0;  // eff.nvls: nccl-tests on 8 x H100 (docs/topology.md)
  const double at_fit = 1.0 + 1.0 / kFitRanks;
  return at_fit * ((m - 1.0) / m) / ((kFitRanks - 1.0) / kFitRanks);
}

// NCCL's NVLS channels (src/transport/nvls.cc, ncclNvlsTuning and its SM100 multi-node table):
// 16 on Hopper; on Blackwell 24 in one NVLink domain, and across domains 32 with two domains or
// with more than 8 ranks a domain on 100 GB/s NICs, 24 on 50 GB/s-class NICs, else 32.
double nccl_nvls_channels(const AlgoContext& ctx, GpuId g, std::size_t domains, std::size_t per_domain) {
  if (ctx.topo.spec().gpu.arch != GpuArch::blackwell) return 16.0;
  if (domains <= 1) return 24.0;
  const LinkId nic = ctx.topo.nic_up(g);
  const double nic_GBps = nic == kNoLink ? 0.0 : ctx.topo.link(nic).bw.value() / 1e9;
  if (domains == 2 && nic_GBps >= 48.0) return 32.0;
  if (nic_GBps >= 96.0) return per_domain <= 8 ? 24.0 : 32.0;
  return nic_GBps >= 48.0 ? 24.0 : 32.0;
}

double nvls_fixed_s(const AlgoContext& ctx, std::size_t domains, std::size_t per_domain, double traffic,
                    double chunk_bytes, double efficiency) {
  constexpr double kLoops = 2.0;
  const GpuId g = ctx.request.groups.front().front();  // the group's links set the rates
  const double heads = static_cast<double>(nvls_heads(per_domain));
  const double nvlink_Bps = ctx.topo.link(ctx.topo.scaleup_up(g)).bw.value();
  const double eff = efficiency > 0.0 ? efficiency : ctx.nvls_efficiency;
  const double seconds_per_byte = traffic / (eff * nvlink_Bps);
  return ctx.topo.spec().gpu.nvls_latency_s +
         kLoops * heads * chunk_bytes * nccl_nvls_channels(ctx, g, domains, per_domain) * seconds_per_byte;
}

namespace {

std::vector<GpuId> all_ranks(const GroupLayout& layout) {
  std::vector<GpuId> out;
  for (const auto& host : layout.nodes) out.insert(out.end(), host.begin(), host.end());
  return out;
}

}  // namespace

Plan build_nvls_all_reduce(AlgoContext& ctx) {
  const std::size_t p = ctx.layouts[0].ranks;
  const double per_direction = nvls_all_reduce_traffic(static_cast<double>(p));
  double step = 0.0;
  for (const GroupLayout& layout : ctx.layouts)
    step = add_nvls_links(ctx, all_ranks(layout), per_direction, per_direction);
  PlanPhase phase;
  phase.latency_s = nvls_fixed_s(ctx, 1, p, per_direction) + 2.0 * step;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls, {std::move(phase)}};
}

// All-gather by multimem stores: each GPU sends its S/p once and the switch multicasts it, so
// every downlink receives the other (p-1)/p of S. No byte passes through the switch's reduction
// units: the switch only forwards and replicates, so the links run at the NVLink's own efficiency
// (eff.nvlink, a ring's), not at eff.nvls, which was fitted to all-reduces whose multimem loads
// reduce in the switch. On 8 B200 nccl-tests measure the two all-gathers alike: ring 673.6 and
// NVLS 680.6 GB/s bus bandwidth at 16 GiB, against NVLS all-reduce's 840.8 with its S (1 + 1/p)
// per direction (eff.nvls 0.60 on the same links).
Plan build_nvls_all_gather(AlgoContext& ctx) {
  const double p = static_cast<double>(ctx.layouts[0].ranks);
  const GpuId g = ctx.layouts[0].nodes.front().front();
  const double forward = ctx.efficiency[static_cast<std::size_t>(ctx.topo.link(ctx.topo.scaleup_up(g)).kind)];
  double step = 0.0;
  for (const GroupLayout& layout : ctx.layouts)
    step = add_nvls_links(ctx, all_ranks(layout), 1.0 / p, (p - 1.0) / p, forward);
  PlanPhase phase;
  phase.latency_s =
      nvls_fixed_s(ctx, 1, ctx.layouts[0].ranks, (p - 1.0) / p, kNvlsChunkBytes, forward) + step;
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
  double step = 0.0, inter = 0.0, traffic = 0.0;
  std::size_t domains = 0, heads = 0, per_domain = 0;
  for (const GroupLayout& layout : ctx.layouts) {
    const auto& doms = layout.nodes;
    domains = doms.size();
    per_domain = doms.front().size();
    traffic = nvls_all_reduce_traffic(static_cast<double>(per_domain));
    step = add_nvls_links(ctx, all_ranks(layout), traffic, traffic);
    heads = nvls_heads(per_domain);
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
  // NCCL's NVLS-tree chunk: min(NVLS chunk, tree maximum), the maximum 64 KiB from 4 nodes up
  // (src/transport/nvls.cc; its SM100 table's refinements are not modelled).
  const double chunk = domains >= 4 ? kNvlsChunkBytes / 2.0 : kNvlsChunkBytes;
  phase.latency_s = nvls_fixed_s(ctx, domains, per_domain, traffic, chunk) + 2.0 * step + 2.0 * depth * inter;
  phase.fill_hops = 2.0 * depth;
  phase.channels = static_cast<std::uint32_t>(heads);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls_tree, {std::move(phase)}};
}

}  // namespace stepsim::topo
