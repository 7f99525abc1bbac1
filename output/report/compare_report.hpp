#pragma once
// `stepsim compare --report`: the comparison as a self-contained HTML page.

#include <span>
#include <string>
#include <string_view>

#include "output/views/compare_view.hpp"

namespace stepsim::out {

/// A self-contained page: the table with winners marked and the breakdowns on one time scale.
std::string compare_html(std::span<const CompareEntry> entries, std::span<const CompareRow> rows,
                         std::string_view version);

}  // namespace stepsim::out
