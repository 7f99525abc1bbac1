#pragma once
// Renders a validation report: predicted against measured step time per case, MAPE per group.

#include <string>

#include "scenarios/validation_suite.hpp"

namespace stepsim::out {

/// JSON: {"cases": [{id, group, predicted_step_s, measured_step_s, error, ...}], "mape": {group: x},
/// "groups": {group: {cases, mape, max_abs_error, mean_error}}, "overall": {...}}.
std::string validate_json_text(const scen::ValidationReport& r);
std::string validate_table(const scen::ValidationReport& r);

}  // namespace stepsim::out
