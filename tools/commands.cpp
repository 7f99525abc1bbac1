// The command table. Each command lives in its own cmd_<name>.cpp; add one line here per command.
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_version(Args args);
int cmd_catalog(Args args);
int cmd_check(Args args);
int cmd_estimate(Args args);
int cmd_kv(Args args);
int cmd_run(Args args);
int cmd_validate(Args args);
int cmd_bench(Args args);
int cmd_collective(Args args);
int cmd_compare(Args args);
int cmd_sweep(Args args);
int cmd_merge(Args args);
int cmd_slurm(Args args);
int cmd_search(Args args);

namespace {
constexpr Command kCommands[] = {
    {"version", "print the version", cmd_version},
    {"catalog", "list the GPU and model presets", cmd_catalog},
    {"check", "validate a scenario and show what it resolves to", cmd_check},
    {"run", "simulate one step event by event: time, throughput, bottleneck, memory", cmd_run},
    {"compare", "simulate several scenarios and set them side by side, best of each row marked", cmd_compare},
    {"validate", "simulate published measurements and report the error per case and group", cmd_validate},
    {"estimate", "closed-form bottleneck estimate: rates, bound, memory, cost, sizing", cmd_estimate},
    {"kv", "KV-cache size, decode bandwidth and the largest batch that fits", cmd_kv},
    {"collective", "simulate one collective on a cluster at several sizes", cmd_collective},
    {"sweep", "run every point of a sweep file on threads into an HDF5 table (resumable, shardable)", cmd_sweep},
    {"merge", "join the results files of a sharded sweep", cmd_merge},
    {"slurm", "write (and submit) a Slurm job array and merge job for a sweep", cmd_slurm},
    {"search", "find the best parallel layout: enumerate, prune with the estimate, simulate, rank", cmd_search},
    {"bench", "time the simulator on named benchmark cases", cmd_bench},
};
}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

}  // namespace stepsim::cli
