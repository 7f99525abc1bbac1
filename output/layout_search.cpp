#include "output/layout_search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "output/parallel_for.hpp"
#include "output/sweep_eval.hpp"
#include "workloads/estimate.hpp"
#include "workloads/explain.hpp"
#include "workloads/simulate.hpp"

namespace stepsim::out {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double usd_per_mtok(double price_per_gpu_hour, int gpus, double tokens_per_s) {
  const double per_hour = price_per_gpu_hour * gpus;
  return per_hour > 0 && tokens_per_s > 0 ? per_hour / 3600.0 / tokens_per_s * 1e6 : kNaN;
}

/// The rank's figure with "higher is better": tokens/s, or minus the cost (NaN last).
double merit(SearchRank rank, double tokens_per_s, double usd) {
  if (rank == SearchRank::throughput) return tokens_per_s;
  return std::isnan(usd) ? -std::numeric_limits<double>::infinity() : -usd;
}

/// Sorts best first by `score`, ties by enumeration order, so thread timing never matters.
template <class Score>
void rank_by(std::vector<SearchCandidate>& v, Score score) {
  std::stable_sort(v.begin(), v.end(), [&](const SearchCandidate& a, const SearchCandidate& b) {
    const double x = score(a), y = score(b);
    return x != y ? x > y : a.order < b.order;
  });
}

/// Estimates every layout of every cluster size; keeps those that fit.
std::vector<SearchCandidate> estimate_all(const scen::Scenario& s, const SearchOptions& o, SearchResult& r) {
  std::vector<SearchCandidate> out;
  const std::vector<int> sizes = o.nodes.empty() ? std::vector<int>{s.job.cluster.nodes} : o.nodes;
  for (const int nodes : sizes) {
    work::JobSpec job = s.job;
    job.cluster.nodes = nodes;
    for (const work::Layout& l : work::enumerate_layouts(job, o.space)) {
      ++r.enumerated;
      work::Estimate e;
      try {
        e = work::estimate_stepsim(work::with_layout(job, l));
      } catch (const UserError&) {
        ++r.estimate_failed;
        continue;
      }
      if (e.memory && !e.memory->fits()) {
        ++r.memory_pruned;
        continue;
      }
      SearchCandidate c;
      c.layout = l;
      c.nodes = nodes;
      c.gpus = job.cluster.total_gpus();
      c.order = r.enumerated;
      c.est_tokens_per_s = e.tokens_per_s_cluster;
      c.est_usd_per_million_tokens =
          usd_per_mtok(job.cluster.gpu.price_per_hour, c.gpus, e.tokens_per_s_cluster);
      c.est_bound = std::string(topo::name(e.bound));
      c.est_memory_bytes = e.memory ? e.memory->total_bytes() : kNaN;
      out.push_back(std::move(c));
    }
  }
  return out;
}

void simulate_one(SearchCandidate& c, const std::filesystem::path& path, const scen::Catalog& catalog,
                  const SearchOptions& o, TopologyCache& topologies) {
  scen::LoadOptions load;
  load.set = o.set;
  if (!o.nodes.empty()) load.set.push_back("hardware.nodes=" + std::to_string(c.nodes));
  for (auto& s : work::layout_overrides(c.layout)) load.set.push_back(std::move(s));
  try {
    const scen::Scenario s = scen::load_scenario(path, catalog, load);
    const work::Simulation sim =
        work::simulate(s.job, topologies.get(std::to_string(c.nodes), s.job.cluster));
    const auto& m = sim.metrics;
    SimulatedFigures& f = c.sim;
    f.step_time_s = m.step_time_s;
    f.tokens_per_s = m.tokens_per_s;
    f.tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
    f.mfu = m.mfu;
    f.usd_per_million_tokens = usd_per_mtok(s.job.cluster.gpu.price_per_hour, c.gpus, m.tokens_per_s);
    f.bottleneck = std::string(topo::name(work::critical_bottleneck(sim.report)));
    f.mean = sim.report.mean;
    f.memory_peak_bytes = sim.report.ranks[sim.report.peak_rank].memory.peak_bytes;
    f.capacity_bytes = sim.capacity_bytes;
    f.fits = sim.fits;
    c.simulated = true;
  } catch (const UserError& e) {
    c.problem = e.what();
  } catch (const std::exception& e) {
    c.problem = std::string("internal error: ") + e.what();
  }
}

/// Within each run of equal estimates, takes one layout per rank grid (tp, pp, v, cp, ep, nodes)
/// in turn: the estimate often cannot tell ZeRO stages or micro-batches apart, and a budget spent
/// on one grid's variants would leave the other grids unsimulated.
void diversify_ties(std::vector<SearchCandidate>& v, SearchRank rank) {
  const auto grid = [](const SearchCandidate& c) {
    const auto& l = c.layout;
    return std::array<int, 6>{l.tp, l.pp, l.virtual_stages, l.cp, l.ep, c.nodes};
  };
  for (std::size_t b = 0; b < v.size();) {
    const double m = merit(rank, v[b].est_tokens_per_s, v[b].est_usd_per_million_tokens);
    std::size_t e = b + 1;
    while (e < v.size() && merit(rank, v[e].est_tokens_per_s, v[e].est_usd_per_million_tokens) == m) ++e;
    // turn[i]: how many layouts of its grid come before it in the run; stable-sorting by it deals
    // the grids out round-robin, each grid's layouts keeping their order.
    std::map<std::array<int, 6>, std::size_t> seen;
    std::vector<std::pair<std::size_t, std::size_t>> turn;  // (turn, index)
    for (std::size_t i = b; i < e; ++i) turn.emplace_back(seen[grid(v[i])]++, i);
    std::stable_sort(turn.begin(), turn.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<SearchCandidate> block;
    for (const auto& t : turn) block.push_back(std::move(v[t.second]));
    std::move(block.begin(), block.end(), v.begin() + static_cast<std::ptrdiff_t>(b));
    b = e;
  }
}

std::string compact_text(const SearchCandidate& c) {
  return c.layout.text() + " on " + std::to_string(c.gpus) + " GPUs";
}

}  // namespace

SearchResult search_layouts(const std::filesystem::path& path, const scen::Catalog& catalog,
                            const SearchOptions& o) {
  scen::LoadOptions load;
  load.set = o.set;
  const scen::Scenario s = scen::load_scenario(path, catalog, load);
  if (s.job.workload.kind != work::WorkloadKind::train)
    throw UserError(s.where("workload.kind"), "workload.kind", "the layout search covers training jobs",
                    "set kind = \"train\"");
  SearchResult r;
  r.scenario = s.meta.name.empty() ? s.display_name : s.meta.name;
  r.model = s.job.model.name.empty() ? s.job.model.id : s.job.model.name;
  r.gpu = s.job.cluster.gpu.id;
  r.rank = o.rank;
  std::vector<SearchCandidate> pool = estimate_all(s, o, r);
  rank_by(pool, [&](const SearchCandidate& c) {
    return merit(o.rank, c.est_tokens_per_s, c.est_usd_per_million_tokens);
  });
  diversify_ties(pool, o.rank);
  const std::size_t k = std::min(o.simulate, pool.size());
  std::vector<SearchCandidate> chosen(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(k));
  TopologyCache topologies(std::max<std::size_t>(o.nodes.size(), 1));
  parallel_for(chosen.size(), o.jobs,
               [&](std::size_t i) { simulate_one(chosen[i], path, catalog, o, topologies); });
  for (SearchCandidate& c : chosen) {
    if (!c.simulated) {
      ++r.invalid;
      if (r.first_problem.empty()) r.first_problem = compact_text(c) + ": " + c.problem;
    } else {
      ++r.simulated;
      if (!c.sim.fits)
        ++r.out_of_memory;
      else
        r.ranked.push_back(std::move(c));
    }
  }
  rank_by(r.ranked, [&](const SearchCandidate& c) {
    return merit(o.rank, c.sim.tokens_per_s, c.sim.usd_per_million_tokens);
  });
  // Layouts left unsimulated whose estimate still beats the best simulated figure: the estimate is
  // usually optimistic, so these could win; a larger --simulate settles it.
  if (!r.ranked.empty()) {
    const SearchCandidate& best = r.ranked.front();
    const double bar = merit(o.rank, best.sim.tokens_per_s, best.sim.usd_per_million_tokens);
    for (std::size_t i = k; i < pool.size(); ++i)
      if (merit(o.rank, pool[i].est_tokens_per_s, pool[i].est_usd_per_million_tokens) > bar)
        ++r.unsimulated_contenders;
  }
  return r;
}

}  // namespace stepsim::out
