#pragma once
// NCCL's protocol terms: what LL, LL128 and Simple cost on top of the links a collective crosses.
//
// NCCL (src/graph/tuning.cc, ncclTopoTuneModel) prices every (algorithm, protocol) pair as a base
// latency, a latency per step by link class (NVLink, PCIe, network), a bandwidth factor of the
// protocol (LL carries 4 data bytes in every 8, LL128 120 in every 128) and ceilings per channel
// that its kernels do not exceed (a CTA per channel polls flags and reduces). Its constants are
// per GPU generation and by node count (1, 2, more). stepsim takes those terms as NCCL states them
// and applies them to the flow model's plans: the base and step latencies become the collective's
// latency, the factor scales the bytes on the wire, the ceiling bounds the coupled variable's rate.
// Where the fabric's own bandwidth is lower than NCCL's ceilings, the flow model decides.
//
// One departure: Simple's per-step latency. NCCL's model adds steps x latency for every size; the
// kernels move each step's chunk as ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = 2 slices, the next
// rank working on the first while the second is in flight, so stepsim exposes half of Simple's
// per-step latency (docs/topology.md, "Protocols").

#include "topology/collectives.hpp"
#include "topology/gpu.hpp"

namespace stepsim::topo {

/// A collective as NCCL's tuning model sees it.
struct NcclShape {
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  GpuArch arch = GpuArch::hopper;
  int ranks = 2;
  /// NCCL's nodes: the scale-up (NVLink) domains the group spans; an NVL72 rack is one node.
  int nodes = 1;
  bool nvlink = true;  ///< ranks of a node talk over NVLink (else PCIe)
  int channels = 16;   ///< channels of this algorithm (rings, trees, NVLS heads)
};

/// What a protocol adds to an algorithm's plan.
struct ProtocolTerms {
  double latency_s = 0.0;  ///< base plus per-step latency of the whole collective
  /// Achieved fraction of the links' protocol-efficiency rate (LL 0.5, ...): bytes on the wire are
  /// the request's divided by it.
  double bandwidth_factor = 1.0;
  /// Bus bandwidth (nccl-tests' busbw, bytes/s) the kernels cannot exceed; 0 = no ceiling.
  double busbw_ceiling_Bps = 0.0;
};

/// True when NCCL runs `shape.algorithm` with `p` (NVLS, NVLS-tree and CollNet run Simple only;
/// LL128 needs NVLink inside nodes).
bool protocol_applies(const NcclShape& shape, CollectiveProtocol p);

/// NCCL's terms for `shape` under protocol `p` (which must apply); see the header comment.
ProtocolTerms nccl_protocol_terms(const NcclShape& shape, CollectiveProtocol p);

/// True for the algorithms NCCL tunes (ring, tree, NVLS, NVLS-tree, CollNet Direct) on the
/// operations it runs them for; the others (hierarchical, pairwise, direct, the broadcast chain)
/// have their own latency model and run Simple.
bool nccl_tuned(CollectiveOp op, CollectiveAlgorithm a);

}  // namespace stepsim::topo
