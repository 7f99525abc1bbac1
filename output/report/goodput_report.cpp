#include "output/report/goodput_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/common/format.hpp"
#include "output/common/svg.hpp"
#include "output/report/report_charts.hpp"
#include "output/report/report_html.hpp"
#include "output/views/goodput_view.hpp"

namespace stepsim::out {
namespace goodput_report_detail {

constexpr double kLeft = 70.0, kPlotW = 680.0, kTop = 40.0, kPlotH = 260.0;
constexpr std::string_view kMean = "#4e79a7", kFirstOrder = "#f28e2b", kYoungDaly = "#59a14f";

bool finishes(const work::GoodputStats& s) {
  return std::isfinite(s.mean_wall_s);
}

double first_order(const work::GoodputAssessment& a, double interval_steps) {
  return 1.0 - work::first_order_waste(a.plan, interval_steps * a.step_s);
}

/// Where a chart puts intervals (log scale) and goodput fractions.
struct CurveScale {
  double x_lo, x_hi, y_lo, y_hi;
  double x(double steps) const {
    return kLeft + kPlotW * (std::log(steps) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo));
  }
  double y(double goodput) const {
    const double v = std::clamp(goodput, y_lo, y_hi);
    return kTop + kPlotH * (1.0 - (v - y_lo) / (y_hi - y_lo));
  }
};

CurveScale curve_scale(const work::GoodputAssessment& a) {
  CurveScale c{static_cast<double>(a.sweep.front().interval_steps),
               static_cast<double>(a.sweep.back().interval_steps), 1.0, 0.0};
  if (c.x_hi <= c.x_lo) c.x_lo /= 2.0, c.x_hi *= 2.0;
  for (const work::GoodputStats& s : a.sweep) {
    if (finishes(s)) c.y_lo = std::min(c.y_lo, s.p10_goodput), c.y_hi = std::max(c.y_hi, s.p90_goodput);
    c.y_hi = std::max(c.y_hi, first_order(a, static_cast<double>(s.interval_steps)));
  }
  if (c.y_hi < c.y_lo) c.y_lo = 0.0, c.y_hi = 1.0;
  const double pad = std::max(0.1 * (c.y_hi - c.y_lo), 0.002);
  c.y_lo = std::max(0.0, c.y_lo - pad);
  c.y_hi = std::min(1.0, c.y_hi + pad);
  if (c.y_hi <= c.y_lo) c.y_lo = std::max(0.0, c.y_hi - 0.01);
  return c;
}

std::string polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                     std::string_view dash, std::string_view cls) {
  std::string p;
  for (const auto& [x, y] : points) p += (p.empty() ? "" : " ") + svg::num(x) + "," + svg::num(y);
  return fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} class=\"{}\"/>", p, stroke,
      dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash), cls);
}

void curve_axes(svg::Canvas& c, const CurveScale& sc) {
  const double tick = charts::tick_step(sc.y_hi - sc.y_lo, 5);
  for (double v = std::ceil(sc.y_lo / tick - 1e-9) * tick; v <= sc.y_hi + tick * 1e-6; v += tick) {
    c.line(kLeft, sc.y(v), kLeft + kPlotW, sc.y(v), "#eee");
    c.text(kLeft - 6, sc.y(v) + 3, format_percent(v), "end", "tick");
  }
  for (double decade = std::pow(10.0, std::floor(std::log10(sc.x_lo))); decade <= sc.x_hi; decade *= 10.0)
    for (const double m : {1.0, 2.0, 5.0})
      if (const double v = m * decade; v >= sc.x_lo * (1 - 1e-9) && v <= sc.x_hi * (1 + 1e-9)) {
        c.line(sc.x(v), kTop + kPlotH, sc.x(v), kTop + kPlotH + 4, "#555");
        c.text(sc.x(v), kTop + kPlotH + 15, format_number(v, 0), "middle", "tick");
      }
  c.line(kLeft, kTop + kPlotH, kLeft + kPlotW, kTop + kPlotH, "#555");
  c.text(kLeft, 14, "goodput (useful time / wall time)", "start", "axis");
  c.text(kLeft + kPlotW / 2, kTop + kPlotH + 34, "checkpoint interval (steps, log scale)", "middle", "axis");
}

