#pragma once
// Lower bounds on how long a collective takes in a simulation, for the step bound
// (workloads/bound/step_bound.hpp).
//
// Why the topology-backed bound holds: the flow network (topology/flow_network.cpp) runs a
// transfer as the phases its plan lists, each a fixed latency (launch, alpha terms, pipeline fill)
// followed by bandwidth variables. A variable's max-min rate never exceeds its rate on an idle
// network, because every link it crosses has the same capacity to share with whatever else runs.
// So no run of a transfer is shorter than its plan's time alone (TransferInfo::time_alone_s). The
// plan is the one a simulation builds for the same request (TopologyPlanner's planned_collective):
// the same groups and images, the same topology, and the same automatic choice of algorithm (the
// fastest alone, deterministically).

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "sim/units.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/layout/comm_planner.hpp"

namespace stepsim::work {

/// What identifies a collective's request without spelling out its groups: the collective, the
/// rank (or pipeline stages) that issues it and the rank grid its groups come from. Equal keys
/// promise equal requests, so a cache can skip building the groups.
struct CommKey {
  /// kind, dim, scope, peer offset, issuing rank (or sending stage), receiving stage, then the
  /// grid: tp, cp, pp, dp, ep, expert_tp sizes and the tp, cp, pp, dp strides (placement order),
  /// then whether data-parallel reduce-scatters average (ParallelSpec::average_in_collective).
  std::array<int, 17> shape{};
  double bytes = 0.0;
  std::vector<double> pair_bytes;
  auto operator<=>(const CommKey&) const = default;
};

class CommBound {
 public:
  virtual ~CommBound() = default;
  /// A duration no run of the request `make()` builds is shorter than, in a simulation. `key`
  /// identifies that request; make() is only called when the answer is not known. Thread-safe.
  virtual Time at_least(const CommKey& key, const std::function<CommRequest()>& make) = 0;
};

/// CommBound on the topology the simulation runs on, with the default communication settings
/// (what `simulate` uses unless told otherwise). Caches by key; thread-safe.
class TopologyCommBound final : public CommBound {
 public:
  explicit TopologyCommBound(std::shared_ptr<const topo::Topology> topology);
  Time at_least(const CommKey& key, const std::function<CommRequest()>& make) override;

 private:
  std::mutex mutex_;
  std::shared_ptr<const topo::Topology> topology_;
  topo::TransferTableBuilder builder_;
  std::map<CommKey, Time> cache_;
};

}  // namespace stepsim::work
