#include "topology/collectives.hpp"

#include <array>
#include <utility>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

constexpr std::array<std::pair<CollectiveOp, std::string_view>, 6> kOpNames{{
    {CollectiveOp::all_reduce, "all-reduce"},
    {CollectiveOp::reduce_scatter, "reduce-scatter"},
    {CollectiveOp::all_gather, "all-gather"},
    {CollectiveOp::all_to_all, "all-to-all"},
    {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::send_recv, "send-recv"},
}};

constexpr std::array<std::pair<CollectiveAlgorithm, std::string_view>, 12> kAlgorithmNames{{
    {CollectiveAlgorithm::automatic, "auto"},
    {CollectiveAlgorithm::ring, "ring"},
    {CollectiveAlgorithm::tree, "tree"},
    {CollectiveAlgorithm::nvls, "nvls"},
    {CollectiveAlgorithm::nvls_tree, "nvls-tree"},
    {CollectiveAlgorithm::collnet_direct, "collnet-direct"},
    {CollectiveAlgorithm::collnet_chain, "collnet-chain"},
    {CollectiveAlgorithm::pat, "pat"},
    {CollectiveAlgorithm::hierarchical, "hierarchical"},
    {CollectiveAlgorithm::pairwise, "pairwise"},
    {CollectiveAlgorithm::deepep_ll, "deepep-ll"},
    {CollectiveAlgorithm::direct, "direct"},
}};

constexpr std::array<std::pair<CollectiveProtocol, std::string_view>, 4> kProtocolNames{{
    {CollectiveProtocol::automatic, "auto"},
    {CollectiveProtocol::simple, "simple"},
    {CollectiveProtocol::ll128, "ll128"},
    {CollectiveProtocol::ll, "ll"},
}};

const GroupLayout& first(const AlgoContext& ctx) {
  return ctx.layouts.front();
}

bool any(const AlgoContext&) {
  return true;
}
bool multi_node(const AlgoContext& ctx) {
  return first(ctx).nodes.size() >= 2;
}
bool nvls_domain(const AlgoContext& ctx) {
  if (!ctx.topo.nvls()) return false;
  for (const GroupLayout& l : ctx.layouts)
    if (l.nodes.size() > 1) return false;
  return true;
}
// NVLS inside every domain and more than one domain, each holding the same number of ranks.
bool nvls_tree_shape(const AlgoContext& ctx) {
  if (!ctx.topo.nvls()) return false;
  for (const GroupLayout& l : ctx.layouts)
    if (l.nodes.size() < 2 || !l.uniform) return false;
  return true;
}
// NCCL runs NVLS across nodes only with CollNet enabled (tuning.cc disables NVLS for nNodes > 1
// unless config.collnetEnable): every domain holding the same number of ranks and a fabric whose
// switches reduce.
bool nvls_sharp_shape(const AlgoContext& ctx) {
  return ctx.collnet && ctx.topo.spec().fabric.sharp && nvls_tree_shape(ctx);
}
// NCCL's CollNet (config.collnetEnable) on switches that reduce (SHARP), two or more nodes holding
// the same number of ranks, at most 8 a node (NCCL_MAX_DIRECT_ARITY + 1). Its nodes are NVLink
// domains, so ranks all in one domain (two trays of an NVL72 rack) are one node and never CollNet.
// (Such a group has no switch route between its ranks: planning it crashed, found by fuzz_topology.)
bool collnet_common(const AlgoContext& ctx) {
  if (!ctx.collnet || !ctx.topo.spec().fabric.sharp) return false;
  for (const GroupLayout& l : ctx.layouts)
    if (l.nodes.size() < 2 || l.max_per_node > 8 || !l.uniform) return false;
  return true;
}
// NCCL's node is the host or more: stepsim's node, the scale-up domain, holds whole hosts (an
// NVLink switch's domain, or a host whose GPUs meet over PCIe only). Not where NVLink pairs or
// islands split a host (H100 NVL), which stepsim lays out as nodes of their own.
bool whole_host_nodes(const AlgoContext& ctx) {
  return ctx.topo.domain_size() >= static_cast<std::uint32_t>(ctx.topo.spec().gpus_per_node);
}
// CollNet Direct: NCCL disables it where the topology has no NVSwitch (tuning.cc, nvsCount == 0).
bool collnet_shape(const AlgoContext& ctx) {
  return collnet_common(ctx) && whole_host_nodes(ctx) && ctx.topo.nvlink();
}
// CollNet Chain: with or without NVSwitch, on whole hosts.
bool collnet_chain_shape(const AlgoContext& ctx) {
  return collnet_common(ctx) && whole_host_nodes(ctx);
}
// NCCL's PAT (tuning.cc ncclPatEnable): enabled (NCCL_PAT_ENABLE, on by default since 2.23), one
// rank on each of two or more nodes (nNodes == nRanks; its nodes are NVLink domains), and for a
// reduce-scatter a plain sum: enqueue.cc skips PAT for ncclDevPreMulSum and ncclDevSumPostDiv, the
// forms of ncclAvg.
bool pat_shape(const AlgoContext& ctx) {
  if (!ctx.pat || (ctx.request.op == CollectiveOp::reduce_scatter && ctx.request.average)) return false;
  for (const GroupLayout& l : ctx.layouts)
    if (l.nodes.size() < 2 || l.max_per_node != 1) return false;
  return true;
}
bool hierarchical_shape(const AlgoContext& ctx) {
  for (const GroupLayout& l : ctx.layouts)
    if (l.nodes.size() < 2 || l.max_per_node < 2 || !l.uniform) return false;
  return true;
}
bool pair(const AlgoContext& ctx) {
  return ctx.request.groups.front().size() == 2;
}

