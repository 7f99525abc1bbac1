#include "scenarios/key_locations.hpp"

namespace stepsim::scen {

void KeyLocations::add(std::string key, SourceLocation where) {
  by_key_.insert_or_assign(std::move(key), std::move(where));
}

SourceLocation KeyLocations::find(std::string_view key) const {
  std::string k(key);
  while (true) {
    // An entry counts if it has a line, or names another source (a --set override has no line).
    if (auto it = by_key_.find(k); it != by_key_.end() && (it->second.line > 0 || it->second.file != file_))
      return it->second;
    const auto dot = k.find_last_of('.');
    if (dot == std::string::npos) break;
    k.resize(dot);
  }
  return SourceLocation{file_, 0, 0};
}

}  // namespace stepsim::scen
