#include "output/search/layout_search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "scenarios/cross_checks.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "sim/parallel_for.hpp"
#include "topology/topology.hpp"
#include "workloads/bound/comm_bound.hpp"
#include "workloads/bound/step_bound.hpp"
#include "workloads/simulate/explain.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double usd_per_mtok(double price_per_gpu_hour, int gpus, double tokens_per_s) {
  const double per_hour = price_per_gpu_hour * gpus;
  return per_hour > 0 && tokens_per_s > 0 ? per_hour / 3600.0 / tokens_per_s * 1e6 : kNaN;
}

/// A configuration as loaded: the base scenario's job on that GPU and count, and the edits that load it.
struct Config {
  SearchConfig info;
  scen::LoadOptions load;
  work::JobSpec job;
  std::shared_ptr<const topo::Topology> topology;
  std::shared_ptr<work::TopologyCommBound> comm;  ///< shared by the threads bounding its layouts
  double tokens_per_step = 0.0;
  /// The ranking's figure (lower is better) of a step of `step_s` seconds in this configuration.
  double score(SearchRank rank, double step_s) const {
    const double s_per_token = step_s / tokens_per_step;
    return rank == SearchRank::tokens_per_s ? s_per_token
                                            : info.price_per_hour * info.gpus / 3600.0 * s_per_token * 1e6;
  }
};

std::string config_text(const std::string& gpu, int gpus) {
  return (gpu.empty() ? std::string("the scenario's GPU") : gpu) +
         (gpus > 0 ? " x " + std::to_string(gpus) : "");
}

/// The overrides that replace the base layout by plain TP `tp` x PP `pp` (no CP, EP, interleaving
/// or uneven stages; dp derived), for a configuration on which the base's own layout does not divide.
scen::LoadOptions plain_layout(scen::LoadOptions load, int tp, int pp) {
  load.set.push_back("parallelism.tp=" + std::to_string(tp));
  load.set.push_back("parallelism.pp=" + std::to_string(pp));
  for (const char* s : {"parallelism.cp=1", "parallelism.ep=1", "parallelism.expert_tp=1",
                        "parallelism.virtual_stages=1", "parallelism.schedule=\"1f1b\"",
                        "parallelism.overlap_param_gather=false", "parallelism.sequence_parallel=false"})
    load.set.emplace_back(s);
  for (const char* u : {"parallelism.first_stage_layers", "parallelism.last_stage_layers",
                        "parallelism.account_for_embedding_in_pipeline_split",
                        "parallelism.account_for_loss_in_pipeline_split"})
    load.unset.emplace_back(u);
  return load;
}

Config load_config(const std::filesystem::path& path, const scen::Catalog& catalog, const SearchOptions& o,
                   const std::string& gpu, int gpus) {
  Config c;
  c.load.set = o.set;
  if (!gpu.empty()) c.load.set.push_back("hardware.gpu=\"" + gpu + "\"");
  if (gpus > 0) {
    c.load.unset = {"hardware.nodes", "hardware.gpus", "parallelism.dp"};
    c.load.set.push_back("hardware.gpus=" + std::to_string(gpus));
  }
  std::optional<scen::Scenario> s;
  try {
    s = scen::load_scenario(path, catalog, c.load);
  } catch (const UserError& first) {
    if (gpu.empty() && gpus == 0) throw;
    // The base's layout may not divide this many GPUs: any valid layout will do to read the
    // configuration, since every layout key is replaced. Plain TP x PP ones are tried in turn.
    const int n = gpus > 0 ? gpus : 1;
    for (int tp = 1; tp <= n && !s; ++tp)
      for (int pp = 1; tp * pp <= n && !s; ++pp) {
        if (gpus > 0 && gpus % (tp * pp) != 0) continue;
        try {
          scen::LoadOptions plain = plain_layout(c.load, tp, pp);
          s = scen::load_scenario(path, catalog, plain);
          c.load = std::move(plain);
        } catch (const UserError&) {
        }
      }
    if (!s) throw UserError("search on " + config_text(gpu, gpus) + ": " + first.what());
  }
  c.job = s->job;
  c.topology = std::make_shared<const topo::Topology>(c.job.cluster);
  c.comm = std::make_shared<work::TopologyCommBound>(c.topology);
  const auto& cl = c.job.cluster;
  c.info.gpu = cl.gpu.id;
  c.info.gpus = cl.total_gpus();
  c.info.nodes = cl.nodes;
  c.info.price_per_hour = cl.gpu.price_per_hour;
  c.info.usable_hbm_bytes = cl.gpu.usable_hbm().value();
  c.tokens_per_step = double(c.job.workload.global_batch) * c.job.workload.seq_len;
  if (o.rank == SearchRank::cost && !(c.info.price_per_hour > 0.0))
    throw UserError("--rank cost: GPU `" + c.info.gpu +
                    "` has no price_per_hour in the catalog; give it one in a " + "--catalog file ([gpu." +
                    c.info.gpu + "] price_per_hour = ...) or rank by tokens_per_s");
  return c;
}