using Op = CollectiveOp;
using Alg = CollectiveAlgorithm;
constexpr const char* kPatRequirement =
    "needs one rank on each of two or more nodes (NCCL's nodes: NVLink domains), NCCL's PAT enabled "
    "(collective.pat) and, for a reduce-scatter, a sum: NCCL runs no PAT for an average "
    "(parallelism.average_in_collective)";
constexpr Strategy kStrategies[] = {
    {Op::all_reduce, Alg::ring, any, build_ring, ""},
    {Op::all_reduce, Alg::nvls, nvls_domain, build_nvls_all_reduce,
     "needs NVLS (hardware.nvls) and every rank in one NVLink domain, or, across domains, NCCL's "
     "CollNet (collective.collnet = true, or --collnet) on switches that reduce (fabric.sharp, or --sharp)"},
    {Op::all_reduce, Alg::nvls, nvls_sharp_shape, build_nvls_sharp_all_reduce,
     "needs NVLS (hardware.nvls) and every rank in one NVLink domain, or, across domains, NCCL's "
     "CollNet (collective.collnet = true, or --collnet) on switches that reduce (fabric.sharp, or --sharp)"},
    {Op::all_reduce, Alg::tree, multi_node, build_tree_all_reduce,
     "needs ranks on at least two hosts (NCCL's nodes: a multi-node NVLink domain is one)"},
    {Op::all_reduce, Alg::nvls_tree, nvls_tree_shape, build_nvls_tree_all_reduce,
     "needs NVLS (hardware.nvls) and ranks in two or more NVLink domains, the same number in each"},
    {Op::all_reduce, Alg::collnet_direct, collnet_shape, build_collnet_all_reduce,
     "needs NCCL's CollNet (collective.collnet) on switches that reduce (fabric.sharp), an NVLink "
     "switch in every host and 2 or more hosts of at most 8 ranks each, the same number in each, in "
     "two or more NVLink domains"},
    {Op::all_reduce, Alg::collnet_chain, collnet_chain_shape, build_collnet_chain_all_reduce,
     "needs NCCL's CollNet (collective.collnet) on switches that reduce (fabric.sharp) and 2 or more "
     "hosts of at most 8 ranks each, the same number in each, whose GPUs meet over an NVLink switch "
     "or over PCIe only (not NVLink pairs)"},
    {Op::all_reduce, Alg::hierarchical, hierarchical_shape, build_hierarchical_all_reduce,
     "needs at least two hosts with the same number (>= 2) of ranks each"},
    {Op::reduce_scatter, Alg::ring, any, build_ring, ""},
    {Op::reduce_scatter, Alg::pat, pat_shape, build_pat, kPatRequirement},
    {Op::all_gather, Alg::ring, any, build_ring, ""},
    {Op::all_gather, Alg::pat, pat_shape, build_pat, kPatRequirement},
    {Op::all_gather, Alg::nvls, nvls_domain, build_nvls_all_gather,
     "needs NVLS (hardware.nvls) and every rank in one NVLink domain"},
    {Op::all_gather, Alg::collnet_direct, collnet_shape, build_collnet_all_gather,
     "needs NCCL's CollNet (collective.collnet) on switches that reduce (fabric.sharp), an NVLink "
     "switch in every host and 2 or more hosts of at most 8 ranks each, the same number in each, in "
     "two or more NVLink domains"},
    {Op::all_to_all, Alg::pairwise, any, build_pairwise_all_to_all, ""},
    {Op::all_to_all, Alg::deepep_ll, any, build_deepep_ll_all_to_all, ""},
    {Op::broadcast, Alg::ring, any, build_chain_broadcast, ""},
    {Op::send_recv, Alg::direct, pair, build_direct_send_recv,
     "needs groups of exactly {source, destination}"},
};

}  // namespace

std::span<const Strategy> strategies() {
  return kStrategies;
}

std::string_view name(CollectiveOp op) {
  for (const auto& [o, n] : kOpNames)
    if (o == op) return n;
  return "unknown";
}

std::string_view name(CollectiveAlgorithm a) {
  for (const auto& [x, n] : kAlgorithmNames)
    if (x == a) return n;
  return "unknown";
}

bool implements(CollectiveOp op, CollectiveAlgorithm a) {
  for (const Strategy& s : kStrategies)
    if (s.op == op && s.algorithm == a) return true;
  return false;
}

std::string_view name(CollectiveProtocol p) {
  for (const auto& [x, n] : kProtocolNames)
    if (x == p) return n;
  return "unknown";
}

std::optional<CollectiveProtocol> parse_collective_protocol(std::string_view s) {
  for (const auto& [x, n] : kProtocolNames)
    if (n == s) return x;
  return std::nullopt;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> out;
  for (const auto& [x, n] : kAlgorithmNames) out.emplace_back(n);
  return out;
}

std::vector<std::string> protocol_names() {
  std::vector<std::string> out;
  for (const auto& [x, n] : kProtocolNames) out.emplace_back(n);
  return out;
}

std::optional<CollectiveOp> parse_collective_op(std::string_view s) {
  for (const auto& [o, n] : kOpNames)
    if (n == s) return o;
  return std::nullopt;
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view s) {
  for (const auto& [x, n] : kAlgorithmNames)
    if (n == s) return x;
  return std::nullopt;
}

double bus_bandwidth_factor(CollectiveOp op, int p) {
  const double n = p;
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::send_recv: return 1.0;
  }
  return 1.0;
}

}  // namespace stepsim::topo
