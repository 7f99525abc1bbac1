#include "output/report/report_html.hpp"

#include <fmt/format.h>

#include <cmath>

#include "output/common/format.hpp"
#include "output/common/svg.hpp"
#include "output/report/report_charts.hpp"
#include "output/run/run_figures.hpp"
#include "output/views/accuracy_view.hpp"
#include "output/views/advise_view.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/explain.hpp"

namespace stepsim::out {
namespace {

constexpr std::string_view kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1120px;margin:0 auto;padding:24px 28px 40px;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:30px 0 6px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#555;margin:0 0 18px}.note{color:#666;font-size:12.5px}
.headline{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}
.figure{border:1px solid #ddd;border-radius:6px;padding:10px 14px;background:#fcfcfc}
.figure .k{color:#666;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.figure .v{font-size:24px;font-weight:600;margin-top:2px}.figure .d{color:#666;font-size:12.5px}
.figure.bad .v{color:#b00}.figure.good .v{color:#176317}
svg.chart{width:100%;height:auto;display:block;margin:6px 0}svg#roofline{max-width:760px}
svg text{font-family:inherit;font-size:11px;fill:#333}svg text.tick{fill:#666;font-size:10px}
svg text.panel,svg text.axis{font-size:12px;font-weight:600}svg text.ceiling{font-size:11px;fill:#333}
svg text.mine{font-weight:700}svg text.bad{fill:#b00;font-weight:600}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}td.note{text-align:left}
tr.mine td{background:#eef4fb}td.best,td.win{font-weight:700;color:#176317}
ul.diffs li{margin:3px 0}footer{margin-top:30px;color:#777;font-size:12px}
.banner{border-radius:6px;padding:10px 14px;margin:0 0 14px;font-weight:600}
.banner.bad{border:2px solid #b00;background:#fdecec;color:#8a0000}
.banner.good{border:1px solid #9c9;background:#f1f9f1;color:#176317;font-weight:400}
.infeasible{color:#b00;font-weight:600}
)";

std::string card(std::string_view id, std::string_view key, std::string_view value, std::string_view detail,
                 double raw, std::string_view cls = {}) {
  return fmt::format(
      "<div class=\"figure{}\" id=\"{}\" data-value=\"{}\"><div class=\"k\">{}</div><div class=\"v\">{}</div>"
      "<div class=\"d\">{}</div></div>\n",
      cls.empty() ? "" : " " + std::string(cls), id, raw, svg::esc(key), svg::esc(value), svg::esc(detail));
}

/// Whether the step fits, above every figure: a configuration that does not fit is no result.
std::string feasibility_banner(const RunFigures& f) {
  if (f.fits)
    return fmt::format("<p class=\"banner good\" id=\"feasibility\" data-feasible=\"true\">Memory {}.</p>\n",
                       svg::esc(feasibility_text(f)));
  return fmt::format(
      "<p class=\"banner bad\" id=\"feasibility\" data-feasible=\"false\">Memory {}. The step time, "
      "tokens/s and cost below are not achievable as configured.</p>\n",
      svg::esc(feasibility_text(f)));
}

/// stepsim's record on published runs of the job's class (the `validated` line of `run`).
std::string validated_card(const scen::AccuracyMatch& m, double step_s) {
  std::string detail = validated_text(m, step_s);
  if (const auto at = detail.find('\n'); at != std::string::npos) detail.replace(at, 1, "; ");
  const bool known = m.band.has_value();
  // A preset variant told its base part's record says whose it is in the card's value too.
  const std::string whose = m.via.empty() ? "" : " (" + m.via + ")";
  return card(
      "hl-validated", "validated against published runs",
      known ? (m.band->mean_error < 0.0 ? "-" : "+") + format_percent(std::abs(m.band->mean_error)) + whose
            : "unchecked",
      detail, known ? m.band->mean_error : 0.0, known ? "" : "bad");
}

std::string headline(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels) {
  const RunFigures f = run_figures(job, s);
  const std::string mark = f.fits ? "" : std::string(" (") + kNotAchievable + ")";
  std::string h = feasibility_banner(f) + "<section class=\"headline\" id=\"headline\">\n";
  h += card("hl-step-time", "step time", format_seconds(f.step_time_s),
            "closed-form estimate " + format_seconds(s.estimate.step_time_s) + mark, f.step_time_s,
            f.fits ? "" : "bad");
  h +=
      card("hl-tokens", "tokens/s", format_number(f.tokens_per_s, 0),
           format_number(f.tokens_per_s_per_gpu, 1) + " per GPU" + mark, f.tokens_per_s, f.fits ? "" : "bad");
  // The clock the step held at its tensor-core duty (workloads/simulate/step_clock.hpp), where the GPU
  // has a measured curve.
  const std::string clock = s.clock.duty >= 0.0
                                ? fmt::format("; SM clock {} of short-run, tensor cores busy {}%",
                                              svg::num(s.clock.clock, 3), svg::num(100.0 * s.clock.duty))
                                : std::string();
  h += card("hl-mfu", "MFU", svg::num(100.0 * f.mfu) + "%",
            fmt::format("of the {} dense peak; HFU {}%, {} model TFLOP/s per GPU{}", f.mfu_peak,
                        svg::num(100.0 * s.metrics.hfu), svg::num(s.metrics.model_tflops_per_gpu), clock),
            f.mfu);
  const auto& v = f.verdict;
  h += card(
      "hl-bottleneck", "bottleneck", v.primary.label,
      format_percent(v.primary_share) + " of the step" +
          (v.secondary.seconds > 0.0 ? "; then " + v.secondary.label + " " + format_percent(v.secondary_share)
                                     : std::string()),
      v.primary_share);
  h += card("hl-memory", "memory", f.fits ? "fits" : "does not fit",
            format_bytes(f.peak_bytes) + " peak of " + format_bytes(f.capacity_bytes) + ", " +
                format_bytes(std::abs(f.headroom_bytes)) + (f.fits ? " free" : " over"),
            f.peak_bytes, f.fits ? "good" : "bad");
  h += card("hl-cost", "$ per million tokens", "$" + svg::num(f.per_million_tokens, 3),
            "$" + format_number(f.cluster_per_hour, 2) + " per hour for " +
                format_count(f.gpus, "GPU", "GPUs") + mark,
            f.per_million_tokens, f.fits ? "" : "bad");
  if (labels.validated) h += validated_card(*labels.validated, f.step_time_s);
  return h + "</section>\n";
}

std::string breakdown_section(const work::Simulation& s) {
  std::vector<charts::BreakdownBar> bars{{"mean over ranks", s.report.mean}};
  for (std::size_t i = 0; i < s.report.ranks.size() && bars.size() <= 32; ++i) {
    const auto& r = s.report.ranks[i];
    bars.push_back({fmt::format("gpu{} (stage {})", r.rank, r.stage), r.breakdown});
  }
  std::string h =
      "<h2 id=\"s-breakdown\">Where the time goes</h2>\n<p class=\"note\">Each bar partitions the step on "
      "one rank: "
      "kernels bound by compute or HBM, communication the compute stream waited for (by group), "
      "and the pipeline bubble.</p>\n";
  return h + charts::breakdown_chart(bars, "breakdown");
}

/// Several steps under [variability]: their distribution and which GPUs are slow.
std::string variability_section(const work::JobSpec& job, const work::Simulation& s) {
  const work::StepDistribution& d = s.steps;
  std::string h = fmt::format(
      "<h2 id=\"s-step-times\">Step-time distribution</h2>\n<p class=\"note\">{} steps, each with its own "
      "draws of kernel jitter and host stalls on the same GPUs: mean {}, p50 {}, p90 {}, p99 {}, max {} "
      "against {} with nothing varying. This page describes the median step (step {}).</p>\n",
      format_number(static_cast<double>(d.steps.size()), 0), format_seconds(d.mean_s),
      format_seconds(d.p50_s), format_seconds(d.p90_s), format_seconds(d.p99_s), format_seconds(d.max_s),
      format_seconds(d.nominal_s), d.median_step);
  h += charts::step_time_chart(d);
  h += "<h2 id=\"s-slowness\">Slowness map</h2>\n<p class=\"note\">Each GPU's kernel time factor, drawn once "
       "for the run (named slow GPUs and nodes, the part-to-part spread, the throttled tail): a block of "
       "cells per node. Hover a cell for its factor and the share of the median step it spent waiting.</p>\n";
  return h + charts::slowness_map(s, job.cluster.gpus_per_node);
}

std::string differences(const work::Simulation& s) {
  const auto diffs = work::explain_differences(s);
  if (diffs.empty()) return {};
  std::string h = "<h2>Why the simulation differs from the closed-form estimate</h2>\n<ul class=\"diffs\">\n";
  for (const auto& d : diffs)
    h += fmt::format("<li><b>{}</b> ({}): {}</li>\n", svg::esc(d.effect), format_seconds(d.seconds),
                     svg::esc(d.detail));
  return h + "</ul>\n";
}

}  // namespace

std::string html_head(std::string_view title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
      "<style>{}</style>\n</head>\n<body>\n<main>\n",
      svg::esc(title), kStyle);
}

std::string html_foot(std::string_view version) {
  return fmt::format(
      "<footer>Generated by stepsim {}. Self-contained: no scripts, nothing fetched.</footer>\n"
      "</main>\n</body>\n</html>\n",
      svg::esc(version));
}

std::string report_html(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels,
                        std::span<const topo::GpuSpec> catalog_gpus, std::string_view version,
                        const Advice* advice) {
  std::string h = html_head("stepsim: " + labels.scenario);
  h += fmt::format(
      "<h1>{}</h1>\n<p class=\"sub\">{} on {} &times; {}, {} per step; {} of {} "
      "ranks simulated (the others mirror them).</p>\n",
      svg::esc(labels.scenario), svg::esc(labels.model), format_number(s.plan.world, 0), svg::esc(labels.gpu),
      svg::esc(parallel_layout(job)) + ", " +
          format_count(s.plan.microbatches, "micro-batch", "micro-batches") +
          (job.pipeline_flushes() > 1
               ? " in " + std::to_string(job.pipeline_flushes()) + " pipeline schedules"
               : std::string()),
      s.plan.ranks.size(), format_number(s.plan.world, 0));
  h += headline(job, s, labels);
  h += breakdown_section(s);
  if (!s.steps.empty()) h += variability_section(job, s);
  if (advice != nullptr) h += advice_html(*advice);
  h +=
      "<h2 id=\"s-gantt\">One pipeline replica</h2>\n<p class=\"note\">Stages top to bottom; per stage a "
      "compute lane "
      "(by pass) and thin communication lanes (by group). Time is cut into buckets: each takes the colour of "
      "what kept the lane busiest and fades with how idle the lane was. Hover a bar for its time "
      "range.</p>\n";
  h += charts::gantt_chart(s);
  if (const auto [from, to] = charts::microbatch_window(s);
      to > from && to - from < 0.5 * s.report.step_time_s) {
    h += fmt::format(
        "<h2 id=\"s-gantt-zoom\">One micro-batch, zoomed</h2>\n<p class=\"note\">The same replica from {} to "
        "{}: "
        "from the first op of micro-batch {} on the first stage, as long as that micro-batch's kernels take, "
        "so that single kernels and collectives of a long step can be told apart.</p>\n",
        format_seconds(from), format_seconds(to), s.plan.microbatches / 2);
    h += charts::gantt_chart(s, from, to, "gantt-zoom");
  }
  h += "<h2 id=\"s-roofline\">Roofline</h2>\n<p class=\"note\">Attainable FLOP/s is the smaller of the "
       "compute ceiling and HBM "
       "bandwidth &times; arithmetic intensity (Williams, Waterman and Patterson, 2009). Solid: datasheet "
       "peaks; "
       "dashed: the catalog's achievable fractions. Each circle is one op class of the step's kernels (area: "
       "share of kernel time); the square is the whole step per GPU, idle time included.</p>\n";
  h += charts::roofline_chart(job, s);
  h += "<h2 id=\"s-memory\">Memory per stage</h2>\n";
  h += charts::memory_chart(s);
  h += "<h2 id=\"s-memory-timeline\">Memory over the step</h2>\n<p class=\"note\">Memory in use on the "
       "busiest "
       "simulated GPU of each stage (up to 8 stages): static memory plus live activations, the highest value "
       "in each pixel's stretch of time.</p>\n";
  h += charts::memory_timeline_chart(s);
  h +=
      "<h2 id=\"s-network\">Network over the step</h2>\n<p class=\"note\">Load of each link tier over the "
      "line rate of all its links in the cluster, averaged over each pixel's stretch of time (the area under "
      "a line is the tier's traffic).</p>\n";
  h += charts::network_chart(s);
  h += "<h2 id=\"s-cost\">Cost per bottleneck resource</h2>\n<p class=\"note\">Once the bottleneck is known, "
       "price the "
       "bottleneck: the same GPUs rank differently by price per hour and by price per unit of compute, "
       "bandwidth or capacity. Prices are the catalog's representative figures; use the ones you face.</p>\n";
  h += charts::cost_charts(catalog_gpus, job.cluster.gpu.id);
  h += charts::cost_table(catalog_gpus, job.cluster.gpu.id);
  h += differences(s);
  return h + html_foot(version);
}

}  // namespace stepsim::out
