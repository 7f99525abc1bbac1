#include "topology/network_bench.hpp"

#include <chrono>
#include <memory>

#include "topology/flow_network.hpp"

namespace stepsim::topo {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

ClusterSpec cluster_1024() {
  ClusterSpec c;
  c.gpu.id = "bench-h100";
  c.gpu.nvlink_bw = units::gb_per_s(450);
  c.gpu.nvlink_domain = 8;
  c.gpu.nic_bw = units::gbit_per_s(400);
  c.gpu.kernel_gap_s = 4e-6;
  c.nodes = 128;
  c.gpus_per_node = 8;
  c.nvlink_domain = 8;
  c.fabric.kind = FabricKind::rail_optimized;
  return c;
}

}  // namespace

NetworkBenchFigures bench_collective_1024(CollectiveOp op, CollectiveAlgorithm algorithm) {
  NetworkBenchFigures f;
  const auto t0 = Clock::now();
  auto topo = std::make_shared<const Topology>(cluster_1024());
  f.topology_s = since(t0);
  f.links = topo->links().size();

  const auto t1 = Clock::now();
  TransferTableBuilder tb(topo);
  CollectiveRequest r;
  r.op = op;
  r.algorithm = algorithm;
  r.bytes = 1073741824.0;
  r.groups.emplace_back();
  for (GpuId g = 0; g < topo->gpu_count(); ++g) r.groups[0].push_back(g);
  const std::uint32_t id = tb.add(r);
  auto table = std::make_shared<const TransferTable>(std::move(tb).build());
  f.table_s = since(t1);
  f.pattern_link_uses = table->pattern(table->flows(table->phases(id)[0])[0].pattern).size();

  const auto t2 = Clock::now();
  FlowNetwork net(table);
  const std::uint32_t ids[] = {id};
  f.simulated_time_s = to_seconds(run_transfers(net, ids).front());
  f.simulate_s = since(t2);
  return f;
}

}  // namespace stepsim::topo
