// Breakdown bars and memory per stage, and the pieces every chart shares (axes, legends, colours).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/common/format.hpp"
#include "output/report/report_charts.hpp"
#include "output/common/svg.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out::charts {
namespace {

constexpr std::string_view kCompute = "#4e79a7", kMemoryBound = "#76b7b2", kBubble = "#bab0ac";
constexpr double kLabelW = 170.0, kPlotW = 640.0;

struct Part {
  std::string name, cls;
  std::string_view colour;
  double seconds;
};

std::vector<Part> parts_of(const work::Breakdown& b) {
  std::vector<Part> p{{"compute", "seg-compute", kCompute, b.compute_s},
                      {"memory-bound kernels", "seg-memory", kMemoryBound, b.memory_bound_s}};
  for (const auto d : kDims) {
    const std::string g(work::name(d));
    p.push_back({"exposed " + g + " communication", "seg-" + g, group_colour(d),
                 b.exposed_comm_s[static_cast<std::size_t>(d)]});
  }
  p.push_back({"bubble / waiting", "seg-bubble", kBubble, b.bubble_s});
  if (b.host_bound_s > 0.0) p.push_back({"host-bound", "seg-host", "#b07aa1", b.host_bound_s});
  return p;
}

}  // namespace

double tick_step(double max, int n) {
  const double raw = max / n, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10.0 * mag;
}

void time_axis(svg::Canvas& c, double x0, double w, double y, double max_s) {
  time_axis(c, x0, w, y, 0.0, max_s);
}

void time_axis(svg::Canvas& c, double x0, double w, double y, double from_s, double to_s) {
  const double span = to_s - from_s, step = tick_step(span, 6);
  for (double t = std::ceil(from_s / step - 1e-9) * step; t <= to_s + span * 1e-4; t += step) {
    if (std::fabs(t) < step * 1e-9) t = 0.0;  // not "-0.000 s"
    const double x = x0 + w * (t - from_s) / span;
    c.line(x, y, x, y + 4, "#555");
    c.text(x, y + 15, format_seconds(t), "middle", "tick");
  }
}

namespace {
double legend_item_width(const std::string& name) {
  return 24.0 + 6.6 * static_cast<double>(name.size());
}

}  // namespace

int legend_rows(const LegendItems& items, double x, double max_x) {
  int rows = 1;
  for (double cx = x; const auto& [name, colour] : items) {
    if (cx + legend_item_width(name) > max_x && cx > x) {
      ++rows;
      cx = x;
    }
    cx += legend_item_width(name);
  }
  return rows;
}

void legend(svg::Canvas& c, double x, double y, const LegendItems& items) {
  double cx = x;
  for (const auto& [name, colour] : items) {
    if (cx + legend_item_width(name) > c.width() - 8 && cx > x) {
      cx = x;
      y += 16.0;
    }
    c.rect(cx, y - 9, 10, 10, colour);
    c.text(cx + 14, y, name, "start", "legend");
    cx += legend_item_width(name);
  }
}

std::string_view group_colour(work::ParallelDim d) {
  switch (d) {
    case work::ParallelDim::tp: return "#f28e2b";
    case work::ParallelDim::cp: return "#edc948";
    case work::ParallelDim::ep: return "#b07aa1";
    case work::ParallelDim::pp: return "#ff9da7";
    case work::ParallelDim::dp: return "#e15759";
  }
  return "#999";
}

std::string breakdown_chart(std::span<const BreakdownBar> bars, std::string_view id) {
  double max_s = 0.0;
  for (const auto& b : bars) max_s = std::max(max_s, b.breakdown.total());
  if (max_s <= 0.0) max_s = 1.0;
  LegendItems items;
  for (const Part& p : parts_of(work::Breakdown{}))
    if (std::any_of(bars.begin(), bars.end(), [&](const BreakdownBar& b) {
          for (const Part& q : parts_of(b.breakdown))
            if (q.cls == p.cls && q.seconds > 0.0) return true;
          return false;
        }))
      items.emplace_back(p.name, p.colour);
  std::size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  const double label_w = std::max(kLabelW, 16.0 + 6.4 * static_cast<double>(longest));
  const double width = label_w + kPlotW + 90.0, row = 24.0;
  const double top = 24.0 + 16.0 * legend_rows(items, 10.0, width - 8);
  svg::Canvas c(width, top + row * static_cast<double>(bars.size()) + 44.0, id, "step time breakdown");
  legend(c, 10.0, 14.0, items);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = top + row * static_cast<double>(i);
    const double total = bars[i].breakdown.total();
    c.text(label_w - 8, y + 15, bars[i].label, "end", "rowlabel");
    double x = label_w;
    for (const Part& p : parts_of(bars[i].breakdown)) {
      if (p.seconds <= 0.0) continue;
      const double w = kPlotW * p.seconds / max_s;
      c.rect(
          x, y + 3, w, row - 6, p.colour,
          fmt::format("{}: {} ({}%)", p.name, format_seconds(p.seconds), svg::num(100.0 * p.seconds / total)),
          p.cls);
      x += w;
    }
    c.text(x + 6, y + 15, format_seconds(total), "start", "value");
  }
  time_axis(c, label_w, kPlotW, top + row * static_cast<double>(bars.size()), max_s);
  c.text(label_w + kPlotW / 2, top + row * static_cast<double>(bars.size()) + 36.0, "time per step (s)",
         "middle", "axis");
  return c.str();
}

