#include "topology/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace stepsim::topo {

namespace {

// NCCL's constants, transcribed from src/graph/tuning.cc (ncclTunerConstantsDefaults, NCCL 2.29).
// Indices as NCCL's: protocol LL, LL128, Simple; link class NVLink, PCIe, network; node class 1, 2,
// more than 2 nodes; generation Volta, Ampere, Hopper, Blackwell.
enum Proto { kLL, kLL128, kSimple };
enum Hw { kNvlink, kPci, kNet };
enum Algo { kTree, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat, kAlgoCount };
using PerProto = std::array<double, 3>;
using PerNodes = std::array<double, 3>;

constexpr std::array<PerProto, kAlgoCount> kBaseLatencyUs{{
    {6.8, 14.0, 8.4},  // tree
    {6.6, 14.0, 8.4},  // ring
    {0, 0, 0},         // CollNet Direct
    {0, 0, 0},         // CollNet Chain
    {0, 0, 0},         // NVLS
    {0, 0, 0},         // NVLS tree
    {8.0, 8.0, 8.0},   // PAT
}};
// One row per link class, one {LL, LL128, Simple} triple per algorithm.
// clang-format off
constexpr std::array<std::array<PerProto, kAlgoCount>, 3> kHwLatencyUs{{
    //  tree              ring             CollNet Direct  CollNet Chain  NVLS         NVLS tree      PAT
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4},  {0, 0, 3.7},    {0, 0, 2.8},   {0, 0, 25},  {0, 0, 25},    {0, 0, 4.0}}},  // NVLink
    {{{1.0, 1.9, 4.0},  {1.0, 2.5, 5.7},  {0, 0, 3.7},    {0, 0, 2.8},   {0, 0, 0},   {0, 0, 0},     {0, 0, 4.0}}},  // PCIe
    {{{5.0, 8.5, 14},   {2.7, 4.0, 14.0}, {0, 0, 31},     {0, 0, 30},    {0, 0, 18},  {0, 0, 20.9},  {0, 0, 14}}},   // network
}};
// clang-format on
// llMaxBws: rows Volta, Ampere, Hopper, Blackwell on one node; across nodes NCCL indexes the rows
// by CPU (0 = Intel, 1 = AMD); stepsim takes row 0 (Intel and Arm hosts).
constexpr std::array<PerNodes, 4> kLlMaxBwGBps{
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}};
constexpr std::array<PerNodes, 4> kPerChannelRingLl128GBps{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
constexpr std::array<PerNodes, 4> kPerChannelTreeLl128GBps{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
constexpr std::array<PerNodes, 4> kPerChannelTreeGBps{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
constexpr std::array<PerNodes, 4> kPerChannelNvlsTreeGBps{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}}};
// Multi-node host-side cost of posting a network operation (getNetOverhead: 1 us on Intel and Arm
// hosts, 2 us on AMD), three times for Simple.
constexpr double kNetOverheadUs = 1.0;
// CollNet Direct's arity serialisation per local rank (tuning.cc: "0.4 us arity serialization").
constexpr double kCollNetArityUs = 0.4;
// PAT's latency (tuning.cc): a network step's latency / 3.5 per dimension (log2 of the nodes), plus
// "still a linear part" of 2.8 us per rank; and its bus bandwidth at 0.75 of the graph's.
constexpr double kPatDimensionDivisor = 3.5;
constexpr double kPatPerRankUs = 2.8;
constexpr double kPatBandwidthFactor = 0.75;

std::size_t arch_row(GpuArch a) {
  switch (a) {
    case GpuArch::volta: return 0;
    case GpuArch::hopper: return 2;
    case GpuArch::blackwell: return 3;
    case GpuArch::ampere:
    case GpuArch::other: return 1;
  }
  return 1;
}

int proto_index(CollectiveProtocol p) {
  return p == CollectiveProtocol::ll ? kLL : p == CollectiveProtocol::ll128 ? kLL128 : kSimple;
}

int algo_index(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::tree: return kTree;
    case CollectiveAlgorithm::collnet_direct: return kCollNetDirect;
    case CollectiveAlgorithm::collnet_chain: return kCollNetChain;
    case CollectiveAlgorithm::nvls: return kNvls;
    case CollectiveAlgorithm::nvls_tree: return kNvlsTree;
    case CollectiveAlgorithm::pat: return kPat;
    default: return kRing;
  }
}

int log2i(int n) {
  int l = 0;
  while (n > 1) n >>= 1, ++l;
  return l;
}

