#pragma once
// A typed reader over one TOML table. Every value is checked for type and range; every key the
// reader is asked about counts as valid there, and finish() rejects any other key with
// "did you mean". Errors are stepsim::UserError with file:line:column and the dotted key.

#include <toml++/toml.hpp>

#include <array>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/key_locations.hpp"
#include "sim/error.hpp"
#include "sim/quantity.hpp"

namespace stepsim::scen {

/// Inclusive range of an integer field.
struct IntRange {
  std::int64_t min = 0;
  std::int64_t max = INT_MAX;
};
inline constexpr IntRange kPositiveInt{1, INT_MAX};
inline constexpr IntRange kNonNegativeInt{0, INT_MAX};

/// Range of a real field; `min_open` excludes the minimum itself. `hint` explains the unit or
/// meaning when a value falls outside.
struct RealRange {
  double min = 0.0;
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  std::string_view hint = {};
};
inline constexpr RealRange kPositive{0.0, std::numeric_limits<double>::infinity(), true};
inline constexpr RealRange kNonNegative{0.0, std::numeric_limits<double>::infinity(), false};
inline constexpr RealRange kFraction{0.0, 1.0, true, "a fraction of peak, e.g. 0.8"};

/// Whether `v` lies in `r` (false for NaN).
bool in_range(double v, const RealRange& r);
/// `r` as a message writes it: "in [1, 1000]", "greater than 0".
std::string range_text(const RealRange& r);
/// A number as messages write it (six significant digits).
std::string number_text(double v);

/// Why `path` is not a regular file one can open ("" when it is one): "not found", "is a directory,
/// not a file", a name too long for the file system, or the system's message. Never throws (the
/// throwing std::filesystem queries turn a 300-byte name into an internal error).
std::string file_problem(const std::filesystem::path& path);

/// One spelling of an enum value as the input writes it.
template <class E>
struct Choice {
  std::string_view name;
  E value;
};

/// Shared by every reader of one input.
struct ReadContext {
  std::string file;                   ///< as printed in messages
  KeyLocations* locations = nullptr;  ///< where each key read was found (may be null)
  /// Optional: for an unknown `key` in table `table_path`, a hint naming the table where it
  /// belongs ("`tp` belongs in [parallelism]"), or "".
  std::string (*elsewhere)(std::string_view table_path, std::string_view key) = nullptr;
};

/// Parses TOML text; syntax errors become UserError at the reported position.
toml::table parse_toml(std::string_view text, const std::string& file);
/// The contents of a file; a missing or unreadable file is a UserError naming it.
std::string read_text_file(const std::filesystem::path& path);
/// Reads and parses a file; a missing or unreadable file is a UserError. Returns the text too.
toml::table parse_toml_file(const std::filesystem::path& path, std::string& text);

/// "a.b" or "a.\"b.c\"": the dotted path of `key` inside table `path`, quoting keys that need it.
std::string child_path(std::string_view path, std::string_view key);

class TableReader {
 public:
  /// `path` is the table's dotted key ("" for the document root); `ctx` must outlive the reader.
  TableReader(const toml::table& table, std::string path, const ReadContext& ctx);

  // Each read() marks `key` valid here and, when present, checks and stores it, returning true.
  bool read(std::string_view key, int& out, IntRange range);
  bool read(std::string_view key, double& out, RealRange range, double scale = 1.0);
  /// A quantity written in the unit `unit` names (`units::gib`, `units::tflops_per_s`, ...); the
  /// range is in that unit.
  template <class Tag>
  bool read(std::string_view key, Quantity<Tag>& out, RealRange range, Quantity<Tag> (*unit)(double)) {
    double v = 0.0;
    if (!read(key, v, range)) return false;
    out = unit(v);
    return true;
  }
  bool read(std::string_view key, bool& out);
  bool read(std::string_view key, std::string& out);
  bool read(std::string_view key, std::vector<std::string>& out);
  bool read(std::string_view key, std::vector<double>& out, RealRange range);
  template <class E, std::size_t N>
  bool read(std::string_view key, E& out, const std::array<Choice<E>, N>& choices) {
    std::vector<std::string_view> names;
    names.reserve(choices.size());
    for (const auto& c : choices) names.push_back(c.name);
    const auto index = choice_index(key, names);
    if (index) out = choices[*index].value;
    return index.has_value();
  }

  /// The sub-table at `key` (marked valid), or nullopt if absent; a non-table value is an error.
  std::optional<TableReader> table(std::string_view key);
  /// The array of tables at `key` ([[key]] blocks), empty if absent.
  std::vector<TableReader> tables(std::string_view key);
  /// The raw node at `key` (marked valid), or null, for values with more than one accepted shape.
  const toml::node* node(std::string_view key);
  /// True if `key` is present (does not mark it valid).
  bool has(std::string_view key) const { return table_->contains(key); }
  /// Marks keys valid without reading them (read elsewhere, or accepted and ignored).
  void accept(std::initializer_list<std::string_view> keys);

  /// Throws for the first key (in file order) that no read() asked about.
  void finish() const;

  [[noreturn]] void fail(std::string_view key, const std::string& problem,
                         const std::string& hint = {}) const;
  [[noreturn]] void fail_at(const toml::node& node, std::string_view key, const std::string& problem,
                            const std::string& hint = {}) const;
  /// Where the value of `key` is, else the table's own position.
  SourceLocation where(std::string_view key) const;
  SourceLocation where() const;
  std::string path(std::string_view key) const { return child_path(path_, key); }
  const std::string& path() const { return path_; }
  const ReadContext& context() const { return *ctx_; }
  const toml::table& raw() const { return *table_; }
  /// "[hardware]" or "the top level", for messages.
  std::string table_label() const;

 private:
  std::optional<std::size_t> choice_index(std::string_view key, std::span<const std::string_view> names);
  const toml::node* mark(std::string_view key);
  SourceLocation location_of(const toml::source_region& r) const;

  const toml::table* table_;
  std::string path_;
  const ReadContext* ctx_;
  std::vector<std::string> known_;
};

}  // namespace stepsim::scen
