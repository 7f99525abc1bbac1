#include "workloads/step/replay_fabric.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "topology/concurrent_transfers.hpp"
#include "workloads/layout/rank_layout.hpp"

namespace stepsim::work {
namespace replay_fabric_detail {

/// A copy of a collective whose group a degraded part reaches, and its group's time on the degraded
/// fabric over its time on the healthy one (each with the other reached groups, on idle links).
struct CopyFactor {
  std::uint32_t copy = 0;
  double factor = 1.0;
};

/// One group of a comm op as a request of its own, its algorithm and protocol chosen afresh on each
/// fabric (what the job forces, TransferTableBuilder's CommConfig, still applies; DeepEP's kernels,
/// which only a request names, are kept): a ring exchange (send/recv among more than two) is one send
/// per member to its successor.
topo::CollectiveRequest group_request(const topo::TransferInfo& info, const std::vector<int>& group) {
  topo::CollectiveRequest r;
  r.op = info.op;
  r.bytes = info.bytes;
  if (info.algorithm == topo::CollectiveAlgorithm::deepep_ll) r.algorithm = info.algorithm;
  const auto gpu = [](int rank) { return static_cast<topo::GpuId>(rank); };
  if (info.op == topo::CollectiveOp::send_recv && group.size() > 2) {
    for (std::size_t i = 0; i < group.size(); ++i)
      r.groups.push_back({gpu(group[i]), gpu(group[(i + 1) % group.size()])});
  } else {
    std::vector<topo::GpuId> g;
    for (const int rank : group) g.push_back(gpu(rank));
    r.groups.push_back(std::move(g));
  }
  return r;
}

/// The groups a degraded link or switch reaches, planned on both fabrics; one entry per distinct
/// collective (its groups, operation, algorithm, protocol and size).
class GroupTimer {
 public:
  GroupTimer(const JobSpec& job, const topo::TransferTable& healthy, const topo::CommConfig& config)
      : degraded_topology_(std::make_shared<const topo::Topology>(job.cluster)),
        healthy_(healthy.topology_ptr(), config),
        degraded_(degraded_topology_, config),
        layout_(job.parallel) {
    for (const topo::LinkDegradation& d : job.cluster.degraded)
      domains_.insert(degraded_topology_->domain_of(static_cast<topo::GpuId>(d.gpu)));
    switches_ = !job.cluster.degraded_switches.empty();
  }

  /// The copies of a collective `info` over `groups` that a degraded part reaches, each with its
  /// group's time factor (sorted by copy; empty when no group of it is reached).
  const std::vector<CopyFactor>& factors(std::uint16_t groups_id, const std::vector<std::vector<int>>& groups,
                                         const topo::TransferInfo& info) {
    const Key key{groups_id, info.op, info.algorithm, info.protocol, info.bytes};
    const auto [it, fresh] = cache_.try_emplace(key);
    if (fresh) it->second = compute(groups, info);
    return it->second;
  }

 private:
  using Key = std::tuple<std::uint16_t, topo::CollectiveOp, topo::CollectiveAlgorithm,
                         topo::CollectiveProtocol, double>;

  /// A group with a member in a degraded link's scale-up domain, or, with a switch degraded, one
  /// that spans domains (its traffic leaves them through the fabric's switches).
  bool reached(const std::vector<int>& group) const {
    const auto domain = [&](int rank) {
      return degraded_topology_->domain_of(static_cast<topo::GpuId>(rank));
    };
    if (std::any_of(group.begin(), group.end(), [&](int rank) { return domains_.count(domain(rank)) > 0; }))
      return true;
    return switches_ && std::any_of(group.begin(), group.end(),
                                    [&](int rank) { return domain(rank) != domain(group.front()); });
  }

  std::vector<CopyFactor> compute(const std::vector<std::vector<int>>& groups,
                                  const topo::TransferInfo& info) {
    std::vector<const std::vector<int>*> hit;
    std::vector<std::uint32_t> on_healthy, on_degraded;
    for (const std::vector<int>& g : groups) {
      if (!reached(g)) continue;
      const topo::CollectiveRequest r = group_request(info, g);
      hit.push_back(&g);
      on_healthy.push_back(healthy_.add(r));
      on_degraded.push_back(degraded_.add(r));
    }
    std::vector<CopyFactor> out;
    if (hit.empty()) return out;
    const std::vector<double> before = topo::concurrent_time_s(healthy_.table(), on_healthy);
    const std::vector<double> after = topo::concurrent_time_s(degraded_.table(), on_degraded);
    for (std::size_t i = 0; i < hit.size(); ++i) {
      // A slower part never speeds a collective up: each side's choice is its fastest alone.
      const double factor = before[i] > 0.0 ? std::max(1.0, after[i] / before[i]) : 1.0;
      if (factor - 1.0 <= 1e-12) continue;
      std::set<std::uint32_t> copies;
      for (const int rank : *hit[i]) copies.insert(static_cast<std::uint32_t>(layout_.stage_index(rank)));
      for (const std::uint32_t c : copies) out.push_back({c, factor});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.copy < b.copy; });
    return out;
  }

  std::shared_ptr<const topo::Topology> degraded_topology_;
  topo::TransferTableBuilder healthy_;
  topo::TransferTableBuilder degraded_;
  RankLayout layout_;
  std::set<std::uint32_t> domains_;
  bool switches_ = false;
  std::map<Key, std::vector<CopyFactor>> cache_;
};

}  // namespace replay_fabric_detail

FabricScaling scale_degraded_transfers(const JobSpec& job, const StepPlan& plan,
                                       const topo::TransferTable& healthy, const topo::CommConfig& config,
                                       sim::ReplayLayout& layout) {
  FabricScaling out;
  layout.scale_begin.clear();
  layout.scales.clear();
  if (!job.cluster.has_degradation()) return out;
  replay_fabric_detail::GroupTimer timer(job, healthy, config);
  const std::size_t n = plan.graph.op_count();
  layout.scale_begin.assign(n + 1, 0);
  for (sim::OpId op = 0; op < n; ++op) {
    layout.scale_begin[op] = static_cast<std::uint32_t>(layout.scales.size());
    const sim::OpExec& e = plan.graph.exec(op);
    const std::uint16_t g = plan.info[op].comm_groups;
    if (e.kind != sim::OpKind::transfer || g == OpInfo::kNoCommGroups) continue;
    const auto& factors = timer.factors(g, plan.comm_groups[g], healthy.info(e.aux));
    if (factors.empty()) continue;
    for (const auto& d : factors) {
      layout.scales.push_back({d.copy, d.factor});
      out.max_factor = std::max(out.max_factor, d.factor);
    }
    ++out.ops;
    out.copies += factors.size();
  }
  layout.scale_begin[n] = static_cast<std::uint32_t>(layout.scales.size());
  return out;
}

}  // namespace stepsim::work
