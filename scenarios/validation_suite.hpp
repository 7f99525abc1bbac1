#pragma once
// Published measurements as a test suite: every scenario with a [validation] block in a folder is
// simulated and compared with what was measured.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"

namespace stepsim::scen {

struct ValidationCase {
  std::string id;
  std::string group;
  std::string file;
  double measured_step_s = 0.0;
  double predicted_step_s = 0.0;
  double error = 0.0;  ///< (predicted - measured) / measured
  std::string bottleneck;
  double estimate_step_s = 0.0;  ///< the closed-form estimate, for comparison
};

struct GroupSummary {
  int cases = 0;
  double mape = 0.0;       ///< mean |error|
  double max_abs_error = 0.0;
  double mean_error = 0.0;  ///< signed: the bias
};

struct ValidationReport {
  std::vector<ValidationCase> cases;        ///< ordered by group, then id
  std::map<std::string, GroupSummary> groups;  ///< by group name (ordered)
  GroupSummary overall;
};

/// Simulates every `*.toml` under `dir` that has a [validation] block, on `jobs` threads (results
/// do not depend on it). Scenarios without [validation] are skipped; any that fails to load or run
/// is an error naming the file.
ValidationReport run_validation(const std::filesystem::path& dir, const Catalog& catalog, int jobs);

}  // namespace stepsim::scen
