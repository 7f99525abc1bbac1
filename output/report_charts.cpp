// Breakdown bars, the pipeline Gantt and memory per stage.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/format.hpp"
#include "output/report_charts.hpp"
#include "output/svg.hpp"
#include "workloads/names.hpp"

namespace stepsim::out::charts {
namespace {

constexpr work::ParallelDim kDims[] = {work::ParallelDim::tp, work::ParallelDim::cp, work::ParallelDim::ep,
                                       work::ParallelDim::pp, work::ParallelDim::dp};
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
  return p;
}

/// Ticks at 1, 2 or 5 x 10^k covering [0, max] with about `n` steps.
double tick_step(double max, int n) {
  const double raw = max / n, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10.0 * mag;
}

void time_axis(svg::Canvas& c, double x0, double w, double y, double max_s) {
  const double step = tick_step(max_s, 6);
  for (double t = 0.0; t <= max_s * 1.0001; t += step) {
    const double x = x0 + w * t / max_s;
    c.line(x, y, x, y + 4, "#555");
    c.text(x, y + 15, format_seconds(t), "middle", "tick");
  }
}

using LegendItems = std::vector<std::pair<std::string, std::string_view>>;

double legend_item_width(const std::string& name) {
  return 24.0 + 6.6 * static_cast<double>(name.size());
}

/// Rows a legend starting at `x` needs before wrapping at `max_x`.
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

/// Swatches and names from (x, y), wrapping at the canvas's right edge; rows are 16 units apart.
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

}  // namespace

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
  svg::Canvas c(width, top + row * static_cast<double>(bars.size()) + 26.0, id, "step time breakdown");
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
  return c.str();
}

namespace {

/// Merged intervals of one colour on one lane.
struct Span {
  double start = 0.0, end = 0.0, busy = 0.0;
  int ops = 0;
  std::string_view first, last;  // labels
};

class LaneMerger {
 public:
  explicit LaneMerger(double tolerance_s) : tol_(tolerance_s) {}
  void add(double start, double end, std::string_view label) {
    if (!spans_.empty() && start - spans_.back().end <= tol_ && start >= spans_.back().start) {
      Span& s = spans_.back();
      s.busy += std::max(0.0, end - std::max(start, s.end));  // overlaps (several streams) count once
      s.end = std::max(s.end, end);
      ++s.ops;
      s.last = label;
      return;
    }
    spans_.push_back(Span{start, end, end - start, 1, label, label});
  }
  const std::vector<Span>& spans() const { return spans_; }

 private:
  double tol_;
  std::vector<Span> spans_;
};

std::string_view pass_colour(work::Pass p) {
  switch (p) {
    case work::Pass::forward: return "#59a14f";
    case work::Pass::backward: return "#4e79a7";
    case work::Pass::recompute: return "#9c755f";
    case work::Pass::optimizer: return "#79706e";
  }
  return "#999";
}

std::string_view pass_label(work::Pass p) {
  switch (p) {
    case work::Pass::forward: return "forward";
    case work::Pass::backward: return "backward";
    case work::Pass::recompute: return "recompute";
    case work::Pass::optimizer: return "optimizer";
  }
  return "?";
}

/// One simulated rank per stage (the first simulated in each), in stage order.
std::vector<std::uint16_t> replica(const work::StepPlan& plan) {
  std::vector<int> first;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const auto st = static_cast<std::size_t>(plan.ranks[i].stage);
    if (st >= first.size()) first.resize(st + 1, -1);
    if (first[st] < 0) first[st] = static_cast<int>(i);
  }
  std::vector<std::uint16_t> out;
  for (const int i : first)
    if (i >= 0) out.push_back(static_cast<std::uint16_t>(i));
  return out;
}

void draw_spans(svg::Canvas& c, const std::vector<Span>& spans, double x0, double y, double h,
                double px_per_s, std::string_view colour, std::string_view what, std::string_view cls) {
  for (const Span& s : spans) {
    const double w = std::max(0.6, (s.end - s.start) * px_per_s);
    std::string tip = fmt::format("{}: {} - {}, {} op{}: {}", what, format_seconds(s.start),
                                  format_seconds(s.end), s.ops, s.ops == 1 ? "" : "s", s.first);
    if (s.ops > 1) tip += fmt::format(" ... {}", s.last);
    c.rect(x0 + s.start * px_per_s, y, w, h, colour, tip, cls);
  }
}

}  // namespace

