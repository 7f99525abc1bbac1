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

constexpr std::array<std::pair<CollectiveAlgorithm, std::string_view>, 7> kAlgorithmNames{{
    {CollectiveAlgorithm::automatic, "auto"},
    {CollectiveAlgorithm::ring, "ring"},
    {CollectiveAlgorithm::tree, "tree"},
    {CollectiveAlgorithm::nvls, "nvls"},
    {CollectiveAlgorithm::hierarchical, "hierarchical"},
    {CollectiveAlgorithm::pairwise, "pairwise"},
    {CollectiveAlgorithm::direct, "direct"},
}};

const GroupLayout& first(const AlgoContext& ctx) {
  return ctx.layouts.front();
}

bool any(const AlgoContext&) {
  return true;
}
bool multi_host(const AlgoContext& ctx) {
  return first(ctx).hosts.size() >= 2;
}
bool nvls_domain(const AlgoContext& ctx) {
  if (!ctx.topo.nvls()) return false;
  for (const GroupLayout& l : ctx.layouts)
    if (!l.one_domain) return false;
  return true;
}
bool hierarchical_shape(const AlgoContext& ctx) {
  for (const GroupLayout& l : ctx.layouts)
    if (l.hosts.size() < 2 || l.max_per_host < 2 || !l.uniform) return false;
  return true;
}
bool pair(const AlgoContext& ctx) {
  return ctx.request.groups.front().size() == 2;
}

using Op = CollectiveOp;
using Alg = CollectiveAlgorithm;
constexpr Strategy kStrategies[] = {
    {Op::all_reduce, Alg::ring, any, build_ring, ""},
    {Op::all_reduce, Alg::nvls, nvls_domain, build_nvls_all_reduce,
     "needs NVLS (hardware.nvls) and every rank in one NVLink domain"},
    {Op::all_reduce, Alg::tree, multi_host, build_tree_all_reduce, "needs ranks on at least two hosts"},
    {Op::all_reduce, Alg::hierarchical, hierarchical_shape, build_hierarchical_all_reduce,
     "needs at least two hosts with the same number (>= 2) of ranks each"},
    {Op::reduce_scatter, Alg::ring, any, build_ring, ""},
    {Op::all_gather, Alg::ring, any, build_ring, ""},
    {Op::all_to_all, Alg::pairwise, any, build_pairwise_all_to_all, ""},
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
