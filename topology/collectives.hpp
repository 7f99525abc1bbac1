#pragma once
// Collective operations as a workload builder asks for them.
//
// A request names the operation, the ranks (GPUs) taking part and the message size; the
// TransferTableBuilder (transfer_table.hpp) turns it into phases of latency and coupled bandwidth
// variables over the topology's links. A request may carry several groups: groups[0] is the one
// the step graph simulates, the others are its symmetric images (the same collective in every
// other data-parallel replica or tensor-parallel group) that load the fabric at the same time.
//
// Byte convention (nccl-tests' "size"): all-reduce, broadcast and send/recv move a buffer of
// `bytes`; reduce-scatter's `bytes` is the whole input (each rank keeps bytes / p); all-gather's
// is the whole output (each rank contributes bytes / p); all-to-all's is what each rank sends in
// total, bytes / p to every rank (itself included, which costs nothing).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace stepsim::topo {

enum class CollectiveOp : std::uint8_t {
  all_reduce,
  reduce_scatter,
  all_gather,
  all_to_all,
  broadcast,
  send_recv
};

enum class CollectiveAlgorithm : std::uint8_t {
  automatic,       ///< the fastest applicable algorithm for this size on this topology
  ring,            ///< NCCL ring, channels rotated so every NIC and rail is used
  tree,            ///< NCCL double binary tree between hosts, chains inside them (all-reduce)
  nvls,            ///< NVLink SHARP in-switch reduction inside one NVLink domain (all-reduce, all-gather)
  nvls_tree,       ///< NVLS inside each NVLink domain, double binary trees of the slices across them
  collnet_direct,  ///< NCCL CollNet Direct: in-network (InfiniBand SHARP) reduction across hosts
  /// NCCL CollNet Chain (all-reduce): a chain through each host's ranks per channel, its head's NIC
  /// into the switches' in-network reduction (SHARP); NCCL's CollNet on hosts without NVSwitch
  collnet_chain,
  /// NCCL's PAT (2.23+): reduce-scatter and all-gather in log2(n) dimensions over peers 2^d apart,
  /// for communicators of one rank per node
  pat,
  hierarchical,  ///< intra-host reduce-scatter, inter-host all-reduce, intra-host all-gather
  pairwise,      ///< all-to-all: every rank sends its share to every other rank
  /// all-to-all as DeepEP's low-latency kernels run it: every message at once, GPU-initiated
  /// (IBGDA) from each GPU's own NIC (no PXN relay), NVLink inside a node
  deepep_ll,
  direct,  ///< send/recv: one point-to-point transfer
};

/// NCCL's wire protocols (src/device/prims_*.h): LL sends 4 data bytes with a 4-byte flag in every
/// 8-byte store, LL128 120 of every 128 bytes, Simple whole buffers behind a fence and a flag per
/// step. Each has its own latency per step and bandwidth (topology/nccl_tuning.hpp).
enum class CollectiveProtocol : std::uint8_t {
  automatic,  ///< the fastest protocol for this size, algorithm and topology
  simple,
  ll128,
  ll,
};

/// Stable lower-case names ("all-reduce", "hierarchical", "ll128"), as the CLI and JSON spell them.
std::string_view name(CollectiveOp op);
std::string_view name(CollectiveAlgorithm a);
std::string_view name(CollectiveProtocol p);
/// Parses a name as spelled by name(); nullopt when unknown.
std::optional<CollectiveOp> parse_collective_op(std::string_view s);
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view s);
std::optional<CollectiveProtocol> parse_collective_protocol(std::string_view s);
/// Every name of each enum, in declaration order (for "expected one of" messages).
std::vector<std::string> algorithm_names();
std::vector<std::string> protocol_names();
/// nccl-tests' bus-bandwidth factor for `op` on `p` ranks (busbw = algbw x factor).
double bus_bandwidth_factor(CollectiveOp op, int p);

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  /// Ranks of each group, all groups the same size; groups[0] is the simulated one. For send_recv
  /// each group is {source, destination}.
  std::vector<std::vector<GpuId>> groups;
  double bytes = 0.0;  ///< see the byte convention above
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  CollectiveProtocol protocol = CollectiveProtocol::automatic;
  std::uint32_t root = 0;  ///< broadcast: index of the root within each group
  /// all_to_all only, optional: p x p row-major bytes sent from rank i to rank j of each group
  /// (MoE routing imbalance). When set it replaces `bytes`; ranks then finish at different times.
  std::vector<double> pair_bytes;
  /// send_recv only: ranks of the NCCL communicator the pairs belong to (nccl-tests: every rank;
  /// Megatron: the pipeline group), which sets NCCL's channels per network peer; 0 = the pair alone.
  std::uint32_t communicator_ranks = 0;
  /// reduce_scatter only: the reduction divides by the group size inside the collective (PyTorch's
  /// ReduceOp.AVG, which NCCL runs as a pre-multiplied sum): NCCL then runs no PAT (enqueue.cc).
  bool average = false;
  /// Kernels that hold too few SMs to keep the links busy (DeepEP given fewer than its traffic model
  /// needs): the collective moves at most this fraction of the rate its links allow it on an idle
  /// network; 0 = no such limit.
  double kernel_rate_fraction = 0.0;
  /// The CTAs its kernels run where the library fixes them (Transformer Engine userbuffers'
  /// num_sm); 0: NCCL's channels (TransferInfo::ctas).
  std::uint32_t kernel_ctas = 0;
};

/// How collectives are cut up, as NCCL does; defaults follow NCCL's Simple protocol.
struct CommConfig {
  /// Parallel channels (rings/trees); 0 = two per GPU of the largest host share of a group, so
  /// every NIC carries traffic and ECMP has something to spread.
  int channels = 0;
  /// Pipeline chunk per channel (NCCL Simple: 4 MiB buffer / 8 steps = 512 KiB).
  double chunk_bytes = 512.0 * 1024.0;
  /// What NCCL_ALGO / NCCL_PROTO force for the whole job: applied to every request left on
  /// `automatic` whose operation the algorithm implements (the protocol: whose operation NCCL tunes).
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  CollectiveProtocol protocol = CollectiveProtocol::automatic;
  /// NCCL_COLLNET_ENABLE: NCCL's CollNet algorithms (CollNet Direct and Chain, and NVLS across
  /// NVLink domains, which NCCL runs only as NVLS + CollNet) may run where the fabric reduces in the
  /// network (FabricSpec::sharp). NCCL's default is off (src/graph/tuning.cc disables them unless
  /// config.collnetEnable), so SHARP switches alone do not change NCCL's choice. Forcing
  /// `collnet_direct` or `collnet_chain` implies it, as setting NCCL_ALGO=CollNet means enabling it.
  bool collnet = false;
  /// NCCL_PAT_ENABLE: NCCL's PAT algorithm may run (NCCL 2.23 and later, where it is on by default
  /// for communicators of one rank per node); false for older NCCL or NCCL_PAT_ENABLE=0.
  bool pat = true;
};

/// True when `a` is one of the algorithms stepsim has for `op` (whether or not it fits a group).
bool implements(CollectiveOp op, CollectiveAlgorithm a);

/// NCCL's CollNet algorithms, which need switches that reduce (SHARP) and enable CollNet when forced.
inline bool is_collnet(CollectiveAlgorithm a) {
  return a == CollectiveAlgorithm::collnet_direct || a == CollectiveAlgorithm::collnet_chain;
}

}  // namespace stepsim::topo