std::vector<Config> load_configs(const std::filesystem::path& path, const scen::Catalog& catalog,
                                 const SearchOptions& o) {
  for (const std::string& g : o.gpu_types) (void)catalog.gpu_for_option(g, "--gpu");
  for (int n : o.gpu_counts)
    if (n < 1) throw UserError("--gpus: expected GPU counts of at least 1, got " + std::to_string(n));
  const std::vector<std::string> gpus = o.gpu_types.empty() ? std::vector<std::string>{""} : o.gpu_types;
  const std::vector<int> counts = o.gpu_counts.empty() ? std::vector<int>{0} : o.gpu_counts;
  std::vector<Config> out;
  for (const std::string& g : gpus)
    for (int n : counts) out.push_back(load_config(path, catalog, o, g, n));
  return out;
}

/// A layout with its configuration and bounds, before it is simulated.
struct Bounded {
  work::Layout layout;
  std::size_t config = 0;
  std::size_t order = 0;
  bool valid = false;
  work::StepBound bound;
  std::string problem;  ///< why it is invalid
};

/// Reports progress at most every 0.1 s (and always for `force`), serialised.
class ProgressGate {
 public:
  explicit ProgressGate(const SearchOptions& o) : fn_(o.progress), start_(std::chrono::steady_clock::now()) {}
  template <class Fill>
  void report(Fill fill, bool force = false) {
    if (!fn_) return;
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    fill(state_);
    state_.elapsed_s = std::chrono::duration<double>(now - start_).count();
    fn_(state_);
  }

 private:
  std::function<void(const SearchProgress&)> fn_;
  std::chrono::steady_clock::time_point start_, last_{};
  std::mutex mutex_;
  SearchProgress state_;
};

std::vector<Bounded> bound_all(const std::vector<Config>& configs, const SearchOptions& o,
                               ProgressGate& gate) {
  std::vector<Bounded> all;
  for (std::size_t c = 0; c < configs.size(); ++c)
    for (const work::Layout& l : work::enumerate_layouts(configs[c].job, o.space))
      all.push_back({l, c, all.size(), false, {}, {}});
  std::atomic<std::size_t> done{0};
  parallel_for(all.size(), o.jobs, [&](std::size_t i) {
    Bounded& b = all[i];
    try {
      const work::JobSpec job = work::with_layout(configs[b.config].job, b.layout);
      scen::check_job_rules(job);  // what the scenario loader refuses is never proposed
      b.bound = work::bound_train_step(job, configs[b.config].comm.get());
      b.valid = true;
    } catch (const UserError& e) {
      b.valid = false;
      b.problem = e.what();
    }
    const std::size_t n = ++done;
    gate.report([&](SearchProgress& p) {
      p.layouts = all.size();
      p.bounded = n;
    });
  });
  return all;
}

