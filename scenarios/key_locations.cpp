#include "scenarios/key_locations.hpp"

namespace stepsim::scen {

void KeyLocations::add(std::string key, SourceLocation where) { by_key_.insert_or_assign(std::move(key), std::move(where)); }

SourceLocation KeyLocations::find(std::string_view key) const {
  std::string k(key);
  while (true) {
    if (auto it = by_key_.find(k); it != by_key_.end() && it->second.line > 0) return it->second;
    const auto dot = k.find_last_of('.');
    if (dot == std::string::npos) break;
    k.resize(dot);
  }
  return SourceLocation{file_, 0, 0};
}

}  // namespace stepsim::scen
