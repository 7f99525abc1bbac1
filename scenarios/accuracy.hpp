#pragma once
// How far stepsim has been from published measurements of runs like a given one: the validation
// suite's errors summarised per class of run (GPU, workload kind, dense or MoE, the linear layers'
// precision, model size), written by `stepsim validate --write-accuracy` into the shipped
// accuracy/validated.toml and shown beside a run's prediction. The prediction itself never uses it.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/model/job.hpp"

namespace stepsim::scen {

struct ValidationReport;

/// What makes two runs comparable for the accuracy table.
struct AccuracyClass {
  std::string gpu;       ///< the catalog id ("h100-sxm")
  std::string workload;  ///< workload.kind: train, prefill, decode, generate, serve
  bool moe = false;      ///< the model has routed experts
  /// precision.compute, the linear layers' GEMMs: "16-bit" (bf16 and fp16), "fp8", ...
  std::string precision;
  /// Active parameters per token (main model): "under 10B", "10B-100B", "100B and more". Small models
  /// and large ones err differently (docs/simulation.md section 6).
  std::string size;

  bool operator==(const AccuracyClass&) const = default;
  /// "h100-sxm, training, dense, 16-bit, 10B-100B": as the run output names it.
  std::string text() const;
};

/// The class of a job.
AccuracyClass accuracy_class_of(const work::JobSpec& job);

/// The simulated cases of one class: error = (predicted - measured) / measured of each step.
struct AccuracyBand {
  AccuracyClass cls;
  int runs = 0;
  double mean_error = 0.0;  ///< signed: the bias
  double min_error = 0.0;   ///< most negative (the simulation fastest against the measurement)
  double max_error = 0.0;
  double mape = 0.0;                ///< mean |error|
  std::vector<std::string> groups;  ///< the validation groups the runs belong to, sorted
  std::vector<std::string> cases;   ///< their ids, sorted
};

/// One band per class with at least one simulated case, ordered by class (gpu, workload, moe,
/// precision, size).
std::vector<AccuracyBand> accuracy_bands(const ValidationReport& report);

/// The bands as the TOML file `load_accuracy` reads (the same bands give the same bytes).
std::string accuracy_toml(const std::vector<AccuracyBand>& bands);

/// Reads a file written by accuracy_toml; bad input is a UserError at file:line:column.
std::vector<AccuracyBand> load_accuracy(const std::filesystem::path& file);

/// The shipped table, data_dir()/accuracy/validated.toml; nullopt when the data directory has none
/// (a build without it knows nothing about its accuracy, which is not the same as "no runs").
std::optional<std::vector<AccuracyBand>> load_builtin_accuracy();

/// What the table says about runs of `job`'s class: nullopt band when it holds no run of the class.
/// A GPU written as a `preset` variant with no run of its own takes the band of the nearest entry it
/// was started from that has one (`via`: that entry's id; the band's class names it).
struct AccuracyMatch {
  AccuracyClass cls;
  std::optional<AccuracyBand> band;
  std::string via;  ///< the preset base whose runs `band` holds; empty when they are the GPU's own

  /// What a step simulated at `predicted_s` would measure if it erred as the class's runs did:
  /// predicted / (1 + error) at the largest and the smallest error, as {low, high}; needs a band.
  std::pair<double, double> implied_s(double predicted_s) const;
};
AccuracyMatch match_accuracy(const std::vector<AccuracyBand>& bands, const work::JobSpec& job);
/// match_accuracy against the shipped table; nullopt when the data directory has none.
std::optional<AccuracyMatch> builtin_accuracy_match(const work::JobSpec& job);

}  // namespace stepsim::scen
