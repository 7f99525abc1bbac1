// The roofline and the cost per bottleneck resource, as the seed article draws them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "output/common/format.hpp"
#include "output/report/report_charts.hpp"
#include "output/common/svg.hpp"

namespace stepsim::out::charts {
namespace {

/// FLOPs, HBM bytes and kernel time of one op class over every simulated rank's kernels.
struct ClassTotals {
  double flops = 0.0, bytes = 0.0, seconds = 0.0;
};

std::array<ClassTotals, topo::kOpClassCount> class_totals(const work::Simulation& s) {
  std::array<ClassTotals, topo::kOpClassCount> t{};
  const auto& g = s.plan.graph;
  for (sim::OpId op = 0; op < s.plan.info.size(); ++op) {
    const auto& i = s.plan.info[op];
    if (i.is_comm || g.exec(op).kind != sim::OpKind::compute) continue;
    auto& c = t[static_cast<std::size_t>(i.op_class)];
    c.flops += g.info(op).flops;
    c.bytes += g.info(op).bytes;
    c.seconds += to_seconds(s.run.ops[op].end - s.run.ops[op].start);
  }
  return t;
}

/// "1e3" style decade labels: 0.01, 0.1, 1, 10, 100, 1k, 10k; with `unit` suffix for FLOP/s.
std::string decade(int k, std::string_view unit) {
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  if (k < 0) return fmt::format("{}{}", svg::num(std::pow(10.0, k), -k), unit);
  const int p = std::min(k / 3, 6);
  return fmt::format("{}{}{}", static_cast<int>(std::lround(std::pow(10.0, k - 3 * p))), kPrefix[p], unit);
}

/// Maps log10 values to the plot area.
struct LogAxes {
  double x0, y0, w, h;     // plot area (y0 = top)
  int xlo, xhi, ylo, yhi;  // decades
  double x(double v) const { return x0 + w * (std::log10(v) - xlo) / (xhi - xlo); }
  double y(double v) const { return y0 + h - h * (std::log10(v) - ylo) / (yhi - ylo); }
  double clamp_x(double v) const { return std::clamp(v, std::pow(10.0, xlo), std::pow(10.0, xhi)); }
  double clamp_y(double v) const { return std::clamp(v, std::pow(10.0, ylo), std::pow(10.0, yhi)); }
};

void draw_grid(svg::Canvas& c, const LogAxes& a) {
  for (int k = a.xlo; k <= a.xhi; ++k) {
    const double x = a.x(std::pow(10.0, k));
    c.line(x, a.y0, x, a.y0 + a.h, "#e4e4e4");
    c.text(x, a.y0 + a.h + 15, decade(k, ""), "middle", "tick");
  }
  for (int k = a.ylo; k <= a.yhi; ++k) {
    const double y = a.y(std::pow(10.0, k));
    c.line(a.x0, y, a.x0 + a.w, y, "#e4e4e4");
    c.text(a.x0 - 6, y + 4, decade(k, "FLOP/s"), "end", "tick");
  }
  c.text(a.x0 + a.w / 2, a.y0 + a.h + 32, "arithmetic intensity (FLOP per HBM byte)", "middle", "axis");
}

/// The roofline min(peak, bw x I) from the left edge to the right edge.
void ceiling(svg::Canvas& c, const LogAxes& a, double peak, double bw, std::string_view colour, double width,
             std::string_view dash) {
  const double xl = std::pow(10.0, a.xlo), xr = std::pow(10.0, a.xhi), ridge = peak / bw;
  const double yl = a.clamp_y(bw * xl);
  c.line(a.x(xl), a.y(yl), a.x(a.clamp_x(ridge)), a.y(a.clamp_y(bw * a.clamp_x(ridge))), colour, width, dash);
  c.line(a.x(a.clamp_x(ridge)), a.y(peak), a.x(xr), a.y(peak), colour, width, dash);
}

}  // namespace

namespace {

/// The datasheet roofline, the achievable one, and their labels.
void draw_ceilings(svg::Canvas& c, const LogAxes& a, const work::JobSpec& job) {
  const topo::GpuSpec& gpu = job.cluster.gpu;
  const double peak = gpu.peak_flops(job.precision.compute).value(), bw = gpu.hbm_bw.value(),
               ridge = peak / bw;
  ceiling(c, a, peak, bw, "#222", 2.0, {});
  ceiling(c, a, peak * gpu.eff.headline(topo::OpClass::gemm), bw * gpu.eff.hbm, "#888", 1.2, "6,4");
  // The ceiling's name sits above the slope's end, left of the ridge, where the kernels never are.
  const double rx = a.x(a.clamp_x(ridge));
  c.text(rx - 8, a.y(peak) - 8,
         fmt::format("{} dense {} TFLOP/s", topo::name(job.precision.compute), svg::num(peak / 1e12, 0)),
         "end", "ceiling");
  c.text(rx, a.y0 + a.h - 6, fmt::format("ridge {} FLOP/B", svg::num(ridge, 0)), "middle", "ceiling");
  c.line(rx, a.y(peak), rx, a.y0 + a.h, "#bbb", 1.0, "2,3");
  c.text(a.x(a.clamp_x(0.3)), a.y(a.clamp_y(bw * 0.3)) - 8,
         fmt::format("HBM {} TB/s", svg::num(bw / 1e12, 2)), "start", "ceiling");
}

/// A row of the key at the plot's lower right (below the slope, where nothing else is drawn).
double key_y(const LogAxes& a, int row) {
  return a.y0 + a.h - 34.0 - 16.0 * row;
}

/// Each op class that ran, at its intensity and achieved FLOP/s; the whole step per GPU.
void place_kernels(svg::Canvas& c, const LogAxes& a, const work::Simulation& s) {
  static constexpr std::string_view kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759"};
  const auto totals = class_totals(s);
  ClassTotals all;
  for (const auto& t : totals) all = {all.flops + t.flops, all.bytes + t.bytes, all.seconds + t.seconds};
  int row = 1;  // the whole step takes the key's bottom row
  for (std::size_t k = 0; k < totals.size(); ++k) {
    const auto& t = totals[k];
    if (t.seconds <= 0.0 || t.flops <= 0.0) continue;
    const double intensity = a.clamp_x(t.bytes > 0.0 ? t.flops / t.bytes : std::pow(10.0, a.xhi));
    const double rate = t.flops / t.seconds, share = t.seconds / all.seconds;
    const std::string name(topo::name(static_cast<topo::OpClass>(k)));
    c.circle(a.x(intensity), a.y(a.clamp_y(rate)), 4.0 + 10.0 * std::sqrt(share), kColours[k],
             fmt::format("{}: {} FLOP/B, {} TFLOP/s achieved, {}% of kernel time", name,
                         svg::num(intensity, 1), svg::num(rate / 1e12, 1), svg::num(100.0 * share)),
             "op-class");
    const double ky = key_y(a, row++);
    c.circle(a.x0 + a.w - 250.0, ky - 4, 5, kColours[k]);
    c.text(a.x0 + a.w - 240.0, ky,
           fmt::format("{}: {}% of kernel time, {} TFLOP/s", name, svg::num(100.0 * share, 0),
                       svg::num(rate / 1e12, 0)),
           "start", "point");
  }
  if (all.bytes <= 0.0 || s.report.step_time_s <= 0.0) return;
  // Every kernel FLOP of one GPU over the step time, idle and communication included.
  const double rate = all.flops / static_cast<double>(s.plan.ranks.size()) / s.report.step_time_s;
  const double x = a.x(a.clamp_x(all.flops / all.bytes)), y = a.y(a.clamp_y(rate));
  c.rect(x - 5, y - 5, 10, 10, "#000",
         fmt::format("whole step: {} TFLOP/s per GPU", svg::num(rate / 1e12, 1)), "step-point");
  c.rect(a.x0 + a.w - 255.0, key_y(a, 0) - 9, 10, 10, "#000");
  c.text(a.x0 + a.w - 240.0, key_y(a, 0),
         fmt::format("whole step: {} TFLOP/s per GPU", svg::num(rate / 1e12, 0)), "start", "point");
}

}  // namespace

std::string roofline_chart(const work::JobSpec& job, const work::Simulation& s) {
  const double peak = job.cluster.gpu.peak_flops(job.precision.compute).value();
  const double ridge = peak / job.cluster.gpu.hbm_bw.value();
  LogAxes a{96.0, 20.0, 560.0, 340.0, -1, 4, 0, 0};
  a.xhi = std::max(4, static_cast<int>(std::ceil(std::log10(ridge * 10.0))));
  a.yhi = static_cast<int>(std::ceil(std::log10(peak * 1.5)));
  a.ylo = a.yhi - 6;
  svg::Canvas c(700, 420, "roofline", "roofline of the GPU with the step's kernels by op class");
  draw_grid(c, a);
  draw_ceilings(c, a, job);
  place_kernels(c, a, s);
  return c.str();
}

namespace {

struct CostMetric {
  std::string_view title;
  double (*value)(const topo::GpuSpec&);
};

double per(double price, double amount) {
  return amount > 0.0 ? price / amount : 0.0;
}

constexpr CostMetric kMetrics[] = {
    {"$ per GPU-hour", [](const topo::GpuSpec& g) { return g.price_per_hour; }},
    {"$ per TFLOP/s-hour (BF16 dense)",
     [](const topo::GpuSpec& g) { return per(g.price_per_hour, units::in_tflops_per_s(g.bf16_peak)); }},
    {"$ per TB/s-hour (HBM)",
     [](const topo::GpuSpec& g) { return per(g.price_per_hour, units::in_tb_per_s(g.hbm_bw)); }},
    {"$ per GB-hour (HBM)",
     [](const topo::GpuSpec& g) { return per(g.price_per_hour, units::in_gb(g.hbm_capacity)); }},
};

/// Three significant figures at most, two decimals at least: 3.90, 1.16, 0.0394, 0.00394.
std::string price_text(double v) {
  const int decimals = v >= 1.0 ? 2 : std::min(6, 2 - static_cast<int>(std::floor(std::log10(v))));
  return svg::num(v, v > 0.0 ? decimals : 2);
}

std::vector<const topo::GpuSpec*> priced(std::span<const topo::GpuSpec> gpus) {
  std::vector<const topo::GpuSpec*> out;
  for (const auto& g : gpus)
    if (g.price_per_hour > 0.0) out.push_back(&g);
  return out;
}

}  // namespace

std::string cost_charts(std::span<const topo::GpuSpec> gpus, std::string_view highlight) {
  const auto list = priced(gpus);
  // Four panels, two by two, as the article's paired bar charts.
  constexpr double kPanel = 540.0, kLabel = 110.0, kBar = 18.0, kTop = 30.0;
  const double panel_h = kTop + kBar * static_cast<double>(list.size()) + 16.0;
  svg::Canvas c(2 * kPanel, 2 * panel_h, "cost",
                "price per unit of each bottleneck resource across the catalog's GPUs");
  for (std::size_t m = 0; m < 4; ++m) {
    const double x0 = kPanel * static_cast<double>(m % 2), y0 = panel_h * static_cast<double>(m / 2);
    double max_v = 0.0;
    for (const auto* g : list) max_v = std::max(max_v, kMetrics[m].value(*g));
    c.text(x0 + 6, y0 + 16, kMetrics[m].title, "start", "panel");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& g = *list[i];
      const double v = kMetrics[m].value(g), y = y0 + kTop + kBar * static_cast<double>(i);
      const bool mine = g.id == highlight;
      c.text(x0 + kLabel - 4, y + 12, g.id, "end", mine ? "rowlabel mine" : "rowlabel");
      const double w = max_v > 0.0 ? (kPanel - kLabel - 56.0) * v / max_v : 0.0;
      c.rect(x0 + kLabel, y + 2, w, kBar - 5, mine ? "#1f4e79" : "#9ab8d6",
             fmt::format("{}: {} {}", g.id, price_text(v), kMetrics[m].title), "cost-bar");
      c.text(x0 + kLabel + w + 4, y + 12, price_text(v), "start", "value");
    }
  }
  return c.str();
}

