// `stepsim run`'s table and JSON: whether the step fits comes before any rate, a step that does not
// fit has its rates marked, and the verdict is the breakdown's largest entry and its second.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "output/common/format.hpp"
#include "output/run/run_figures.hpp"
#include "output/views/run_view.hpp"
#include "tests/output/small_run.hpp"

using namespace stepsim;

namespace {

const out::RunLabels kRunViewLabels{"small test step", "h100-sxm", "tiny"};

/// The small step with its usable HBM cut to half its peak, so that it does not fit.
test::SmallRun infeasible_small_run() {
  auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  run.sim.usable_hbm = run.sim.report.ranks[run.sim.report.peak_rank].memory.peak / 2.0;
  run.sim.fits = false;
  return run;
}

/// The table's line that starts with `label`.
std::string line_starting(const std::string& table, const std::string& label) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(label, 0) == 0) return line;
  FAIL("no line starting with `" << label << "` in\n" << table);
  return {};
}

}  // namespace

TEST_CASE("run table: the memory verdict comes before the first rate", "[run_view]") {
  const auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string t = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  const auto fits = t.find("memory      fits: peak ");
  REQUIRE(fits != std::string::npos);
  CHECK(fits < t.find("step time"));
  CHECK(t.find("not achievable") == std::string::npos);
  // Headroom = usable - peak, printed as format_bytes does.
  const out::RunFigures f = out::run_figures(run.scenario.job, run.sim);
  CHECK(f.headroom_bytes == Approx(f.capacity_bytes - f.peak_bytes));
  CHECK(line_starting(t, "memory ").find(", " + out::format_bytes(f.headroom_bytes) + " headroom") !=
        std::string::npos);
}

TEST_CASE("run table: a step that does not fit says so first and marks its rates", "[run_view]") {
  const auto run = infeasible_small_run();
  const std::string t = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  const auto verdict = t.find("memory      DOES NOT FIT: peak ");
  REQUIRE(verdict != std::string::npos);
  CHECK(verdict < t.find("step time"));
  // Over by peak - capacity = peak / 2.
  const out::RunFigures f = out::run_figures(run.scenario.job, run.sim);
  CHECK(f.headroom_bytes == Approx(-f.peak_bytes / 2.0));
  CHECK(line_starting(t, "memory ").find(out::format_bytes(f.peak_bytes / 2.0) + " over") !=
        std::string::npos);
  for (const char* label : {"step time", "tokens/s", "cost:"})
    CHECK(line_starting(t, label).find("[not achievable: does not fit in memory]") != std::string::npos);
}

TEST_CASE("run JSON: feasible and the headroom come before the step time", "[run_view]") {
  const auto fits = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const auto over = infeasible_small_run();
  const auto a = out::run_json(fits.scenario.job, fits.sim, kRunViewLabels);
  const auto b = out::run_json(over.scenario.job, over.sim, kRunViewLabels);
  CHECK(a["feasible"] == true);
  CHECK(b["feasible"] == false);
  // Headroom = usable capacity less the busiest rank's peak, from the simulation's own figures.
  const double peak = fits.sim.report.ranks[fits.sim.report.peak_rank].memory.peak.value();
  CHECK(a["memory_headroom_bytes"].get<double>() > 0.0);
  CHECK(a["memory_headroom_bytes"].get<double>() == fits.sim.usable_hbm.value() - peak);
  CHECK(b["memory_headroom_bytes"].get<double>() ==
        Approx(-b["memory"]["peak_bytes"].get<double>() / 2.0));  // capacity = peak / 2
  // Keys keep their order: feasibility is printed before any rate.
  const std::string text = b.dump();
  CHECK(text.find("\"feasible\"") < text.find("\"step_time_s\""));
  CHECK(text.find("\"memory_headroom_bytes\"") < text.find("\"tokens_per_s\""));
}

TEST_CASE("run table and JSON: the verdict is the breakdown's largest entry, then its second", "[run_view]") {
  const auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const auto j = out::run_json(run.scenario.job, run.sim, kRunViewLabels);
  // The largest and second-largest entries of the mean breakdown, found here by hand.
  const auto& b = run.sim.report.mean;
  std::vector<std::pair<double, std::string>> entries{{b.compute_s, "compute"},
                                                      {b.memory_bound_s, "memory_bound"},
                                                      {b.bubble_s, "bubble"},
                                                      {b.host_bound_s, "host_bound"}};
  for (const char* g : {"tp", "cp", "ep", "pp", "dp"})
    entries.push_back({j["breakdown"]["exposed_comm_s"][g].get<double>(), std::string("exposed_comm.") + g});
  std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  REQUIRE(entries[0].first > entries[1].first);  // no tie in this step, so the keys are unique
  CHECK(j["bottleneck"]["primary"]["key"] == entries[0].second);
  CHECK(j["bottleneck"]["primary"]["seconds"].get<double>() == entries[0].first);
  CHECK(j["bottleneck"]["primary"]["share"].get<double>() ==
        Approx(entries[0].first / run.sim.metrics.step_time_s));
  CHECK(j["bottleneck"]["secondary"]["seconds"].get<double>() == entries[1].first);
  // The table's line names the same entry, in the breakdown table's words.
  const std::string t = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  const std::string label = j["bottleneck"]["primary"]["label"];
  CHECK(line_starting(t, "bottleneck").rfind("bottleneck  " + label + " (", 0) == 0);
  CHECK(t.find(label + "  ") != std::string::npos);  // a row of the breakdown table
  // The critical path stays as supporting detail.
  CHECK(t.find("            critical path: ") != std::string::npos);
}

