#pragma once
// How the step builder turns a communication op into something the network can execute.
//
// The builder describes a collective by its kind, its per-rank size and the GPUs that take part:
// the group it simulates plus, when it simulates representative ranks only, the symmetric images of
// that group in every other replica, which run at the same moment and load the same fabric. A
// planner returns the payload id a sim transfer op carries, and later makes the Network that runs
// those payloads. The topology-backed planner lives in workloads/layout/topology_planner.hpp; tests use
// planners with fixed costs.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/network.hpp"
#include "workloads/model/collective_kind.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

struct CommRequest {
  CollectiveKind kind = CollectiveKind::all_reduce;
  ParallelDim dim = ParallelDim::tp;
  double bytes = 0.0;  ///< per rank, as CollectiveKind documents
  /// GPU ids of each participating group, ordered by rank within the group. groups[0] is the group
  /// the simulation follows; the others are its images.
  std::vector<std::vector<int>> groups;
  /// send_recv: every member i sends `bytes` to member (i + peer_offset) mod size of its group;
  /// groups of two with offset 1 are plain point-to-point sends from groups[g][0] to groups[g][1].
  int peer_offset = 1;
  /// send_recv: ranks of the NCCL communicator the pairs belong to (the pipeline group for
  /// pipeline sends), which sets NCCL's channels per network peer; 0 = the pair alone.
  int communicator_ranks = 0;
  /// all_to_all only, optional: p x p row-major bytes from member i to member j of every group
  /// (the images follow the same routing); replaces `bytes`.
  std::vector<double> pair_bytes;
  /// reduce_scatter only: the framework divides by the group size inside the collective
  /// (ReduceOp.AVG; averages_in_collective), which NCCL runs without PAT.
  bool average = false;
  /// all_to_all only: kernels holding `sms` SMs (DeepEP's) move it, for a model of `experts` routed
  /// experts, `top_k` per token; where they are fewer than DeepEP's traffic model needs on the
  /// planner's topology, the collective runs at their pace (workloads/layout/deepep.hpp). 0: none.
  struct EpKernels {
    int sms = 0;
    int experts = 0;
    int top_k = 0;
  } ep_kernels;
  /// SMs its kernels hold where the library fixes them (Transformer Engine userbuffers' num_sm);
  /// 0: NCCL's channels.
  int kernel_sms = 0;
};

/// Whether `job`'s framework averages a `kind` collective along `dim` inside NCCL (ReduceOp.AVG):
/// its data-parallel gradient reduce-scatters, with ParallelSpec::average_in_collective.
inline bool averages_in_collective(const JobSpec& job, ParallelDim dim, CollectiveKind kind) {
  return job.parallel.average_in_collective && dim == ParallelDim::dp &&
         kind == CollectiveKind::reduce_scatter;
}

class CommPlanner {
 public:
  virtual ~CommPlanner() = default;
  /// The payload id of a transfer op executing `request`. Planners may cache identical requests.
  virtual std::uint32_t plan(const CommRequest& request) = 0;
  /// A fresh Network for one run. The first call freezes the plan: no plan() after it.
  virtual std::unique_ptr<sim::Network> make_network() = 0;
};

}  // namespace stepsim::work
