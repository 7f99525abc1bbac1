#pragma once
// Renders a validation report: predicted against measured step time per case, MAPE per group.

#include <string>

#include "scenarios/validation_suite.hpp"

namespace stepsim::out {

/// JSON: {"cases": [{id, group, file, measured_step_s, predicted_step_s, error, bottleneck,
/// estimate_step_s}], "mape": {group: x}, "groups": {group: {cases, not_simulated, mape,
/// max_abs_error, mean_error}}, "overall": {...}}. A not-simulated case has `not_simulated` (the
/// reason) and, when stepsim refuses its configuration, `load_error`, instead of the predicted
/// figures; `cases` counts the simulated cases, and a group without any has null figures.
std::string validate_json_text(const scen::ValidationReport& r);
/// The per-case table, the not-simulated cases with their reasons, and the per-group summary.
std::string validate_table(const scen::ValidationReport& r);

}  // namespace stepsim::out
