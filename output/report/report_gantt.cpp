// The pipeline Gantt: one replica's stages over the step, downsampled into time buckets.
//
// A step has up to millions of ops, far more than pixels, so each lane (a stage's compute stream,
// or one communication group of that stage) is cut into equal time buckets. A bucket takes the
// colour of the category (pass, or the group) that kept the lane busiest in it and an opacity for
// how busy the lane was; runs of buckets that look alike become one bar. Buckets start one pixel
// wide and widen until the whole chart has at most kMaxBars bars, which bounds the page's size.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "output/common/format.hpp"
#include "output/report/report_charts.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out::charts {
// Named after the file, not anonymous: unity builds batch it with report_timeline.cpp, whose
// kX0/kPlot/kTop would otherwise clash with these.
namespace report_gantt {

constexpr std::size_t kPasses = 4;
constexpr std::size_t kLanes = kPasses + work::kDimCount;  // compute by pass, then the groups
constexpr std::size_t kMaxBars = 1500;
constexpr double kPlot = 1000.0, kX0 = 84.0, kLane = 14.0, kSub = 5.0, kGap = 6.0, kTop = 30.0;

std::string_view pass_colour(std::size_t p) {
  static constexpr std::string_view kColours[] = {"#59a14f", "#4e79a7", "#9c755f", "#79706e"};
  return kColours[p];
}
std::string_view pass_label(std::size_t p) {
  static constexpr std::string_view kLabels[] = {"forward", "backward", "recompute", "optimizer"};
  return kLabels[p];
}

struct Interval {
  double start, end;
  std::size_t category;  // lane index: pass for compute, kPasses + group for communication
};

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

/// Per stage: the compute stream's ops (category = pass) and each group's ops (category = group),
/// clipped to [from_s, to_s] and shifted to start at 0.
std::vector<std::vector<Interval>> collect(const work::Simulation& s,
                                           const std::vector<std::uint16_t>& stages, double from_s,
                                           double to_s) {
  std::vector<int> slot(s.plan.ranks.size(), -1);
  for (std::size_t k = 0; k < stages.size(); ++k) slot[stages[k]] = static_cast<int>(k);
  std::vector<std::vector<Interval>> out(stages.size());
  for (sim::OpId op = 0; op < s.plan.info.size(); ++op) {
    const auto& i = s.plan.info[op];
    if (slot[i.rank] < 0) continue;
    const std::size_t cat =
        i.is_comm ? kPasses + static_cast<std::size_t>(i.comm_dim) : static_cast<std::size_t>(i.pass);
    const double a = std::max(from_s, to_seconds(s.run.ops[op].start));
    const double b = std::min(to_s, to_seconds(s.run.ops[op].end));
    if (b < a) continue;
    out[static_cast<std::size_t>(slot[i.rank])].push_back({a - from_s, b - from_s, cat});
  }
  return out;
}

/// A run of alike buckets on one lane.
struct Bar {
  std::size_t lane = 0, first = 0, last = 0;  // buckets [first, last]
  std::size_t category = 0;
  int level = 0;  // busy quarter: 1..4
  double busy = 0.0;
};

/// Busy seconds per bucket and category for one stage, then its bars.
void stage_bars(const std::vector<Interval>& ops, double width, std::size_t buckets, std::vector<Bar>& out) {
  std::vector<std::array<double, kLanes>> busy(buckets, std::array<double, kLanes>{});
  for (const Interval& iv : ops) {
    const auto b0 = std::min(buckets - 1, static_cast<std::size_t>(iv.start / width));
    const auto b1 = std::min(buckets - 1, static_cast<std::size_t>(iv.end / width));
    for (std::size_t b = b0; b <= b1; ++b) {
      const double lo = std::max(iv.start, width * static_cast<double>(b));
      const double hi = std::min(iv.end, width * static_cast<double>(b + 1));
      if (hi > lo) busy[b][iv.category] += hi - lo;
    }
  }
  // Lane 0 is the compute stream (categories 0..3 compete for the colour); lanes 1.. are groups.
  for (std::size_t lane = 0; lane <= work::kDimCount; ++lane) {
    for (std::size_t b = 0; b < buckets; ++b) {
      std::size_t cat = lane == 0 ? 0 : kPasses + lane - 1;
      double total = busy[b][cat];
      if (lane == 0)
        for (std::size_t p = 1; p < kPasses; ++p) {
          total += busy[b][p];
          if (busy[b][p] > busy[b][cat]) cat = p;
        }
      // Overlapping ops of one group (several pipeline streams) can add up past the bucket.
      const int level =
          total <= 0.0 ? 0 : std::clamp(static_cast<int>(std::ceil(4.0 * total / width - 1e-9)), 1, 4);
      if (level == 0) continue;
      if (!out.empty() && out.back().lane == lane && out.back().last + 1 == b && out.back().category == cat &&
          out.back().level == level) {
        out.back().last = b;
        out.back().busy += total;
      } else {
        out.push_back(Bar{lane, b, b, cat, level, total});
      }
    }
  }
}

/// Bars of every stage, with buckets widened until they fit kMaxBars.
std::vector<std::vector<Bar>> all_bars(const std::vector<std::vector<Interval>>& ops, double step,
                                       double& width) {
  for (width = step / kPlot;; width *= 1.25) {
    const auto buckets = static_cast<std::size_t>(std::ceil(step / width));
    std::vector<std::vector<Bar>> out(ops.size());
    std::size_t n = 0;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      stage_bars(ops[k], width, buckets, out[k]);
      n += out[k].size();
    }
    if (n <= kMaxBars) return out;
  }
}

