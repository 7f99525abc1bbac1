#include "output/views/validate_view.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string validate_pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * x);
  return buf;
}

std::string abs_pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

/// A figure over the simulated cases, or null when there are none.
Json figure(const scen::GroupSummary& g, double x) {
  return g.cases > 0 ? Json(x) : Json(nullptr);
}

Json group_json(const scen::GroupSummary& g) {
  return Json{{"cases", g.cases},
              {"not_simulated", g.not_simulated},
              {"mape", figure(g, g.mape)},
              {"max_abs_error", figure(g, g.max_abs_error)},
              {"mean_error", figure(g, g.mean_error)}};
}

Json case_json(const scen::ValidationCase& c) {
  Json j{{"id", c.id}, {"group", c.group}, {"file", c.file}, {"measured_step_s", c.measured_step_s}};
  if (!c.simulated()) {
    j["not_simulated"] = c.not_simulated;
    if (!c.load_error.empty()) j["load_error"] = c.load_error;
    return j;
  }
  j["predicted_step_s"] = c.predicted_step_s;
  j["error"] = c.error;
  j["bottleneck"] = c.bottleneck;
  j["estimate_step_s"] = c.estimate_step_s;
  if (c.kernel_busy_s > 0.0) {
    j["kernel_busy_s"] = c.kernel_busy_s;
    j["host_busy_s"] = c.host_busy_s;
  }
  if (c.usable_hbm_bytes > 0.0) {
    j["memory_peak_bytes"] = c.memory_peak_bytes;
    j["usable_hbm_bytes"] = c.usable_hbm_bytes;
    j["predicted_to_fit"] = c.predicted_to_fit();
  }
  return j;
}

void add_group_row(TextTable& t, const std::string& name, const scen::GroupSummary& s) {
  const bool any = s.cases > 0;
  t.add_row({name, std::to_string(s.cases), std::to_string(s.not_simulated), any ? abs_pct(s.mape) : "-",
             any ? abs_pct(s.max_abs_error) : "-", any ? validate_pct(s.mean_error) : "-"});
}

}  // namespace

std::string validate_json_text(const scen::ValidationReport& r) {
  Json cases = Json::array();
  for (const auto& c : r.cases) cases.push_back(case_json(c));
  Json mape = Json::object(), groups = Json::object();
  for (const auto& [name, g] : r.groups) {
    mape[name] = figure(g, g.mape);
    groups[name] = group_json(g);
  }
  Json j{{"cases", std::move(cases)},
         {"mape", std::move(mape)},
         {"groups", std::move(groups)},
         {"overall", group_json(r.overall)}};
  return j.dump(2) + "\n";
}

std::string validate_table(const scen::ValidationReport& r) {
  TextTable t(
      {"case", "group", "measured", "predicted", "error", "estimate", "bottleneck"},
      {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::left});
  std::string skipped, overfull, over_host, over_kernels;
  for (const auto& c : r.cases) {
    if (!c.simulated()) {
      t.add_row({c.id, c.group, format_seconds(c.measured_step_s), "-", "-", "-", "not simulated"});
      skipped += "  " + c.id + ": " + c.not_simulated + "\n";
      if (!c.load_error.empty()) skipped += "    stepsim refuses it: " + c.load_error + "\n";
      continue;
    }
    const bool fits = c.predicted_to_fit();
    std::string marks = fits ? "" : " [m]";
    // A lower bound the measurement refutes: its mark, and the figure against the measured step.
    const auto refuted = [&](bool over, const char* mark, const char* what, double seconds,
                             std::string& list) {
      if (!over) return;
      marks += mark;
      list += "  " + c.id + ": " + what + " " + format_seconds(seconds) + " against " +
              format_seconds(c.measured_step_s) + " measured\n";
    };
    refuted(c.host_exceeds_measured(), " [h]", "host", c.host_busy_s, over_host);
    refuted(c.kernels_exceed_measured(), " [k]", "kernels", c.kernel_busy_s, over_kernels);
    t.add_row({c.id, c.group, format_seconds(c.measured_step_s), format_seconds(c.predicted_step_s),
               validate_pct(c.error), format_seconds(c.estimate_step_s), c.bottleneck + marks});
    if (!fits)
      overfull += "  " + c.id + ": peak " + format_bytes(c.memory_peak_bytes) + " of " +
                  format_bytes(c.usable_hbm_bytes) + " usable\n";
  }
  std::string out = t.render() + "\n";
  if (!overfull.empty())
    out +=
        "[m] stepsim's memory model does not fit these cases, which ran (an error of the memory model; the\n"
        "step time is the configuration's as measured):\n" +
        overfull + "\n";
  if (!over_host.empty())
    out +=
        "[h] stepsim's host work alone (one GPU's launches and framework code, as priced) takes longer than\n"
        "these measured steps, so it is overpriced for them, whatever the rest of the model does:\n" +
        over_host + "\n";
  if (!over_kernels.empty())
    out +=
        "[k] the kernels of stepsim's busiest GPU alone take longer than these measured steps, so they are\n"
        "overpriced for them, whatever the rest of the model does:\n" +
        over_kernels + "\n";
  if (!skipped.empty()) out += "Not simulated (in no error figure):\n" + skipped + "\n";
  TextTable g({"group", "cases", "not simulated", "MAPE", "max |error|", "mean error"});
  for (const auto& [name, s] : r.groups) add_group_row(g, name, s);
  add_group_row(g, "all", r.overall);
  return out + g.render();
}

}  // namespace stepsim::out
