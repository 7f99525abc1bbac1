// `stepsim bench` cases for the flow-level network (workloads in topology/network_bench.cpp).

#include "tools/bench.hpp"
#include "topology/network_bench.hpp"

namespace stepsim::cli {

namespace {

BenchResult report(const char* name, const topo::NetworkBenchFigures& f, const char* note) {
  BenchResult out;
  out.name = name;
  out.wall_s = f.topology_s + f.table_s + f.simulate_s;
  out.peak_rss_bytes = peak_rss_bytes();
  out.metrics = {{"topology_s", f.topology_s},
                 {"table_s", f.table_s},
                 {"simulate_s", f.simulate_s},
                 {"simulated_time_s", f.simulated_time_s},
                 {"links", static_cast<double>(f.links)},
                 {"pattern_link_uses", static_cast<double>(f.pattern_link_uses)}};
  out.note = note;
  return out;
}

}  // namespace

BenchResult bench_network_all_to_all() {
  return report(
      "network_all_to_all",
      topo::bench_collective_1024(topo::CollectiveOp::all_to_all, topo::CollectiveAlgorithm::automatic),
      "all-to-all of 1 GiB per GPU across 1,024 GPUs (128 x 8, rail-optimised two-tier fabric): "
      "1,047,552 routed pairs coupled into one variable");
}

BenchResult bench_network_ring() {
  return report(
      "network_ring",
      topo::bench_collective_1024(topo::CollectiveOp::all_reduce, topo::CollectiveAlgorithm::ring),
      "ring all-reduce of 1 GiB across 1,024 GPUs (128 x 8, rail-optimised two-tier fabric), 16 channels");
}

}  // namespace stepsim::cli