std::string_view colour_of(std::size_t category) {
  return category < kPasses ? pass_colour(category)
                            : group_colour(static_cast<work::ParallelDim>(category - kPasses));
}

std::string label_of(std::size_t category) {
  return category < kPasses
             ? std::string(pass_label(category))
             : std::string(work::name(static_cast<work::ParallelDim>(category - kPasses))) + " communication";
}

}  // namespace report_gantt

std::pair<double, double> microbatch_window(const work::Simulation& s) {
  using namespace report_gantt;
  const auto& plan = s.plan;
  if (plan.microbatches <= 0 || plan.ranks.empty()) return {0.0, 0.0};
  const int mid = plan.microbatches / 2;
  const std::uint16_t first = replica(plan).front();
  double from = INFINITY, busy = 0.0;
  for (sim::OpId op = 0; op < plan.info.size(); ++op) {
    const auto& i = plan.info[op];
    if (i.rank != first || i.microbatch != mid) continue;
    from = std::min(from, to_seconds(s.run.ops[op].start));
    if (!i.is_comm && !i.is_host) busy += to_seconds(s.run.ops[op].end) - to_seconds(s.run.ops[op].start);
  }
  // As long as the micro-batch's own kernels take, from its first op, and a tenth more.
  if (!(busy > 0.0)) return {0.0, 0.0};
  return {from, std::min(s.report.step_time_s, from + 1.1 * busy)};
}

std::string gantt_chart(const work::Simulation& s, double from_s, double to_s, std::string_view id) {
  using namespace report_gantt;
  const auto& plan = s.plan;
  if (!(to_s > from_s)) {
    from_s = 0.0;
    to_s = s.report.step_time_s;
  }
  const double step = std::max(to_s - from_s, 1e-12), px_per_s = kPlot / step;
  const auto stages = replica(plan);
  std::array<bool, work::kDimCount> used{};  // groups that communicate get a sub-lane on every stage
  for (const auto& i : plan.info)
    if (i.is_comm) used[static_cast<std::size_t>(i.comm_dim)] = true;
  std::array<double, work::kDimCount + 1> lane_y{};  // offsets within a stage's block
  double h = kLane + 2.0;
  for (std::size_t d = 0; d < work::kDimCount; ++d)
    if (used[d]) lane_y[d + 1] = std::exchange(h, h + kSub);
  const double stage_h = h + kGap;
  svg::Canvas c(
      kX0 + kPlot + 20.0, kTop + stage_h * static_cast<double>(stages.size()) + 52.0, id,
      id == "gantt" ? "one pipeline replica over the step" : "one pipeline replica, one micro-batch window");
  LegendItems items;
  for (std::size_t p = 0; p < kPasses; ++p) items.emplace_back(std::string(pass_label(p)), pass_colour(p));
  for (const auto d : kDims)
    if (used[static_cast<std::size_t>(d)])
      items.emplace_back(std::string(work::name(d)) + " comm", group_colour(d));
  legend(c, kX0, 14.0, items);
  double width = 0.0;
  const auto bars = all_bars(collect(s, stages, from_s, to_s), step, width);
  static constexpr double kOpacity[] = {0.0, 0.35, 0.55, 0.8, 1.0};
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const double y = kTop + stage_h * static_cast<double>(k);
    c.text(kX0 - 6, y + 11, fmt::format("stage {}", plan.ranks[stages[k]].stage), "end", "rowlabel");
    c.rect(kX0, y, kPlot, kLane, "#f3f3f3");
    for (std::size_t d = 0; d < work::kDimCount; ++d)
      if (used[d]) c.rect(kX0, y + lane_y[d + 1], kPlot, kSub - 1, "#f8f8f8");
    for (const Bar& b : bars[k]) {
      const double t0 = width * static_cast<double>(b.first),
                   t1 = std::min(step, width * static_cast<double>(b.last + 1));
      const std::string tip =
          fmt::format("{}: {} - {}, lane {}% busy", label_of(b.category), format_seconds(from_s + t0),
                      format_seconds(from_s + t1),
                      static_cast<int>(std::lround(std::min(100.0, 100.0 * b.busy / (t1 - t0)))));
      c.rect(kX0 + t0 * px_per_s, y + lane_y[b.lane], (t1 - t0) * px_per_s, b.lane == 0 ? kLane : kSub - 1,
             colour_of(b.category), tip, b.lane == 0 ? "gantt-compute" : "gantt-comm", kOpacity[b.level]);
    }
  }
  const double axis_y = kTop + stage_h * static_cast<double>(stages.size());
  time_axis(c, kX0, kPlot, axis_y, from_s, from_s + step);
  c.text(kX0 + kPlot, axis_y + 32.0, fmt::format("one bucket = {}", format_seconds(width)), "end", "tick");
  c.text(kX0 + kPlot / 2, axis_y + 46.0, "time in the step (s)", "middle", "axis");
  return c.str();
}

}  // namespace stepsim::out::charts
