// Benchmark: continuous-batching serving of 10,000 requests on the bundled serving example (issue:
// 10,000 requests in 5 s or less on one core): the decode/prefill step grid the iterations are priced
// from, then the scheduler.
#include <chrono>

#include "scenarios/catalog.hpp"
#include "scenarios/data_dir.hpp"
#include "scenarios/scenario.hpp"
#include "tools/bench.hpp"
#include "workloads/serving/serve.hpp"

namespace stepsim::cli {

BenchResult bench_serve_10k() {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  scen::LoadOptions options;
  options.set = {"serving.requests=10000"};
  const scen::Scenario s =
      scen::load_scenario(scen::data_dir() / "examples" / "llama3.1-70b-serve-8xh100.toml", catalog, options);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const work::ServeCostModel cost(s.job, *s.serve);
  const auto t1 = Clock::now();
  work::ServingConfig config = s.serve->config;
  config.kv_capacity_tokens = cost.kv_capacity_tokens();
  config.replicas = s.job.parallel.dp;
  const work::ServingResult r = work::simulate_serving(
      s.serve->requests, config, [&cost](const work::IterationShape& x) { return cost(x); });
  const auto t2 = Clock::now();
  BenchResult b;
  b.name = "serve_10k";
  b.wall_s = std::chrono::duration<double>(t2 - t0).count();
  b.metrics = {{"requests", static_cast<double>(r.summary.requests)},
               {"iterations", static_cast<double>(r.summary.iterations)},
               {"step_grid_s", std::chrono::duration<double>(t1 - t0).count()},
               {"steps_simulated", static_cast<double>(cost.simulated_steps())},
               {"scheduler_s", std::chrono::duration<double>(t2 - t1).count()},
               {"simulated_duration_s", r.summary.duration_s}};
  b.note = "llama3.1-70b-serve-8xh100.toml, 10,000 Poisson requests, one thread";
  return b;
}

}  // namespace stepsim::cli
