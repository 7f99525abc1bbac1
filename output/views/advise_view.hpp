#pragma once
// Renders `stepsim run --advise`: the helpful changes, best first, each with the --set edits that
// reproduce it, and a count of what else was tried.

#include <nlohmann/json.hpp>
#include <string>

#include "output/search/advise.hpp"

namespace stepsim::out {

/// The terminal section printed after the run's report.
std::string advice_table(const Advice& a);
/// The report's "What to change" section (HTML, escaped; no scripts).
std::string advice_html(const Advice& a);
/// The "advice" object of the run's JSON document.
nlohmann::ordered_json advice_json(const Advice& a);

}  // namespace stepsim::out
