// Benchmark: `stepsim run` on the bundled large training examples, end to end (load, build the
// topology and step graph, simulate, analyse).
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "scenarios/catalog.hpp"
#include "scenarios/data_dir.hpp"
#include "scenarios/scenario.hpp"
#include "sim/engine.hpp"
#include "tools/bench.hpp"
#include "topology/flow_network.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::cli {
namespace {

/// The engine alone on a simulated step's graph: a second run on a fresh network, its CPU seconds
/// (the graph and the transfer table already built and in memory; the run's own state fresh).
double engine_only_cpu_s(const work::Simulation& sim) {
  topo::FlowNetwork network(sim.transfers);
  sim::Engine engine(sim.plan.graph, &network);
  const double cpu0 = process_cpu_s();
  (void)engine.run();
  return process_cpu_s() - cpu0;
}

BenchResult run_example(const char* name, const char* file) {
  const auto t0 = std::chrono::steady_clock::now();
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  const scen::Scenario s = scen::load_scenario(scen::data_dir() / "examples" / file, catalog);
  const work::Simulation sim = work::simulate(s.job);
  BenchResult r;
  r.name = name;
  r.wall_s = seconds_since(t0);
  r.peak_rss_bytes = peak_rss_bytes();
  // The engine alone on the built step, best of three (a run of this size takes milliseconds).
  double engine_s = engine_only_cpu_s(sim);
  for (int i = 0; i < 2; ++i) engine_s = std::min(engine_s, engine_only_cpu_s(sim));
  const double events = static_cast<double>(sim.run.stats.events);
  r.metrics = {{"gpus", sim.plan.world},
               {"simulated_ranks", static_cast<double>(sim.plan.ranks.size())},
               {"ops", static_cast<double>(sim.plan.graph.op_count())},
               {"events", events},
               {"engine_events_per_cpu_s", engine_s > 0.0 ? events / engine_s : 0.0},
               {"simulated_step_s", sim.metrics.step_time_s}};
  r.note = std::string(file) +
           " (peak RSS is the process's: run the case alone for its own; engine_events_per_cpu_s: the "
           "engine alone, run again on the built graph, best of 3)";
  return r;
}

/// Bundled example `file` after `sets`, simulated with `options` as bench case `name`: the process
/// CPU seconds of the simulation (not of loading), and a result with the wall time of both and the
/// peak RSS, its metrics and note left to the case.
struct TimedRun {
  work::Simulation sim;
  double cpu_s = 0.0;
  BenchResult result;
  std::string sets;  ///< " KEY=VALUE" per override, for the note
};
TimedRun timed_run(const char* name, const char* file, const std::vector<std::string>& sets,
                   const work::SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  scen::LoadOptions load;
  load.set = sets;
  const scen::Scenario s = scen::load_scenario(scen::data_dir() / "examples" / file, catalog, load);
  const double cpu0 = process_cpu_s();
  TimedRun t{work::simulate(s.job, options), 0.0, {}, {}};
  t.cpu_s = process_cpu_s() - cpu0;
  t.result.name = name;
  t.result.wall_s = seconds_since(t0);
  t.result.peak_rss_bytes = peak_rss_bytes();
  for (const std::string& set : sets) t.sets += " " + set;
  return t;
}

/// `file` with every GPU simulated (`--ranks all`) after `sets`: the every-GPU costs issue 19
/// tracks (CPU seconds, events per second, microseconds and bytes per op).
BenchResult run_all_ranks(const char* name, const char* file, std::vector<std::string> sets) {
  work::SimulateOptions options;
  options.ranks = work::RankMode::all;
  const TimedRun t = timed_run(name, file, sets, options);
  const work::Simulation& sim = t.sim;
  const double cpu = t.cpu_s;
  BenchResult r = t.result;
  const double ops = static_cast<double>(sim.plan.graph.op_count());
  const double events = static_cast<double>(sim.run.stats.events);
  r.metrics = {{"gpus", sim.plan.world},
               {"simulated_ranks", static_cast<double>(sim.plan.ranks.size())},
               {"ops", ops},
               {"events", events},
               {"cpu_s", cpu},
               {"events_per_cpu_s", events / cpu},
               {"engine_events_per_cpu_s", events / engine_only_cpu_s(sim)},
               {"us_per_op", cpu / ops * 1e6},
               {"peak_rss_bytes_per_op", r.peak_rss_bytes / ops},
               {"simulated_step_s", sim.metrics.step_time_s}};
  r.note =
      std::string(file) + " --ranks all," + t.sets +
      " (cpu_s: build, simulate and analyse; engine_events_per_cpu_s: the engine alone, run again on the "
      "built graph)";
  return r;
}

/// `file` after `sets` with every GPU replayed over its representative step (`--ranks replay`),
/// `steps` times: cpu_s covers load-free work (build, representative run, replays, analysis).
BenchResult run_replay(const char* name, const char* file, std::vector<std::string> sets, int steps) {
  work::SimulateOptions options;
  options.replay = true;
  options.steps = steps;
  const TimedRun t = timed_run(name, file, sets, options);
  const work::Simulation& sim = t.sim;
  const double cpu = t.cpu_s;
  BenchResult r = t.result;
  const double copies = static_cast<double>(sim.steps.instances);
  r.metrics = {{"gpus", sim.plan.world},
               {"program_ops", static_cast<double>(sim.plan.graph.op_count())},
               {"steps", static_cast<double>(sim.steps.steps.size())},
               {"op_copies", copies},
               {"cpu_s", cpu},
               {"op_copies_per_cpu_s", copies / cpu},
               {"ns_per_op_copy", cpu / copies * 1e9},
               {"replay_bytes", static_cast<double>(sim.steps.replay_bytes)},
               {"replay_bytes_per_op_copy",
                static_cast<double>(sim.steps.replay_bytes) * sim.steps.steps.size() / copies},
               {"simulated_step_s", sim.metrics.step_time_s},
               {"mean_step_s", sim.steps.mean_s},
               {"p99_step_s", sim.steps.p99_s}};
  r.note = std::string(file) + " --ranks replay --steps " + std::to_string(steps) + "," + t.sets +
           " (cpu_s: build, representative run, replays and analysis; op copies: ops x GPUs x steps)";
  return r;
}

}  // namespace

