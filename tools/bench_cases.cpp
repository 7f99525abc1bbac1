// The benchmark table: one line per case; each case lives in tools/bench_<area>.cpp.
#include "tools/bench.hpp"

namespace stepsim::cli {

namespace {
constexpr BenchCase kBenchCases[] = {
    {nullptr, nullptr, nullptr},  // sentinel until the first case lands; skipped by cmd_bench
};
}  // namespace

std::span<const BenchCase> bench_cases() { return std::span<const BenchCase>(kBenchCases).first(0); }

}  // namespace stepsim::cli
