#pragma once
// Simulating one collective alone at several sizes: what `stepsim collective` and the
// model-versus-measurement checks run.

#include <memory>
#include <span>
#include <vector>

#include "topology/collectives.hpp"
#include "topology/resource.hpp"
#include "topology/topology.hpp"

namespace stepsim::topo {

struct CollectiveSample {
  double bytes = 0.0;
  double time_s = 0.0;
  double algbw_GBps = 0.0;  ///< bytes / time (nccl-tests' algorithm bandwidth), decimal GB/s
  double busbw_GBps = 0.0;  ///< algbw x bus_bandwidth_factor(op, ranks)
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  Resource bound = Resource::none;  ///< the resource with the largest share of the time
};

struct SweepRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::vector<std::vector<GpuId>> groups;  ///< groups[0] is measured, the others load the fabric
  std::vector<double> sizes_bytes;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  CollectiveProtocol protocol = CollectiveProtocol::automatic;
  std::uint32_t root = 0;
  /// send_recv: ranks of the NCCL communicator (CollectiveRequest::communicator_ranks).
  std::uint32_t communicator_ranks = 0;
  CommConfig config;
};

/// Runs each size as its own transfer op through sim::Engine and a fresh FlowNetwork (an idle
/// network) and reports the measured group's time. Same inputs, same outputs, bit for bit.
std::vector<CollectiveSample> sweep_collective(std::shared_ptr<const Topology> topo,
                                               const SweepRequest& request);

}  // namespace stepsim::topo