/// "selective recompute runs as no recompute": the knob values in which `dup` differs from `kept`.
std::string merge_text(const work::Layout& dup, const work::Layout& kept) {
  std::string from, to;
  for (const work::KnobInfo& k : work::knobs())
    if (dup.knob(k.knob) != kept.knob(k.knob)) {
      from += (from.empty() ? "" : ", ") + k.text(dup.knob(k.knob));
      to += (to.empty() ? "" : ", ") + k.text(kept.knob(k.knob));
    }
  return from + " runs as " + to;
}

/// Drops layouts that run the same program as an earlier one. Two layouts of a configuration merge
/// when their rank grids and canonical knob values agree and, for knobs that only change what the
/// emitters emit, their step programs' fingerprints agree.
void merge_duplicates(std::vector<Bounded>& all, const std::vector<Config>& configs, SearchResult& r) {
  using Key = std::tuple<std::size_t, std::vector<int>, std::uint64_t>;
  std::map<Key, std::size_t> first;
  std::map<std::string, std::size_t> merges;
  std::vector<Bounded> kept;
  for (Bounded& b : all) {
    SearchConfig& cfg = r.configs[b.config];
    ++cfg.enumerated;
    if (!b.valid) {
      ++cfg.invalid;
      if (r.first_invalid.empty()) r.first_invalid = b.layout.text() + " on " + cfg.gpu + ": " + b.problem;
      continue;
    }
    const work::Layout c =
        work::canonical_layout(work::with_layout(configs[b.config].job, b.layout), b.layout);
    std::vector<int> fields{c.tp, c.pp, c.virtual_stages,     c.cp,
                            c.ep, c.dp, c.first_stage_layers, c.last_stage_layers};
    for (const work::KnobInfo& k : work::knobs()) fields.push_back(k.emitters_only ? -1 : c.knob(k.knob));
    const auto [it, inserted] =
        first.try_emplace(Key{b.config, std::move(fields), b.bound.program}, kept.size());
    if (!inserted) {
      ++cfg.merged;
      ++merges[merge_text(b.layout, kept[it->second].layout)];
      continue;
    }
    kept.push_back(std::move(b));
  }
  all = std::move(kept);
  for (auto& [text, n] : merges) r.merges.emplace_back(text, n);
  std::stable_sort(r.merges.begin(), r.merges.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

void simulate_one(SearchCandidate& c, const Bounded& b, const std::filesystem::path& path,
                  const scen::Catalog& catalog, const Config& config, const SearchOptions& o) {
  scen::LoadOptions load = config.load;
  work::LayoutOverrides edits = work::layout_overrides(config.job, c.layout);
  load.set.insert(load.set.end(), edits.set.begin(), edits.set.end());
  load.unset.insert(load.unset.end(), edits.unset.begin(), edits.unset.end());
  Time makespan{};
  try {
    const scen::Scenario s = scen::load_scenario(path, catalog, load);
    // The configuration's topology: the layout keys never change the cluster.
    work::SimulateOptions options;
    options.max_ops = o.max_ops;
    const work::Simulation sim = work::simulate(s.job, config.topology, options);
    c.sim = simulated_figures(s.job, sim, o.headroom_bytes);
    makespan = sim.run.makespan;
    c.simulated = true;
  } catch (const UserError& e) {
    c.problem = e.what();
  } catch (const std::exception& e) {
    c.problem = std::string("internal error: ") + e.what();
  }
  // The pruning is only sound if the bounds are: a violation is a bug, never a result.
  if (c.simulated && (b.bound.step > makespan || b.bound.memory_bytes > c.sim.memory_peak_bytes))
    throw std::logic_error(
        "layout search: the bounds of " + c.layout.text() + " (" + std::to_string(to_seconds(b.bound.step)) +
        " s, " + std::to_string(b.bound.memory_bytes) + " bytes) exceed its simulation (" +
        std::to_string(c.sim.step_time_s) + " s, " + std::to_string(c.sim.memory_peak_bytes) + " bytes)");
}

/// Simulates candidates (sorted by bound) while their bound can beat the best simulated layout of
/// their prune group; returns which ran. Indices are handed out in order, and a candidate is
/// skipped only against candidates before it, so every candidate the sequential rule simulates is
/// simulated here too, on any number of threads (a few more may be, which the caller drops).
std::vector<bool> simulate_while_useful(std::vector<SearchCandidate>& cands,
                                        const std::vector<Bounded>& bounded,
                                        const std::filesystem::path& path, const scen::Catalog& catalog,
                                        const std::vector<Config>& configs, const SearchOptions& o,
                                        ProgressGate& gate) {
  std::mutex mutex;
  std::vector<std::vector<std::pair<std::size_t, double>>> done(configs.size());  // per group: (index, score)
  std::vector<bool> ran(cands.size(), false);
  std::size_t simulated = 0, skipped = 0;
  double best_rate = 0.0;
  const auto group = [&](const SearchCandidate& c) { return o.prune == PruneScope::global ? 0 : c.config; };
  parallel_for(cands.size(), o.jobs, [&](std::size_t i) {
    SearchCandidate& c = cands[i];
    const auto report = [&](bool force) {
      gate.report(
          [&](SearchProgress& p) {
            p.simulated = simulated;
            p.skipped = skipped;
            p.best_tokens_per_s_per_gpu = best_rate;
          },
          force);
    };
    {
      std::lock_guard lock(mutex);
      double bar = kInf;
      for (const auto& [j, score] : done[group(c)])
        if (j < i) bar = std::min(bar, score);
      if (c.bound_score >= bar) {
        ++skipped;
        report(i + 1 == cands.size());
        return;
      }
    }
    simulate_one(c, bounded[c.order], path, catalog, configs[c.config], o);
    std::lock_guard lock(mutex);
    ran[i] = true;
    ++simulated;
    if (c.simulated && c.sim.fits) {
      done[group(c)].emplace_back(i, configs[c.config].score(o.rank, c.sim.step_time_s));
      best_rate = std::max(best_rate, c.sim.tokens_per_s_per_gpu);
    }
    report(false);
  });
  return ran;
}

/// The layouts worth simulating (those whose memory bound fits), sorted by bound, ties by
/// enumeration order; counts the space and what does not fit.
std::vector<SearchCandidate> candidates(const std::vector<Bounded>& bounded,
                                        const std::vector<Config>& configs, const SearchOptions& o,
                                        SearchResult& r) {
  std::vector<SearchCandidate> out;
  for (std::size_t i = 0; i < bounded.size(); ++i) {
    const Bounded& b = bounded[i];
    SearchConfig& cfg = r.configs[b.config];
    ++cfg.space;
    if (b.bound.memory_bytes + o.headroom_bytes > cfg.usable_hbm_bytes) {
      ++cfg.did_not_fit;
      continue;
    }
    SearchCandidate c;
    c.layout = b.layout;
    c.config = b.config;
    c.order = i;  // index into `bounded`, which keeps enumeration order
    c.bound_step_s = to_seconds(b.bound.step);
    c.bound_memory_bytes = b.bound.memory_bytes;
    c.bound_score = configs[b.config].score(o.rank, c.bound_step_s);
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const SearchCandidate& a, const SearchCandidate& b) {
    return a.bound_score != b.bound_score ? a.bound_score < b.bound_score : a.order < b.order;
  });
  return out;
}

/// The sequential rule, replayed over the candidates in bound order: what it simulates is what the
/// result reports, whatever else the threads ran.
void replay(std::vector<SearchCandidate>& cands, const std::vector<bool>& ran,
            const std::vector<Config>& configs, const SearchOptions& o, SearchResult& r) {
  std::vector<double> best(configs.size(), kInf);
  for (std::size_t i = 0; i < cands.size(); ++i) {
    SearchCandidate& c = cands[i];
    SearchConfig& cfg = r.configs[c.config];
    double& bar = best[o.prune == PruneScope::global ? 0 : c.config];
    if (c.bound_score >= bar) {
      ++cfg.pruned;
      continue;
    }
    if (!ran[i]) throw std::logic_error("layout search: a candidate the rule simulates did not run");
    ++cfg.simulated;
    if (!c.simulated) {
      ++cfg.rejected;
      if (r.first_problem.empty()) r.first_problem = c.layout.text() + " on " + cfg.gpu + ": " + c.problem;
    } else if (!c.sim.fits) {
      ++cfg.out_of_memory;
    } else {
      ++cfg.fit;
      bar = std::min(bar, configs[c.config].score(o.rank, c.sim.step_time_s));
      r.ranked.push_back(c);
    }
    r.simulated.push_back(std::move(c));
  }
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [&](const SearchCandidate& a, const SearchCandidate& b) {
    const double x = configs[a.config].score(o.rank, a.sim.step_time_s);
    const double y = configs[b.config].score(o.rank, b.sim.step_time_s);
    return x != y ? x < y : a.order < b.order;
  });
}

