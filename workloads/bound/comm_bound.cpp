#include "workloads/bound/comm_bound.hpp"

#include <cmath>

#include "workloads/layout/topology_planner.hpp"

namespace stepsim::work {

TopologyCommBound::TopologyCommBound(std::shared_ptr<const topo::Topology> topology)
    : topology_(topology), builder_(std::move(topology)) {}

Time TopologyCommBound::at_least(const CommKey& key, const std::function<CommRequest()>& make) {
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  const topo::CollectiveRequest request = planned_collective(*topology_, make());
  std::lock_guard lock(mutex_);
  const auto it = cache_.find(key);  // another thread may have planned it meanwhile
  if (it != cache_.end()) return it->second;
  const std::uint32_t payload = builder_.add(request);
  // Less a relative 1e-9, and rounded down: the network rounds each of its steps up, and sizes
  // that differ by under a byte share one plan in the step builder.
  const double ps = builder_.table().info(payload).time_alone_s * (1.0 - 1e-9) * 1e12;
  const Time t{ps > 0.0 ? static_cast<std::int64_t>(std::floor(ps)) : 0};
  cache_.emplace(key, t);
  return t;
}

}  // namespace stepsim::work