/// A vertical mark at `steps` with its name above the plot.
void interval_mark(svg::Canvas& c, const CurveScale& sc, double steps, std::string_view colour,
                   std::string_view name, std::string_view cls) {
  if (!(steps >= sc.x_lo && steps <= sc.x_hi)) return;
  c.raw(
      fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\" "
                  "stroke-dasharray=\"5,3\" class=\"{4}\"/>",
                  svg::num(sc.x(steps)), svg::num(kTop - 6), svg::num(kTop + kPlotH), colour, cls));
  c.text(sc.x(steps), kTop - 10, name, "middle", "mark");
}

std::string card(std::string_view id, std::string_view key, std::string_view value, std::string_view detail,
                 double raw) {
  return fmt::format(
      "<div class=\"figure\" id=\"{}\" data-value=\"{}\"><div class=\"k\">{}</div><div class=\"v\">{}</div>"
      "<div class=\"d\">{}</div></div>\n",
      id, raw, svg::esc(key), svg::esc(value), svg::esc(detail));
}

std::string headline(const work::GoodputAssessment& a) {
  const work::GoodputStats& r = a.at_interval;
  const work::GoodputStats& best = a.sweep[a.best];
  std::string h = "<section class=\"headline\" id=\"headline\">\n";
  h += card("hl-goodput", "goodput", format_percent(r.goodput),
            "p10 " + format_percent(r.p10_goodput) + ", p90 " + format_percent(r.p90_goodput) + ", every " +
                format_count(a.interval_steps, "step", "steps"),
            r.goodput);
  h += card("hl-wall", "wall time", duration_text(r.mean_wall_s),
            "failure-free " + duration_text(a.failure_free_s()), r.mean_wall_s);
  h += card("hl-failures", "failures", format_number(r.mean_failures, r.mean_failures < 10.0 ? 2 : 1),
            "expected; job MTBF " + duration_text(a.young_daly.mtbf_s), r.mean_failures);
  h += card("hl-best", "best interval", format_count(best.interval_steps, "step", "steps"),
            "goodput " + format_percent(best.goodput) + "; Young/Daly " +
                format_count(a.young_daly.interval_steps, "step", "steps"),
            static_cast<double>(best.interval_steps));
  h += card("hl-checkpoint", "checkpoint", format_seconds(a.checkpoint.block_s),
            "training stops per checkpoint; " + format_bytes(a.checkpoint.bytes), a.checkpoint.block_s);
  h += card("hl-restart", "restart", duration_text(a.plan.restart_s), "per failure, checkpoint read included",
            a.plan.restart_s);
  return h + "</section>\n";
}

std::string sweep_table(const work::GoodputAssessment& a) {
  std::string h =
      "<table id=\"sweep-table\"><tr><th>interval (steps)</th><th>compute between</th><th>goodput</th>"
      "<th>p10</th><th>p90</th><th>first-order</th><th>wall time</th><th></th></tr>\n";
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    const work::GoodputStats& s = a.sweep[i];
    std::string mark = i == a.best ? "best" : "";
    if (s.interval_steps == a.young_daly.interval_steps) mark += mark.empty() ? "Young/Daly" : ", Young/Daly";
    if (s.interval_steps == a.interval_steps) mark += mark.empty() ? "chosen" : ", chosen";
    const bool done = finishes(s);
    h += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td "
        "class=\"note\">{}</td></tr>\n",
        s.interval_steps == a.interval_steps ? " class=\"mine\"" : "",
        format_number(static_cast<double>(s.interval_steps), 0),
        duration_text(static_cast<double>(s.interval_steps) * a.step_s),
        done ? format_percent(s.goodput) : "does not finish", done ? format_percent(s.p10_goodput) : "-",
        done ? format_percent(s.p90_goodput) : "-",
        format_percent(first_order(a, static_cast<double>(s.interval_steps))), duration_text(s.mean_wall_s),
        mark);
  }
  return h + "</table>\n";
}

}  // namespace goodput_report_detail

