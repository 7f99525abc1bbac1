#pragma once
// "Did you mean ...?" for mistyped keys, enum values and catalog ids.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace stepsim::scen {

/// Edit distance (insertions, deletions, substitutions, adjacent transpositions), ignoring case
/// and treating '-' and '_' as the same character.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate a user most plausibly meant by `word`: the shortest candidate that `word`
/// (3+ characters) begins, else the nearest within a typo's distance (a third of the word's
/// length, at least 1). Ties go to the earlier candidate, so the answer is deterministic.
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

/// "did you mean `x`?" when closest_match finds one, else "".
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

/// "a, b, c" (candidates joined for a "valid values are ..." hint), shortened past `max_items`.
std::string join_names(std::span<const std::string> names, std::size_t max_items = 24);

}  // namespace stepsim::scen
