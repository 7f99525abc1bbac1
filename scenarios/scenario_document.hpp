#pragma once
// Loading a scenario from a TOML document the caller parsed (and may have modified): sweeps parse
// their base scenario once and place each point's values into a copy.

#include <toml++/toml.hpp>

#include <filesystem>

#include "scenarios/scenario.hpp"

namespace stepsim::scen {

/// As load_scenario_string, from `doc`. `locations` names the document (its file()) and says
/// where values placed into `doc` without a source position came from (a sweep axis); nodes
/// that carry a position report it. source_text is left empty.
Scenario load_scenario_document(toml::table doc, KeyLocations locations, const Catalog& catalog,
                                const std::filesystem::path& base_dir = {});

}  // namespace stepsim::scen
