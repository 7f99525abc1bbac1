#pragma once
// The layout search's report: the ranked layouts and why the best one wins.

#include <string>

#include "output/search/layout_search.hpp"

namespace stepsim::out {

/// Counts, a table of the `top` layouts, and search_explanation().
std::string search_table(const SearchResult& r, std::size_t top);
/// The same as JSON (keys in a fixed order).
std::string search_json(const SearchResult& r, std::size_t top);
/// Why the best layout wins: its rate and cost, what bounds it (breakdown, exposed communication
/// by group, bubble, memory), and where the runner-up loses.
std::string search_explanation(const SearchResult& r);
/// Why no layout was ranked, with the counts of each kind of failure: "no layout was ranked: of
/// 12 layouts, 3 were invalid, ...". For `stepsim search`'s error when `r.ranked` is empty.
std::string search_no_layout(const SearchResult& r);

}  // namespace stepsim::out
