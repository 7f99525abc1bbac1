#pragma once
// The CommPlanner of real runs: collectives become transfers over the cluster's topology, executed
// by the flow-level network (topology/flow_network.hpp).

#include <memory>

#include "topology/flow_network.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/layout/comm_planner.hpp"

namespace stepsim::work {

class TopologyPlanner final : public CommPlanner {
 public:
  explicit TopologyPlanner(std::shared_ptr<const topo::Topology> topology, topo::CommConfig config = {},
                           topo::FlowNetworkOptions network = {});
  std::uint32_t plan(const CommRequest& request) override;
  std::unique_ptr<sim::Network> make_network() override;
  /// Links whose full load history networks made from now on record (LinkAccounting::timeline).
  void watch_links(std::vector<topo::LinkId> links) { watched_ = std::move(links); }
  /// The frozen table (after make_network()).
  const std::shared_ptr<const topo::TransferTable>& table() const { return table_; }

 private:
  std::shared_ptr<const topo::Topology> topology_;
  std::unique_ptr<topo::TransferTableBuilder> builder_;
  std::shared_ptr<const topo::TransferTable> table_;
  topo::FlowNetworkOptions network_;
  std::vector<topo::LinkId> watched_;
};

/// The topology request for a workload request (ring exchanges become one send per member).
topo::CollectiveRequest to_collective(const CommRequest& request);
/// What TopologyPlanner::plan adds to its transfer table for `request`: to_collective, without the
/// images of groups that stay inside one scale-up domain.
topo::CollectiveRequest planned_collective(const topo::Topology& topology, const CommRequest& request);

}  // namespace stepsim::work
