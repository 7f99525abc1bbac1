// The command table. Each command lives in its own cmd_<name>.cpp; add one line here per command.
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_version(Args args);

namespace {
constexpr Command kCommands[] = {
    {"version", "print the version", cmd_version},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace stepsim::cli
