#include <cstdio>

#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_version(Args) {
  std::printf("stepsim %s\n", STEPSIM_VERSION);
  return 0;
}

}  // namespace stepsim::cli
