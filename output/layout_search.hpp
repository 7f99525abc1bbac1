#pragma once
// The search for the best parallel layout of a training job: enumerate the layouts its model,
// batch and GPUs allow (workloads/layout_space.hpp), estimate each in closed form, drop those that
// do not fit in memory, simulate the most promising ones on threads, and rank them.

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "workloads/layout_space.hpp"
#include "workloads/step_report.hpp"

namespace stepsim::out {

enum class SearchRank : std::uint8_t {
  throughput,  ///< job-wide tokens per second, highest first
  cost,        ///< USD per million tokens, lowest first (differs from throughput across cluster sizes)
};

struct SearchOptions {
  work::LayoutSpaceOptions space;
  std::vector<int> nodes;  ///< cluster sizes to try; empty: the scenario's
  SearchRank rank = SearchRank::throughput;
  std::size_t simulate = 32;  ///< how many layouts (the best by the estimate) are simulated
  unsigned jobs = 1;
  std::vector<std::string> set;  ///< scenario overrides applied to every candidate
};

/// A simulated layout's figures.
struct SimulatedFigures {
  double step_time_s = 0.0;
  double tokens_per_s = 0.0;  ///< job-wide
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  double usd_per_million_tokens = 0.0;  ///< NaN without a GPU price
  std::string bottleneck;
  work::Breakdown mean;  ///< where the average rank's step went
  double memory_peak_bytes = 0.0;
  double capacity_bytes = 0.0;
  bool fits = true;
};

struct SearchCandidate {
  work::Layout layout;
  int nodes = 0;
  int gpus = 0;
  std::size_t order = 0;  ///< enumeration index: the deterministic tie-break
  double est_tokens_per_s = 0.0;
  double est_usd_per_million_tokens = 0.0;
  std::string est_bound;
  double est_memory_bytes = 0.0;
  bool simulated = false;
  std::string problem;  ///< the scenario reader's or simulator's objection, when it had one
  SimulatedFigures sim;
};

struct SearchResult {
  std::string scenario;  ///< display name
  std::string model, gpu;
  SearchRank rank = SearchRank::throughput;
  std::size_t enumerated = 0;       ///< layouts the divisibility rules allow
  std::size_t estimate_failed = 0;  ///< rejected by the closed-form estimate (a split it cannot make)
  std::size_t memory_pruned = 0;    ///< estimated not to fit in HBM
  std::size_t simulated = 0;
  std::size_t invalid = 0;        ///< rejected by the scenario reader or the simulator
  std::size_t out_of_memory = 0;  ///< simulated peak above HBM
  /// Simulated layouts that fit, best first by the chosen rank.
  std::vector<SearchCandidate> ranked;
  /// Layouts not simulated whose estimate beats the best simulated layout: they might win.
  std::size_t unsimulated_contenders = 0;
  std::string first_problem;  ///< the first invalid candidate's message, in rank order
};

/// Runs the search on the scenario at `path` (its own layout is only a valid starting point; every
/// layout key is replaced). Throws UserError when the scenario itself does not load.
SearchResult search_layouts(const std::filesystem::path& path, const scen::Catalog& catalog,
                            const SearchOptions& options);

}  // namespace stepsim::out
