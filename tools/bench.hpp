#pragma once
// `stepsim bench`: named benchmark cases, each timing one workload and reporting figures.
// Timing lives here, never in tests.

#include <sys/resource.h>

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

/// CPU seconds (user + system) the process has used so far, over all its threads.
inline double process_cpu_s() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// The process's peak resident set so far, in bytes (Linux reports KiB).
inline double peak_rss_bytes() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

struct BenchCase {
  const char* name;
  const char* summary;
  BenchResult (*run)();
};

/// All benchmark cases, in listing order (tools/bench_cases.cpp).
std::span<const BenchCase> bench_cases();

}  // namespace stepsim::cli
