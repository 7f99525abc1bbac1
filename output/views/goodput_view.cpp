// Goodput with failures and checkpoints as a terminal report and as JSON.
#include "output/views/goodput_view.hpp"

#include <cmath>
#include <sstream>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {

std::string duration_text(double s) {
  if (!std::isfinite(s)) return "never";
  if (s < 120.0) return format_seconds(s);
  if (s < 7200.0) return format_number(s / 60.0, 1) + " min";
  if (s < 48.0 * 3600.0) return format_number(s / 3600.0, 2) + " h";
  return format_number(s / 86400.0, 2) + " days";
}

namespace {

using Json = nlohmann::ordered_json;

Json finite_or_null(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string mode_name(work::CheckpointMode m) {
  return m == work::CheckpointMode::async ? "async" : "sync";
}

std::string failures_table(const work::JobFailureRate& f) {
  TextTable t({"component", "count", "MTBF each", "failures/day", "share"});
  for (const auto& c : f.components)
    t.add_row({std::string(c.name), format_number(c.count, 0), format_number(c.mtbf_hours, 0) + " h",
               format_number(24.0 * c.failures_per_hour, 2),
               format_percent(f.failures_per_hour > 0.0 ? c.failures_per_hour / f.failures_per_hour : 0.0)});
  return t.render();
}

std::string checkpoint_lines(const work::GoodputAssessment& a) {
  const work::CheckpointCost& c = a.checkpoint;
  const work::CheckpointSpec& spec = a.spec.checkpoint;
  std::ostringstream o;
  const bool billions = c.params >= 1e9;
  o << "checkpoint  " << format_bytes(c.bytes) << " (" << format_number(c.params / (billions ? 1e9 : 1e6), 1)
    << (billions ? " B" : " M") << " parameters x " << format_number(c.bytes_per_param, 0)
    << " bytes: weights and optimizer state), " << format_bytes(c.bytes_per_gpu) << " per GPU\n";
  o << "            write " << format_seconds(c.write_s) << " at "
    << format_number(units::in_gb_per_s(spec.storage_write), 0) << " GB/s, read " << format_seconds(c.read_s)
    << " at " << format_number(units::in_gb_per_s(spec.storage_read), 0) << " GB/s; " << mode_name(spec.mode)
    << ": training stops " << format_seconds(c.block_s) << " per checkpoint";
  if (spec.mode == work::CheckpointMode::async) o << " (the copy to host memory)";
  o << "\nrestart     " << format_seconds(a.spec.restart_s) << " + read " << format_seconds(c.read_s) << " = "
    << format_seconds(a.plan.restart_s) << " per failure\n";
  return o.str();
}

std::string spread_line(const std::string& label, const std::string& mean, const std::string& p10,
                        const std::string& p50, const std::string& p90) {
  return label + mean + "  (p10 " + p10 + ", p50 " + p50 + ", p90 " + p90 + ")\n";
}

std::string monte_carlo_lines(const work::GoodputAssessment& a) {
  const work::GoodputStats& s = a.at_interval;
  std::ostringstream o;
  o << "Monte Carlo " << a.monte_carlo.trials << " trials, seed " << a.monte_carlo.seed
    << ", checkpoint every " << format_count(a.interval_steps, "step", "steps") << " ("
    << (a.interval_from_young_daly ? "Young/Daly's optimum, rounded" : "as asked") << ")\n";
  if (!std::isfinite(s.mean_wall_s))
    return o.str() + "wall time   the run does not finish at this interval\n";
  o << spread_line("wall time   ", duration_text(s.mean_wall_s), duration_text(s.p10_wall_s),
                   duration_text(s.p50_wall_s), duration_text(s.p90_wall_s));
  o << spread_line("goodput     ", format_percent(s.goodput), format_percent(s.p10_goodput),
                   format_percent(s.p50_goodput), format_percent(s.p90_goodput));
  o << "failures    " << format_number(s.mean_failures, s.mean_failures < 10.0 ? 2 : 1)
    << " expected (job MTBF " << duration_text(a.young_daly.mtbf_s) << ")\n";
  TextTable t({"where the wall time goes", "mean", "share"});
  const auto row = [&](const char* label, double v) {
    t.add_row({label, duration_text(v), format_percent(v / s.mean_wall_s)});
  };
  row("training steps (useful)", s.useful_s);
  row("checkpoints", s.checkpoint_s);
  row("rework after failures", s.rework_s);
  row("restarts", s.restart_s);
  row("total", s.mean_wall_s);
  o << "\n" << t.render();
  return o.str();
}

std::string sweep_lines(const work::GoodputAssessment& a) {
  TextTable t({"interval (steps)", "compute between", "goodput", "p10", "p90", "first-order", ""});
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    const work::GoodputStats& s = a.sweep[i];
    const double tau = static_cast<double>(s.interval_steps) * a.step_s;
    std::string mark = i == a.best ? "best" : "";
    if (s.interval_steps == a.young_daly.interval_steps) mark += mark.empty() ? "Young/Daly" : ", Young/Daly";
    if (s.interval_steps == a.interval_steps && !a.interval_from_young_daly)
      mark += mark.empty() ? "asked" : ", asked";
    const bool done = std::isfinite(s.mean_wall_s);
    t.add_row({format_number(static_cast<double>(s.interval_steps), 0), duration_text(tau),
               done ? format_percent(s.goodput) : "does not finish",
               done ? format_percent(s.p10_goodput) : "-", done ? format_percent(s.p90_goodput) : "-",
               format_percent(1.0 - work::first_order_waste(a.plan, tau)), mark});
  }
  std::ostringstream o;
  o << "goodput over checkpoint intervals (Monte Carlo; first-order = 1 - C/tau - (tau/2 + D + R)/M)\n"
    << t.render();
  const work::GoodputStats& best = a.sweep[a.best];
  o << "best        every " << format_count(best.interval_steps, "step", "steps") << ": goodput "
    << format_percent(best.goodput)
    << "; Young/Daly tau_opt = sqrt(2 C M) = " << duration_text(a.young_daly.tau_opt_s) << " ("
    << format_count(a.young_daly.interval_steps, "step", "steps") << "), first-order goodput "
    << format_percent(1.0 - work::first_order_waste(a.plan, a.young_daly.tau_opt_s)) << "\n";
  return o.str();
}

Json stats_json(const work::GoodputStats& s, const work::GoodputPlan& plan, double step_s) {
  const double tau = static_cast<double>(s.interval_steps) * step_s;
  return Json{{"interval_steps", s.interval_steps},
              {"interval_compute_s", tau},
              {"finishes", std::isfinite(s.mean_wall_s)},
              {"wall_s",
               {{"mean", finite_or_null(s.mean_wall_s)},
                {"stddev", s.stddev_wall_s},
                {"p10", s.p10_wall_s},
                {"p50", s.p50_wall_s},
                {"p90", s.p90_wall_s}}},
              {"goodput",
               {{"mean", s.goodput}, {"p10", s.p10_goodput}, {"p50", s.p50_goodput}, {"p90", s.p90_goodput}}},
              {"failures", s.mean_failures},
              {"time_s",
               {{"useful", s.useful_s},
                {"checkpoints", s.checkpoint_s},
                {"rework", s.rework_s},
                {"restarts", s.restart_s}}},
              {"first_order_goodput", 1.0 - work::first_order_waste(plan, tau)}};
}

}  // namespace

