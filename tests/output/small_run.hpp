#pragma once
// The small training step the output tests write files from (tests/output/data/small-train.toml).
#include <string>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::test {

struct SmallRun {
  scen::Scenario scenario;
  work::Simulation sim;
};

inline work::SimulateOptions small_options(work::RankMode ranks, topo::LinkAccounting links) {
  work::SimulateOptions o;
  o.ranks = ranks;
  o.links = links;
  return o;
}

/// 16 H100 (4 nodes), TP2 x PP2 x DP4, simulated with a link timeline.
inline SmallRun small_run(work::RankMode ranks = work::RankMode::representative,
                          topo::LinkAccounting links = topo::LinkAccounting::timeline) {
  scen::Scenario s = scen::load_scenario(std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml",
                                         builtin_catalog());
  work::Simulation sim = work::simulate(s.job, small_options(ranks, links));
  return SmallRun{std::move(s), std::move(sim)};
}

/// The small step with [variability] (GPU 5 20% slow, a 2% part-to-part spread, 5% kernel jitter,
/// seed 11), every GPU simulated, `steps` steps.
inline SmallRun small_varied_run(int steps, topo::LinkAccounting links = topo::LinkAccounting::timeline) {
  scen::Scenario s = scen::load_scenario(
      std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml", builtin_catalog());
  s.job.variability.seed = 11;
  s.job.variability.slow_gpus = {{5, 1.2}};
  s.job.variability.gpu_speed_sd = 0.02;
  s.job.variability.kernel_jitter_cv = 0.05;
  work::SimulateOptions o = small_options(work::RankMode::all, links);
  o.steps = steps;
  work::Simulation sim = work::simulate(s.job, o);
  return SmallRun{std::move(s), std::move(sim)};
}

}  // namespace stepsim::test
