#pragma once
// The sizing from the simulated rate as a terminal report and as JSON. Both say first whether a size
// was found (sized, does not fit, unreachable) before any rate.

#include <string>

#include "output/search/sizing.hpp"

namespace stepsim::out {

/// The verdict, the simulated sizes beside the closed-form one, memory, cost and, for a token budget,
/// the run's days, GPU-hours and USD.
std::string size_table(const SizingResult& r);

/// The same as JSON (keys in a fixed order; docs/outputs.md lists them), with a trailing newline.
std::string size_json_text(const SizingResult& r);

}  // namespace stepsim::out