SearchConfig totals(const std::vector<SearchConfig>& configs) {
  SearchConfig t;
  for (const SearchConfig& c : configs)
    for (auto [sum, part] : {std::pair{&t.enumerated, c.enumerated},
                             {&t.invalid, c.invalid},
                             {&t.merged, c.merged},
                             {&t.space, c.space},
                             {&t.did_not_fit, c.did_not_fit},
                             {&t.pruned, c.pruned},
                             {&t.simulated, c.simulated},
                             {&t.fit, c.fit},
                             {&t.out_of_memory, c.out_of_memory},
                             {&t.rejected, c.rejected}})
      *sum += part;
  return t;
}

}  // namespace

SimulatedFigures simulated_figures(const work::JobSpec& job, const work::Simulation& sim,
                                   double headroom_bytes) {
  const auto& m = sim.metrics;
  SimulatedFigures f;
  f.step_time_s = m.step_time_s;
  f.tokens_per_s = m.tokens_per_s;
  f.tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
  f.mfu = m.mfu;
  f.usd_per_million_tokens = usd_per_mtok(job.cluster.gpu.price_per_hour, sim.plan.world, m.tokens_per_s);
  // What the step waits on most, from the breakdown (the run's headline verdict).
  f.bottleneck = work::step_verdict(sim.report).primary.label;
  f.mean = sim.report.mean;
  f.memory_peak_bytes = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
  f.capacity_bytes = sim.usable_hbm.value();
  f.fits = f.memory_peak_bytes + headroom_bytes <= sim.usable_hbm.value();
  return f;
}

