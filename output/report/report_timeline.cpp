// The report's charts over the step's time: link utilisation per tier and memory in use per stage.
//
// Both series change at up to millions of instants, far more than pixels, so time is cut into
// kBuckets equal buckets: utilisation is averaged over each bucket (time-weighted, so the area
// under the line is the traffic), memory takes each bucket's highest value (a peak must not
// disappear between two pixels).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/common/format.hpp"
#include "output/run/link_usage.hpp"
#include "output/report/report_charts.hpp"

namespace stepsim::out::charts {
namespace report_timeline {

constexpr std::size_t kBuckets = 500;
constexpr double kX0 = 84.0, kPlot = 900.0, kTop = 34.0, kHeight = 190.0;

std::string_view tier_colour(topo::LinkKind k) {
  static constexpr std::string_view kColours[] = {"#76b7b2", "#b07aa1", "#e15759", "#f28e2b", "#9c755f"};
  return kColours[static_cast<std::size_t>(k) % std::size(kColours)];
}

/// A step function (value v[i] from t[i] until t[i + 1], the last until `end`) averaged over buckets.
std::vector<double> bucket_mean(const std::vector<std::pair<double, double>>& steps, double end) {
  std::vector<double> sum(kBuckets, 0.0);
  const double w = end / static_cast<double>(kBuckets);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double t0 = steps[i].first, t1 = i + 1 < steps.size() ? steps[i + 1].first : end,
                 v = steps[i].second;
    if (t1 <= t0 || v == 0.0) continue;
    auto b = static_cast<std::size_t>(std::max(0.0, t0 / w));
    for (; b < kBuckets && w * static_cast<double>(b) < t1; ++b) {
      const double lo = std::max(t0, w * static_cast<double>(b)),
                   hi = std::min(t1, w * static_cast<double>(b + 1));
      if (hi > lo) sum[b] += v * (hi - lo);
    }
  }
  for (double& s : sum) s /= w;
  return sum;
}

/// The same function's highest value in each bucket.
std::vector<double> bucket_max(const std::vector<std::pair<double, double>>& steps, double end) {
  std::vector<double> out(kBuckets, 0.0);
  const double w = end / static_cast<double>(kBuckets);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double t0 = steps[i].first, t1 = i + 1 < steps.size() ? steps[i + 1].first : end;
    const auto b0 = std::min(kBuckets - 1, static_cast<std::size_t>(std::max(0.0, t0 / w)));
    const auto b1 = std::min(kBuckets - 1, static_cast<std::size_t>(std::max(t0, t1) / w));
    for (std::size_t b = b0; b <= b1; ++b) out[b] = std::max(out[b], steps[i].second);
  }
  return out;
}

/// A polyline through bucket values (at bucket centres) scaled by `y_of`.
template <class YOf>
std::string polyline(const std::vector<double>& v, YOf y_of, std::string_view colour, std::string_view name) {
  std::string pts;
  for (std::size_t b = 0; b < v.size(); ++b)
    pts += svg::num(kX0 + kPlot * (static_cast<double>(b) + 0.5) / static_cast<double>(v.size())) + "," +
           svg::num(y_of(v[b])) + " ";
  return fmt::format(
      "<polyline class=\"series\" data-series=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"1.6\"/>",
      svg::esc(name), pts, colour);
}

/// Horizontal grid lines and labels for `ticks` (value, label) on [kTop, kTop + kHeight].
template <class YOf>
void y_grid(svg::Canvas& c, const std::vector<std::pair<double, std::string>>& ticks, YOf y_of) {
  for (const auto& [v, label] : ticks) {
    const double y = y_of(v);
    c.line(kX0, y, kX0 + kPlot, y, "#eee");
    c.text(kX0 - 6, y + 4, label, "end", "tick");
  }
}

void axis_titles(svg::Canvas& c, std::string_view y_title) {
  c.text(kX0 + kPlot / 2, kTop + kHeight + 34, "time in the step (s)", "middle", "axis");
  c.raw(fmt::format(
      "<text class=\"axis\" text-anchor=\"middle\" transform=\"translate(16 {}) rotate(-90)\">{}</text>",
      svg::num(kTop + kHeight / 2), svg::esc(y_title)));
}

}  // namespace report_timeline

