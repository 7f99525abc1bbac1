// The report's charts of several steps under [variability]: the step-time distribution (every step,
// fastest to slowest, against the nominal step, p50 and p99) and the per-GPU slowness map.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "output/common/format.hpp"
#include "output/common/svg.hpp"
#include "output/report/report_charts.hpp"

namespace stepsim::out::charts {
namespace report_variability_detail {

constexpr double kStepLeft = 80.0, kStepPlotW = 700.0, kStepTop = 30.0, kStepPlotH = 220.0;
constexpr std::string_view kBar = "#4e79a7", kSlowestBar = "#e15759";

/// A horizontal mark across the plot with its label right of it; labels closer than 12 units to
/// the previous one move down, so that nominal, p50 and p99 stay legible when they nearly agree.
struct Mark {
  std::string name;
  double value;
  std::string_view colour;
  std::string_view dash;
};

void draw_marks(svg::Canvas& c, std::vector<Mark> marks, const auto& y_of) {
  std::stable_sort(marks.begin(), marks.end(),
                   [](const Mark& a, const Mark& b) { return a.value > b.value; });
  double last_label = -1e9;
  for (const Mark& m : marks) {
    const double y = y_of(m.value);
    c.line(kStepLeft, y, kStepLeft + kStepPlotW, y, m.colour, 1.5, m.dash);
    const double label_y = std::max(y + 4.0, last_label + 12.0);
    c.text(kStepLeft + kStepPlotW + 6, label_y, m.name + " " + format_seconds(m.value), "start", "mark");
    last_label = label_y;
  }
}

/// Diverging colour of a kernel time factor: white at 1, red when slower, blue when faster, full
/// colour at 1 +- `scale`.
std::string factor_colour(double f, double scale) {
  if (f == 1.0) return "#f0f0f0";
  const double t = std::min(1.0, std::fabs(f - 1.0) / scale);
  const int from[3] = {247, 247, 247};
  const int slow[3] = {178, 24, 43}, fast[3] = {33, 102, 172};
  const int* to = f > 1.0 ? slow : fast;
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(from[k] + t * (to[k] - from[k])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

/// The cell size (user units) and node blocks per row of a map of `nodes` nodes of `gpn` GPUs:
/// the largest cell whose grid stays about 800 wide and 640 high (down to 2 units a cell).
std::pair<double, int> map_layout(int nodes, int gpn) {
  for (const double cell : {18.0, 12.0, 8.0, 5.0, 3.0, 2.0}) {
    const double block = gpn * cell + std::max(2.0, cell / 2);
    const int per_row = std::max(1, static_cast<int>(800.0 / block));
    const int rows = (nodes + per_row - 1) / per_row;
    if (rows * (cell + 2.0) <= 640.0 || cell == 2.0) return {cell, per_row};
  }
  return {2.0, 1};
}

/// Where the slowness map puts each GPU: blocks of `gpn` cells per node, `per_row` nodes a row.
struct SlownessGrid {
  const work::Simulation& s;
  int gpn, nodes;
  double cell;
  int per_row;
  double gap, block;
  double left = 90.0, top = 44.0;
  std::vector<int> sim_rank;  ///< per global rank, -1 when not simulated

  SlownessGrid(const work::Simulation& sim, int gpus_per_node)
      : s(sim), gpn(std::max(1, gpus_per_node)), nodes((sim.plan.world + gpn - 1) / gpn) {
    std::tie(cell, per_row) = map_layout(nodes, gpn);
    gap = std::max(2.0, cell / 2);
    block = gpn * cell + gap;
    sim_rank.assign(static_cast<std::size_t>(sim.plan.world), -1);
    for (std::size_t i = 0; i < sim.plan.ranks.size(); ++i)
      sim_rank[static_cast<std::size_t>(sim.plan.ranks[i].rank)] = static_cast<int>(i);
  }
  double factor(int g) const {
    const auto i = static_cast<std::size_t>(g);
    return i < s.steps.gpu_factors.size() ? s.steps.gpu_factors[i] : 1.0;
  }
  std::pair<double, double> at(int g) const {
    const int node = g / gpn;
    return {left + (node % per_row) * block + (g % gpn) * cell, top + (node / per_row) * (cell + 2.0)};
  }
  double bottom() const { return top + ((nodes + per_row - 1) / per_row) * (cell + 2.0); }
  /// "gpu42, node 5: x1.073; waits 2.1% of the median step" (the wait when the GPU was simulated).
  std::string tip(int g) const {
    std::string t = fmt::format("gpu{}, node {}: x{}", g, g / gpn, svg::num(factor(g), 3));
    const double step = s.report.step_time_s;
    if (const int r = sim_rank[static_cast<std::size_t>(g)]; r >= 0 && step > 0.0) {
      const work::Breakdown& b = s.report.ranks[static_cast<std::size_t>(r)].breakdown;
      t += "; waits " + format_percent((step - b.compute_s - b.memory_bound_s) / step) +
           (s.steps.replayed ? " of the representative step" : " of the median step");
    }
    return t;
  }
};

/// The colour scale: 11 swatches from 1 - scale to 1 + scale, right of its title.
void factor_scale(svg::Canvas& c, double left, double scale) {
  constexpr double kScaleX = 160.0;
  c.text(left, 14, "kernel time factor", "start", "axis");
  for (int k = 0; k <= 10; ++k) {
    const double f = 1.0 - scale + 2.0 * scale * k / 10.0;
    c.rect(left + kScaleX + 18.0 * k, 5, 18, 10, factor_colour(f, scale), {}, "scale-swatch");
  }
  c.text(left + kScaleX + 9, 28, "x" + svg::num(1.0 - scale, 3), "middle", "tick");
  c.text(left + kScaleX + 99, 28, "x1", "middle", "tick");
  c.text(left + kScaleX + 189, 28, "x" + svg::num(1.0 + scale, 3), "middle", "tick");
}

}  // namespace report_variability_detail

std::string step_time_chart(const work::StepDistribution& d) {
  using namespace report_variability_detail;
  const std::size_t n = d.steps.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return d.steps[a].time_s < d.steps[b].time_s; });
  const double lo = std::min(d.min_s, d.nominal_s), hi = std::max({d.max_s, d.nominal_s, d.p99_s});
  const double span = hi - lo > 0.0 ? hi - lo : std::max(hi * 0.01, 1e-9);
  const double y_lo = std::max(0.0, lo - 0.15 * span), y_hi = hi + 0.1 * span;
  const auto y_of = [&](double v) { return kStepTop + kStepPlotH * (1.0 - (v - y_lo) / (y_hi - y_lo)); };
  const double bottom = kStepTop + kStepPlotH;
  svg::Canvas c(kStepLeft + kStepPlotW + 130.0, bottom + 50.0, "step-times",
                "step times, fastest to slowest, against the nominal step");
  c.text(kStepLeft, 16, "step time (s)", "start", "axis");
  const double tick = tick_step(y_hi - y_lo, 5);
  for (double v = std::ceil(y_lo / tick - 1e-9) * tick; v <= y_hi + tick * 1e-6; v += tick) {
    c.line(kStepLeft, y_of(v), kStepLeft + kStepPlotW, y_of(v), "#eee");
    c.text(kStepLeft - 6, y_of(v) + 3, format_seconds(v), "end", "tick");
  }
  // One bar per step up to 1,000; a longer run shows 1,000 evenly spaced ranks of its sorted times.
  const std::size_t bars = std::min<std::size_t>(n, 1000);
  const double w = bars > 0 ? kStepPlotW / static_cast<double>(bars) : kStepPlotW;
  for (std::size_t b = 0; b < bars; ++b) {
    const std::size_t step = order[b * n / bars];
    const double t = d.steps[step].time_s, y = y_of(t);
    const bool slowest = static_cast<int>(step) == d.slowest_step;
    c.rect(kStepLeft + w * static_cast<double>(b), y, w > 3.0 ? w - 1.0 : w, bottom - y,
           slowest ? kSlowestBar : kBar,
           fmt::format("step {}: {}{}", step, format_seconds(t), slowest ? " (slowest)" : ""), "step-bar");
  }
  draw_marks(c,
             {{"nominal", d.nominal_s, "#555", "5,3"},
              {"p50", d.p50_s, "#176317", ""},
              {"p99", d.p99_s, "#b00", "2,2"}},
             y_of);
  c.line(kStepLeft, bottom, kStepLeft + kStepPlotW, bottom, "#555");
  c.text(kStepLeft + kStepPlotW / 2, bottom + 20,
         fmt::format("{} steps, fastest to slowest", format_number(static_cast<double>(n), 0)), "middle",
         "axis");
  return c.str();
}

std::string slowness_map(const work::Simulation& s, int gpus_per_node) {
  using namespace report_variability_detail;
  const SlownessGrid grid(s, gpus_per_node);
  const int world = s.plan.world;
  int slowest = 0;
  double deviation = 0.0;
  for (int g = 0; g < world; ++g) {
    if (grid.factor(g) > grid.factor(slowest)) slowest = g;
    deviation = std::max(deviation, std::fabs(grid.factor(g) - 1.0));
  }
  const double scale = std::max(deviation, 0.01);
  svg::Canvas c(std::max(grid.left + grid.per_row * grid.block + 20.0, 520.0), grid.bottom() + 44.0,
                "slowness-map", "kernel time factor of every GPU, nodes by GPUs per node");
  factor_scale(c, grid.left, scale);
  const bool tips = world <= 4096;  // beyond, only the GPUs that differ, to keep the page small
  for (int g = 0; g < world; ++g) {
    const auto [x, y] = grid.at(g);
    const double cell = grid.cell;
    c.rect(x, y, cell > 4 ? cell - 1 : cell, cell, factor_colour(grid.factor(g), scale),
           tips || grid.factor(g) != 1.0 ? grid.tip(g) : std::string(), "gpu-cell");
    if (const int node = g / grid.gpn; g % grid.gpn == 0 && node % grid.per_row == 0) {
      const int last = std::min(node + grid.per_row, grid.nodes) - 1;
      c.text(grid.left - 6, y + std::min(cell, 10.0),
             last > node ? fmt::format("nodes {}-{}", node, last) : fmt::format("node {}", node), "end",
             "tick");
    }
  }
  const auto [sx, sy] = grid.at(slowest);
  c.raw(
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000\" "
                  "stroke-width=\"2\" class=\"slowest\"/>",
                  svg::num(sx - 1.5), svg::num(sy - 1.5), svg::num(grid.cell + 2), svg::num(grid.cell + 3)));
  c.text(grid.left, grid.bottom() + 18,
         fmt::format("slowest: gpu{} on node {}, kernels x{}; {} of {} GPUs differ from nominal", slowest,
                     slowest / grid.gpn, svg::num(grid.factor(slowest), 3),
                     format_number(s.steps.gpus_varied, 0), format_number(world, 0)),
         "start", "mark");
  return c.str();
}

}  // namespace stepsim::out::charts