std::string goodput_table(const work::JobSpec& job, const work::GoodputAssessment& a,
                          const RunLabels& labels) {
  std::ostringstream o;
  o << "stepsim goodput: " << labels.scenario << "\n";
  o << "  " << labels.model << " on " << format_number(job.cluster.total_gpus(), 0) << " x " << labels.gpu
    << ", " << parallel_layout(job) << "\n";
  o << "  " << format_count(a.steps, "step", "steps") << " of " << format_number(a.tokens_per_step, 0)
    << " tokens (" << format_number(static_cast<double>(a.steps) * a.tokens_per_step, 0) << " tokens), step "
    << format_seconds(a.step_s) << " (simulated)\n\n";
  if (!a.step_fits())
    o << "memory      DOES NOT FIT: the step's peak is " << format_bytes(a.memory_peak_bytes) << " of "
      << format_bytes(a.usable_hbm_bytes)
      << " usable per GPU (`stepsim run` shows where it goes); the wall times and goodput below are not "
         "achievable as configured\n\n";
  o << "failure-free " << duration_text(a.failure_free_s()) << " (steps "
    << duration_text(a.at_interval.useful_s) << " + checkpoints " << duration_text(a.at_interval.checkpoint_s)
    << ")\n\n";
  o << "job MTBF    " << duration_text(a.young_daly.mtbf_s) << " ("
    << format_number(24.0 * a.failures.failures_per_hour, 2)
    << " failures per day; the components' rates add)\n";
  o << failures_table(a.failures) << "\n";
  o << checkpoint_lines(a) << "\n";
  o << monte_carlo_lines(a) << "\n";
  o << sweep_lines(a);
  for (const std::string& n : a.notes) o << "note: " << n << "\n";
  return o.str();
}

