#pragma once
// The stepsim subcommands. Each takes the arguments after its name (argv[0] is the subcommand) and
// returns the process exit code: 0 ok, 2 user error. Throwing stepsim::UserError also gives 2;
// any other exception is an internal error (1).

#include <span>
#include <string_view>

namespace stepsim::cli {

using Args = std::span<char* const>;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(Args args);
  /// Command lines that work from the repository root with bundled files, one per line; they
  /// end the command's --help.
  std::string_view example = {};
};

/// The command table, in the order `stepsim --help` lists it.
std::span<const Command> commands();

}  // namespace stepsim::cli
