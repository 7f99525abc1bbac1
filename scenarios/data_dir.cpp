#include "scenarios/data_dir.hpp"

#include <cstdlib>
#include <system_error>

#include "sim/error.hpp"

namespace stepsim::scen {

std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("STEPSIM_DATA_DIR"); env != nullptr && *env != '\0') {
    fs::path p(env);
    std::error_code ec;
    if (!fs::is_directory(p, ec)) throw UserError("STEPSIM_DATA_DIR=" + p.string() + " is not a directory");
    return p;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path candidate = exe.parent_path().parent_path() / "share" / "stepsim";
    if (fs::is_directory(candidate)) return candidate;
  }
  throw UserError(
      "cannot find stepsim's data directory (expected share/stepsim next to the binary's bin/); "
      "set STEPSIM_DATA_DIR to the folder holding catalog/");
}

}  // namespace stepsim::scen
