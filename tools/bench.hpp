#pragma once
// `stepsim bench`: named benchmark cases, each timing one workload and reporting figures.
// Timing lives here, never in tests.

#include <chrono>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace stepsim::cli {

/// What one benchmark case measured.
struct BenchResult {
  std::string name;
  double wall_s = 0.0;          ///< wall time of the measured part
  double peak_rss_bytes = 0.0;  ///< process peak resident set after the case (0 = not measured)
  std::vector<std::pair<std::string, double>> metrics;  ///< e.g. {"events_per_s", 1.2e7}
  std::string note;                                     ///< what was simulated, in words
};

/// Wall seconds elapsed since `t0` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct BenchCase {
  const char* name;
  const char* summary;
  BenchResult (*run)();
};

/// All benchmark cases, in listing order (tools/bench_cases.cpp).
std::span<const BenchCase> bench_cases();

}  // namespace stepsim::cli
