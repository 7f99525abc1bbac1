#pragma once
// A plain-text table with aligned columns, for terminal output.

#include <cstdint>
#include <string>
#include <vector>

namespace stepsim::out {

enum class Align : std::uint8_t { left, right };

class TextTable {
 public:
  /// One heading per column; `align` gives each column's alignment (default: first column left,
  /// the rest right, as for a label followed by numbers).
  explicit TextTable(std::vector<std::string> headings, std::vector<Align> align = {});
  /// Adds a row; missing cells are blank, extra cells are an error (std::invalid_argument).
  void add_row(std::vector<std::string> cells);
  /// The table with a heading rule, columns separated by two spaces, no trailing blanks.
  std::string render() const;

 private:
  std::vector<std::string> headings_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace stepsim::out
