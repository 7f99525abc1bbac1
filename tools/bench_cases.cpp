// The benchmark table: one line per case; each case lives in tools/bench_<area>.cpp.
#include "tools/bench.hpp"

namespace stepsim::cli {

BenchResult bench_engine();
BenchResult bench_engine_fixed();
BenchResult bench_scenario_load();
BenchResult bench_estimate();
BenchResult bench_network_all_to_all();
BenchResult bench_network_ring();
BenchResult bench_run_gpt3_1024();
BenchResult bench_run_llama405b_16k();
BenchResult bench_run_llama405b_128_all();
BenchResult bench_run_llama405b_1024_all();
BenchResult bench_replay_llama405b_16k();
BenchResult bench_replay_llama405b_128k();
BenchResult bench_replay_gpt3_1024();
BenchResult bench_replay_llama405b_16k_jitter();
BenchResult bench_replay_llama405b_16k_wander();
BenchResult bench_replay_llama405b_16k_degraded();
BenchResult bench_moe_imbalance();
BenchResult bench_serve_10k();
BenchResult bench_sweep_64();
BenchResult bench_sweep_70b_64();
BenchResult bench_sweep_1024();
BenchResult bench_search_gpt3_1024();

namespace {
constexpr BenchCase kBenchCases[] = {
    {"engine", "1,000 processors, ~2.8 M ops: compute chains, 8-rank collectives on a network, comm slowdown",
     bench_engine},
    {"engine_fixed", "the same graph with fixed-duration collectives and no network: the engine alone",
     bench_engine_fixed},
    {"scenario_load", "parse the catalog once, then load the bundled scenarios repeatedly",
     bench_scenario_load},
    {"estimate", "closed-form estimate with sizing of every bundled scenario", bench_estimate},
    {"network_all_to_all", "all-to-all of 1 GiB per GPU over 1,024 GPUs, rail-optimised fat-tree",
     bench_network_all_to_all},
    {"network_ring", "ring all-reduce of 1 GiB over 1,024 GPUs, rail-optimised fat-tree", bench_network_ring},
    {"run_gpt3_175b_1024", "stepsim run: GPT-3 175B on 1,024 A100 (TP8 PP8 DP16, GBS 1536, MBS 1)",
     bench_run_gpt3_1024},
    {"run_llama405b_16384",
     "stepsim run: Llama-3.1-405B on 16,384 H100 (TP8 PP16 DP128, rail-optimised 400 Gb/s)",
     bench_run_llama405b_16k},
    {"run_llama405b_128_all",
     "stepsim run --ranks all: Llama-3.1-405B on 128 H100 (TP8 PP16, GBS 32), every GPU simulated",
     bench_run_llama405b_128_all},
    {"run_llama405b_1024_all",
     "stepsim run --ranks all: Llama-3.1-405B on 1,024 H100 (TP8 PP16 DP8, GBS 256), every GPU simulated",
     bench_run_llama405b_1024_all},
    {"replay_llama405b_16384",
     "stepsim run --ranks replay: Llama-3.1-405B on 16,384 H100, every GPU replayed over the representative "
     "step",
     bench_replay_llama405b_16k},
    {"replay_llama405b_131072",
     "stepsim run --ranks replay: Llama-3.1-405B on 131,072 H100 (DP 1,024, GBS 16,384), every GPU replayed",
     bench_replay_llama405b_128k},
    {"replay_gpt3_175b_1024", "stepsim run --ranks replay: GPT-3 175B on 1,024 A100, every GPU replayed",
     bench_replay_gpt3_1024},
    {"replay_llama405b_16384_jitter",
     "stepsim run --ranks replay --steps 100: the 405B example on 16,384 H100 with 2% kernel jitter and a 1% "
     "part-to-part spread",
     bench_replay_llama405b_16k_jitter},
    {"replay_llama405b_16384_wander",
     "stepsim run --ranks replay --steps 10: the 405B example on 16,384 H100 with a 2% / 20 ms clock wander",
     bench_replay_llama405b_16k_wander},
    {"replay_llama405b_16384_degraded",
     "stepsim run --ranks replay: the 405B example on 16,384 H100 with GPU 4,242's NIC at half rate",
     bench_replay_llama405b_16k_degraded},
    {"moe_imbalance",
     "stepsim run of every bundled MoE scenario with moe.imbalance = 1.3; reports the slowest",
     bench_moe_imbalance},
    {"serve_10k",
     "stepsim run of the bundled serving example with 10,000 requests: step grid, then the scheduler",
     bench_serve_10k},
    {"sweep_64", "sweep of 132 Llama 3.1 8B training points on 64 H100, 2 threads, end to end",
     bench_sweep_64},
    {"sweep_70b_64", "sweep of 36 Llama 3.1 70B training points on 64 H100, 2 threads, end to end",
     bench_sweep_70b_64},
    {"sweep_1024", "sweep of 8 Llama 3.1 70B training points on 1,024 H100, 2 threads, end to end",
     bench_sweep_1024},
    {"search_gpt3_175b_1024", "stepsim search: GPT-3 175B on 1,024 A100, default layout space, 2 threads",
     bench_search_gpt3_1024},
};
}  // namespace

std::span<const BenchCase> bench_cases() {
  return kBenchCases;
}

}  // namespace stepsim::cli
