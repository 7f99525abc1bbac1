// NCCL's CollNet Direct and CollNet Chain over an in-network reduction fabric (InfiniBand SHARP).
//
// Inside each host of m ranks, rank j is the head of slice j (S/m): the others send it their share
// of slice j over NVLink, it pushes the slice up its NIC into the switches, which reduce (or, for an
// all-gather, multicast) it across hosts along an aggregation tree and send one stream back down
// to every host's head; the head then sends the result to its host's other ranks. Every link of
// the aggregation tree carries one stream per direction, whatever the number of hosts: per NIC and
// direction S/m, against a ring's 2 (p-1)/p S/m. The stages are pipelined in chunks, so they share
// one coupled variable. NCCL's own model prices the network at 0.85 (all-reduce, Hopper and later)
// and 0.9 (all-gather) of its rate: topology/nccl_tuning.cpp applies that as a protocol factor.
//
// CollNet Chain (all-reduce; src/device/all_reduce.h, RunWorkColl<..., COLLNET_CHAIN, SIMPLE>, and
// src/graph/connect.cc): each channel chains a host's ranks from a head whose NIC leads into the
// switches; half the kernel's threads receive from the rank below, add, and send to the rank above
// (the head sends into the network), the other half receive the network's result at the head and
// pass it down the chain. NCCL runs it where CollNet Direct may not (no NVSwitch: PCIe hosts) and
// beside it. Channels 2r and 2r+1 take local rank r as head, as the trees do, so every rank heads
// two channels and every NIC carries S/m per direction, the same as Direct; every chain edge
// carries S/C per channel each way.
#include <algorithm>
#include <boost/range/iterator_range.hpp>
#include <set>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

// The other direction of link `l` (every generated and custom link comes in pairs).
LinkId reverse_of(const Topology& topo, LinkId l) {
  const Link& link = topo.link(l);
  for (const auto e : boost::make_iterator_range(boost::out_edges(link.to, topo.graph())))
    if (boost::target(e, topo.graph()) == link.from) return topo.graph()[e].link;
  return kNoLink;
}

// The switches' aggregation tree of one rail: the union of the routes from each member up to the
// rail's first member, and the same links back down. Each of its switch-to-switch links carries
// `weight` per direction, and every member's NIC `nic_up` up and `nic_down` down. Returns the
// largest route latency.
double add_sharp_tree(AlgoContext& ctx, const std::vector<GpuId>& members, double nic_up, double nic_down,
                      double weight, std::uint32_t channel) {
  const auto nic_eff = ctx.efficiency[static_cast<std::size_t>(LinkKind::nic)];
  std::set<LinkId> fabric;  // ordered: deterministic
  std::vector<LinkId> path;
  double latency = 0.0;
  for (std::size_t i = 1; i < members.size(); ++i) {
    path.clear();
    ctx.topo.route(members[i], members[0], channel, path);
    latency = std::max(latency, ctx.topo.latency_s(path));
    for (LinkId l : path) {
      const LinkKind k = ctx.topo.link(l).kind;
      if (k != LinkKind::leaf_spine && k != LinkKind::spine_core) continue;
      fabric.insert(l);
      if (const LinkId back = reverse_of(ctx.topo, l); back != kNoLink) fabric.insert(back);
    }
  }
  for (LinkId l : fabric)
    ctx.builder.add_link(l, weight, ctx.efficiency[static_cast<std::size_t>(ctx.topo.link(l).kind)]);
  for (GpuId g : members) {
    ctx.builder.add_link(ctx.topo.nic_up(g), nic_up, nic_eff);
    ctx.builder.add_link(ctx.topo.nic_down(g), nic_down, nic_eff);
  }
  return latency;
}

// The rails of a layout: rail i holds local rank i of every host.
std::vector<std::vector<GpuId>> rails_of(const GroupLayout& layout) {
  std::vector<std::vector<GpuId>> rails(layout.max_per_node);
  for (const auto& host : layout.nodes)
    for (std::size_t i = 0; i < host.size(); ++i) rails[i].push_back(host[i]);
  return rails;
}

// Adds `weight` unit flows from every rank of each host to every other rank of it (NVLink).
double add_intra_exchange(AlgoContext& ctx, const GroupLayout& layout, double weight) {
  double latency = 0.0;
  for (const auto& host : layout.nodes)
    for (std::size_t i = 0; i < host.size(); ++i)
      for (std::size_t j = 0; j < host.size(); ++j)
        if (i != j) latency = std::max(latency, ctx.builder.add_flow(host[i], host[j], 0, weight));
  return latency;
}

Plan single_phase(AlgoContext& ctx, double latency_s) {
  PlanPhase phase;
  phase.latency_s = latency_s;
  phase.fill_hops = 2.0;  // a chunk crosses NVLink and the switches before the last stage starts
  phase.channels = static_cast<std::uint32_t>(ctx.layouts[0].max_per_node);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::collnet_direct, {std::move(phase)}};
}

}  // namespace

// Per rank: (m-1)/m S to the other heads and back over NVLink (reduce, then broadcast: each of the
// m-1 pairs carries S/m twice), S/m up and down its NIC.
Plan build_collnet_all_reduce(AlgoContext& ctx) {
  double nvlink = 0.0, net = 0.0;
  for (const GroupLayout& layout : ctx.layouts) {
    const double m = static_cast<double>(layout.max_per_node);
    nvlink = add_intra_exchange(ctx, layout, 2.0 / m);
    const auto rails = rails_of(layout);
    for (std::size_t i = 0; i < rails.size(); ++i)
      net = std::max(net,
                     add_sharp_tree(ctx, rails[i], 1.0 / m, 1.0 / m, 1.0 / m, static_cast<std::uint32_t>(i)));
  }
  return single_phase(ctx, 2.0 * nvlink + 2.0 * net);
}

