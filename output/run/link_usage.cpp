#include "output/run/link_usage.hpp"

#include <array>

namespace stepsim::out {
namespace {

std::size_t idx(topo::LinkKind k) {
  return static_cast<std::size_t>(k);
}

}  // namespace

std::vector<topo::LinkKind> tiers_present(const topo::Topology& topology) {
  std::array<bool, topo::kLinkKindCount> seen{};
  for (const topo::Link& l : topology.links()) seen[idx(l.kind)] = true;
  std::vector<topo::LinkKind> out;
  for (std::size_t k = 0; k < seen.size(); ++k)
    if (seen[k]) out.push_back(static_cast<topo::LinkKind>(k));
  return out;
}

std::vector<LinkUsage> link_usage(const topo::Topology& topology, std::span<const topo::LinkStats> stats,
                                  std::span<const double> link_bytes, Time step) {
  const auto links = topology.links();
  std::vector<LinkUsage> out(links.size());
  const double step_s = to_seconds(step);
  for (topo::LinkId l = 0; l < links.size(); ++l) {
    LinkUsage& u = out[l];
    if (l < stats.size()) {
      u.busy_s = to_seconds(stats[l].busy);
      u.peak_utilisation = stats[l].peak_load_Bps / links[l].bw.value();
    }
    if (l < link_bytes.size()) u.bytes = link_bytes[l];
    if (step_s > 0.0) u.mean_utilisation = u.bytes / (links[l].bw.value() * step_s);
  }
  return out;
}

std::vector<TierLoad> tier_loads(const topo::Topology& topology,
                                 std::span<const topo::TierLoadChange> changes) {
  std::array<double, topo::kLinkKindCount> capacity{};
  for (const topo::Link& l : topology.links()) capacity[idx(l.kind)] += l.bw.value();
  std::array<bool, topo::kLinkKindCount> at_zero{};
  for (const auto& c : changes)
    if (c.time == Time{}) at_zero[idx(c.tier)] = true;
  std::vector<TierLoad> out;
  for (const topo::LinkKind k : tiers_present(topology))
    if (!at_zero[idx(k)]) out.push_back(TierLoad{Time{}, k, 0.0, 0.0});
  for (const auto& c : changes) {
    const double cap = capacity[idx(c.tier)];
    out.push_back(TierLoad{c.time, c.tier, cap > 0.0 ? c.load_Bps / cap : 0.0,
                           c.busy_capacity_Bps > 0.0 ? c.load_Bps / c.busy_capacity_Bps : 0.0});
  }
  return out;
}

}  // namespace stepsim::out
