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

/// True for the algorithms NCCL tunes (ring, tree, NVLS, NVLS-tree, CollNet Direct, PAT) on the
/// operations it runs them for; the others (hierarchical, pairwise, direct, the broadcast chain)
/// have their own latency model and run Simple.
bool nccl_tuned(CollectiveOp op, CollectiveAlgorithm a);

/// The CTAs NCCL launches for a ring, tree or PAT collective of `bytes` (the whole buffer, nccl-tests'
/// size) on `shape.channels` channels under protocol `p`: one CTA per channel, fewer for small
/// messages (src/enqueue.cc topoGetAlgoInfo: nc shrinks while bytes < nc x nThreads x
/// threadThreshold; 512 threads under Simple and LL, 640 under LL128; thresholds 64 for Simple, 8
/// for LL and LL128, the ring's LL threshold times its ranks, src/graph/tuning.cc).
int nccl_kernel_channels(const NcclShape& shape, CollectiveProtocol p, double bytes);

/// A point-to-point send/recv across nodes as NCCL's p2p setup sees its communicator.
struct NcclP2pComm {
  int ranks = 2;  ///< ranks of the communicator (nccl-tests: the world; Megatron: the pipeline group)
  /// NCCL's channels of the communicator's collectives (`comm->nChannels`), see nccl_comm_channels.
  int comm_channels = 16;
  double nic_GBps = 50.0;  ///< the sending GPU's NIC line rate, decimal GB/s (400 Gb/s = 50)
};

/// NCCL's collective channels on nodes of `gpus_per_node` GPUs with a NIC each (src/graph/connect.cc,
/// ncclTopoPostset): the ring graph's channel per NIC doubled, doubled again on Hopper and later with
/// NVLink inside the node while under 16, at most MAXCHANNELS = 64.
int nccl_comm_channels(int gpus_per_node, GpuArch arch, bool nvlink);

/// NCCL's point-to-point channels of a communicator with `comm_channels` collective channels: rounded
/// up to a power of two (src/graph/paths.cc ncclTopoComputeP2pChannels), on which its send/recv and
/// all-to-all kernels run.
int nccl_p2p_channels(int comm_channels);

/// The same under multi-node NVLink, where NCCL's node is an NVLink domain of several hosts (GB200
/// NVL72): NCCL fuses the domain's topologies and searches its ring graph over all of them
/// (src/graph/topo.cc, search.cc). The search tries channel speeds from 48 GB/s down
/// (sm90/sm100SpeedArrayInter), each channel taking its speed from one NIC (NCCL counts a 400 Gb/s
/// NIC as 50 GB/s) and from every GPU's NVLink (NCCL's figure: 18 links x SM100_NVLINK_BW 40 GB/s
/// = 720 on Blackwell, 0.8 of the datasheet's 900; 20.6 per link on Hopper, 0.824 of 25; 20 on
/// Ampere), at most MAXCHANNELS / 2 = 32; it keeps the speed that carries the most and stops once
/// the channels carry the NVLink figure. ncclTopoPostset doubles the channels (its second doubling
/// is for fewer than 16). A 72-GPU GB200 domain: 15 channels of 48 GB/s, 30 channels; with as few
/// GPUs as a host the NICs bind first and this gives the host rule's count. `local_gpus`: the
/// domain's GPUs in the communicator, a NIC each; bandwidths per direction, decimal GB/s.
int nccl_mnnvl_comm_channels(int local_gpus, double nvlink_GBps, double nic_GBps, GpuArch arch);

/// NCCL's channels per peer for a send/recv whose peer is on another node (NCCL 2.29,
/// src/graph/paths.cc): a NIC of `nic_GBps` gets max(1, ceil(nic_GBps / 14)) channels
/// (NCCL_P2P_PER_CHANNEL_NET_BW, 14 GB/s a channel), rounded up to a power of two, halved while
/// channels x ceil(ranks / 8) (NCCL_MAX_DEV_WORK_P2P_PER_BATCH peers a batch) exceed the
/// communicator's p2p channels (its collective channels rounded up to a power of two), so that every
/// peer fits one round. A large message uses them all (enqueue.cc, addP2pToPlan).
int nccl_p2p_net_channels_per_peer(const NcclP2pComm& comm);
/// The channels one send/recv starts from before its size doubles them (enqueue.cc,
/// scheduleP2pTasksToPlan): the channels per peer, halved while channels x ranks exceed the p2p
/// channels, so that with every peer busy each has one share.
int nccl_p2p_min_channels(const NcclP2pComm& comm);

/// What NCCL assumes one point-to-point channel carries across the network (NCCL_P2P_PER_CHANNEL_NET_BW
/// default, src/graph/paths.cc): the rate stepsim gives a network send/recv channel.
inline constexpr double kNcclP2pChannelNetGBps = 14.0;

/// The fixed cost of one send/recv across nodes, its launch included: nccl-tests sendrecv_perf
/// between two nodes (NVIDIA/nccl-tests issue 214: A40s, one per node, NCCL over InfiniBand, 2024)
/// took 30.7-34.2 us from 256 B to 8 KiB, where the data's own time is under 1 us; the median of
/// those six sizes. It holds the launch and the proxy's handshake (the receiver's buffer credit,
/// the sender's RDMA write, completion polling, the GPU-direct flush), which NCCL's tuning model
/// does not price for point-to-point operations. Assumed for every GPU and fabric.
inline constexpr double kNcclP2pNetFixedUs = 33.0;

}  // namespace stepsim::topo
