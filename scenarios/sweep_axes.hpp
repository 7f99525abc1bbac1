#pragma once
// Internal to the sweep reader: the keys and values of one [[axis]] table.

#include <string>
#include <utility>
#include <vector>

#include "scenarios/sweep.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {

/// The keys an axis sets and their names in filters, with the nodes that wrote them.
struct AxisKeys {
  std::vector<std::pair<std::string, const toml::node*>> keys;
  std::vector<std::pair<std::string, const toml::node*>> names;  ///< defaulted names point at their key
  bool zipped = false;                                           ///< `keys = [...]` with tuples of values
  std::string key_field;                                         ///< "key" or "keys", for messages
  std::string name_field;
};

/// Reads `key` (+ optional `name`) or `keys` (+ optional `names`).
AxisKeys read_axis_keys(TableReader& axis);

/// Reads `values` (a list; tuples when zipped) or a range (`from`, `to`, and `step` or `times`).
/// Returns tuples[i][k]; one element per tuple when not zipped.
std::vector<std::vector<SweepValue>> read_axis_values(TableReader& axis, std::size_t key_count, bool zipped);

std::string value_kind_phrase(ValueKind k);
ExprType expr_type(ValueKind k);

}  // namespace stepsim::scen
