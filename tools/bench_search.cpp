// Benchmark: `stepsim search` on the bundled GPT-3 175B example (1,024 A100) with the default
// space, end to end on two threads: enumerate, bound, merge, simulate in bound order.

#include <chrono>

#include "output/search/layout_search.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/data_dir.hpp"
#include "tools/bench.hpp"

namespace stepsim::cli {

BenchResult bench_search_gpt3_1024() {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  out::SearchOptions o;
  o.jobs = 2;
  const auto t0 = std::chrono::steady_clock::now();
  const out::SearchResult s =
      out::search_layouts(scen::data_dir() / "examples" / "gpt3-175b-1024xa100.toml", catalog, o);
  BenchResult r;
  r.name = "search_gpt3_175b_1024";
  r.wall_s = seconds_since(t0);
  r.peak_rss_bytes = peak_rss_bytes();
  const out::SearchConfig& c = s.total;
  r.metrics = {{"layouts", static_cast<double>(c.enumerated)},
               {"space", static_cast<double>(c.space)},
               {"merged", static_cast<double>(c.merged)},
               {"did_not_fit", static_cast<double>(c.did_not_fit)},
               {"pruned", static_cast<double>(c.pruned)},
               {"simulated", static_cast<double>(c.simulated)},
               {"best_step_s", s.ranked.empty() ? 0.0 : s.ranked.front().sim.step_time_s}};
  r.note = "gpt3-175b-1024xa100.toml, default space, 2 threads";
  return r;
}

}  // namespace stepsim::cli
