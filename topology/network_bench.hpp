#pragma once
// Benchmark workloads of the network model, shared by `stepsim bench` (tools/bench_network.cpp)
// and a driver test. Wall-clock figures are measured here and reported, never asserted.

#include <cstddef>

#include "topology/collectives.hpp"

namespace stepsim::topo {

struct NetworkBenchFigures {
  double topology_s = 0.0;            ///< wall time to build the topology
  double table_s = 0.0;               ///< wall time to route and build the transfer table
  double simulate_s = 0.0;            ///< wall time of the FlowNetwork run
  double simulated_time_s = 0.0;      ///< the collective's simulated duration
  std::size_t links = 0;              ///< link directions in the topology
  std::size_t pattern_link_uses = 0;  ///< links the collective's coupled variable crosses
};

/// One collective of 1 GiB per GPU over all 1,024 GPUs of 128 x 8 H100-class nodes (NVLink
/// 450 GB/s, NIC 400 Gb/s) on a two-tier rail-optimised fat-tree.
NetworkBenchFigures bench_collective_1024(CollectiveOp op, CollectiveAlgorithm algorithm);

}  // namespace stepsim::topo
