// Point-to-point patterns: the pairwise all-to-all (balanced, or from a per-pair byte matrix) and
// send/recv.
#include <algorithm>
#include <numeric>

#include "topology/collective_plan.hpp"
#include "topology/nccl_tuning.hpp"

namespace stepsim::topo {

namespace {

// Balanced: every ordered pair carries bytes / p, all in lock step, so one coupled variable whose
// unit flow is one pair's share; the busiest link (a NIC, or the bisection) sets the time.
Plan balanced(AlgoContext& ctx) {
  double latency = 0.0;
  for (const auto& group : ctx.request.groups)
    for (GpuId a : group)
      for (GpuId b : group) latency = std::max(latency, ctx.builder.add_flow(a, b, 0, 1.0));
  const double p = static_cast<double>(ctx.request.groups[0].size());
  PlanPhase phase;
  phase.latency_s = (p - 1.0) * latency;  // p-1 exchange rounds
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0 / p});
  return Plan{CollectiveAlgorithm::pairwise, {std::move(phase)}};
}

// Imbalanced (MoE routing): every pair's transfer progresses in proportion to its bytes, as one
// coupled variable, like the balanced case: the all-to-all ends when its busiest link (the hot
// rank's NIC or NVLink port, usually) has carried its load. Flow j of sender i has weight
// m_ij / mean, relative to the mean row, which the transfer table uses as the request's size.
// One variable keeps the solver's work per all-to-all independent of the EP size: a variable per
// sender made every sender's finish an event that re-solved the whole network (minutes per step
// at EP64). What it leaves out is lightly loaded senders releasing their links early to other
// traffic, which only the hot rank's links would have limited anyway.
Plan from_matrix(AlgoContext& ctx) {
  const auto& m = ctx.request.pair_bytes;
  const std::size_t p = ctx.request.groups[0].size();
  const double mean = std::accumulate(m.begin(), m.end(), 0.0) / static_cast<double>(p);
  PlanPhase phase;
  double latency = 0.0;
  std::size_t rounds = 0;  // a rank exchanges with the peers it sends to, not with all p-1
  for (const auto& group : ctx.request.groups)
    for (std::size_t i = 0; i < p; ++i) {
      std::size_t peers = 0;
      for (std::size_t j = 0; j < p; ++j)
        if (j != i && m[i * p + j] > 0.0) {
          latency = std::max(latency, ctx.builder.add_flow(group[i], group[j], 0, m[i * p + j] / mean));
          ++peers;
        }
      rounds = std::max(rounds, peers);
    }
  if (rounds == 0) return Plan{CollectiveAlgorithm::pairwise, {std::move(phase)}};  // all kept locally
  phase.latency_s = static_cast<double>(rounds) * latency;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::pairwise, {std::move(phase)}};
}

}  // namespace

// NCCL runs an all-to-all as grouped send/recv to every peer at once, through its point-to-point
// transport, whose copies move less of an NVLink than its rings do: on 8 GPUs of one node NCCL
// 2.27-2.29 all-to-alls reach 0.63-0.70 of the link at 512 MiB where its rings reach 0.82
// (aiconfigurator's nccl_perf tables; the catalog's `nvlink_p2p`). NVLink hops take that figure.
Plan build_pairwise_all_to_all(AlgoContext& ctx) {
  struct NvlinkAt {  // the builder's NVLink figure for this plan only
    PatternBuilder& builder;
    double ring;
    ~NvlinkAt() { builder.set_efficiency(LinkKind::nvlink, ring); }
  };
  const double ring = ctx.efficiency[static_cast<std::size_t>(LinkKind::nvlink)];
  const double p2p = ctx.topo.spec().gpu.eff.nvlink_p2p;
  const NvlinkAt scope{ctx.builder, ctx.builder.set_efficiency(LinkKind::nvlink, p2p > 0.0 ? p2p : ring)};
  return ctx.request.pair_bytes.empty() ? balanced(ctx) : from_matrix(ctx);
}

