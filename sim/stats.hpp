#pragma once
// Summary statistics of a set of samples: mean, numpy-style percentiles, maximum. Serving latencies
// and the step-time distribution of several simulated steps use them.

#include <vector>

namespace stepsim::sim {

/// Summary of one metric over a set of samples (requests, steps); all zero when count == 0.
struct MetricStats {
  int count = 0;
  double mean_s = 0.0;
  double p50_s = 0.0;
  double p90_s = 0.0;
  double p99_s = 0.0;
  double max_s = 0.0;
};

/// The percentile `p` (0-100) of `values` by linear interpolation between closest ranks (numpy's
/// default): with the values sorted, x[h] at h = (n - 1) p / 100, interpolated between floor and ceil.
/// 0 for no values. Throws std::invalid_argument when p is outside [0, 100].
double percentile(std::vector<double> values, double p);

/// MetricStats of `values` (percentiles as `percentile`).
MetricStats metric_stats(std::vector<double> values);

}  // namespace stepsim::sim
