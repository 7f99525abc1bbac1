#pragma once
// Several transfers of one table started together on an otherwise idle network: how long each
// takes when they share the links max-min fairly. A replay of every GPU uses it to price the
// groups of a collective that a degraded link reaches (workloads/step/replay_fabric.cpp), where the
// representative run priced one group and its images at once.

#include <cstdint>
#include <span>
#include <vector>

#include "topology/transfer_table.hpp"

namespace stepsim::topo {

/// Seconds each of `payloads` (transfers of `table`) takes when all start at once and nothing else
/// runs. Phase i of every transfer runs at the same time as phase i of the others: each phase's
/// bandwidth variables share the links of `table`'s topology max-min fairly (each at most its
/// protocol ceiling), and the phase lasts its latency plus its slowest variable's bytes over its
/// rate. A transfer alone takes its TransferInfo::time_alone_s this way (where the variables of one
/// phase cross no common link, as the alone estimate assumes).
std::vector<double> concurrent_time_s(const TransferTable& table, std::span<const std::uint32_t> payloads);

}  // namespace stepsim::topo
