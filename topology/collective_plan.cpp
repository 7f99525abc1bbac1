#include "topology/collective_plan.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "topology/nccl_tuning.hpp"

namespace stepsim::topo {

std::uint32_t PatternPool::add(std::vector<LinkUse> uses) {
  double spb = 0.0;
  LinkId bottleneck = kNoLink;
  for (const LinkUse& u : uses)
    if (const double t = u.coefficient / topo_->link(u.link).bw.value(); t > spb)
      spb = t, bottleneck = u.link;
  begin_.push_back(static_cast<std::uint32_t>(uses_.size()));
  uses_.insert(uses_.end(), uses.begin(), uses.end());
  spb_.push_back(spb);
  bottleneck_.push_back(bottleneck);
  return static_cast<std::uint32_t>(spb_.size() - 1);
}

std::span<const LinkUse> PatternPool::uses(std::uint32_t id) const {
  const std::size_t end = id + 1 < begin_.size() ? begin_[id + 1] : uses_.size();
  return std::span<const LinkUse>(uses_).subspan(begin_[id], end - begin_[id]);
}

PatternBuilder::PatternBuilder(const Topology& topo, const std::array<double, kLinkKindCount>& efficiency)
    : topo_(&topo), eff_(efficiency), acc_(topo.links().size(), 0.0) {}

double PatternBuilder::add_flow(GpuId src, GpuId dst, std::uint32_t channel, double weight,
                                RailCrossing crossing) {
  if (src == dst) return 0.0;
  path_.clear();
  topo_->route(src, dst, channel, path_, crossing);
  double latency = 0.0;
  for (LinkId l : path_) {
    const Link& link = topo_->link(l);
    add_link(l, weight, eff_[static_cast<std::size_t>(link.kind)]);
    latency += link.latency_s;
  }
  return latency;
}

double PatternBuilder::set_efficiency(LinkKind kind, double efficiency) {
  return std::exchange(eff_[static_cast<std::size_t>(kind)], efficiency);
}

void PatternBuilder::add_link(LinkId link, double weight, double efficiency) {
  if (!(weight > 0.0)) return;
  if (acc_[link] == 0.0) touched_.push_back(link);
  acc_[link] += weight / efficiency;
}

std::vector<LinkUse> PatternBuilder::take() {
  std::sort(touched_.begin(), touched_.end());
  std::vector<LinkUse> out;
  out.reserve(touched_.size());
  for (LinkId l : touched_) {
    out.push_back(LinkUse{l, acc_[l]});
    acc_[l] = 0.0;
  }
  touched_.clear();
  return out;
}

GroupLayout layout_of(const Topology& topo, std::span<const GpuId> ranks) {
  // One sorted list of (domain, rank) instead of a map node per domain: every image pair of every
  // pipeline send is laid out (half a million small groups in a 1,024-GPU step). Sorting gives the
  // map's order: domains increasing, ranks sorted.
  GroupLayout out;
  out.ranks = ranks.size();
  std::vector<std::pair<std::uint32_t, GpuId>> placed;
  placed.reserve(ranks.size());
  for (GpuId g : ranks) placed.emplace_back(topo.domain_of(g), g);
  std::sort(placed.begin(), placed.end());
  for (std::size_t i = 0; i < placed.size();) {
    std::vector<GpuId> members;
    const std::uint32_t node = placed[i].first;
    for (; i < placed.size() && placed[i].first == node; ++i) members.push_back(placed[i].second);
    out.max_per_node = std::max(out.max_per_node, members.size());
    out.nodes.push_back(std::move(members));
  }
  for (const auto& n : out.nodes) out.uniform = out.uniform && n.size() == out.max_per_node;
  return out;
}

std::uint32_t nccl_group_channels(const Topology& topo, const GroupLayout& layout) {
  std::size_t channels = std::min<std::size_t>(2 * layout.max_per_node, 64);
  const ClusterSpec& spec = topo.spec();
  if (layout.nodes.size() > 1 && layout.max_per_node > static_cast<std::size_t>(spec.gpus_per_node))
    channels = std::min<std::size_t>(
        channels, static_cast<std::size_t>(nccl_mnnvl_channels(spec, static_cast<int>(layout.max_per_node))));
  return static_cast<std::uint32_t>(channels);
}

int nccl_mnnvl_channels(const ClusterSpec& spec, int local_gpus) {
  return nccl_mnnvl_comm_channels(local_gpus, spec.gpu.nvlink_bw.value() / 1e9, spec.nic_bw().value() / 1e9,
                                  spec.gpu.arch);
}

std::vector<GpuId> ring_order(const GroupLayout& layout, std::uint32_t channel) {
  std::vector<GpuId> order;
  order.reserve(layout.ranks);
  for (const auto& host : layout.nodes) {
    const std::size_t m = host.size();
    for (std::size_t i = 0; i < m; ++i) order.push_back(host[(channel + i) % m]);
  }
  return order;
}

double add_ring_flows(AlgoContext& ctx, const std::vector<RingSet>& rings_by_channel, double steps,
                      double data_fraction) {
  const auto k = static_cast<double>(rings_by_channel.size());
  double latency = 0.0;
  for (std::uint32_t c = 0; c < rings_by_channel.size(); ++c) {
    for (const auto& ring : rings_by_channel[c]) {
      const std::size_t q = ring.size();
      if (q < 2) continue;
      const double w = steps * data_fraction / (static_cast<double>(q) * k);
      double sum_latency = 0.0;
      for (std::size_t i = 0; i < q; ++i)
        sum_latency += ctx.builder.add_flow(ring[i], ring[(i + 1) % q], c, w);
      latency = std::max(latency, steps * sum_latency / static_cast<double>(q));
    }
  }
  return latency;
}

int P2pChannels::channels_for(double bytes) const {
  if (!(channel_Bps > 0.0) || !(bytes > 0.0)) return 1;
  const double min_part = part_bytes / 2.0;
  // In doubles first: a message of many parts must not overflow the int.
  int n = static_cast<int>(std::max(1.0, std::min<double>(min_channels, std::ceil(bytes / min_part))));
  double part = std::max(min_part, std::ceil(bytes / n));
  while (part > part_bytes && n <= max_channels / 2) {
    n *= 2;
    part = std::ceil(bytes / n);
  }
  return n;
}

PlanPhase ring_phase(AlgoContext& ctx, const std::vector<RingSet>& rings_by_channel, double steps,
                     double data_fraction) {
  PlanPhase phase;
  phase.channels = static_cast<std::uint32_t>(rings_by_channel.size());
  phase.latency_s = add_ring_flows(ctx, rings_by_channel, steps, data_fraction);
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return phase;
}

}  // namespace stepsim::topo
