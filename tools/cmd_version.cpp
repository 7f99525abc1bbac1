// `stepsim version`: prints the version.
#include <boost/program_options.hpp>
#include <cstdio>

#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_version(Args args) {
  namespace po = boost::program_options;
  po::options_description visible("stepsim version\n\nPrints the version");
  visible.add_options()("help,h", "show this help");
  if (store_command_line(args, visible, "argument", 0).options.count("help")) {
    print_help(args, visible);
    return 0;
  }
  std::printf("stepsim %s\n", STEPSIM_VERSION);
  return 0;
}

}  // namespace stepsim::cli
