// The layout search's contract, checked against an independent walk of its space: every layout
// whose step bound is below the best simulated step was simulated (itself or a layout running the
// same program), and the counts account for every layout.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "output/search/layout_search.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "topology/topology.hpp"
#include "workloads/bound/comm_bound.hpp"
#include "workloads/bound/step_bound.hpp"

using namespace stepsim;

namespace {

const std::filesystem::path kExamplePath =
    std::filesystem::path(STEPSIM_SOURCE_DIR) / "scenarios/examples/search/gpt-1.7b-16xh100.toml";

out::SearchOptions small_space(unsigned jobs) {
  out::SearchOptions o;
  o.space.values(work::Knob::micro_batch) = {1, 2, 4};
  o.space.values(work::Knob::zero_stage) = {0, 1, 3};
  o.space.values(work::Knob::recompute) = {0, 1, 2};
  o.jobs = jobs;
  return o;
}

}  // namespace

TEST_CASE("The search simulates every layout whose bound is below its best simulated step") {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  const out::SearchOptions o = small_space(2);
  const out::SearchResult r = out::search_layouts(kExamplePath, catalog, o);
  REQUIRE(r.configs.size() == 1);
  const out::SearchConfig& c = r.configs[0];
  // Every enumerated layout lands in exactly one bin.
  CHECK(c.enumerated == c.invalid + c.merged + c.space);
  CHECK(c.space == c.did_not_fit + c.pruned + c.simulated);
  CHECK(c.simulated == c.fit + c.out_of_memory + c.rejected);
  CHECK(c.simulated == r.simulated.size());
  CHECK(c.fit == r.ranked.size());
  CHECK(c.pruned > c.simulated);  // the bound does prune
  REQUIRE(!r.ranked.empty());
  const double best = r.ranked.front().sim.step_time_s;

  // Walk the space again with the public pieces, and bound every layout.
  const scen::Scenario s = scen::load_scenario(kExamplePath, catalog);
  auto topology = std::make_shared<const topo::Topology>(s.job.cluster);
  work::TopologyCommBound comm(topology);
  std::map<std::uint64_t, std::vector<std::string>> simulated_programs;  // fingerprint -> layouts
  for (const out::SearchCandidate& x : r.simulated) {
    const work::StepBound b = work::bound_train_step(work::with_layout(s.job, x.layout), &comm);
    CHECK(to_seconds(b.step) == Approx(x.bound_step_s).epsilon(1e-12));
    if (x.simulated) CHECK(x.bound_step_s <= x.sim.step_time_s);
    simulated_programs[b.program].push_back(x.layout.compact());
  }
  std::size_t below = 0, invalid = 0;
  for (const work::Layout& l : work::enumerate_layouts(s.job, o.space)) {
    work::StepBound b;
    try {
      b = work::bound_train_step(work::with_layout(s.job, l), &comm);
    } catch (const UserError&) {
      ++invalid;
      continue;
    }
    if (to_seconds(b.step) >= best || b.memory_bytes > s.job.cluster.gpu.usable_hbm().value()) continue;
    ++below;
    // It could beat the winner, so it (or a layout running the same program) must have run.
    CAPTURE(l.compact(), to_seconds(b.step), best);
    CHECK(simulated_programs.count(b.program) == 1);
  }
  CHECK(invalid == c.invalid);
  CHECK(below >= 1);
  CHECK(below <= c.simulated + c.merged);

  // Threads change nothing.
  const out::SearchResult one = out::search_layouts(kExamplePath, catalog, small_space(1));
  REQUIRE(one.ranked.size() == r.ranked.size());
  for (std::size_t i = 0; i < r.ranked.size(); ++i) CHECK(one.ranked[i].layout == r.ranked[i].layout);
  CHECK(one.configs[0].pruned == c.pruned);
}

TEST_CASE("Pruning against the overall best simulates no more than pruning per configuration") {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  out::SearchOptions o = small_space(2);
  o.gpu_types = {"h100-sxm", "b200"};
  o.rank = out::SearchRank::cost;
  const out::SearchResult each = out::search_layouts(kExamplePath, catalog, o);
  o.prune = out::PruneScope::global;
  const out::SearchResult overall = out::search_layouts(kExamplePath, catalog, o);
  CHECK(overall.total.simulated <= each.total.simulated);
  // Both find the same winner: the global rule only skips what cannot beat it.
  REQUIRE(!each.ranked.empty());
  REQUIRE(!overall.ranked.empty());
  CHECK(overall.ranked.front().layout == each.ranked.front().layout);
  CHECK(overall.ranked.front().config == each.ranked.front().config);
  // Per configuration, each one's best is there.
  std::set<std::size_t> configs;
  for (const out::SearchCandidate& x : each.ranked) configs.insert(x.config);
  CHECK(configs.size() == 2);
}