// DeepEP's low-latency kernels (csrc/kernels/legacy/internode_ll.cu): each (token, expert) copy is
// its own message, put by the sending GPU straight into the receiver's buffer, over NVLink inside a
// node and with IBGDA from the sender's own NIC across nodes (no PXN relay, so traffic between rails
// crosses the spines); all messages are in flight at once, and the receiver waits for a count per
// expert that follows the data. So one round of the longest route's latency for the data and one for
// the counts, not a round per peer; bytes per pair as the pairwise all-to-all's (balanced, or the
// per-pair matrix of copies).
Plan build_deepep_ll_all_to_all(AlgoContext& ctx) {
  const std::size_t p = ctx.request.groups[0].size();
  const auto& m = ctx.request.pair_bytes;
  const double mean = m.empty() ? 0.0 : std::accumulate(m.begin(), m.end(), 0.0) / static_cast<double>(p);
  double latency = 0.0;
  for (const auto& group : ctx.request.groups)
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = 0; j < p; ++j) {
        const double w = m.empty() ? 1.0 : m[i * p + j] / mean;
        if (i != j && w > 0.0)
          latency = std::max(latency, ctx.builder.add_flow(group[i], group[j], 0, w, RailCrossing::own_nic));
      }
  PlanPhase phase;
  phase.latency_s = 2.0 * latency;
  const auto uses = ctx.builder.take();
  if (!uses.empty())
    phase.vars.push_back(PlanVariable{ctx.pool.add(uses), m.empty() ? 1.0 / static_cast<double>(p) : 1.0});
  return Plan{CollectiveAlgorithm::deepep_ll, {std::move(phase)}};
}

namespace {
// NCCL's point-to-point channels for a pair whose peer is in another NVLink domain
// (topology/nccl_tuning.hpp): kNcclP2pChannelNetGBps each, as many as the message's size and the
// communicator allow, and NCCL's fixed cost across nodes. No rule when every pair stays in its
// domain; one pair across is enough (the images move with the simulated pair as one variable).
P2pChannels p2p_network_channels(const AlgoContext& ctx) {
  const Topology& topo = ctx.topo;
  bool remote = false;
  for (const auto& group : ctx.request.groups)
    remote = remote || topo.domain_of(group[0]) != topo.domain_of(group[1]);
  if (!remote) return {};
  const ClusterSpec& spec = topo.spec();
  NcclP2pComm comm;
  comm.ranks = std::max<int>(2, static_cast<int>(ctx.request.communicator_ranks));
  comm.comm_channels = nccl_comm_channels(static_cast<int>(topo.domain_size()), spec.gpu.arch,
                                          spec.gpu.nvlink_bw.value() > 0.0);
  if (topo.domain_size() > static_cast<std::uint32_t>(spec.gpus_per_node))  // NCCL's node is the domain
    comm.comm_channels =
        std::min(comm.comm_channels, nccl_mnnvl_channels(spec, static_cast<int>(topo.domain_size())));
  comm.nic_GBps = spec.nic_bw().value() / 1e9;
  P2pChannels rule;
  rule.channel_Bps = kNcclP2pChannelNetGBps * 1e9;
  rule.min_channels = nccl_p2p_min_channels(comm);
  rule.max_channels = nccl_p2p_net_channels_per_peer(comm);
  rule.fixed_s = kNcclP2pNetFixedUs * 1e-6;
  return rule;
}
}  // namespace

// The message is split evenly over the channels, each routed on its own equal-cost path. Across
// NVLink domains NCCL's channels bound the rate and its fixed cost bounds the latency
// (p2p_network_channels).
Plan build_direct_send_recv(AlgoContext& ctx) {
  PlanPhase phase;
  phase.channels = ctx.channels;
  for (const auto& group : ctx.request.groups)
    for (std::uint32_t c = 0; c < ctx.channels; ++c)
      phase.latency_s =
          std::max(phase.latency_s, ctx.builder.add_flow(group[0], group[1], c, 1.0 / ctx.channels));
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  phase.p2p = p2p_network_channels(ctx);
  return Plan{CollectiveAlgorithm::direct, {std::move(phase)}};
}

}  // namespace stepsim::topo
