#pragma once
// The built-in hardware catalog, as the build tree ships it, loaded once per test binary.

#include <filesystem>

#include "scenarios/catalog.hpp"

namespace stepsim::test {

inline const scen::Catalog& builtin_catalog() {
  static const scen::Catalog c =
      scen::Catalog::load_dir(std::filesystem::path(STEPSIM_DATA_BUILD_DIR) / "catalog");
  return c;
}

}  // namespace stepsim::test
