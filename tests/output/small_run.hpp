#pragma once
// The small training step the output tests write files from (tests/output/data/small-train.toml).
#include <string>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "workloads/step/simulate.hpp"

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

}  // namespace stepsim::test
