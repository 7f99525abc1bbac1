#pragma once
// Scenarios side by side (`stepsim compare`): the figures that decide between layouts and
// fabrics, each row with the scenario(s) that win it, as a table or JSON (the HTML page:
// output/report/compare_report.hpp).

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "output/run/run_figures.hpp"
#include "output/views/run_view.hpp"

namespace stepsim::out {

/// One simulated scenario.
struct CompareEntry {
  std::string name;  ///< as the columns show it (unique)
  std::string file;
  const work::JobSpec* job = nullptr;
  const work::Simulation* sim = nullptr;
  /// stepsim's record on published runs of the scenario's class (scenarios/accuracy.hpp); the
  /// "validated" row appears when any entry has one.
  std::optional<scen::AccuracyMatch> validated = std::nullopt;
};

enum class Better : std::uint8_t { lower, higher, none };

/// One compared figure.
struct CompareRow {
  std::string key;    ///< JSON name ("step_time_s", "exposed_comm_s.dp")
  std::string label;  ///< table label ("step time", "exposed dp communication")
  Better better = Better::none;
  std::vector<double> values;        ///< per entry
  std::vector<std::string> cells;    ///< per entry, formatted
  std::vector<std::size_t> winners;  ///< entries that win the row (ties share it); empty if none
};

/// The rows for `entries`: what differs between them, the memory verdict, step time, tokens/s,
/// MFU, the verdict (what each step waits on), exposed communication per group (groups that any
/// entry has), $ per million tokens, and stepsim's mean error on published runs of each entry's class. A
/// scenario that does not fit in memory wins no row, and its rate cells say "(not achievable)".
std::vector<CompareRow> compare_rows(std::span<const CompareEntry> entries);

std::string compare_table(std::span<const CompareEntry> entries, std::span<const CompareRow> rows);
nlohmann::ordered_json compare_json(std::span<const CompareEntry> entries, std::span<const CompareRow> rows);

}  // namespace stepsim::out
