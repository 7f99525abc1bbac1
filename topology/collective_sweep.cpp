#include "topology/collective_sweep.hpp"

#include "topology/flow_network.hpp"
#include "topology/transfer_table.hpp"

namespace stepsim::topo {

std::vector<CollectiveSample> sweep_collective(std::shared_ptr<const Topology> topo,
                                               const SweepRequest& request) {
  TransferTableBuilder tb(topo, request.config);
  std::vector<std::uint32_t> ids;
  for (double bytes : request.sizes_bytes) {
    CollectiveRequest r;
    r.op = request.op;
    r.groups = request.groups;
    r.bytes = bytes;
    r.algorithm = request.algorithm;
    r.root = request.root;
    ids.push_back(tb.add(r));
  }
  auto table = std::make_shared<const TransferTable>(std::move(tb).build());
  const int p = static_cast<int>(request.groups.front().size());
  std::vector<CollectiveSample> out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    FlowNetwork net(table);  // each size alone on an idle network
    const std::uint32_t one[] = {ids[i]};
    const double t = to_seconds(run_transfers(net, one).front());
    CollectiveSample s;
    s.bytes = request.sizes_bytes[i];
    s.time_s = t;
    s.algbw_GBps = t > 0.0 ? s.bytes / t / 1e9 : 0.0;
    s.busbw_GBps = s.algbw_GBps * bus_bandwidth_factor(request.op, p);
    s.algorithm = table->info(ids[i]).algorithm;
    out.push_back(s);
  }
  return out;
}

}  // namespace stepsim::topo
