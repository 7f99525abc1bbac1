// `stepsim compare`'s rows: winners per row, ties, and memory verdicts.
#include "output/compare_view.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

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
  CHECK(row(rows, "exposed_comm_s.dp").values[0] > 0.0);
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
  b.sim.capacity_bytes *= 2.0;
  c.sim.capacity_bytes = a.sim.report.ranks[a.sim.report.peak_rank].memory.peak_bytes / 2.0;
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