namespace {

constexpr std::string_view kMemColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};
constexpr const char* kMemNames[] = {"weights", "gradients", "optimizer state", "activations at peak"};

/// One stage's stacked bar: static kinds, activations at the peak, and the total.
void memory_bar(svg::Canvas& c, const work::Simulation& s, std::size_t i, double y, double h, double scale) {
  const auto& st = s.plan.static_memory[i];
  const auto& m = s.report.ranks[i].memory;
  const double parts[] = {st.weights + st.low_precision_weights, st.gradients, st.optimizer,
                          m.activations.value()};
  double x = kLabelW;
  for (std::size_t p = 0; p < 4; ++p) {
    const double w = parts[p] * scale;
    if (w <= 0.0) continue;
    c.rect(x, y + 3, w, h - 6, kMemColours[p], fmt::format("{}: {}", kMemNames[p], format_bytes(parts[p])),
           "mem-bar");
    x += w;
  }
  const bool fits = m.peak <= s.usable_hbm;
  c.text(x + 6, y + 14, format_bytes(m.peak) + (fits ? "" : " (over)"), "start",
         fits ? "value" : "value bad");
}

}  // namespace

/// The simulated rank with the highest memory peak in each stage (-1 for a stage without one).
std::vector<int> busiest_per_stage(const work::Simulation& s) {
  std::vector<int> pick;
  for (std::size_t i = 0; i < s.plan.ranks.size(); ++i) {
    const auto st = static_cast<std::size_t>(s.plan.ranks[i].stage);
    if (st >= pick.size()) pick.resize(st + 1, -1);
    const auto peak = [&](int r) { return s.report.ranks[static_cast<std::size_t>(r)].memory.peak.value(); };
    if (pick[st] < 0 || peak(static_cast<int>(i)) > peak(pick[st])) pick[st] = static_cast<int>(i);
  }
  return pick;
}

std::string memory_chart(const work::Simulation& s) {
  const std::vector<int> pick = busiest_per_stage(s);
  double max_b = s.usable_hbm.value();
  for (const auto& r : s.report.ranks) max_b = std::max(max_b, r.memory.peak.value());
  const double scale = kPlotW / (max_b * 1.08), row = 22.0, top = 34.0;
  const double bottom = top + row * static_cast<double>(pick.size());
  svg::Canvas c(kLabelW + kPlotW + 110.0, bottom + 44.0, "memory",
                "memory per pipeline stage against capacity");
  LegendItems items;
  for (std::size_t p = 0; p < 4; ++p) items.emplace_back(kMemNames[p], kMemColours[p]);
  legend(c, kLabelW, 14.0, items);
  for (std::size_t k = 0; k < pick.size(); ++k) {
    if (pick[k] < 0) continue;
    const auto i = static_cast<std::size_t>(pick[k]);
    const double y = top + row * static_cast<double>(k);
    c.text(kLabelW - 8, y + 14, fmt::format("stage {} (gpu{})", k, s.plan.ranks[i].rank), "end", "rowlabel");
    memory_bar(c, s, i, y, row, scale);
  }
  const double cx = kLabelW + s.usable_hbm.value() * scale;
  c.line(cx, top - 4, cx, bottom, "#c00", 1.5, "5,3");
  c.text(cx, bottom + 16, "capacity " + format_bytes(s.usable_hbm), "middle", "tick");
  c.text(kLabelW + kPlotW / 2, bottom + 36, "memory per GPU at its peak (bytes)", "middle", "axis");
  return c.str();
}

}  // namespace stepsim::out::charts
