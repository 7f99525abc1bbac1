#pragma once
// Published measurements as a test suite: every scenario with a [validation] block in a folder is
// simulated and compared with what was measured. Cases marked `not_simulated` are listed with their
// reason and left out of every error figure.

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/accuracy.hpp"
#include "scenarios/catalog.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::scen {

/// One validation scenario's outcome.
struct ValidationCase {
  std::string id;
  std::string group;
  std::string file;
  double measured_step_s = 0.0;
  double predicted_step_s = 0.0;  ///< 0 when not simulated
  double error = 0.0;             ///< (predicted - measured) / measured; 0 when not simulated
  std::string bottleneck;
  double estimate_step_s = 0.0;  ///< the closed-form estimate, for comparison
  std::string not_simulated;     ///< validation.not_simulated: why it is not simulated ("" = simulated)
  std::string load_error;        ///< a not-simulated case whose configuration stepsim refuses: the error
  AccuracyClass cls;             ///< which runs it stands for in the accuracy table (scenarios/accuracy.hpp)
  /// The busiest simulated GPU's memory peak and the HBM it may use (0 when not simulated, or for a
  /// generation case): the measured run ran, so a peak above the usable HBM is an error of the
  /// memory model, reported beside the step time's.
  double memory_peak_bytes = 0.0;
  double usable_hbm_bytes = 0.0;
  /// Lower bounds the simulated step carries (training and single steps; 0 otherwise), the largest
  /// over the simulated GPUs: a GPU's kernels alone, and its host's launches and framework code
  /// alone. One above the measured step cannot be right whatever the rest of the model does: that
  /// part is overpriced for this run.
  double kernel_busy_s = 0.0;
  double host_busy_s = 0.0;

  bool simulated() const { return not_simulated.empty(); }
  bool kernels_exceed_measured() const { return kernel_busy_s > measured_step_s; }
  bool host_exceeds_measured() const { return host_busy_s > measured_step_s; }
  bool predicted_to_fit() const { return memory_peak_bytes <= usable_hbm_bytes; }
};

/// Error figures over a group's simulated cases.
struct GroupSummary {
  int cases = 0;          ///< simulated cases: those the figures below average
  int not_simulated = 0;  ///< cases listed but not simulated (in no figure)
  double mape = 0.0;      ///< mean |error|
  double max_abs_error = 0.0;
  double mean_error = 0.0;  ///< signed: the bias
};

struct ValidationReport {
  std::vector<ValidationCase> cases;           ///< ordered by group, then id
  std::map<std::string, GroupSummary> groups;  ///< by group name (ordered)
  GroupSummary overall;
};

/// Told after each scenario file is done, from the thread that did it (calls may overlap), how
/// many files are done and how many there are. For a progress line; results never depend on it.
using ValidationProgress = std::function<void(std::size_t done, std::size_t files)>;

/// Simulates every `*.toml` under `dir` that has a [validation] block, on `jobs` threads (results
/// do not depend on it). Scenarios without [validation] are skipped; any that fails to load or run
/// is an error naming the file. A case with `validation.not_simulated` is not simulated: its file
/// must still read (syntax, unknown keys and bad values are errors as for any case), and if stepsim
/// refuses its configuration the error is recorded in the case instead of raised. A case whose step
/// is estimated above `max_ops` ops is refused (workloads/step/step_size.hpp).
ValidationReport run_validation(const std::filesystem::path& dir, const Catalog& catalog, int jobs,
                                const ValidationProgress& progress = {},
                                std::uint64_t max_ops = work::kDefaultMaxOps);

/// validation.not_simulated of a scenario file's text when it is a string, else "". `file` names
/// the text in a syntax error (a UserError).
std::string not_simulated_reason(std::string_view toml_text, const std::string& file);

}  // namespace stepsim::scen
