// The report of a run with [variability] and several steps: the step-time distribution (a bar per
// step, the nominal step, p50 and p99 marked) and the slowness map (a cell per GPU, the slowest
// outlined); a run of one step without variability has neither.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "output/common/svg.hpp"
#include "output/report/report_html.hpp"
#include "tests/output/small_run.hpp"

using namespace stepsim;

namespace report_variability_test_detail {

std::string varied_page(const test::SmallRun& run) {
  return out::report_html(run.scenario.job, run.sim, {"small test step", "h100-sxm", "tiny"},
                          test::builtin_catalog().gpus(), "test");
}

/// The <svg> element with id `id`, whole.
std::string svg_element(const std::string& html, const std::string& id) {
  const auto from = html.find("<svg id=\"" + id + "\"");
  REQUIRE(from != std::string::npos);
  const auto to = html.find("</svg>", from);
  REQUIRE(to != std::string::npos);
  return html.substr(from, to - from);
}

std::ptrdiff_t chart_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

}  // namespace report_variability_test_detail

using namespace report_variability_test_detail;

TEST_CASE("report: the step-time distribution and the slowness map of a run with variability", "[report]") {
  const auto run = test::small_varied_run(7, topo::LinkAccounting::off);
  const std::string h = varied_page(run);
  const work::StepDistribution& d = run.sim.steps;

  // 7 steps, fewer than the chart's 1,000 bars: one bar per step, the slowest one red.
  const std::string steps = svg_element(h, "step-times");
  CHECK(chart_matches(steps, "class=\"step-bar\"") == 7);
  CHECK(chart_matches(steps, "fill=\"#e15759\" class=\"step-bar\"><title>step " +
                                 std::to_string(d.slowest_step) + ":[^<]*\\(slowest\\)") == 1);
  for (const char* mark : {">nominal ", ">p50 ", ">p99 "}) CHECK(steps.find(mark) != std::string::npos);

  // 16 GPUs (4 nodes x 4 GPUs): 16 cells, one outline on the GPU with the largest factor. GPU 5 is
  // named 1.2 x its draw, and a 2% spread puts no other GPU near 1.2 (that would be 10 sd out).
  const std::string map = svg_element(h, "slowness-map");
  CHECK(chart_matches(map, "class=\"gpu-cell\"") == 16);
  CHECK(chart_matches(map, "class=\"slowest\"") == 1);
  const auto& f = d.gpu_factors;
  REQUIRE(f.size() == 16);
  CHECK(std::max_element(f.begin(), f.end()) - f.begin() == 5);
  CHECK(map.find("slowest: gpu5 on node 1") != std::string::npos);
  CHECK(map.find("<title>gpu5, node 1: x" + out::svg::num(f[5], 3) + "; waits ") != std::string::npos);
  // The sections come after the breakdown, in the page's order.
  CHECK(h.find("id=\"s-breakdown\"") < h.find("id=\"s-step-times\""));
  CHECK(h.find("id=\"s-step-times\"") < h.find("id=\"s-slowness\""));
}

TEST_CASE("report: one step without variability has no distribution and no map", "[report]") {
  const auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string h = varied_page(run);
  CHECK(h.find("<svg id=\"step-times\"") == std::string::npos);
  CHECK(h.find("<svg id=\"slowness-map\"") == std::string::npos);
}
