#include "workloads/layout/topology_planner.hpp"

#include <algorithm>
#include <stdexcept>

#include "workloads/layout/deepep.hpp"

namespace stepsim::work {

topo::CollectiveRequest to_collective(const CommRequest& r) {
  topo::CollectiveRequest c;
  c.bytes = r.bytes;
  c.pair_bytes = r.pair_bytes;
  c.average = r.average;
  c.kernel_ctas = static_cast<std::uint32_t>(std::max(0, r.kernel_sms));
  c.communicator_ranks = static_cast<std::uint32_t>(std::max(0, r.communicator_ranks));
  const auto copy_groups = [&] {
    for (const auto& g : r.groups) c.groups.emplace_back(g.begin(), g.end());
  };
  switch (r.kind) {
    case CollectiveKind::all_reduce: c.op = topo::CollectiveOp::all_reduce; copy_groups(); break;
    case CollectiveKind::all_gather: c.op = topo::CollectiveOp::all_gather; copy_groups(); break;
    case CollectiveKind::reduce_scatter: c.op = topo::CollectiveOp::reduce_scatter; copy_groups(); break;
    case CollectiveKind::all_to_all: c.op = topo::CollectiveOp::all_to_all; copy_groups(); break;
    case CollectiveKind::all_to_all_low_latency:  // DeepEP's low-latency kernels
      c.op = topo::CollectiveOp::all_to_all, c.algorithm = topo::CollectiveAlgorithm::deepep_ll;
      copy_groups();
      break;
    case CollectiveKind::broadcast: c.op = topo::CollectiveOp::broadcast; copy_groups(); break;
    case CollectiveKind::send_recv: c.op = topo::CollectiveOp::send_recv; copy_groups(); break;
    case CollectiveKind::ring_exchange:
      // Every member sends to its successor at once: one point-to-point pair per member, the
      // simulated group's pairs first, all in the group's communicator.
      c.op = topo::CollectiveOp::send_recv;
      c.communicator_ranks = static_cast<std::uint32_t>(r.groups.front().size());
      for (const auto& g : r.groups)
        for (std::size_t i = 0; i < g.size(); ++i)
          c.groups.push_back({static_cast<topo::GpuId>(g[i]), static_cast<topo::GpuId>(g[(i + 1) % g.size()])});
      break;
  }
  return c;
}

TopologyPlanner::TopologyPlanner(std::shared_ptr<const topo::Topology> topology, topo::CommConfig config,
                                 topo::FlowNetworkOptions network)
    : topology_(std::move(topology)),
      builder_(std::make_unique<topo::TransferTableBuilder>(topology_, config)),
      network_(network) {}

namespace {
/// True when every group of `r` stays inside one scale-up domain. Such traffic only uses its own
/// GPUs' scale-up links, which no other group's flows touch, so the images of the simulated group
/// load links nothing simulated shares: they can be left out without changing any rate (a coupled
/// variable that also spans other domains, like a data-parallel collective, is limited by the
/// simulated domain, which keeps its full load).
bool within_domains(const topo::Topology& t, const topo::CollectiveRequest& r) {
  for (const auto& g : r.groups)
    for (topo::GpuId gpu : g)
      if (t.domain_of(gpu) != t.domain_of(g.front())) return false;
  return true;
}
}  // namespace

topo::CollectiveRequest planned_collective(const topo::Topology& topology, const CommRequest& request) {
  topo::CollectiveRequest c = to_collective(request);
  if (request.kind == CollectiveKind::all_to_all && request.ep_kernels.sms > 0 && !c.groups.empty()) {
    // The group as DeepEP sees it on this topology (its members' NVLink domains).
    std::vector<int> domains;
    for (topo::GpuId g : c.groups.front()) domains.push_back(static_cast<int>(topology.domain_of(g)));
    const DeepEpV2Group g =
        deepep_v2_group(domains, topology.spec(), request.ep_kernels.experts, request.ep_kernels.top_k);
    c.kernel_rate_fraction = deepep_rate_fraction(g, request.ep_kernels.sms, topology.spec().gpu);
  }
  if (c.groups.size() > 1 && within_domains(topology, c)) {
    // Ring exchanges expand to one pair per member: keep the simulated group's pairs.
    const std::size_t own = request.kind == CollectiveKind::ring_exchange ? request.groups.front().size() : 1;
    c.groups.resize(own);
  }
  return c;
}

std::uint32_t TopologyPlanner::plan(const CommRequest& request) {
  if (!builder_) throw std::logic_error("TopologyPlanner::plan after make_network");
  return builder_->add(planned_collective(*topology_, request));
}

std::unique_ptr<sim::Network> TopologyPlanner::make_network() {
  if (builder_) {
    table_ = std::make_shared<const topo::TransferTable>(std::move(*builder_).build());
    builder_.reset();
  }
  auto net = std::make_unique<topo::FlowNetwork>(table_, network_);
  net->watch(watched_);
  return net;
}

}  // namespace stepsim::work