std::string cost_table(std::span<const topo::GpuSpec> gpus, std::string_view highlight) {
  const auto list = priced(gpus);
  std::array<double, 4> best{};
  best.fill(1e300);
  for (const auto* g : list)
    for (std::size_t m = 0; m < 4; ++m) {
      const double v = kMetrics[m].value(*g);
      if (v > 0.0) best[m] = std::min(best[m], v);
    }
  std::string h = "<table id=\"cost-table\"><thead><tr><th>GPU</th>";
  for (const auto& m : kMetrics) h += "<th>" + svg::esc(m.title) + "</th>";
  h += "<th>price source</th></tr></thead><tbody>\n";
  for (const auto* g : list) {
    h += fmt::format("<tr{}><td>{}</td>", g->id == highlight ? " class=\"mine\"" : "", svg::esc(g->id));
    for (std::size_t m = 0; m < 4; ++m) {
      const double v = kMetrics[m].value(*g);
      h += fmt::format("<td{}>{}</td>", v == best[m] ? " class=\"best\"" : "",
                       v > 0.0 ? price_text(v) : "n/a");
    }
    h += "<td class=\"note\">" + svg::esc(g->price_note) + "</td></tr>\n";
  }
  return h + "</tbody></table>\n";
}

}  // namespace stepsim::out::charts
