// Expanding a sweep into its points, sharding, and the sweep's fingerprint.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

#include "scenarios/sweep.hpp"

namespace stepsim::scen {
namespace {

/// The most points a sweep may expand to before filtering: the expansion walks them all.
constexpr std::uint64_t kMaxProduct = 100'000'000ULL;

}  // namespace

std::uint64_t Sweep::product_size() const {
  std::uint64_t n = 1;
  for (const SweepAxis& a : axes) {
    const std::uint64_t k = a.tuples.size();
    if (k != 0 && n > std::numeric_limits<std::uint64_t>::max() / k)
      return std::numeric_limits<std::uint64_t>::max();
    n *= k;
  }
  return n;
}

std::string Sweep::hash_hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

std::filesystem::path Sweep::base_dir() const {
  if (!base_inline) return base_path.parent_path();
  return path.parent_path();
}

std::vector<const SweepValue*> point_values(const Sweep& sweep, std::span<const std::uint32_t> steps) {
  std::vector<const SweepValue*> out(sweep.keys.size(), nullptr);
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
    const SweepAxis& axis = sweep.axes[a];
    for (std::size_t k = 0; k < axis.keys.size(); ++k) out[axis.keys[k]] = &axis.tuples[steps[a]][k];
  }
  return out;
}

SweepPoints::SweepPoints(const Sweep& sweep) : axes_(sweep.axes.size()) {
  const std::uint64_t product = sweep.product_size();
  if (product > kMaxProduct)
    throw UserError(
        SourceLocation{sweep.display_name, 0, 0}, "axis",
        "the axes combine into " + std::to_string(product) + " points (at most 100,000,000 before filters)",
        "split the sweep into several files, or shorten its axes");
  // Evaluation slots: every key's value, then every predicate's (in dependency order).
  std::vector<ExprValue> slots(sweep.keys.size() + sweep.predicates.size());
  std::vector<std::uint32_t> step(axes_, 0);
  for (std::uint64_t p = 0; p < product; ++p) {
    for (std::size_t a = 0; a < axes_; ++a) {
      const SweepAxis& axis = sweep.axes[a];
      for (std::size_t k = 0; k < axis.keys.size(); ++k)
        slots[axis.keys[k]] = axis.tuples[step[a]][k].expr_value();
    }
    for (const SweepPredicate& pr : sweep.predicates) slots[pr.slot] = pr.expr.evaluate(slots);
    const bool keep = std::all_of(sweep.filters.begin(), sweep.filters.end(),
                                  [&](const Expr& f) { return std::get<bool>(f.evaluate(slots)); });
    if (keep) {
      steps_.insert(steps_.end(), step.begin(), step.end());
      ++count_;
    } else {
      ++rejected_;
    }
    // Odometer increment, last axis fastest.
    for (std::size_t a = axes_; a-- > 0;) {
      if (++step[a] < sweep.axes[a].tuples.size()) break;
      step[a] = 0;
    }
  }
}

Shard parse_shard(std::string_view text, std::string_view option) {
  const auto slash = text.find('/');
  Shard s;
  const auto parse = [&](std::string_view part, std::uint32_t& out) {
    const auto r = std::from_chars(part.data(), part.data() + part.size(), out);
    return r.ec == std::errc() && r.ptr == part.data() + part.size() && !part.empty();
  };
  const bool ok = slash != std::string_view::npos && parse(text.substr(0, slash), s.index) &&
                  parse(text.substr(slash + 1), s.count) && s.count >= 1 && s.index < s.count;
  if (!ok)
    throw UserError(std::string(option) + ": expected I/N with 0 <= I < N (shard I of N), got `" +
                    std::string(text) + "`");
  return s;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace stepsim::scen
