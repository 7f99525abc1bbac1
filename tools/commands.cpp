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
int cmd_size(Args args);
int cmd_goodput(Args args);
int cmd_cluster(Args args);
int cmd_import(Args args);
int cmd_profile(Args args);
int cmd_plot(Args args);

namespace {
constexpr Command kCommands[] = {
    {"version", "print the version", cmd_version, "stepsim version"},
    {"catalog", "list the GPU and model presets", cmd_catalog,
     "stepsim catalog gpus\nstepsim catalog gpus --provenance --gpu gh200"},
    {"import",
     "write a Hugging Face config.json's model as a [model] table, or Megatron-LM / NeMo arguments as a "
     "scenario",
     cmd_import,
     "stepsim import scenarios/hf/Llama-3.1-8B.json\n"
     "stepsim import scenarios/hf/DeepSeek-V3.json --out deepseek-v3-model.toml\n"
     "stepsim import --megatron scenarios/megatron/gpt3-175b.sh --gpu h100-sxm --nodes 16\n"
     "stepsim import --nemo scenarios/megatron/llama3.1-70b-nemo.yaml --gpu h100-sxm --out llama70b.toml"},
    {"profile", "a PyTorch profiler trace's kernels by class, side by side with the simulated step",
     cmd_profile,
     "stepsim profile trace.json --scenario scenarios/profiles/deepseek-v3-ep64-h800.toml --layers 3-6 "
     "--microbatches 0"},
    {"check", "validate a scenario and show what it resolves to", cmd_check,
     "stepsim check scenarios/examples/llama3.1-70b-512xh100.toml --set parallelism.tp=4 --set "
     "parallelism.dp=32"},
    {"run", "simulate one step event by event: time, throughput, bottleneck, memory", cmd_run,
     "stepsim run scenarios/examples/llama3.1-70b-512xh100.toml\n"
     "stepsim run scenarios/examples/llama3.1-70b-512xh100.toml --price 2.49 --report run.html"},
    {"compare", "simulate several scenarios and set them side by side, best of each row marked", cmd_compare,
     "stepsim compare scenarios/examples/compare/llama3.1-70b-576xh100-rail.toml "
     "scenarios/examples/compare/llama3.1-70b-576xh100-fattree.toml"},
    {"validate", "simulate published measurements and report the error per case and group", cmd_validate,
     "stepsim validate\nstepsim validate scenarios/validation --format json --quiet"},
    {"estimate", "closed-form bottleneck estimate: rates, bound, memory, cost, sizing", cmd_estimate,
     "stepsim estimate scenarios/examples/llama3.1-70b-512xh100.toml --target 1e6 --price 2.49"},
    {"kv", "KV-cache size, decode bandwidth and the largest batch that fits", cmd_kv,
     "stepsim kv --model llama-3.1-70b --context 8192 --gpu h200 --gpus 8\n"
     "stepsim kv scenarios/examples/llama3.1-70b-decode-8xh200-bs64.toml"},
    {"collective", "simulate one collective on a cluster at several sizes", cmd_collective,
     "stepsim collective --gpu h100-sxm --op all-reduce --bytes 1048576,268435456\n"
     "stepsim collective --compare scenarios/validation/collectives-multinode.csv\n"
     "stepsim collective --nccl-tests all_reduce_perf.out --write-calibration my-cluster.toml"},
    {"sweep", "run every point of a sweep file on threads into an HDF5 table (resumable, shardable)",
     cmd_sweep,
     "stepsim sweep scenarios/examples/sweeps/llama3.1-70b-dp-nic.toml --out results.h5 --csv results.csv"},
    {"merge", "join the results files of a sharded sweep", cmd_merge,
     "stepsim sweep scenarios/examples/sweeps/llama3.1-70b-dp-nic.toml --shard 0/2 --out s0.h5\n"
     "stepsim sweep scenarios/examples/sweeps/llama3.1-70b-dp-nic.toml --shard 1/2 --out s1.h5\n"
     "stepsim merge results.h5 s0.h5 s1.h5"},
    {"plot", "chart one column of a sweep's results against another (SVG or HTML)", cmd_plot,
     "stepsim plot results.h5 --x hardware.nodes --y tokens_per_s_per_gpu --color hardware.nic_gbps --out "
     "plot.svg"},
    {"slurm", "write (and submit) a Slurm job array and merge job for a sweep", cmd_slurm,
     "stepsim slurm scenarios/examples/sweeps/llama3.1-70b-dp-nic.toml --tasks 4 --out slurm-job"},
    {"search", "find the best parallel layout: enumerate, prune with the estimate, simulate, rank",
     cmd_search,
     "stepsim search scenarios/examples/search/gpt-1.7b-16xh100.toml\n"
     "stepsim search scenarios/examples/search/gpt-1.7b-16xh100.toml --gpu h100-sxm,h200 --rank cost"},
    {"size", "GPUs and cost for a target rate or token budget, from the simulated rate", cmd_size,
     "stepsim size scenarios/examples/llama3.1-70b-512xh100.toml --tokens-per-s 1e6\n"
     "stepsim size scenarios/examples/llama3.1-70b-512xh100.toml --tokens 15e12 --days 90"},
    {"goodput", "wall time and goodput of a training run with failures and checkpoints (Monte Carlo)",
     cmd_goodput,
     "stepsim goodput scenarios/examples/reliability/llama3.1-405b-16384xh100-goodput.toml --tokens 15e12\n"
     "stepsim goodput scenarios/examples/llama3.1-70b-512xh100.toml --steps 100000 --interval-steps 500 "
     "--checkpoint-mode async"},
    {"cluster",
     "several jobs on one cluster: each job's step alone and shared, and the links they contend on",
     cmd_cluster, "stepsim cluster scenarios/examples/cluster/two-jobs.cluster.toml"},
    {"bench", "time the simulator on named benchmark cases", cmd_bench,
     "stepsim bench engine_fixed scenario_load"},
};
}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

}  // namespace stepsim::cli