BenchResult bench_replay_llama405b_16k() {
  return run_replay("replay_llama405b_16384", "llama3.1-405b-16384xh100.toml", {}, 1);
}
BenchResult bench_replay_llama405b_128k() {
  return run_replay("replay_llama405b_131072", "llama3.1-405b-16384xh100.toml",
                    {"hardware.nodes=16384", "parallelism.dp=1024", "workload.global_batch=16384"}, 1);
}
BenchResult bench_replay_gpt3_1024() {
  return run_replay("replay_gpt3_175b_1024", "gpt3-175b-1024xa100.toml", {}, 1);
}
BenchResult bench_replay_llama405b_16k_jitter() {
  return run_replay(
      "replay_llama405b_16384_jitter", "llama3.1-405b-16384xh100.toml",
      {"variability.kernel_jitter_cv=0.02", "variability.gpu_speed_sd=0.01", "variability.seed=7"}, 100);
}

BenchResult bench_replay_llama405b_16k_wander() {
  return run_replay(
      "replay_llama405b_16384_wander", "llama3.1-405b-16384xh100.toml",
      {"variability.clock_wander_cv=0.02", "variability.clock_wander_ms=20", "variability.seed=7"}, 10);
}

BenchResult bench_replay_llama405b_16k_degraded() {
  return run_replay("replay_llama405b_16384_degraded", "llama3.1-405b-16384xh100.toml",
                    {"variability.degraded_links=[{rank=4242,link=\"nic\",bandwidth=0.5}]"}, 1);
}

BenchResult bench_run_llama405b_128_all() {
  return run_all_ranks("run_llama405b_128_all", "llama3.1-405b-16384xh100.toml",
                       {"hardware.nodes=16", "parallelism.dp=1", "workload.global_batch=32"});
}
BenchResult bench_run_llama405b_1024_all() {
  return run_all_ranks("run_llama405b_1024_all", "llama3.1-405b-16384xh100.toml",
                       {"hardware.nodes=128", "parallelism.dp=8", "workload.global_batch=256"});
}

BenchResult bench_moe_imbalance() {
  // Every MoE scenario shipped (validation cases and examples) with moe.imbalance = 1.3: the
  // slowest case's wall time is the figure (issue: under 2 s each). An imbalanced router draws its
  // experts at random: the cases that run AutoModel's balanced round-robin gate switch to it.
  const auto t0 = std::chrono::steady_clock::now();
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  scen::LoadOptions options;
  options.set = {"moe.imbalance=1.3", "moe.routing=random"};
  double slowest = 0.0, cases = 0.0;
  std::string slowest_name;
  for (const char* dir : {"validation", "examples"}) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(scen::data_dir() / dir))
      if (e.path().extension() == ".toml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      scen::LoadOptions probe;
      probe.check_configuration = false;
      if (scen::load_scenario(f, catalog, probe).job.model.experts == 0) continue;
      const auto c0 = std::chrono::steady_clock::now();
      work::simulate(scen::load_scenario(f, catalog, options).job);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      cases += 1.0;
      if (s > slowest) slowest = s, slowest_name = f.filename().string();
    }
  }
  BenchResult r;
  r.name = "moe_imbalance";
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.metrics = {{"cases", cases}, {"slowest_case_s", slowest}};
  r.note = "slowest: " + slowest_name;
  return r;
}

BenchResult bench_run_gpt3_1024() {
  return run_example("run_gpt3_175b_1024", "gpt3-175b-1024xa100.toml");
}
BenchResult bench_run_llama405b_16k() {
  return run_example("run_llama405b_16384", "llama3.1-405b-16384xh100.toml");
}

}  // namespace stepsim::cli
