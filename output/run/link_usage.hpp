#pragma once
// How busy the network's links were, per link over the step and per link tier over time, from
// what a FlowNetwork records with LinkAccounting::timeline.

#include <span>
#include <vector>

#include "sim/units.hpp"
#include "topology/flow_network.hpp"
#include "topology/topology.hpp"

namespace stepsim::out {

/// One link over the whole step.
struct LinkUsage {
  double bytes = 0.0;             ///< line-rate bytes carried (protocol overhead included)
  double busy_s = 0.0;            ///< time with a non-zero load
  double mean_utilisation = 0.0;  ///< bytes / (line rate x step time)
  double peak_utilisation = 0.0;  ///< highest load / line rate
};

/// One tier's utilisation from `time` until its next row.
struct TierLoad {
  Time time{};
  topo::LinkKind tier = topo::LinkKind::nvlink;
  double mean = 0.0;    ///< the tier's load / the line rate of all its links
  double in_use = 0.0;  ///< the tier's load / the line rate of its links that carry traffic
};

/// Per link (indexed by LinkId). `stats` and `link_bytes` may be empty (the run kept no
/// accounting): the figures are then zero. `step` is the run's makespan.
std::vector<LinkUsage> link_usage(const topo::Topology& topology, std::span<const topo::LinkStats> stats,
                                  std::span<const double> link_bytes, Time step);

/// The tier history as utilisations, in time order, starting with a row at time 0 for every
/// tier the topology has.
std::vector<TierLoad> tier_loads(const topo::Topology& topology,
                                 std::span<const topo::TierLoadChange> changes);

/// Which link kinds the topology has, in LinkKind order.
std::vector<topo::LinkKind> tiers_present(const topo::Topology& topology);

}  // namespace stepsim::out
