#pragma once
// Renders a simulated step: a terminal report and a JSON document (the `stepsim run` contract:
// step_time_s, tokens_per_s_per_gpu, mfu, hfu, breakdown, critical_path, memory, estimate, ...).

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "scenarios/accuracy.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

struct RunLabels {
  std::string scenario;
  std::string gpu;
  std::string model;
  /// The published runs of the job's class and stepsim's error on them (`validated` in the
  /// outputs); absent where the shipped accuracy table is not looked up.
  std::optional<scen::AccuracyMatch> validated = std::nullopt;
};

/// The JSON document; keys in a fixed order (docs/model.md lists them).
nlohmann::ordered_json run_json(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels);
std::string run_json_text(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels);
/// "TP8 PP4x5 DP16 ZeRO-1 SP": the job's parallel layout in one line.
std::string parallel_layout(const work::JobSpec& job);
/// The readable report.
std::string run_table(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels);

}  // namespace stepsim::out