std::string charts::goodput_curve_chart(const work::GoodputAssessment& a) {
  using namespace goodput_report_detail;
  const CurveScale sc = curve_scale(a);
  svg::Canvas c(
      kLeft + kPlotW + 40.0, kTop + kPlotH + 66.0, "goodput-curve",
      "goodput over checkpoint intervals: Monte Carlo band and mean, first-order model, Young/Daly");
  curve_axes(c, sc);
  std::vector<std::pair<double, double>> upper, lower, mean, model;
  for (const work::GoodputStats& s : a.sweep) {
    const double x = sc.x(static_cast<double>(s.interval_steps));
    model.emplace_back(x, sc.y(first_order(a, static_cast<double>(s.interval_steps))));
    if (!finishes(s)) continue;
    upper.emplace_back(x, sc.y(s.p90_goodput));
    lower.emplace_back(x, sc.y(s.p10_goodput));
    mean.emplace_back(x, sc.y(s.goodput));
  }
  if (!upper.empty()) {
    std::string d;
    for (const auto& [x, y] : upper) d += (d.empty() ? "M" : " L") + svg::num(x) + "," + svg::num(y);
    for (auto it = lower.rbegin(); it != lower.rend(); ++it)
      d += " L" + svg::num(it->first) + "," + svg::num(it->second);
    c.raw(fmt::format("<path d=\"{} Z\" fill=\"{}\" fill-opacity=\"0.2\" class=\"mc-band\"/>", d, kMean));
    c.raw(polyline(mean, kMean, "", "mc-mean"));
  }
  c.raw(polyline(model, kFirstOrder, "6,4", "first-order"));
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    const work::GoodputStats& s = a.sweep[i];
    if (!finishes(s)) continue;
    const double x = sc.x(static_cast<double>(s.interval_steps));
    c.circle(
        x, sc.y(s.goodput), i == a.best ? 5.0 : 3.0, i == a.best ? std::string_view("#176317") : kMean,
        fmt::format("every {} steps: goodput {} (p10 {}, p90 {}); first-order {}", s.interval_steps,
                    format_percent(s.goodput), format_percent(s.p10_goodput), format_percent(s.p90_goodput),
                    format_percent(first_order(a, static_cast<double>(s.interval_steps)))),
        i == a.best ? "mc-point best" : "mc-point");
  }
  if (std::isfinite(a.young_daly.tau_opt_s) && a.step_s > 0.0)
    interval_mark(c, sc, a.young_daly.tau_opt_s / a.step_s, kYoungDaly, "Young/Daly", "young-daly");
  if (!a.interval_from_young_daly)
    interval_mark(c, sc, static_cast<double>(a.interval_steps), "#555", "chosen", "chosen");
  charts::legend(c, kLeft, kTop + kPlotH + 56,
                 {{"Monte Carlo mean (band: p10-p90)", kMean},
                  {"first-order model", kFirstOrder},
                  {"Young/Daly tau_opt", kYoungDaly}});
  return c.str();
}

