// Benchmark: `stepsim run` on the bundled large training examples, end to end (load, build the
// topology and step graph, simulate, analyse).
#include <chrono>
#include <sys/resource.h>

#include "scenarios/catalog.hpp"
#include "scenarios/data_dir.hpp"
#include "scenarios/scenario.hpp"
#include "tools/bench.hpp"
#include "workloads/simulate.hpp"

namespace stepsim::cli {
namespace {

BenchResult run_example(const char* name, const char* file) {
  const auto t0 = std::chrono::steady_clock::now();
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  const scen::Scenario s = scen::load_scenario(scen::data_dir() / "examples" / file, catalog);
  const work::Simulation sim = work::simulate(s.job);
  BenchResult r;
  r.name = name;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  r.peak_rss_bytes = static_cast<double>(u.ru_maxrss) * 1024.0;
  r.metrics = {{"gpus", sim.plan.world},
               {"simulated_ranks", static_cast<double>(sim.plan.ranks.size())},
               {"ops", static_cast<double>(sim.plan.graph.op_count())},
               {"events", static_cast<double>(sim.run.stats.events)},
               {"simulated_step_s", sim.metrics.step_time_s}};
  r.note = std::string(file) + " (peak RSS is the process's: run the case alone for its own)";
  return r;
}

}  // namespace

BenchResult bench_run_gpt3_1024() { return run_example("run_gpt3_175b_1024", "gpt3-175b-1024xa100.toml"); }
BenchResult bench_run_llama405b_16k() {
  return run_example("run_llama405b_16384", "llama3.1-405b-16384xh100.toml");
}

}  // namespace stepsim::cli