// Per channel c of C, head r = c / 2 (mod m): S/C up the chain (each rank to the one above it), up
// the head's NIC into rail r's aggregation tree and back, S/C down the chain. Summed over the
// channels, a rank sends 2 (m-1)/m S over its host's links, as in a ring, and its NIC S/m each way.
Plan build_collnet_chain_all_reduce(AlgoContext& ctx) {
  double intra = 0.0, net = 0.0;
  std::size_t m = 1;
  const double w = 1.0 / ctx.channels;
  for (const GroupLayout& layout : ctx.layouts) {
    m = layout.max_per_node;
    const auto rails = rails_of(layout);
    for (std::uint32_t c = 0; c < ctx.channels; ++c) {
      const std::size_t head = (c / 2) % m;
      for (const auto& host : layout.nodes)
        for (std::size_t i = 1; i < m; ++i) {
          const GpuId below = host[(head + i) % m], above = host[(head + i - 1) % m];
          intra = std::max(intra, ctx.builder.add_flow(below, above, c, w));  // reduce
          ctx.builder.add_flow(above, below, c, w);                           // broadcast
        }
      net = std::max(net, add_sharp_tree(ctx, rails[head], w, w, w, static_cast<std::uint32_t>(head)));
    }
  }
  const double chain = static_cast<double>(m) - 1.0;
  PlanPhase phase;
  phase.latency_s = 2.0 * (chain * intra + net);
  phase.fill_hops = 2.0 * (chain + 1.0);  // up the chain, into the switches and back, down it
  phase.collnet_chain_depth = static_cast<std::uint32_t>(m);
  phase.channels = ctx.channels;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::collnet_chain, {std::move(phase)}};
}

double collnet_chain_chunk_bytes(double bytes, std::uint32_t channels, std::uint32_t depth) {
  const double per_channel = bytes / std::max<std::uint32_t>(channels, 1);
  const double d = static_cast<double>(depth);
  double chunk = 256.0 * 1024.0;  // min(256 KiB, the 512 KiB Simple step)
  while (per_channel / chunk < d * 64.0 && chunk > 131072.0) chunk /= 2.0;
  while (per_channel / chunk < d * 8.0 && chunk > 65536.0) chunk /= 2.0;
  while (per_channel / chunk < d && chunk > 32768.0) chunk /= 2.0;
  return chunk;
}

// NVLS across hosts (NCCL's NVLS algorithm on several nodes, which it runs only with CollNet):
// NVLS reduce-scatter inside each domain leaves each of its h heads (nvls_heads) with a slice S/h,
// the switches all-reduce the slices of every rail (SHARP), NVLS all-gathers inside each domain.
// Per rank: nvls_all_reduce_traffic(m) each way on NVLink at the NVLS efficiency; per head S/h up
// and down its NIC.
Plan build_nvls_sharp_all_reduce(AlgoContext& ctx) {
  double nvlink = 0.0, net = 0.0, fixed = 0.0;
  for (const GroupLayout& layout : ctx.layouts) {
    const auto& domains = layout.nodes;
    const double m = static_cast<double>(domains.front().size());
    const std::size_t heads = nvls_heads(domains.front().size());
    const double h = static_cast<double>(heads);
    const double traffic = nvls_all_reduce_traffic(m);
    fixed = nvls_fixed_s(ctx, domains.size(), domains.front().size(), traffic);
    for (const auto& d : domains) nvlink = add_nvls_links(ctx, d, traffic, traffic);
    for (std::size_t i = 0; i < heads; ++i) {
      std::vector<GpuId> rail;
      for (const auto& d : domains) rail.push_back(d[i]);
      net =
          std::max(net, add_sharp_tree(ctx, rail, 1.0 / h, 1.0 / h, 1.0 / h, static_cast<std::uint32_t>(i)));
    }
  }
  Plan plan = single_phase(ctx, fixed + 2.0 * nvlink + 2.0 * net);
  plan.algorithm = CollectiveAlgorithm::nvls;
  return plan;
}

// Per rank: its own S/p up its NIC once; the switches multicast the gathered slice of its rail
// (every host's shard, its own included, as the network's all-gather returns the whole buffer)
// back down: S/m; then the slice to each of its host's m-1 other ranks over NVLink.
Plan build_collnet_all_gather(AlgoContext& ctx) {
  double nvlink = 0.0, net = 0.0;
  for (const GroupLayout& layout : ctx.layouts) {
    const double m = static_cast<double>(layout.max_per_node);
    const double n = static_cast<double>(layout.nodes.size());
    const double p = static_cast<double>(layout.ranks);
    nvlink = add_intra_exchange(ctx, layout, 1.0 / m);
    const auto rails = rails_of(layout);
    for (std::size_t i = 0; i < rails.size(); ++i)
      net =
          std::max(net, add_sharp_tree(ctx, rails[i], 1.0 / p, n / p, n / p, static_cast<std::uint32_t>(i)));
  }
  return single_phase(ctx, nvlink + net);
}

}  // namespace stepsim::topo