std::string charts::wall_time_chart(const work::GoodputAssessment& a) {
  using namespace goodput_report_detail;
  constexpr std::string_view colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#bab0ac"};
  constexpr const char* names[] = {"training steps (useful)", "checkpoints", "rework after failures",
                                   "restarts"};
  constexpr double label_w = 150.0, plot_w = 640.0, row = 22.0, top = 30.0;
  std::size_t rows = 0;
  for (const work::GoodputStats& s : a.sweep) rows += finishes(s) ? 1 : 0;
  svg::Canvas c(label_w + plot_w + 100.0, top + row * static_cast<double>(rows) + 40.0, "wall-time",
                "where the wall time goes at each checkpoint interval");
  LegendItems items;
  for (std::size_t p = 0; p < 4; ++p) items.emplace_back(names[p], colours[p]);
  legend(c, label_w, 14.0, items);
  double y = top;
  for (const work::GoodputStats& s : a.sweep) {
    if (!finishes(s)) continue;
    const bool chosen = s.interval_steps == a.interval_steps;
    c.text(label_w - 8, y + 15,
           fmt::format("every {} steps", format_number(static_cast<double>(s.interval_steps), 0)), "end",
           chosen ? "rowlabel mine" : "rowlabel");
    const double parts[] = {s.useful_s, s.checkpoint_s, s.rework_s, s.restart_s};
    double x = label_w;
    for (std::size_t p = 0; p < 4; ++p) {
      if (parts[p] <= 0.0) continue;
      const double w = plot_w * parts[p] / s.mean_wall_s;
      c.rect(x, y + 3, w, row - 6, colours[p],
             fmt::format("{}: {} ({})", names[p], duration_text(parts[p]),
                         format_percent(parts[p] / s.mean_wall_s)),
             "wall-seg");
      x += w;
    }
    c.text(label_w + plot_w + 6, y + 15, duration_text(s.mean_wall_s), "start", "value");
    y += row;
  }
  c.text(label_w + plot_w / 2, y + 24, "share of the mean wall time", "middle", "axis");
  return c.str();
}

std::string goodput_html(const work::JobSpec& job, const work::GoodputAssessment& a, const RunLabels& labels,
                         std::string_view version) {
  using namespace goodput_report_detail;
  std::string h = html_head("stepsim goodput: " + labels.scenario);
  h += fmt::format(
      "<h1>{}</h1>\n<p class=\"sub\">{} on {} &times; {}, {}: {} of {} (simulated), a Monte Carlo of {} "
      "trials (seed {}).</p>\n",
      svg::esc(labels.scenario), svg::esc(labels.model), format_number(job.cluster.total_gpus(), 0),
      svg::esc(labels.gpu), svg::esc(parallel_layout(job)), format_count(a.steps, "step", "steps"),
      format_seconds(a.step_s), a.monte_carlo.trials, a.monte_carlo.seed);
  if (!a.step_fits())
    h += fmt::format(
        "<p class=\"banner bad\" id=\"feasibility\" data-feasible=\"false\">Does not fit in memory: the "
        "step's peak is {} of {} usable per GPU, so the wall times and goodput below are not achievable as "
        "configured (<code>stepsim run</code> shows where the memory goes).</p>\n",
        format_bytes(a.memory_peak_bytes), format_bytes(a.usable_hbm_bytes));
  h += headline(a);
  h += fmt::format(
      "<h2 id=\"s-goodput-curve\">Goodput over checkpoint intervals</h2>\n<p class=\"note\">Each interval "
      "is simulated over the whole run with the same random failures (common random numbers): the band "
      "holds the middle 80% of trials, the line their mean. The first-order model 1 - C/&tau; - (&tau;/2 + "
      "D + R)/M (Young 1974, Daly 2006) is dashed; Young/Daly's &tau;<sub>opt</sub> = &radic;(2CM) = {} "
      "is marked.</p>\n",
      svg::esc(duration_text(a.young_daly.tau_opt_s)));
  h += charts::goodput_curve_chart(a);
  h += "<h2 id=\"s-wall-time\">Where the wall time goes</h2>\n<p class=\"note\">Mean over the trials at each "
       "interval: the training steps themselves, the checkpoints' blocking time, the work lost to failures "
       "and redone, and restarts.</p>\n";
  h += charts::wall_time_chart(a);
  h += sweep_table(a);
  if (!a.notes.empty()) {
    h += "<ul class=\"diffs\">\n";
    for (const std::string& n : a.notes) h += "<li>" + svg::esc(n) + "</li>\n";
    h += "</ul>\n";
  }
  return h + html_foot(version);
}

}  // namespace stepsim::out
