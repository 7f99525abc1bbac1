#pragma once
// The "validated" line of a run: how far stepsim was from published measurements of runs of the
// same class (scenarios/accuracy.hpp), and what this run would measure if it erred as they did.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "scenarios/accuracy.hpp"

namespace stepsim::out {

/// The text after the "validated" label: one line, or two joined by "\n" (the second without
/// its indentation). `predicted_s` is the run's simulated time (a step, or a whole batch).
std::string validated_text(const scen::AccuracyMatch& m, double predicted_s);

/// One cell for tables that set runs side by side: "mean 11.0% below (20 runs, 13.2% below to 0.8%
/// above)", or "no published run".
std::string validated_cell(const scen::AccuracyMatch& m);

/// validated_text under the label "validated", padded to `width` columns, its second line
/// indented as far.
void validated_lines(std::ostream& o, const scen::AccuracyMatch& m, double predicted_s, int width);

/// {"class": {...}, "runs": N, ...}: runs 0 and no error figures when no published run matches.
nlohmann::ordered_json validated_json(const scen::AccuracyMatch& m, double predicted_s);

}  // namespace stepsim::out