std::string gantt_chart(const work::Simulation& s) {
  const auto& plan = s.plan;
  const double step = std::max(s.report.step_time_s, 1e-12);
  constexpr double kPlot = 1000.0, kX0 = 84.0, kLane = 14.0, kSub = 5.0, kGap = 6.0, kTop = 30.0;
  const double px_per_s = kPlot / step, tol = 2.0 / px_per_s;
  const auto stages = replica(plan);
  // Which groups communicate at all decides the sub-lanes of every stage's comm lane.
  std::array<bool, work::kDimCount> used{};
  for (const auto& i : plan.info)
    if (i.is_comm) used[static_cast<std::size_t>(i.comm_dim)] = true;
  const double subs = static_cast<double>(std::count(used.begin(), used.end(), true));
  const double stage_h = kLane + 2.0 + subs * kSub + kGap;
  svg::Canvas c(kX0 + kPlot + 20.0, kTop + stage_h * static_cast<double>(stages.size()) + 24.0, "gantt",
                "one pipeline replica over the step");
  std::vector<std::pair<std::string, std::string_view>> items;
  for (const auto p :
       {work::Pass::forward, work::Pass::backward, work::Pass::recompute, work::Pass::optimizer})
    items.emplace_back(std::string(pass_label(p)), pass_colour(p));
  for (const auto d : kDims)
    if (used[static_cast<std::size_t>(d)])
      items.emplace_back(std::string(work::name(d)) + " comm", group_colour(d));
  legend(c, kX0, 14.0, items);
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const std::uint16_t r = stages[k];
    const double y = kTop + stage_h * static_cast<double>(k);
    c.text(kX0 - 6, y + 11, fmt::format("stage {}", plan.ranks[r].stage), "end", "rowlabel");
    std::array<LaneMerger, 4> passes{LaneMerger(tol), LaneMerger(tol), LaneMerger(tol), LaneMerger(tol)};
    std::array<std::vector<std::tuple<double, double, std::string_view>>, work::kDimCount> comm;
    for (sim::OpId op = 0; op < plan.info.size(); ++op) {
      const auto& i = plan.info[op];
      if (i.rank != r) continue;
      const double a = to_seconds(s.run.ops[op].start), b = to_seconds(s.run.ops[op].end);
      if (i.is_comm)
        comm[static_cast<std::size_t>(i.comm_dim)].emplace_back(a, b, plan.graph.label(op));
      else
        passes[static_cast<std::size_t>(i.pass)].add(a, b, plan.graph.label(op));
    }
    c.rect(kX0, y, kPlot, kLane, "#f3f3f3");
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const auto pass = static_cast<work::Pass>(p);
      draw_spans(c, passes[p].spans(), kX0, y, kLane, px_per_s, pass_colour(pass), pass_label(pass),
                 "gantt-compute");
    }
    double sy = y + kLane + 2.0;
    for (const auto d : kDims) {
      auto& ops = comm[static_cast<std::size_t>(d)];
      if (!used[static_cast<std::size_t>(d)]) continue;
      std::sort(ops.begin(), ops.end());
      LaneMerger m(tol);
      for (const auto& [a, b, label] : ops) m.add(a, b, label);
      c.rect(kX0, sy, kPlot, kSub - 1, "#f8f8f8");
      draw_spans(c, m.spans(), kX0, sy, kSub - 1, px_per_s, group_colour(d),
                 std::string(work::name(d)) + " communication", "gantt-comm");
      sy += kSub;
    }
  }
  time_axis(c, kX0, kPlot, kTop + stage_h * static_cast<double>(stages.size()), step);
  return c.str();
}

std::string memory_chart(const work::Simulation& s) {
  const auto& plan = s.plan;
  // The busiest simulated rank of each stage.
  std::vector<int> pick;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const auto st = static_cast<std::size_t>(plan.ranks[i].stage);
    if (st >= pick.size()) pick.resize(st + 1, -1);
    if (pick[st] < 0 || s.report.ranks[i].memory.peak_bytes >
                            s.report.ranks[static_cast<std::size_t>(pick[st])].memory.peak_bytes)
      pick[st] = static_cast<int>(i);
  }
  double max_b = s.capacity_bytes;
  for (const auto& r : s.report.ranks) max_b = std::max(max_b, r.memory.peak_bytes);
  max_b *= 1.08;
  const double row = 22.0, top = 34.0;
  svg::Canvas c(kLabelW + kPlotW + 110.0, top + row * static_cast<double>(pick.size()) + 26.0, "memory",
                "memory per pipeline stage against capacity");
  legend(c, kLabelW, 14.0,
         {{"weights", "#4e79a7"},
          {"gradients", "#f28e2b"},
          {"optimizer state", "#59a14f"},
          {"activations at peak", "#e15759"}});
  for (std::size_t k = 0; k < pick.size(); ++k) {
    if (pick[k] < 0) continue;
    const auto i = static_cast<std::size_t>(pick[k]);
    const auto& st = plan.static_memory[i];
    const auto& m = s.report.ranks[i].memory;
    const double y = top + row * static_cast<double>(k);
    c.text(kLabelW - 8, y + 14, fmt::format("stage {} (gpu{})", k, plan.ranks[i].rank), "end", "rowlabel");
    double x = kLabelW;
    const std::pair<double, std::string_view> parts[] = {{st.weights, "#4e79a7"},
                                                         {st.gradients, "#f28e2b"},
                                                         {st.optimizer, "#59a14f"},
                                                         {m.activation_bytes, "#e15759"}};
    const char* names[] = {"weights", "gradients", "optimizer state", "activations at peak"};
    for (std::size_t p = 0; p < 4; ++p) {
      const double w = kPlotW * parts[p].first / max_b;
      if (w <= 0.0) continue;
      c.rect(x, y + 3, w, row - 6, parts[p].second,
             fmt::format("{}: {}", names[p], format_bytes(parts[p].first)), "mem-bar");
      x += w;
    }
    const bool fits = m.peak_bytes <= s.capacity_bytes;
    c.text(x + 6, y + 14, format_bytes(m.peak_bytes) + (fits ? "" : " (over)"), "start",
           fits ? "value" : "value bad");
  }
  const double cx = kLabelW + kPlotW * s.capacity_bytes / max_b,
               bottom = top + row * static_cast<double>(pick.size());
  c.line(cx, top - 4, cx, bottom, "#c00", 1.5, "5,3");
  c.text(cx, bottom + 16, "capacity " + format_bytes(s.capacity_bytes), "middle", "tick");
  return c.str();
}

}  // namespace stepsim::out::charts
