#pragma once
// Where each dotted key of an input was written, so that checks made after reading (cross-field
// checks, later layers such as the estimate's memory-fit check) can point at the input.

#include <map>
#include <string>
#include <string_view>

#include "sim/error.hpp"

namespace stepsim::scen {

class KeyLocations {
 public:
  explicit KeyLocations(std::string file = {}) : file_(std::move(file)) {}
  void add(std::string key, SourceLocation where);
  /// Where `key` was written (a file position, or another source such as a --set override); else
  /// its nearest parent table that has a position; else the file.
  SourceLocation find(std::string_view key) const;
  bool contains(std::string_view key) const { return by_key_.find(key) != by_key_.end(); }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::map<std::string, SourceLocation, std::less<>> by_key_;
};

}  // namespace stepsim::scen
