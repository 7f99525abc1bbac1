#pragma once
// Where the shipped data (catalogs, bundled scenarios) lives.

#include <filesystem>

namespace stepsim::scen {

/// The data directory: $STEPSIM_DATA_DIR if set, else <dir of the running executable>/../share/stepsim
/// (the layout of both the build tree and an install). Throws UserError if neither exists.
std::filesystem::path data_dir();

}  // namespace stepsim::scen