Json goodput_json(const work::JobSpec& job, const work::GoodputAssessment& a, const RunLabels& labels) {
  Json components = Json::array();
  for (const auto& c : a.failures.components)
    components.push_back(Json{{"component", std::string(c.name)},
                              {"count", c.count},
                              {"mtbf_hours", c.mtbf_hours},
                              {"failures_per_hour", c.failures_per_hour}});
  Json sweep = Json::array();
  for (const work::GoodputStats& s : a.sweep) sweep.push_back(stats_json(s, a.plan, a.step_s));
  const work::CheckpointCost& c = a.checkpoint;
  return Json{{"scenario", labels.scenario},
              {"model", labels.model},
              {"gpu", labels.gpu},
              {"gpus", job.cluster.total_gpus()},
              {"steps", a.steps},
              {"tokens_per_step", a.tokens_per_step},
              {"step_time_s", a.step_s},
              {"failure_free_s", a.failure_free_s()},
              {"failures",
               {{"per_hour", a.failures.failures_per_hour},
                {"mtbf_hours", finite_or_null(a.failures.mtbf_hours())},
                {"components", std::move(components)}}},
              {"checkpoint",
               {{"mode", mode_name(a.spec.checkpoint.mode)},
                {"bytes", c.bytes.value()},
                {"bytes_per_gpu", c.bytes_per_gpu.value()},
                {"params", c.params},
                {"bytes_per_param", c.bytes_per_param},
                {"write_s", c.write_s},
                {"read_s", c.read_s},
                {"block_s", c.block_s},
                {"durable_after_s", c.durable_s}}},
              {"restart_s", a.spec.restart_s},
              {"restart_with_read_s", a.plan.restart_s},
              {"monte_carlo", {{"trials", a.monte_carlo.trials}, {"seed", a.monte_carlo.seed}}},
              {"interval_from_young_daly", a.interval_from_young_daly},
              {"result", stats_json(a.at_interval, a.plan, a.step_s)},
              {"young_daly",
               {{"mtbf_s", finite_or_null(a.young_daly.mtbf_s)},
                {"tau_opt_s", finite_or_null(a.young_daly.tau_opt_s)},
                {"interval_steps", a.young_daly.interval_steps},
                {"first_order_goodput", 1.0 - work::first_order_waste(a.plan, a.young_daly.tau_opt_s)}}},
              {"best_interval_steps", a.sweep[a.best].interval_steps},
              {"sweep", std::move(sweep)},
              {"memory_peak_bytes", a.memory_peak_bytes},
              {"usable_hbm_bytes", a.usable_hbm_bytes},
              {"fits", a.step_fits()},
              {"notes", a.notes}};
}

}  // namespace stepsim::out