SearchResult search_layouts(const std::filesystem::path& path, const scen::Catalog& catalog,
                            const SearchOptions& o) {
  scen::LoadOptions load;
  load.set = o.set;
  const scen::Scenario s = scen::load_scenario(path, catalog, load);
  if (s.job.workload.kind != work::WorkloadKind::train)
    throw UserError(s.where("workload.kind"), "workload.kind", "the layout search covers training jobs",
                    "set kind = \"train\"");
  if (!(o.headroom_bytes >= 0.0)) throw UserError("--headroom-gb: expected a non-negative size in GB");
  SearchResult r;
  r.scenario = s.label();
  r.model = s.job.model.name.empty() ? s.job.model.id : s.job.model.name;
  r.rank = o.rank;
  r.prune = o.prune;
  r.headroom_bytes = o.headroom_bytes;
  r.adaptations = work::layout_adaptations(s.job);
  const std::vector<Config> configs = load_configs(path, catalog, o);
  for (const Config& c : configs) r.configs.push_back(c.info);

  ProgressGate gate(o);
  std::vector<Bounded> bounded = bound_all(configs, o, gate);
  merge_duplicates(bounded, configs, r);
  std::vector<SearchCandidate> cands = candidates(bounded, configs, o, r);
  gate.report(
      [&](SearchProgress& p) {
        p.bounded = p.layouts;
        p.candidates = cands.size();
      },
      true);
  const std::vector<bool> ran = simulate_while_useful(cands, bounded, path, catalog, configs, o, gate);
  replay(cands, ran, configs, o, r);
  r.total = totals(r.configs);
  return r;
}

}  // namespace stepsim::out
