// `stepsim compare`'s rows: winners per row, ties, and memory verdicts.
#include "output/views/compare_view.hpp"
#include "output/report/compare_report.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "output/common/svg.hpp"
#include "tests/output/small_run.hpp"

using namespace stepsim;

namespace {

const out::CompareRow& row(const std::vector<out::CompareRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return rows.front();
}

}  // namespace

TEST_CASE("compare: a cheaper GPU-hour wins only the cost row", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  // Same step, B's GPUs cost twice as much per hour: $ per million tokens doubles (cluster $/h
  // over tokens/s), every other figure is identical.
  b.scenario.job.cluster.gpu.price_per_hour *= 2.0;
  const std::vector<out::CompareEntry> e{{"A", "a.toml", &a.scenario.job, &a.sim},
                                         {"B", "b.toml", &b.scenario.job, &b.sim}};
  const auto rows = out::compare_rows(e);
  const auto& cost = row(rows, "per_million_tokens");
  CHECK(cost.values[1] == Approx(2.0 * cost.values[0]));
  CHECK(cost.winners == std::vector<std::size_t>{0});
  // Ties: nobody wins.
  for (const char* k : {"step_time_s", "tokens_per_s", "mfu", "memory_fraction"})
    CHECK(row(rows, k).winners.empty());
  CHECK(row(rows, "bottleneck").winners.empty());
  // Exposed communication per group that any scenario has: this step exposes some DP traffic.
  // The row carries the step report's exposed DP time, the same for both.
  const double dp_s = a.sim.report.mean.exposed_comm_s[static_cast<std::size_t>(work::ParallelDim::dp)];
  CHECK(dp_s > 0.0);
  CHECK(row(rows, "exposed_comm_s.dp").values == std::vector<double>{dp_s, dp_s});
  const auto j = out::compare_json(e, rows);
  CHECK(j["rows"].back()["winners"].dump() == R"(["A"])");
  CHECK(out::compare_table(e, rows).find("$") != std::string::npos);
}

TEST_CASE("compare: a scenario that does not fit cannot win the memory row", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto c = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  // B: twice the capacity (half the fraction, fits); C: a capacity below the peak (does not fit,
  // even though its fraction is not the lowest it must not win).
  b.sim.usable_hbm *= 2.0;
  c.sim.usable_hbm = a.sim.report.ranks[a.sim.report.peak_rank].memory.peak / 2.0;
  c.sim.fits = false;
  const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                         {"B", "", &b.scenario.job, &b.sim},
                                         {"C", "", &c.scenario.job, &c.sim}};
  const auto rows = out::compare_rows(e);
  const auto& mem = row(rows, "memory_fraction");
  CHECK(mem.values[1] == Approx(mem.values[0] / 2.0));
  CHECK(mem.values[2] == Approx(2.0));
  CHECK(mem.winners == std::vector<std::size_t>{1});
  CHECK(mem.cells[2].rfind("DOES NOT FIT", 0) == 0);
  const std::string html = out::compare_html(e, rows, "test");
  CHECK(html.find("id=\"compare-table\"") != std::string::npos);
  CHECK(html.find("<svg id=\"compare-breakdown\"") != std::string::npos);
}

TEST_CASE("compare: a scenario that does not fit wins no row and its rates say so", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto c = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  // B is 10% faster than A; C would be best in every row (twice as fast, no exposed communication,
  // most headroom) but does not fit.
  b.sim.metrics.step_time_s *= 0.9;
  b.sim.metrics.tokens_per_s /= 0.9;
  c.sim.metrics.step_time_s /= 2.0;
  c.sim.metrics.tokens_per_s *= 2.0;
  c.sim.metrics.mfu *= 2.0;
  c.sim.report.mean.exposed_comm_s = {};
  c.sim.usable_hbm *= 4.0;
  c.sim.fits = false;
  const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                         {"B", "", &b.scenario.job, &b.sim},
                                         {"C", "", &c.scenario.job, &c.sim}};
  const auto rows = out::compare_rows(e);
  for (const auto& r : rows) {
    INFO(r.key);
    CHECK(std::count(r.winners.begin(), r.winners.end(), std::size_t{2}) == 0);
  }
  CHECK(row(rows, "step_time_s").winners == std::vector<std::size_t>{1});
  CHECK(row(rows, "tokens_per_s").winners == std::vector<std::size_t>{1});
  // $ per million tokens = cluster $/h / 3600 / tokens/s: B's is 0.9 x A's.
  CHECK(row(rows, "per_million_tokens").winners == std::vector<std::size_t>{1});
  // A and B share the MFU (only C's was changed): a tie among those that fit wins nothing.
  CHECK(row(rows, "mfu").winners.empty());
  for (const char* k : {"step_time_s", "tokens_per_s", "mfu", "per_million_tokens"}) {
    INFO(k);
    CHECK(row(rows, k).cells[2].ends_with("(not achievable)"));
    CHECK_FALSE(row(rows, k).cells[0].ends_with("(not achievable)"));
  }
  // Before any rate: what differs, then the memory verdict.
  CHECK(rows[0].key == "differs");
  CHECK(rows[1].key == "memory_fraction");
  CHECK(rows[1].cells[2].rfind("DOES NOT FIT", 0) == 0);
  const auto j = out::compare_json(e, rows);
  CHECK(j["scenarios"][2]["feasible"] == false);
  CHECK(j["scenarios"][0]["feasible"] == true);
  const std::string table = out::compare_table(e, rows);
  CHECK(table.find("among the scenarios that fit in memory") != std::string::npos);
  CHECK(out::compare_html(e, rows, "test").find("does not fit in memory</span>") != std::string::npos);
}

