#include "output/validate_view.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/format.hpp"
#include "output/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * x);
  return buf;
}

std::string abs_pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

Json group_json(const scen::GroupSummary& g) {
  return Json{{"cases", g.cases}, {"mape", g.mape}, {"max_abs_error", g.max_abs_error}, {"mean_error", g.mean_error}};
}

}  // namespace

std::string validate_json_text(const scen::ValidationReport& r) {
  Json cases = Json::array();
  for (const auto& c : r.cases)
    cases.push_back({{"id", c.id},
                     {"group", c.group},
                     {"file", c.file},
                     {"predicted_step_s", c.predicted_step_s},
                     {"measured_step_s", c.measured_step_s},
                     {"error", c.error},
                     {"bottleneck", c.bottleneck},
                     {"estimate_step_s", c.estimate_step_s}});
  Json mape = Json::object(), groups = Json::object();
  for (const auto& [name, g] : r.groups) {
    mape[name] = g.mape;
    groups[name] = group_json(g);
  }
  Json j{{"cases", std::move(cases)}, {"mape", std::move(mape)}, {"groups", std::move(groups)},
         {"overall", group_json(r.overall)}};
  return j.dump(2) + "\n";
}

std::string validate_table(const scen::ValidationReport& r) {
  TextTable t({"case", "group", "measured", "predicted", "error", "estimate", "bottleneck"},
              {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::left});
  for (const auto& c : r.cases)
    t.add_row({c.id, c.group, format_seconds(c.measured_step_s), format_seconds(c.predicted_step_s), pct(c.error),
               format_seconds(c.estimate_step_s), c.bottleneck});
  std::string out = t.render() + "\n";
  TextTable g({"group", "cases", "MAPE", "max |error|", "mean error"});
  for (const auto& [name, s] : r.groups)
    g.add_row({name, std::to_string(s.cases), abs_pct(s.mape), abs_pct(s.max_abs_error), pct(s.mean_error)});
  g.add_row({"all", std::to_string(r.overall.cases), abs_pct(r.overall.mape), abs_pct(r.overall.max_abs_error),
             pct(r.overall.mean_error)});
  return out + g.render();
}

}  // namespace stepsim::out
