#include "workloads/step/replay_fabric.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "topology/flow_network.hpp"
#include "workloads/layout/rank_layout.hpp"

namespace stepsim::work {
namespace replay_fabric_detail {

/// One group of a comm op as a request of its own, its algorithm and protocol chosen afresh on each
/// fabric (what the job forces, TransferTableBuilder's CommConfig, still applies; DeepEP's kernels,
/// which only a request names, are kept): a ring exchange (send/recv among more than two) is one send
/// per member to its successor.
topo::CollectiveRequest group_request(const topo::TransferInfo& info, const std::vector<int>& group) {
  topo::CollectiveRequest r;
  r.op = info.op;
  r.bytes = info.bytes;
  r.communicator_ranks = info.communicator_ranks;  // the send/recv's NCCL channels, as the step's
  r.average = info.average;                        // a reduce-scatter's reduction, as the step's
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

/// A distinct collective (its groups, operation, algorithm, protocol and size) whose groups a
/// degraded part reaches: each reached group's transfer on both fabrics, and the copies it holds.
struct Reached {
  std::vector<std::uint32_t> healthy, degraded;      ///< payloads, one per reached group
  std::vector<std::vector<std::uint32_t>> copies;    ///< per reached group, its copies (sorted)
  std::vector<sim::ReplayLayout::CopyScale> scales;  ///< filled once both tables are built
};

/// Plans the reached groups of every collective of a step on the healthy and the degraded fabric,
/// then times each collective's groups started together on each (topo::run_transfers over the
/// flow network the step itself runs on).
class GroupTimer {
 public:
  GroupTimer(const JobSpec& job, std::shared_ptr<const topo::Topology> healthy,
             std::shared_ptr<const topo::Topology> degraded, const topo::CommConfig& config)
      : healthy_(std::move(healthy), config),
        degraded_(degraded, config),
        degraded_topology_(std::move(degraded)),
        layout_(job.parallel),
        switches_(!job.cluster.degraded_switches.empty()) {
    for (const topo::LinkDegradation& d : job.cluster.degraded)
      domains_.insert(degraded_topology_->domain_of(static_cast<topo::GpuId>(d.gpu)));
  }

  /// The entry of collective `info` over `groups` (added on first sight), or -1 when no group of it
  /// is reached.
  int add(std::uint16_t groups_id, const std::vector<std::vector<int>>& groups,
          const topo::TransferInfo& info) {
    const Key key{groups_id, info.op, info.algorithm, info.protocol, info.bytes};
    const auto [it, fresh] = index_.try_emplace(key, -1);
    if (!fresh) return it->second;
    Reached r;
    for (const std::vector<int>& g : groups) {
      if (!reached(g)) continue;
      const topo::CollectiveRequest request = group_request(info, g);
      r.healthy.push_back(healthy_.add(request));
      r.degraded.push_back(degraded_.add(request));
      std::set<std::uint32_t> copies;
      for (const int rank : g) copies.insert(static_cast<std::uint32_t>(layout_.stage_index(rank)));
      r.copies.emplace_back(copies.begin(), copies.end());
    }
    if (r.healthy.empty()) return -1;
    it->second = static_cast<int>(reached_.size());
    reached_.push_back(std::move(r));
    return it->second;
  }

  /// Times every entry on both fabrics; each reached group's copies get the degraded / healthy time
  /// of its group (at least 1: each side's choice is its fastest alone, and a slower part never
  /// speeds a collective up).
  void time_all() {
    const auto healthy = std::make_shared<const topo::TransferTable>(std::move(healthy_).build());
    const auto degraded = std::make_shared<const topo::TransferTable>(std::move(degraded_).build());
    for (Reached& r : reached_) {
      topo::FlowNetwork on_healthy(healthy), on_degraded(degraded);
      const std::vector<Time> before = topo::run_transfers(on_healthy, r.healthy);
      const std::vector<Time> after = topo::run_transfers(on_degraded, r.degraded);
      for (std::size_t i = 0; i < r.copies.size(); ++i) {
        const double factor =
            before[i].count() > 0 ? std::max(1.0, to_seconds(after[i]) / to_seconds(before[i])) : 1.0;
        if (factor - 1.0 <= 1e-12) continue;
        for (const std::uint32_t c : r.copies[i]) r.scales.push_back({c, factor});
      }
      std::sort(r.scales.begin(), r.scales.end(),
                [](const auto& a, const auto& b) { return a.copy < b.copy; });
    }
  }

  const std::vector<sim::ReplayLayout::CopyScale>& scales(int entry) const { return reached_[entry].scales; }

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

  topo::TransferTableBuilder healthy_;
  topo::TransferTableBuilder degraded_;
  std::shared_ptr<const topo::Topology> degraded_topology_;
  RankLayout layout_;
  bool switches_ = false;
  std::set<std::uint32_t> domains_;
  std::map<Key, int> index_;
  std::vector<Reached> reached_;
};

}  // namespace replay_fabric_detail

FabricScaling scale_degraded_transfers(const JobSpec& job, const StepPlan& plan,
                                       const topo::TransferTable& healthy,
                                       std::shared_ptr<const topo::Topology> degraded,
                                       const topo::CommConfig& config, sim::ReplayLayout& layout) {
  FabricScaling out;
  layout.scale_begin.clear();
  layout.scales.clear();
  if (!job.cluster.has_degradation()) return out;
  replay_fabric_detail::GroupTimer timer(job, healthy.topology_ptr(), std::move(degraded), config);
  const std::size_t n = plan.graph.op_count();
  std::vector<int> entry(n, -1);  // per op: its collective's entry in the timer
  for (sim::OpId op = 0; op < n; ++op) {
    const sim::OpExec& e = plan.graph.exec(op);
    const std::uint16_t g = plan.info[op].comm_groups;
    if (e.kind == sim::OpKind::transfer && g != OpInfo::kNoCommGroups)
      entry[op] = timer.add(g, plan.comm_groups[g], healthy.info(e.aux));
  }
  timer.time_all();
  layout.scale_begin.assign(n + 1, 0);
  for (sim::OpId op = 0; op < n; ++op) {
    layout.scale_begin[op] = static_cast<std::uint32_t>(layout.scales.size());
    if (entry[op] < 0) continue;
    const auto& scales = timer.scales(entry[op]);
    if (scales.empty()) continue;
    layout.scales.insert(layout.scales.end(), scales.begin(), scales.end());
    for (const auto& s : scales) out.max_factor = std::max(out.max_factor, s.factor);
    ++out.ops;
    out.copies += scales.size();
  }
  layout.scale_begin[n] = static_cast<std::uint32_t>(layout.scales.size());
  return out;
}

}  // namespace stepsim::work