TEST_CASE("compare: one scenario that fits wins the rows it has a value in", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  b.sim.metrics.step_time_s /= 2.0;  // faster, but does not fit
  b.sim.fits = false;
  const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                         {"B", "", &b.scenario.job, &b.sim}};
  const auto rows = out::compare_rows(e);
  CHECK(row(rows, "step_time_s").winners == std::vector<std::size_t>{0});
}

TEST_CASE("compare: a row lists what differs between the scenarios, and only that", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  SECTION("identical scenarios") {
    const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                           {"B", "", &b.scenario.job, &b.sim}};
    const auto rows = out::compare_rows(e);
    CHECK(row(rows, "differs").cells == std::vector<std::string>{"same settings", "same settings"});
  }
  SECTION("another NIC and GPU price") {
    // The scenario's 400 Gb/s NIC (50 GB/s) against 800 Gb/s (100 GB/s); $/GPU-hour doubled.
    b.scenario.job.cluster.fabric.nic_bw = units::bytes_per_s(100e9);
    b.scenario.job.cluster.gpu.price_per_hour *= 2.0;
    const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                           {"B", "", &b.scenario.job, &b.sim}};
    const auto rows = out::compare_rows(e);
    const auto& d = row(rows, "differs");
    const std::string price = out::svg::num(a.scenario.job.cluster.gpu.price_per_hour, 2);
    const std::string price2 = out::svg::num(2.0 * a.scenario.job.cluster.gpu.price_per_hour, 2);
    CHECK(d.cells[0] == "NIC 400 Gb/s, $" + price + "/GPU-h");
    CHECK(d.cells[1] == "NIC 800 Gb/s, $" + price2 + "/GPU-h");
    CHECK(d.winners.empty());
  }
}

TEST_CASE("compare: MFU cells say which peak, the bottleneck row the verdict", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  b.scenario.job.precision.compute = topo::Precision::fp8;  // read as an FP8 run's figures
  const std::vector<out::CompareEntry> e{{"A", "", &a.scenario.job, &a.sim},
                                         {"B", "", &b.scenario.job, &b.sim}};
  const auto rows = out::compare_rows(e);
  CHECK(row(rows, "mfu").cells[0].ends_with("% of BF16 peak"));
  CHECK(row(rows, "mfu").cells[1].ends_with("% of FP8 peak"));
  const auto v = work::step_verdict(a.sim.report);
  CHECK(row(rows, "bottleneck").cells[0].rfind(v.primary.label + " ", 0) == 0);
}

TEST_CASE("compare: the validated row sets each class's record side by side, and wins nothing", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::vector<out::CompareEntry> plain{{"A", "", &a.scenario.job, &a.sim},
                                             {"B", "", &b.scenario.job, &b.sim}};
  // Without a record (the accuracy table not looked up) there is no row.
  for (const auto& r : out::compare_rows(plain)) CHECK(r.key != "validated_mean_error");

  const scen::AccuracyClass h100{"h100-sxm", "train", false, "16-bit", "under 10B"};
  const scen::AccuracyBand band{h100, 3, -0.11, -0.13, 0.01, 0.11, {"g"}, {"x", "y", "z"}};
  std::vector<out::CompareEntry> e = plain;
  e[0].validated = scen::AccuracyMatch{h100, band, {}};
  e[1].validated = scen::AccuracyMatch{{"gb200", "train", false, "16-bit", "under 10B"}, std::nullopt, {}};
  const auto rows = out::compare_rows(e);
  const auto& v = row(rows, "validated_mean_error");
  REQUIRE(v.values.size() == 2);
  CHECK(v.values[0] == Approx(-0.11));
  CHECK(std::isnan(v.values[1]));
  CHECK(v.cells[0] == "mean 11.0% below (3 runs, 13.0% below to 1.0% above)");
  CHECK(v.cells[1] == "no published run");
  CHECK(v.winners.empty());
  CHECK(out::compare_table(e, rows).find("ratio between them carries that difference") != std::string::npos);
}

TEST_CASE("compare: the host's busy time is a row where a scenario launches eagerly", "[compare]") {
  auto a = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  auto b = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::vector<out::CompareEntry> e{{"A", "a.toml", &a.scenario.job, &a.sim},
                                         {"B", "b.toml", &b.scenario.job, &b.sim}};
  // Without host work anywhere (CUDA graphs, engines) there is no row.
  for (auto* s : {&a, &b})
    for (auto& r : s->sim.report.ranks) r.host_busy_s = 0.0;
  a.sim.report.host_busy_s = b.sim.report.host_busy_s = 0.0;
  const auto none = out::compare_rows(e);
  CHECK(std::none_of(none.begin(), none.end(),
                     [](const out::CompareRow& r) { return r.key == "host_busy_s"; }));
  // A's busiest host at 30% of the step, B's at 60% (a slower host, say): the row holds each
  // busiest rank's figure and the lower wins.
  a.sim.report.ranks.front().host_busy_s = 0.3 * a.sim.metrics.step_time_s;
  b.sim.report.ranks.back().host_busy_s = 0.6 * b.sim.metrics.step_time_s;
  a.sim.report.host_busy_s = a.sim.report.ranks.front().host_busy_s;  // the largest, as analyse_step keeps it
  b.sim.report.host_busy_s = b.sim.report.ranks.back().host_busy_s;
  const auto rows = out::compare_rows(e);
  const auto& host = row(rows, "host_busy_s");
  CHECK(host.values[0] == Approx(0.3 * a.sim.metrics.step_time_s));
  CHECK(host.values[1] == Approx(0.6 * b.sim.metrics.step_time_s));
  CHECK(host.winners == std::vector<std::size_t>{0});
  CHECK_THAT(host.cells[1], Catch::Contains("of the step"));
}