// NCCL's latency formulas per algorithm (ncclTopoTuneModel), in microseconds.
double latency_us(const NcclShape& s, CollectiveProtocol p) {
  const int a = algo_index(s.algorithm), pi = proto_index(p);
  const int intra_hw = s.nvlink ? kNvlink : kPci;
  const bool multi = s.nodes > 1;
  const int ppn = std::max(1, s.ranks / std::max(1, s.nodes));
  double intra = kHwLatencyUs[intra_hw][a][pi];
  // With one rank per node every step crosses the network: NCCL takes the tree's network latency.
  const double inter = ppn == 1 ? kHwLatencyUs[kNet][kTree][pi] : kHwLatencyUs[kNet][a][pi];
  const double base = kBaseLatencyUs[a][pi];
  switch (s.algorithm) {
    case CollectiveAlgorithm::ring: {
      if (multi) intra = std::max(intra, pi == kSimple ? 3.0 * kNetOverheadUs : kNetOverheadUs);
      const bool ar = s.op == CollectiveOp::all_reduce;
      const int steps = ar ? 2 * (s.ranks - 1) : s.ranks - 1;
      const int inter_steps = !multi ? 0 : ar ? 2 * (s.nodes - 1) : s.nodes - 1;
      // Simple streams each step's chunk as two slices: half of a step's latency overlaps the
      // transfer (see the header).
      const double exposed = pi == kSimple ? 0.5 : 1.0;
      return base + exposed * ((steps - inter_steps) * intra + inter_steps * inter);
    }
    case CollectiveAlgorithm::tree: return base + 2.0 * ((ppn - 1) * intra + log2i(s.nodes) * inter);
    case CollectiveAlgorithm::collnet_direct:
      return base + 2.0 * (std::min(1, ppn - 1) * intra + (ppn - 1) * kCollNetArityUs) + inter;
    case CollectiveAlgorithm::collnet_chain: return base + 2.0 * (ppn - 1) * intra + inter;
    case CollectiveAlgorithm::nvls: return intra + (multi ? inter : 0.0);
    case CollectiveAlgorithm::nvls_tree: return base + intra + 2.0 * log2i(s.nodes) * inter;
    case CollectiveAlgorithm::pat:
      return base + log2i(s.nodes) * inter / kPatDimensionDivisor + s.ranks * kPatPerRankUs;
    default: return 0.0;
  }
}

}  // namespace

bool nccl_tuned(CollectiveOp op, CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring:
      return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather ||
             op == CollectiveOp::reduce_scatter;
    case CollectiveAlgorithm::tree:
    case CollectiveAlgorithm::nvls_tree:
    case CollectiveAlgorithm::collnet_chain: return op == CollectiveOp::all_reduce;
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::collnet_direct:
      return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather;
    case CollectiveAlgorithm::pat:
      return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
    default: return false;
  }
}

bool protocol_applies(const NcclShape& shape, CollectiveProtocol p) {
  if (p == CollectiveProtocol::automatic) return false;
  if (!nccl_tuned(shape.op, shape.algorithm)) return p == CollectiveProtocol::simple;
  switch (shape.algorithm) {
    case CollectiveAlgorithm::ring:
    case CollectiveAlgorithm::tree:
      // NCCL enables LL128 by default only where every hop inside a node is NVLink (Hopper and
      // later also across PXN), so on PCIe-only nodes it runs LL and Simple.
      return p != CollectiveProtocol::ll128 || shape.nvlink;
    default: return p == CollectiveProtocol::simple;
  }
}

