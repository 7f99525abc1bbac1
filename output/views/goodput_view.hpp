#pragma once
// A training run's goodput with failures and checkpoints (workloads/reliability/goodput.hpp) as a
// terminal report and as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "output/views/run_view.hpp"
#include "workloads/reliability/goodput.hpp"

namespace stepsim::out {

/// The run, the job's failure rate by component, the checkpoint, the Monte Carlo at the chosen
/// interval (wall time and goodput with their spread, failures, where the time goes) and goodput
/// over checkpoint intervals beside Young/Daly.
std::string goodput_table(const work::JobSpec& job, const work::GoodputAssessment& a,
                          const RunLabels& labels);

/// The same as JSON, keys in a fixed order (docs/reliability.md lists them).
nlohmann::ordered_json goodput_json(const work::JobSpec& job, const work::GoodputAssessment& a,
                                    const RunLabels& labels);

/// A duration as people read a run's: seconds up to two minutes, minutes up to two hours, hours
/// up to two days, then days; "never" when infinite.
std::string duration_text(double seconds);

}  // namespace stepsim::out