std::string network_chart(const work::Simulation& s) {
  using namespace report_timeline;
  const double step = std::max(s.report.step_time_s, 1e-12);
  const std::vector<TierLoad> loads = tier_loads(*s.topology, s.link_timeline.tiers);
  std::vector<topo::LinkKind> tiers;
  for (const TierLoad& t : loads)
    if (std::find(tiers.begin(), tiers.end(), t.tier) == tiers.end()) tiers.push_back(t.tier);
  svg::Canvas c(kX0 + kPlot + 20, kTop + kHeight + 44, "network", "link utilisation per tier over the step");
  LegendItems items;
  for (const auto k : tiers) items.emplace_back(std::string(topo::name(k)), tier_colour(k));
  legend(c, kX0, 14.0, items);
  auto y_of = [](double f) { return kTop + kHeight * (1.0 - std::clamp(f, 0.0, 1.0)); };
  y_grid(c, {{0.0, "0%"}, {0.25, "25%"}, {0.5, "50%"}, {0.75, "75%"}, {1.0, "100%"}}, y_of);
  for (const auto k : tiers) {
    std::vector<std::pair<double, double>> steps;
    for (const TierLoad& t : loads)
      if (t.tier == k) steps.emplace_back(to_seconds(t.time), t.mean);
    c.raw(polyline(bucket_mean(steps, step), y_of, tier_colour(k), topo::name(k)));
  }
  if (tiers.empty()) c.text(kX0 + kPlot / 2, kTop + kHeight / 2, "no link carried traffic", "middle", "tick");
  c.line(kX0, kTop + kHeight, kX0 + kPlot, kTop + kHeight, "#555");
  time_axis(c, kX0, kPlot, kTop + kHeight, step);
  axis_titles(c, "tier load / line rate");
  return c.str();
}

std::string memory_timeline_chart(const work::Simulation& s) {
  using namespace report_timeline;
  const double step = std::max(s.report.step_time_s, 1e-12);
  // The busiest simulated rank of each stage, as the memory-per-stage chart picks them.
  std::vector<int> pick = busiest_per_stage(s);
  std::erase(pick, -1);
  double max_b = s.usable_hbm.value();
  for (const int r : pick)
    max_b = std::max(max_b, s.report.ranks[static_cast<std::size_t>(r)].memory.peak.value());
  max_b *= 1.08;
  svg::Canvas c(kX0 + kPlot + 20, kTop + kHeight + 44, "memory-timeline", "memory in use over the step");
  static constexpr std::string_view kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                  "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
  // Up to 8 stages get a line: the first, the last and evenly spaced ones between.
  std::vector<int> shown;
  const std::size_t n = std::min<std::size_t>(pick.size(), 8);
  for (std::size_t k = 0; k < n; ++k) shown.push_back(pick[n == 1 ? 0 : k * (pick.size() - 1) / (n - 1)]);
  LegendItems items;
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const auto& r = s.plan.ranks[static_cast<std::size_t>(shown[k])];
    items.emplace_back(fmt::format("stage {} (gpu{})", r.stage, r.rank), kColours[k]);
  }
  legend(c, kX0, 14.0, items);
  auto y_of = [&](double b) { return kTop + kHeight * (1.0 - b / max_b); };
  std::vector<std::pair<double, std::string>> ticks;
  const double step_b = std::pow(10.0, std::floor(std::log10(max_b / 4)));
  const double tick = max_b / step_b > 20 ? step_b * 5 : max_b / step_b > 8 ? step_b * 2 : step_b;
  for (double b = 0; b <= max_b; b += tick) ticks.emplace_back(b, format_bytes(b));
  y_grid(c, ticks, y_of);
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const auto& timeline = s.report.ranks[static_cast<std::size_t>(shown[k])].memory.timeline;
    std::vector<std::pair<double, double>> steps(timeline.begin(), timeline.end());
    c.raw(polyline(bucket_max(steps, step), y_of, kColours[k], items[k].first));
  }
  const double cy = y_of(s.usable_hbm.value());
  c.line(kX0, cy, kX0 + kPlot, cy, "#c00", 1.5, "5,3");
  c.text(kX0 + kPlot, cy - 4, "capacity " + format_bytes(s.usable_hbm), "end", "tick");
  c.line(kX0, kTop + kHeight, kX0 + kPlot, kTop + kHeight, "#555");
  time_axis(c, kX0, kPlot, kTop + kHeight, step);
  axis_titles(c, "memory in use per GPU");
  return c.str();
}

}  // namespace stepsim::out::charts
