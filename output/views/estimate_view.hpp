#pragma once
// Renders a closed-form estimate: a terminal table and a JSON document. Both are pure functions of
// the estimate and its labels, so the same input prints byte-identical output.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "workloads/estimate/estimate.hpp"

namespace stepsim::out {

/// What the estimate is of, for headings.
struct EstimateLabels {
  std::string scenario;  ///< scenario name or file
  std::string gpu;       ///< GPU id
  std::string model;     ///< model id
};

/// The JSON document (keys in a fixed order): tokens_per_s_per_gpu, bound, rates, step_time_s, mfu,
/// memory, cost, and gpus_needed / cluster_cost_per_hour when a target is set; docs/model.md lists
/// every field.
nlohmann::ordered_json estimate_json(const work::Estimate& e, const EstimateLabels& labels);

/// estimate_json, pretty-printed with a trailing newline.
std::string estimate_json_text(const work::Estimate& e, const EstimateLabels& labels);

/// A readable report: rates per resource with the bound marked, intensity against the ridge, the
/// network terms, memory and its verdict, cost lines and sizing.
std::string estimate_table(const work::Estimate& e, const EstimateLabels& labels);

}  // namespace stepsim::out