TEST_CASE("run table and JSON: MFU says which peak it divides by", "[run_view]") {
  auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const std::string t = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  // A BF16 step on H100: 989 TFLOP/s dense.
  CHECK(line_starting(t, "MFU / HFU").find("of the BF16 dense peak (989 TFLOP/s per GPU)") !=
        std::string::npos);
  CHECK(t.find("MFU against the BF16 dense peak") == std::string::npos);
  const auto j = out::run_json(run.scenario.job, run.sim, kRunViewLabels);
  CHECK(j["mfu_peak"]["precision"] == "BF16");
  CHECK(j["mfu_peak"]["flops_per_s"].get<double>() == run.scenario.job.cluster.gpu.bf16_peak.value());
  // The same figures read as an FP8 run: MFU divides by the FP8 peak (twice BF16's on H100), and the
  // table adds the BF16-peak figure, MFU x FP8 peak / BF16 peak.
  run.scenario.job.precision.compute = topo::Precision::fp8;
  const auto j8 = out::run_json(run.scenario.job, run.sim, kRunViewLabels);
  CHECK(j8["mfu_peak"]["precision"] == "FP8");
  CHECK(j8["mfu_peak"]["flops_per_s"].get<double>() == run.scenario.job.cluster.gpu.fp8_peak.value());
  const std::string t8 = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  CHECK(line_starting(t8, "MFU / HFU").find("of the FP8 dense peak") != std::string::npos);
  CHECK(t8.find("MFU against the BF16 dense peak (989 TFLOP/s): ") != std::string::npos);
}

TEST_CASE("run table: how busy the host is, a floor under the step, and what removes it", "[run_view]") {
  auto run = test::small_run(work::RankMode::representative, topo::LinkAccounting::off);
  const double step = run.sim.metrics.step_time_s;
  REQUIRE(step > 0.0);
  // A rank's host busy time, and the report's largest, as analyse_step keeps them.
  const auto host_busy = [&run](double seconds) {
    for (auto& r : run.sim.report.ranks) r.host_busy_s = 0.0;
    run.sim.report.ranks.front().host_busy_s = seconds;
    run.sim.report.host_busy_s = seconds;
  };
  host_busy(0.0);
  // A compute-bound critical path (the host does not pace this step yet).
  run.sim.report.critical_s.fill(0.0);
  run.sim.report.critical_s[static_cast<std::size_t>(topo::Resource::compute)] = step;
  // No host work simulated (CUDA graphs, or an engine's): no line.
  CHECK(out::run_table(run.scenario.job, run.sim, kRunViewLabels).find("\nhost ") == std::string::npos);
  // The busiest rank's host at 60% of the step: the line, its share, and (the host not yet pacing
  // the step) what faster kernels would not gain and what removes the launches.
  host_busy(0.6 * step);
  const std::string busy = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  const std::string line = line_starting(busy, "host ");
  CHECK_THAT(line, Catch::Contains(out::format_seconds(0.6 * step)) && Catch::Contains("(60.0%") &&
                       Catch::Contains("no faster kernel takes the step below it"));
  CHECK_THAT(busy, Catch::Contains("workload.cuda_graphs = true removes the launches"));
  // At 20% the floor is far below the step: the line alone.
  host_busy(0.2 * step);
  const std::string idle = out::run_table(run.scenario.job, run.sim, kRunViewLabels);
  CHECK_THAT(line_starting(idle, "host "), Catch::Contains("(20.0%"));
  CHECK(idle.find("removes the launches") == std::string::npos);
  // Where the host paces the step, the bottleneck's own line names the remedy: not said twice.
  host_busy(0.95 * step);
  run.sim.report.critical_s.fill(0.0);
  run.sim.report.critical_s[static_cast<std::size_t>(topo::Resource::host)] = step;
  CHECK(out::run_table(run.scenario.job, run.sim, kRunViewLabels).find("removes the launches") ==
        std::string::npos);
  host_busy(0.2 * step);
  // The JSON carries each rank's figure.
  const auto j = nlohmann::json::parse(out::run_json_text(run.scenario.job, run.sim, kRunViewLabels));
  CHECK(j["ranks"][0]["host_busy_s"].get<double>() == Approx(0.2 * step));
}
