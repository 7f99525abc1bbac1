#include "sim/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace stepsim::sim {

namespace stats_detail {

/// `percentile` on values already sorted ascending.
double sorted_percentile(const std::vector<double>& x, double p) {
  if (!(p >= 0.0 && p <= 100.0))
    throw std::invalid_argument("percentile must lie in [0, 100], got " + std::to_string(p));
  if (x.empty()) return 0.0;
  const double h = static_cast<double>(x.size() - 1) * p / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (h - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

}  // namespace stats_detail

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return stats_detail::sorted_percentile(values, p);
}

MetricStats metric_stats(std::vector<double> values) {
  MetricStats m;
  if (values.empty()) return m;
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (double v : values) sum += v;
  m.count = static_cast<int>(values.size());
  m.mean_s = sum / m.count;
  m.p50_s = stats_detail::sorted_percentile(values, 50.0);
  m.p90_s = stats_detail::sorted_percentile(values, 90.0);
  m.p99_s = stats_detail::sorted_percentile(values, 99.0);
  m.max_s = values.back();
  return m;
}

}  // namespace stepsim::sim
