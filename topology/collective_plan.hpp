#pragma once
// The pieces collective algorithms are built from (used by collective_*.cpp and transfer_table.cpp).
//
// An algorithm turns a request into a Plan whose shape does not depend on the message size: phases,
// each a latency followed by coupled bandwidth variables. A variable is a pattern (how many unit
// flows cross each link, already divided by the link's protocol efficiency) and how many bytes one
// unit flow carries per byte of the request. Sizes enter only when a transfer is made from a plan,
// so one plan (and its patterns) serves every transfer of the same group and algorithm.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "topology/collectives.hpp"
#include "topology/topology.hpp"

namespace stepsim::topo {

/// `coefficient` unit flows (divided by protocol efficiency) cross `link`.
struct LinkUse {
  LinkId link = 0;
  double coefficient = 0.0;
};

/// Interned patterns, each with the time one unit byte takes on an idle network.
class PatternPool {
 public:
  explicit PatternPool(const Topology& topo) : topo_(&topo) {}
  /// Stores `uses` (sorted by link, no repeats) and returns its id.
  std::uint32_t add(std::vector<LinkUse> uses);
  std::span<const LinkUse> uses(std::uint32_t id) const;
  /// max over links of coefficient / bandwidth: seconds per unit-flow byte when alone.
  double seconds_per_byte(std::uint32_t id) const { return spb_[id]; }
  /// The link that sets seconds_per_byte (kNoLink for an empty pattern).
  LinkId bottleneck(std::uint32_t id) const { return bottleneck_[id]; }
  std::size_t size() const { return spb_.size(); }

 private:
  const Topology* topo_;
  std::vector<LinkUse> uses_;
  std::vector<std::uint32_t> begin_;
  std::vector<double> spb_;
  std::vector<LinkId> bottleneck_;
};

/// Accumulates unit flows over links into a pattern, applying each link kind's protocol efficiency.
class PatternBuilder {
 public:
  PatternBuilder(const Topology& topo, const std::array<double, kLinkKindCount>& efficiency);
  /// Routes a flow src -> dst on `channel` and adds `weight` unit flows to every link it crosses.
  /// Returns the route's latency in seconds (0 when src == dst).
  double add_flow(GpuId src, GpuId dst, std::uint32_t channel, double weight,
                  RailCrossing crossing = RailCrossing::pxn);
  /// Adds `weight` unit flows to one link at protocol efficiency `efficiency`.
  void add_link(LinkId link, double weight, double efficiency);
  /// The protocol efficiency add_flow applies on links of `kind`; returns the one it replaces.
  double set_efficiency(LinkKind kind, double efficiency);
  /// The accumulated pattern (sorted by link); resets the builder.
  std::vector<LinkUse> take();

