// The benchmark table: one line per case; each case lives in tools/bench_<area>.cpp.
#include "tools/bench.hpp"

namespace stepsim::cli {

BenchResult bench_scenario_load();
BenchResult bench_estimate();

namespace {
constexpr BenchCase kBenchCases[] = {
    {"scenario_load", "parse the catalog once, then load the bundled scenarios repeatedly",
     bench_scenario_load},
    {"estimate", "closed-form estimate with sizing of every bundled scenario", bench_estimate},
};
}  // namespace

std::span<const BenchCase> bench_cases() {
  return kBenchCases;
}

}  // namespace stepsim::cli
