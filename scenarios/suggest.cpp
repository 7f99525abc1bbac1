#include "scenarios/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace stepsim::scen {
namespace {

char fold(char c) {
  if (c == '-') return '_';
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool folded_prefix(std::string_view prefix, std::string_view s) {
  if (prefix.size() > s.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (fold(prefix[i]) != fold(s[i])) return false;
  return true;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal-string-alignment distance over three rolling rows.
  const std::size_t n = b.size();
  std::vector<std::size_t> prev2(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[n];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
  // A word that starts a longer candidate ("h100" -> "h100-sxm") is a stronger signal than a
  // one-letter typo that happens to hit another candidate ("h200").
  std::optional<std::string> best;
  if (word.size() >= 3)
    for (const std::string& c : candidates)
      if (folded_prefix(word, c) && (!best || c.size() < best->size())) best = c;
  if (best) return best;
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const std::size_t dist = edit_distance(word, c);
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const auto match = closest_match(word, candidates);
  return match ? "did you mean `" + *match + "`?" : std::string();
}

std::string join_names(std::span<const std::string> names, std::size_t max_items) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max_items; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > max_items) out += ", ... (" + std::to_string(names.size() - max_items) + " more)";
  return out;
}

}  // namespace stepsim::scen
