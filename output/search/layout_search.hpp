#pragma once
// The search for the best parallel layout of a training job, over one or more (GPU type, GPU
// count) configurations: enumerate the layouts each allows (workloads/layout/layout_space.hpp), bound each
// one's step from its kernels (workloads/bound/step_bound.hpp), merge layouts that run the same program,
// set aside those whose memory lower bound does not fit, then simulate in order of increasing bound
// until the next bound cannot beat the best simulated step. Only a provable bound prunes, so the
// best layout found is the best of the whole space.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "workloads/layout/layout_space.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/step_report.hpp"

namespace stepsim::out {

enum class SearchRank : std::uint8_t {
  tokens_per_s,  ///< job-wide tokens per second, highest first
  cost,          ///< USD per million tokens, lowest first (the catalog's price_per_hour)
};

/// Which best a layout's bound is compared against before it is skipped.
enum class PruneScope : std::uint8_t {
  per_config,  ///< the best of its own (GPU, count): every configuration's best row is proven
  global,      ///< the best of all configurations: only the overall winner is proven (fewer simulations)
};

/// How far the search has got, for a progress line. Counts are over all configurations.
struct SearchProgress {
  std::size_t layouts = 0;     ///< enumerated
  std::size_t bounded = 0;     ///< bounded so far (of `layouts`)
  std::size_t candidates = 0;  ///< distinct layouts that may fit, once bounding is done
  std::size_t simulated = 0;
  std::size_t skipped = 0;                 ///< candidates passed over so far because their bound cannot win
  double best_tokens_per_s_per_gpu = 0.0;  ///< 0 until a simulated layout fits
  double elapsed_s = 0.0;
};

struct SearchOptions {
  work::LayoutSpaceOptions space;
  std::vector<std::string> gpu_types;  ///< catalog ids or aliases; empty: the scenario's GPU
  std::vector<int> gpu_counts;         ///< total GPUs; empty: the scenario's
  SearchRank rank = SearchRank::tokens_per_s;
  PruneScope prune = PruneScope::per_config;
  double headroom_bytes = 0.0;  ///< free HBM a layout must leave under the usable capacity
  unsigned jobs = 1;
  std::vector<std::string> set;  ///< scenario overrides applied to every candidate
  /// Candidates whose step is estimated above this many ops are refused (workloads/step/step_size.hpp).
  std::uint64_t max_ops = work::kDefaultMaxOps;
  /// Called (serialised, from any worker thread) as layouts are bounded and simulated; optional.
  std::function<void(const SearchProgress&)> progress;
};

/// A simulated layout's figures.
struct SimulatedFigures {
  double step_time_s = 0.0;
  double tokens_per_s = 0.0;  ///< job-wide
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  double usd_per_million_tokens = 0.0;  ///< NaN without a GPU price
  std::string bottleneck;  ///< the largest breakdown entry, as `stepsim run`'s verdict names it
  work::Breakdown mean;  ///< where the average rank's step went
  double memory_peak_bytes = 0.0;
  double capacity_bytes = 0.0;
  bool fits = true;  ///< the peak plus the headroom fits under the usable HBM
};

/// The figures of a simulated step of `job`; `fits` leaves `headroom_bytes` free under the usable HBM.
SimulatedFigures simulated_figures(const work::JobSpec& job, const work::Simulation& sim, double headroom_bytes);

/// One (GPU, GPU count) searched, and what became of its layouts.
struct SearchConfig {
  std::string gpu;  ///< catalog id
  int gpus = 0;
  int nodes = 0;
  double price_per_hour = 0.0;  ///< USD per GPU-hour, 0 when the catalog has none
  double usable_hbm_bytes = 0.0;
  // Every enumerated layout is exactly one of: invalid, merged, did_not_fit, pruned, simulated.
  std::size_t enumerated = 0;   ///< layouts the divisibility rules allow
  std::size_t invalid = 0;      ///< refused by scen::check_job_rules or the step builder
  std::size_t merged = 0;       ///< the same program as an earlier layout (not counted in the space)
  std::size_t space = 0;        ///< distinct valid layouts: did_not_fit + pruned + simulated
  std::size_t did_not_fit = 0;  ///< memory lower bound above the usable HBM less the headroom
  std::size_t pruned = 0;       ///< bound no better than the best simulated layout
  std::size_t simulated = 0;    ///< of which the three below
  std::size_t fit = 0;
  std::size_t out_of_memory = 0;  ///< simulated peak above the usable HBM less the headroom
  std::size_t rejected = 0;       ///< refused by the scenario reader or the simulator
};

struct SearchCandidate {
  work::Layout layout;
  std::size_t config = 0;  ///< index into SearchResult::configs
  std::size_t order = 0;   ///< enumeration index over all configurations: the deterministic tie-break
  double bound_step_s = 0.0;
  double bound_memory_bytes = 0.0;
  double bound_score = 0.0;  ///< the ranking's figure at the bound (lower is better)
  bool simulated = false;
  std::string problem;  ///< the scenario reader's or simulator's objection, when it had one
  SimulatedFigures sim;
};

struct SearchResult {
  std::string scenario;  ///< display name
  std::string model;
  SearchRank rank = SearchRank::tokens_per_s;
  PruneScope prune = PruneScope::per_config;
  double headroom_bytes = 0.0;
  std::vector<SearchConfig> configs;
  SearchConfig total;  ///< the counts summed over configurations
  /// What the base scenario's keys became under other layouts, one sentence each.
  std::vector<std::string> adaptations;
  /// Merged values, "selective recompute runs as no recompute" -> how many layouts.
  std::vector<std::pair<std::string, std::size_t>> merges;
  /// Simulated layouts that fit, best first by the chosen rank; no two run the same program.
  std::vector<SearchCandidate> ranked;
  /// Every simulated layout (fitting or not, rejected or not), in the order of their bounds.
  std::vector<SearchCandidate> simulated;
  std::string first_problem;  ///< the first rejected candidate's message, in bound order
  std::string first_invalid;  ///< why the first invalid layout could not be built
};

/// Runs the search on the scenario at `path` (its own layout is only a valid starting point; every
/// layout key is replaced). Throws UserError when the scenario, a GPU id, a count or the ranking's
/// prices do not work.
SearchResult search_layouts(const std::filesystem::path& path, const scen::Catalog& catalog,
                            const SearchOptions& options);

}  // namespace stepsim::out
