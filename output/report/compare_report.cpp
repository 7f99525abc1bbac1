#include "output/report/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "output/common/svg.hpp"
#include "output/report/report_charts.hpp"
#include "output/report/report_html.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {

std::string compare_html(std::span<const CompareEntry> entries, std::span<const CompareRow> rows,
                         std::string_view version) {
  std::string h = html_head("stepsim compare");
  h += fmt::format(
      "<h1>stepsim compare: {} scenarios</h1>\n<p class=\"sub\">The best value of each row among the "
      "scenarios that fit in memory is marked; for memory, the most headroom.</p>\n",
      entries.size());
  h += "<table id=\"compare-table\"><thead><tr><th></th>";
  for (const auto& e : entries)
    h += fmt::format("<th>{}<br><span class=\"note\">{} &times; {}, {}</span>{}</th>", svg::esc(e.name),
                     e.sim->plan.world, svg::esc(e.job->cluster.gpu.id), svg::esc(parallel_layout(*e.job)),
                     e.sim->fits ? "" : "<br><span class=\"infeasible\">does not fit in memory</span>");
  h += "</tr></thead><tbody>\n";
  for (const auto& r : rows) {
    h += fmt::format("<tr data-key=\"{}\"><td>{}</td>", svg::esc(r.key), svg::esc(r.label));
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      const bool win = std::count(r.winners.begin(), r.winners.end(), i) > 0;
      h += fmt::format("<td{}>{}</td>", win ? " class=\"win\"" : "",
                       svg::esc(r.cells[i]) + (win ? " &#9733;" : ""));
    }
    h += "</tr>\n";
  }
  h += "</tbody></table>\n<h2>Where the time goes</h2>\n";
  std::vector<charts::BreakdownBar> bars;
  for (const auto& e : entries) bars.push_back({e.name, e.sim->report.mean});
  h += charts::breakdown_chart(bars, "compare-breakdown");
  h += "<p class=\"note\">Mean over each scenario's simulated ranks, on one time scale.</p>\n";
  return h + html_foot(version);
}

}  // namespace stepsim::out
