#pragma once
// A sweep file: a base scenario, axes of values to place into it, and filters over those values.
// Reading validates everything that can be checked without simulating (keys, types, ranges,
// filter expressions); expansion lists the points in a fixed order; docs/sweeps.md is the format.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scenarios/sweep_expr.hpp"
#include "sim/error.hpp"

namespace stepsim::scen {

/// What a sweep computes for each point.
enum class SweepMode : std::uint8_t {
  simulate,  ///< the event-driven simulation (and the closed-form estimate beside it)
  estimate,  ///< the closed-form estimate only: microseconds per point, any workload kind
};

/// The type of an axis key's values (and of its result column).
enum class ValueKind : std::uint8_t {
  integer,  ///< every value an integer
  real,     ///< numbers, at least one with a fraction or exponent
  text,     ///< strings
  boolean,
  toml,  ///< arrays or tables, kept as their TOML text ("[1.0, 2.0]")
};

/// One value an axis places into the base scenario.
struct SweepValue {
  ValueKind kind = ValueKind::integer;  ///< this value's own type (a real column may hold integers)
  std::int64_t integer = 0;
  double real = 0.0;  ///< also set for integers
  std::string text;   ///< strings; TOML text for arrays and tables
  bool flag = false;
  SourceLocation where;  ///< the value in the sweep file, or its axis when a range generated it
  /// As TOML ("4", "400.0", "\"h100-sxm\"", "true", "[1.0, 2.0]").
  std::string toml_text() const;
  /// As a filter expression sees it: numbers, strings (TOML text for arrays) and booleans.
  ExprValue expr_value() const;
};

/// A scenario key that axes set, with the name filters use for it.
struct SweepKey {
  std::string key;   ///< dotted scenario key: "parallelism.tp"
  std::string name;  ///< name in filters; default the key's last part ("tp")
  ValueKind kind = ValueKind::integer;
  SourceLocation where;
};

/// One axis: a list of values of one key, or tuples of several keys that vary together (zipped).
struct SweepAxis {
  std::vector<std::uint32_t> keys;              ///< indices into Sweep::keys
  std::vector<std::vector<SweepValue>> tuples;  ///< tuples[i][k]: value of keys[k] at step i
  SourceLocation where;
};

/// A named boolean expression other filters may use by name.
struct SweepPredicate {
  std::string name;
  std::uint32_t slot = 0;  ///< where its value goes among the evaluation slots
  Expr expr;
};

struct Sweep {
  std::filesystem::path path;  ///< the sweep file; empty when read from a string
  std::string display_name;    ///< the file as messages name it
  std::string text;            ///< the sweep file as read
  std::string name;            ///< [sweep] name; default the file's stem
  SweepMode mode = SweepMode::simulate;
  /// The base scenario: a file (base_path, its text in base_text) or the [base] table of the
  /// sweep file itself (base_inline, base_text empty).
  std::filesystem::path base_path;
  std::string base_text;
  bool base_inline = false;
  std::vector<SweepKey> keys;   ///< in axis order, then key order within a zipped axis
  std::vector<SweepAxis> axes;  ///< first axis outermost
  /// Predicates in dependency order (each uses only keys and earlier predicates).
  std::vector<SweepPredicate> predicates;
  std::vector<Expr> filters;  ///< [sweep] where: a point is kept when all are true
  std::vector<std::string> filter_text;
  std::uint64_t hash = 0;  ///< FNV-1a of the sweep text and the base file's text

  /// Points before filtering: the product of the axis lengths (saturates at UINT64_MAX).
  std::uint64_t product_size() const;
  /// The hash as 16 lower-case hex digits.
  std::string hash_hex() const;
  /// Folder that relative paths in the base scenario (its `catalog = [...]`) resolve against.
  std::filesystem::path base_dir() const;
};

/// Reads and validates a sweep file; relative `base` paths resolve against its folder. Throws
/// UserError (file:line:column, key, hint) on any problem.
Sweep load_sweep(const std::filesystem::path& path);
/// As load_sweep, from text; `name` stands in for the file in messages, `base_dir` for its folder.
Sweep load_sweep_string(std::string_view text, const std::string& name,
                        const std::filesystem::path& base_dir = {});

/// The points of a sweep: every combination of axis steps (first axis outermost, last axis
/// fastest), less those a filter rejects, in that order. Point i is identified by its index.
class SweepPoints {
 public:
  explicit SweepPoints(const Sweep& sweep);
  std::size_t size() const { return axes_ == 0 ? count_ : steps_.size() / axes_; }
  /// Point i's step on each axis (indices into SweepAxis::tuples).
  std::span<const std::uint32_t> steps(std::size_t i) const { return {steps_.data() + i * axes_, axes_}; }
  std::uint64_t rejected() const { return rejected_; }

 private:
  std::size_t axes_ = 0;
  std::size_t count_ = 0;  ///< a sweep without axes has one point
  std::vector<std::uint32_t> steps_;
  std::uint64_t rejected_ = 0;
};

/// The value of each key (Sweep::keys order) at a point with these axis steps.
std::vector<const SweepValue*> point_values(const Sweep& sweep, std::span<const std::uint32_t> steps);

/// A deterministic slice of the points: those whose index is congruent to `index` modulo
/// `count` (round-robin, so expensive neighbouring points spread over the shards).
struct Shard {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  bool contains(std::uint64_t point) const { return point % count == index; }
};
/// Parses "i/n" (0 <= i < n); a malformed text is a UserError naming `option`.
Shard parse_shard(std::string_view text, std::string_view option);

/// FNV-1a, 64 bits: a content fingerprint for matching results to their sweep (not security).
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed = 14695981039346656037ULL);

}  // namespace stepsim::scen
