#include "output/common/text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace stepsim::out {

TextTable::TextTable(std::vector<std::string> headings, std::vector<Align> align)
    : headings_(std::move(headings)), align_(std::move(align)) {
  if (align_.empty()) {
    align_.assign(headings_.size(), Align::right);
    if (!align_.empty()) align_[0] = Align::left;
  }
  align_.resize(headings_.size(), Align::right);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > headings_.size())
    throw std::invalid_argument("TextTable row has more cells than headings");
  cells.resize(headings_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(headings_.size());
  for (std::size_t c = 0; c < headings_.size(); ++c) {
    width[c] = headings_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) out += "  ";
      out += align_[c] == Align::right ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headings_);
  std::size_t total = 0;
  for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace stepsim::out