ProtocolTerms nccl_protocol_terms(const NcclShape& s, CollectiveProtocol p) {
  ProtocolTerms t;
  if (!nccl_tuned(s.op, s.algorithm)) return t;
  t.latency_s = latency_us(s, p) * 1e-6;
  const std::size_t arch = arch_row(s.arch);
  const std::size_t nodes = static_cast<std::size_t>(std::clamp(s.nodes, 1, 3) - 1);
  // The LL ceiling: one node by GPU generation, several by host CPU (row 0, see kLlMaxBwGBps).
  const double ll_max = (s.nodes == 1 ? kLlMaxBwGBps[arch][0] : kLlMaxBwGBps[0][nodes]) * 1e9;
  const double ch = std::max(1, s.channels);
  switch (s.algorithm) {
    case CollectiveAlgorithm::ring:
      if (p == CollectiveProtocol::ll) t.bandwidth_factor = 0.5, t.busbw_ceiling_Bps = ll_max;
      if (p == CollectiveProtocol::ll128)
        t.bandwidth_factor = 0.92, t.busbw_ceiling_Bps = ch * kPerChannelRingLl128GBps[arch][nodes] * 1e9;
      break;
    case CollectiveAlgorithm::tree:
      t.bandwidth_factor = 0.92;
      if (p == CollectiveProtocol::simple) t.busbw_ceiling_Bps = ch * kPerChannelTreeGBps[arch][nodes] * 1e9;
      if (p == CollectiveProtocol::ll128) {
        t.bandwidth_factor *= s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
        t.busbw_ceiling_Bps = ch * kPerChannelTreeLl128GBps[arch][nodes] * 1e9;
      }
      if (p == CollectiveProtocol::ll) t.bandwidth_factor /= 3.8, t.busbw_ceiling_Bps = ll_max;
      break;
    case CollectiveAlgorithm::nvls_tree:
      t.busbw_ceiling_Bps = ch * kPerChannelNvlsTreeGBps[arch][nodes] * 1e9;
      break;
    case CollectiveAlgorithm::collnet_direct:
    case CollectiveAlgorithm::collnet_chain:
      // All-gather: NCCL prices the network at 0.9 of its rate; all-reduce at 0.85 on Hopper and
      // later (tuning.cc), the GPU-to-NIC ratio being the flow model's business. NCCL's model gives
      // Chain no such factor; stepsim reads the 0.85 as the SHARP path's (the B200 CollNet
      // all-reduce rows run within 6% of it, docs/topology.md), which Chain's heads share.
      if (s.op == CollectiveOp::all_gather)
        t.bandwidth_factor = 0.9;
      else if (s.arch == GpuArch::hopper || s.arch == GpuArch::blackwell)
        t.bandwidth_factor = 0.85;
      break;
    case CollectiveAlgorithm::pat: t.bandwidth_factor = kPatBandwidthFactor; break;
    default: break;
  }
  return t;
}

int nccl_kernel_channels(const NcclShape& s, CollectiveProtocol p, double bytes) {
  const int nc = std::max(1, s.channels);
  const double threads = p == CollectiveProtocol::ll128 ? 640.0 : 512.0;
  double threshold = p == CollectiveProtocol::simple ? 64.0 : 8.0;
  if (p == CollectiveProtocol::ll && s.algorithm == CollectiveAlgorithm::ring)
    threshold *= std::max(1, s.ranks);
  const double fit = std::floor(bytes / (threads * threshold));
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(nc)));
}

namespace {
int pow2_up(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}
}  // namespace

int nccl_p2p_channels(int comm_channels) {
  return pow2_up(std::max(1, comm_channels));
}

int nccl_comm_channels(int gpus_per_node, GpuArch arch, bool nvlink) {
  constexpr int kMaxChannels = 64;
  int c = 2 * std::max(1, gpus_per_node);
  if ((arch == GpuArch::hopper || arch == GpuArch::blackwell) && nvlink && c < 16) c *= 2;
  return std::min(c, kMaxChannels);
}

int nccl_mnnvl_comm_channels(int local_gpus, double nvlink_GBps, double nic_GBps, GpuArch arch) {
  // sm90/sm100SpeedArrayInter (src/graph/search.cc), down to the speeds that matter here.
  constexpr std::array<double, 10> kSpeeds{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0};
  constexpr int kMaxGraphChannels = 32;  // MAXCHANNELS / 2
  // NCCL's NVLink figure per link over the datasheet's per link and direction.
  const double nvlink = nvlink_GBps * (arch == GpuArch::hopper ? 20.6 / 25.0 : 0.8);
  int best = 1;
  double best_GBps = 0.0;
  for (const double s : kSpeeds) {
    const int per_nic = static_cast<int>(std::floor(nic_GBps / s));
    const int ch = std::min(
        {kMaxGraphChannels, std::max(1, local_gpus) * per_nic, static_cast<int>(std::floor(nvlink / s))});
    if (ch * s > best_GBps) best = ch, best_GBps = ch * s;
    if (best_GBps >= nvlink) break;
  }
  return 2 * best;
}

int nccl_p2p_net_channels_per_peer(const NcclP2pComm& comm) {
  constexpr int kPeersPerBatch = 8;  // NCCL_MAX_DEV_WORK_P2P_PER_BATCH
  const int p2p_channels = nccl_p2p_channels(comm.comm_channels);
  int per_peer = pow2_up(std::max(1, static_cast<int>(std::ceil(comm.nic_GBps / kNcclP2pChannelNetGBps))));
  const int batches = (std::max(1, comm.ranks) + kPeersPerBatch - 1) / kPeersPerBatch;
  while (per_peer * batches > p2p_channels && per_peer > 1) per_peer /= 2;
  return std::min(per_peer, p2p_channels);
}

int nccl_p2p_min_channels(const NcclP2pComm& comm) {
  const int p2p_channels = nccl_p2p_channels(comm.comm_channels);
  int n = nccl_p2p_net_channels_per_peer(comm);
  while (n * std::max(1, comm.ranks) > p2p_channels && n > 1) n /= 2;
  return n;
}

}  // namespace stepsim::topo
