// The HTML report: one self-contained page (no scripts, nothing fetched) with the headline figures
// and every chart, its numbers those of the run; identical runs give identical bytes. Rendering
// in a real browser is tested by tests/scripts/outputs.
#include "output/report/report_html.hpp"

#include <catch2/catch.hpp>

#include <regex>

#include "output/run/run_figures.hpp"
#include "tests/output/small_run.hpp"

using namespace stepsim;

namespace {

std::string page(const test::SmallRun& run) {
  return out::report_html(run.scenario.job, run.sim, {"small test step", "h100-sxm", "tiny"},
                          test::builtin_catalog().gpus(), "test");
}

/// The data-value attribute of the element with id `id`.
double data_value(const std::string& html, const std::string& id) {
  std::smatch m;
  const std::regex re("id=\"" + id + "\" data-value=\"([^\"]+)\"");
  REQUIRE(std::regex_search(html, m, re));
  return std::stod(m[1].str());
}

}  // namespace

TEST_CASE("report: headline figures and every chart", "[report]") {
  const auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string h = page(run);
  const out::RunFigures f = out::run_figures(run.scenario.job, run.sim);
  // Printed shortest round-trip, so they read back exactly.
  CHECK(data_value(h, "hl-step-time") == f.step_time_s);
  CHECK(data_value(h, "hl-tokens") == f.tokens_per_s);
  CHECK(data_value(h, "hl-mfu") == f.mfu);
  CHECK(data_value(h, "hl-memory") == f.peak_bytes);
  CHECK(data_value(h, "hl-cost") == f.per_million_tokens);
  // The bottleneck card names the verdict's first entry (the breakdown's largest).
  CHECK(h.find("<div class=\"v\">" + f.verdict.primary.label + "</div>") != std::string::npos);
  CHECK(data_value(h, "hl-bottleneck") == f.verdict.primary_share);
  CHECK(h.find("of the " + f.mfu_peak + " dense peak") != std::string::npos);
  for (const char* id : {"breakdown", "gantt", "roofline", "memory", "cost"})
    CHECK(h.find(std::string("<svg id=\"") + id + "\"") != std::string::npos);
  CHECK(h.find("id=\"cost-table\"") != std::string::npos);
  // The roofline places each op class that ran: this step has GEMMs, attention and element-wise.
  CHECK(std::regex_search(h, std::regex("<circle[^>]*class=\"op-class\"><title>gemm")));
  CHECK(std::regex_search(h, std::regex("<circle[^>]*class=\"op-class\"><title>elementwise")));
  // The catalog's GPUs all appear in the cost comparison.
  for (const auto& g : test::builtin_catalog().gpus())
    if (g.price_per_hour > 0) CHECK(h.find("<td>" + g.id + "</td>") != std::string::npos);
}

TEST_CASE("report: self-contained and deterministic", "[report]") {
  const auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string h = page(a);
  CHECK(h == page(b));
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find("<link") == std::string::npos);
  CHECK(h.find("url(") == std::string::npos);
  // The only URL is the SVG namespace name, which browsers never fetch.
  std::string rest = std::regex_replace(h, std::regex("xmlns=\"http://www.w3.org/2000/svg\""), "");
  CHECK(rest.find("http") == std::string::npos);
  CHECK(h.size() < 200'000);
}

TEST_CASE("report: a banner above the figures says whether the step fits", "[report]") {
  auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string fits = page(run);
  const auto banner =
      fits.find("<p class=\"banner good\" id=\"feasibility\" data-feasible=\"true\">Memory fits: ");
  REQUIRE(banner != std::string::npos);
  CHECK(banner < fits.find("id=\"hl-step-time\""));
  CHECK(fits.find("not achievable") == std::string::npos);
  // Usable HBM cut to half the peak: the banner turns red and the rates are marked.
  run.sim.usable_hbm = run.sim.report.ranks[run.sim.report.peak_rank].memory.peak / 2.0;
  run.sim.fits = false;
  const std::string over = page(run);
  const auto bad =
      over.find("<p class=\"banner bad\" id=\"feasibility\" data-feasible=\"false\">Memory DOES NOT FIT");
  REQUIRE(bad != std::string::npos);
  CHECK(bad < over.find("id=\"hl-step-time\""));
  CHECK(std::regex_search(over, std::regex("class=\"figure bad\" id=\"hl-step-time\"[^\n]*not achievable")));
  CHECK(std::regex_search(over, std::regex("class=\"figure bad\" id=\"hl-tokens\"[^\n]*not achievable")));
  CHECK(std::regex_search(over, std::regex("class=\"figure bad\" id=\"hl-cost\"[^\n]*not achievable")));
}

TEST_CASE("report: the subtitle counts micro-batches in the singular for one", "[report]") {
  auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  // Global batch 16 / (dp 4 x micro-batch 1) = 4 micro-batches per pipeline.
  CHECK(page(run).find(", 4 micro-batches per step") != std::string::npos);
  run.sim.plan.microbatches = 1;
  CHECK(page(run).find(", 1 micro-batch per step") != std::string::npos);
}

TEST_CASE("report: the validated card shows the class's record, or that the run is unchecked", "[report]") {
  const auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  CHECK(page(run).find("hl-validated") == std::string::npos);  // not looked up: no card
  const scen::AccuracyClass cls{"h100-sxm", "train", false, "16-bit", "under 10B"};
  out::RunLabels labels{"small", "h100-sxm", "llama"};
  labels.validated =
      scen::AccuracyMatch{cls, scen::AccuracyBand{cls, 2, -0.1, -0.15, -0.05, 0.1, {"g"}, {"a", "b"}}, {}};
  const std::string h = out::report_html(run.scenario.job, run.sim, labels, {}, "test");
  CHECK(data_value(h, "hl-validated") == -0.1);
  CHECK(h.find("<div class=\"v\">-10.0%</div>") != std::string::npos);
  CHECK(h.find("(mean 10.0% below); erring as they did") != std::string::npos);
  labels.validated = scen::AccuracyMatch{cls, std::nullopt, {}};
  const std::string none = out::report_html(run.scenario.job, run.sim, labels, {}, "test");
  CHECK(none.find("class=\"figure bad\" id=\"hl-validated\"") != std::string::npos);
  CHECK(none.find("<div class=\"v\">unchecked</div>") != std::string::npos);
}