 private:
  const Topology* topo_;
  std::array<double, kLinkKindCount> eff_;
  std::vector<double> acc_;
  std::vector<LinkId> touched_;
  std::vector<LinkId> path_;
};

/// NCCL's point-to-point channels for a send/recv whose peer is across the network (NCCL 2.29,
/// enqueue.cc addP2pToPlan): a message of b bytes starts on min(min_channels, ceil(b / (part / 2)))
/// channels and doubles them while its parts exceed `part_bytes` and max_channels allows; each
/// channel carries at most `channel_Bps`. channel_Bps = 0: no such rule.
struct P2pChannels {
  double channel_Bps = 0.0;
  int min_channels = 1;
  int max_channels = 1;
  double part_bytes = 131072.0;  ///< NCCL_P2P_NET_CHUNKSIZE
  /// The send/recv's fixed cost, its launch included: a floor on the transfer's latency, as NCCL's
  /// protocol latency is for the collectives it tunes.
  double fixed_s = 0.0;
  int channels_for(double bytes) const;
  /// The message's rate ceiling, bytes/s; 0 without the rule.
  double ceiling_Bps(double bytes) const { return channel_Bps * channels_for(bytes); }
};

struct PlanVariable {
  std::uint32_t pattern = 0;
  double bytes_per_byte = 0.0;  ///< unit-flow bytes per request byte
};

struct PlanPhase {
  double latency_s = 0.0;  ///< alpha terms of the phase
  /// Pipeline fill: `fill_hops` chunk transfers (chunk_bytes per channel, smaller for small
  /// messages) at the first variable's idle-network rate (tree, chain and staged pipelines).
  double fill_hops = 0.0;
  /// Under the Simple protocol NCCL streams fixed chunks of chunk_bytes (its tree: one 512 KiB
  /// step, src/enqueue.cc calcCollChunking, which shrinks only LL128's and CollNet's and NVLS's
  /// chunks), so the fill does not shrink with the message: a chunk is never more than a
  /// channel's share, never less than chunk_bytes below it.
  bool simple_chunk_fixed = false;
  /// NCCL's CollNet Chain chunk (src/enqueue.cc calcCollChunking) instead of chunk_bytes: 256 KiB,
  /// halved down to 128, 64 and 32 KiB while the message gives a channel fewer than 64, 8 and 1
  /// chunks per rank of the chain; the value is the chain's depth (ranks per node), 0 elsewhere.
  std::uint32_t collnet_chain_depth = 0;
  std::uint32_t channels = 1;
  std::vector<PlanVariable> vars;
  /// A send/recv across the network: NCCL's channels for it bound its variables' rate, by size.
  P2pChannels p2p;
};

struct Plan {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<PlanPhase> phases;
};

/// A group's ranks arranged by NCCL's node: the host, or under multi-node NVLink the whole NVLink
/// domain (NCCL fuses a clique's topologies into one system, src/graph/topo.cc, and counts a node
/// per fused ring graph, src/init.cc), since the domain is always a whole number of hosts: one node
/// per scale-up domain, in increasing order, each node's ranks sorted.
struct GroupLayout {
  std::vector<std::vector<GpuId>> nodes;
  std::size_t ranks = 0;
  std::size_t max_per_node = 0;
  bool uniform = true;  ///< every node holds the same number of ranks
};
GroupLayout layout_of(const Topology& topo, std::span<const GpuId> ranks);

/// NCCL's channels for a collective of `layout`: two per local rank, at most MAXCHANNELS = 64;
/// where NCCL's node is an NVLink domain of several hosts and the group spans domains, no more
/// than its NVLink-bound search gives (nccl_mnnvl_comm_channels).
std::uint32_t nccl_group_channels(const Topology& topo, const GroupLayout& layout);
/// nccl_mnnvl_comm_channels for `local_gpus` of the cluster's GPUs (their NVLink, a NIC each).
int nccl_mnnvl_channels(const ClusterSpec& spec, int local_gpus);

/// NVLS heads of a domain of m ranks: NCCL's NVLS graph takes at most NCCL_MAX_NVLS_ARITY = 32
/// GPUs (with their NICs) as heads, each owning S/heads of a reduction across domains.
inline std::size_t nvls_heads(std::size_t m) {
  return m < 32 ? m : 32;
}

/// Everything an algorithm needs; `layouts[i]` describes request.groups[i].
struct AlgoContext {
  const Topology& topo;
  const CollectiveRequest& request;
  std::vector<GroupLayout> layouts;
  std::uint32_t channels = 1;
  PatternBuilder& builder;
  PatternPool& pool;
  const std::array<double, kLinkKindCount>& efficiency;
  double nvls_efficiency = 0.0;
  /// NCCL's CollNet is enabled (CommConfig::collnet, or CollNet forced for this request).
  bool collnet = false;
  /// NCCL's PAT is enabled (CommConfig::pat).
  bool pat = true;
};

/// The ring a channel follows: hosts in order, each host's ranks rotated by the channel so that
/// every rank (and its NIC) enters and leaves the host on some channel.
std::vector<GpuId> ring_order(const GroupLayout& layout, std::uint32_t channel);

// Algorithms (one file each); each assumes its applicability was checked.
Plan build_ring(AlgoContext& ctx);  // all-reduce, reduce-scatter, all-gather
Plan build_chain_broadcast(AlgoContext& ctx);
Plan build_tree_all_reduce(AlgoContext& ctx);
Plan build_nvls_all_reduce(AlgoContext& ctx);
Plan build_hierarchical_all_reduce(AlgoContext& ctx);
Plan build_nvls_tree_all_reduce(AlgoContext& ctx);
Plan build_nvls_all_gather(AlgoContext& ctx);
Plan build_collnet_all_reduce(AlgoContext& ctx);
Plan build_collnet_chain_all_reduce(AlgoContext& ctx);
/// NCCL's CollNet Chain chunk for a message of `bytes` over `channels` chains of `depth` ranks.
double collnet_chain_chunk_bytes(double bytes, std::uint32_t channels, std::uint32_t depth);
Plan build_nvls_sharp_all_reduce(AlgoContext& ctx);
Plan build_collnet_all_gather(AlgoContext& ctx);
Plan build_pat(AlgoContext& ctx);  // reduce-scatter, all-gather
/// PAT's chunks (of S / n) each rank sends over dimension d (peers 2^d apart) among n ranks: the
/// offsets 1 .. n-1 whose lowest set bit is d (collective_pat.cpp).
std::vector<double> pat_chunks_per_dimension(std::size_t n);
Plan build_pairwise_all_to_all(AlgoContext& ctx);
Plan build_direct_send_recv(AlgoContext& ctx);
Plan build_deepep_ll_all_to_all(AlgoContext& ctx);

/// Per-direction NVLink traffic of an NVLS all-reduce among m ranks of a domain, per request byte,
/// at the NVLS efficiency (collective_nvls.cpp): NCCL's cost model, whose bus bandwidth does not
/// depend on the rank count, normalised to the multimem traffic S (1 + 1/8) of the 8-rank fit
/// that eff.nvls comes from.
double nvls_all_reduce_traffic(double m);

/// The fixed cost of NCCL's NVLS kernels for a group whose domains hold `per_domain` ranks each
/// (collective_nvls.cpp): the GPU's `nvls_latency_s` plus the pipeline fill, two loops of
/// heads x 128 KiB chunks on each of NCCL's NVLS channels at the NVLink rate `traffic` allows.
/// `efficiency`: the NVLink efficiency the traffic moves at (0: eff.nvls).
inline constexpr double kNvlsChunkBytes = 128.0 * 1024.0;  ///< NCCL_NVLS_CHUNKSIZE
/// NCCL's NVLS kernel channels (CTAs) for a group whose `domains` NVLink domains hold `per_domain`
/// ranks each, `g` one of its GPUs (collective_nvls.cpp).
double nccl_nvls_channels(const AlgoContext& ctx, GpuId g, std::size_t domains, std::size_t per_domain);
double nvls_fixed_s(const AlgoContext& ctx, std::size_t domains, std::size_t per_domain, double traffic,
                    double chunk_bytes = kNvlsChunkBytes, double efficiency = 0.0);

/// Adds `up` and `down` unit flows per request byte to every rank's NVLink at `efficiency` (0: the
/// NVLS efficiency of multimem traffic that the switch reduces); returns one GPU-switch-GPU step's
/// latency.
double add_nvls_links(AlgoContext& ctx, const std::vector<GpuId>& ranks, double up, double down,
                      double efficiency = 0.0);

/// Parent of member `rank` (0 .. n-1) in NCCL's double binary tree `t` (0 or 1), or -1 for the
/// root (src/graph/trees.cc ncclGetDtree): tree 0 is a binary tree rooted at 0 whose interior
/// members are the even ranks; tree 1 mirrors it (n even) or shifts it by one (n odd), so the
/// interior members of one tree are leaves of the other.
int double_tree_parent(int rank, int n, std::uint32_t t);

/// Rings of one channel: disjoint rank lists of equal size, each in ring order.
using RingSet = std::vector<std::vector<GpuId>>;
/// Adds the flows of ring steps to the builder: `rings_by_channel[c]` are the rings of channel c
/// (each channel carries 1/k of the data). A ring of q ranks takes `steps` steps, each moving
/// 1/q of `data_fraction` of the request per rank; one unit flow is one request byte, so each
/// ring edge gets weight steps x data_fraction / (q k). Returns the latency: steps x the mean
/// latency of the ring's edges (a chunk makes `steps` consecutive hops), the largest over rings.
double add_ring_flows(AlgoContext& ctx, const std::vector<RingSet>& rings_by_channel, double steps,
                      double data_fraction);
/// A phase of one coupled variable made of add_ring_flows(...) alone.
PlanPhase ring_phase(AlgoContext& ctx, const std::vector<RingSet>& rings_by_channel, double steps,
                     double data_fraction);

}  // namespace stepsim::topo

namespace stepsim::topo {

/// One algorithm for one operation: when it applies and how it is built.
struct Strategy {
  CollectiveOp op;
  CollectiveAlgorithm algorithm;
  bool (*applies)(const AlgoContext& ctx);
  Plan (*build)(AlgoContext& ctx);
  const char* requirement;  ///< what `applies` checks, for error messages
};

/// Every strategy, in preference order for ties (collectives.cpp).
std::span<const Strategy> strategies();

}  // namespace stepsim::topo
