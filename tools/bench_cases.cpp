// The benchmark table: one line per case; each case lives in tools/bench_<area>.cpp.
#include "tools/bench.hpp"

namespace stepsim::cli {

BenchResult bench_scenario_load();
BenchResult bench_network_all_to_all();
BenchResult bench_network_ring();

namespace {
constexpr BenchCase kBenchCases[] = {
    {"scenario_load", "parse the catalog once, then load the bundled scenarios repeatedly",
     bench_scenario_load},
    {"network-all-to-all", "all-to-all of 1 GiB per GPU over 1,024 GPUs, rail-optimised fat-tree",
     bench_network_all_to_all},
    {"network-ring", "ring all-reduce of 1 GiB over 1,024 GPUs, rail-optimised fat-tree", bench_network_ring},
};
}  // namespace

std::span<const BenchCase> bench_cases() {
  return kBenchCases;
}

}  // namespace stepsim::cli
