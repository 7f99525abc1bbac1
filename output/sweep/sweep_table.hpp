#pragma once
// The results of a sweep as a table: one row per point, its inputs (axis values), status and
// outputs. The schema is fixed by the sweep's axes; every writer (journal, HDF5, CSV) and reader
// works column by column from it, so a row survives any round trip bit for bit.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "scenarios/sweep.hpp"

namespace stepsim::out {

enum class ColumnType : std::uint8_t { int64, float64, text };
std::string_view name(ColumnType t);

struct Column {
  Column() = default;
  Column(std::string n, ColumnType t, std::vector<std::string> cats = {})
      : name(std::move(n)), type(t), categories(std::move(cats)) {}
  std::string name;
  ColumnType type = ColumnType::float64;
  /// Text columns of a closed set of values (a text axis, `status`, `bottleneck`, ...): the values
  /// in order, which the results file stores as an HDF5 enum (pandas reads categories). Empty:
  /// free text. Not part of the schema's identity (operator==, fingerprint).
  std::vector<std::string> categories;
};

/// One value of a row. Missing numbers are NaN (floats) or 0 (integers); missing text is "".
using Cell = std::variant<std::int64_t, double, std::string>;
/// A row: cells in schema order; cells[0] is the point index.
using Row = std::vector<Cell>;

/// What became of a point.
enum class PointStatus : std::uint8_t {
  ok,             ///< simulated (or estimated) and fits in memory
  out_of_memory,  ///< simulated, but the busiest GPU's memory peak exceeds its HBM
  invalid,        ///< not a valid scenario (divisibility, ranges, unsupported): the message says why
  failed,         ///< an internal error while simulating it (a bug): the message says what
};
std::string_view name(PointStatus s);

/// Names and positions of the columns every sweep table has, after the axis columns.
struct SweepSchema {
  std::vector<Column> columns;        ///< point, axis keys (their dotted names), then kResultColumns
  std::size_t first_result = 0;       ///< index of `status`
  std::uint64_t fingerprint() const;  ///< of names and types, for matching files
  bool operator==(const SweepSchema& o) const;
};

/// The schema of `sweep`'s results: integer axes are int64, numbers float64, booleans int64 (0/1),
/// strings and arrays text.
SweepSchema sweep_schema(const scen::Sweep& sweep);

struct PointOutcome;  // output/sweep/sweep_eval.hpp

/// Result columns in order, with their type, meaning (docs/sweeps.md lists them) and how a point's
/// outcome fills them.
struct ResultColumn {
  const char* name;
  ColumnType type;
  const char* meaning;
  Cell (*get)(const PointOutcome& outcome);  ///< called only for ok and out_of_memory points
  /// Text columns of a closed set of values: the values, in order (Column::categories).
  std::vector<std::string> (*categories)() = nullptr;
};
std::span<const ResultColumn> result_columns();

/// A row of `schema` with only the point and its axis values set (results missing).
Row empty_row(const SweepSchema& schema, std::uint64_t point,
              std::span<const scen::SweepValue* const> values);

/// Binary encoding of a row for the journal (little-endian, lengths before text).
std::string encode_row(const SweepSchema& schema, const Row& row);
/// Decodes what encode_row wrote; throws std::runtime_error on a malformed payload.
Row decode_row(const SweepSchema& schema, std::string_view bytes);

/// Shortest text that reads back as exactly `v` ("" for NaN): CSV and messages.
std::string number_text(double v);

}  // namespace stepsim::out
