// Benchmarks: sweep throughput on two threads, end to end (point loading, simulation, journal,
// HDF5), for 64-GPU and 1,024-GPU dense training points.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>

#include "output/sweep/sweep_run.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/sweep.hpp"
#include "tools/bench.hpp"

namespace stepsim::cli {
namespace {

BenchResult run_bench(const std::string& name, const std::string& sweep_text, const std::string& what) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("stepsim-bench-" + name + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  const scen::Sweep sweep = scen::load_sweep_string(sweep_text, name + ".toml");
  out::SweepRunOptions o;
  o.out = dir / "results.h5";
  o.jobs = 2;
  o.version = "bench";
  std::ostringstream progress;
  const double cpu0 = process_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  const out::SweepRunSummary s = out::run_sweep(sweep, catalog, o, progress);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_s() - cpu0;
  fs::remove_all(dir);
  BenchResult r;
  r.name = name;
  r.wall_s = wall;
  const auto points = static_cast<double>(s.evaluated);
  r.metrics = {{"points", points},
               {"points_per_s", points / wall},
               {"points_per_cpu_s", points / cpu},
               {"ok_points", static_cast<double>(s.by_status[0])},
               {"out_of_memory_points", static_cast<double>(s.by_status[1])},
               {"invalid_points", static_cast<double>(s.by_status[2])}};
  r.note = what +
           "; 2 threads, journal and HDF5 included (points/s counts every point; points per CPU-second is "
           "steadier on a shared machine)";
  return r;
}

/// The base of the 64-GPU sweeps: `preset` training on 8 H100 nodes at 4K context, global batch
/// 64, distributed optimizer; DP derived per point.
std::string h100_64_base(const char* preset) {
  return std::string("[base.model]\npreset = \"") + preset + R"("
[base.hardware]
gpu = "h100-sxm"
nodes = 8
[base.workload]
kind = "train"
seq_len = 4096
global_batch = 64
[base.parallelism]
zero_stage = 1
)";
}

}  // namespace

BenchResult bench_sweep_64() {
  // 64 H100 (8 nodes) training Llama 3.1 8B at 4K context: TP x PP x NIC x batch, DP derived.
  return run_bench(
      "sweep_64", "[sweep]\nwhere = [\"tp * pp <= 16\"]\n" + h100_64_base("llama-3.1-8b") + R"([[axis]]
key = "parallelism.tp"
values = [1, 2, 4, 8]
[[axis]]
key = "parallelism.pp"
values = [1, 2, 4]
[[axis]]
key = "hardware.nic_gbps"
values = [100, 200, 400, 800]
[[axis]]
key = "workload.global_batch"
values = [64, 128, 256]
)",
      "Llama 3.1 8B on 64 H100: tp 1-8 x pp 1-4 (tp x pp <= 16) x 4 NIC speeds x batches of 64-256 "
      "sequences of 4K");
}

BenchResult bench_sweep_70b_64() {
  // The issue-19 sweep point: a 70B-class model on 64 H100 (8 nodes), TP x PP x NIC, DP derived.
  return run_bench("sweep_70b_64", "[sweep]\n" + h100_64_base("llama-3.1-70b") + R"([[axis]]
key = "parallelism.tp"
values = [2, 4, 8]
[[axis]]
key = "parallelism.pp"
values = [2, 4, 8]
[[axis]]
key = "hardware.nic_gbps"
values = [100, 200, 400, 800]
)",
                   "Llama 3.1 70B on 64 H100: tp 2-8 x pp 2-8 x 4 NIC speeds, 4K context, global batch 64");
}

BenchResult bench_sweep_1024() {
  // 1,024 H100 (128 nodes) training Llama 3.1 70B at 8K context, Megatron-style layouts.
  return run_bench(
      "sweep_1024", R"([sweep]
[base.model]
preset = "llama-3.1-70b"
[base.hardware]
gpu = "h100-sxm"
nodes = 128
[base.workload]
kind = "train"
seq_len = 8192
global_batch = 512
recompute = "selective"
[base.parallelism]
tp = 8
sequence_parallel = true
zero_stage = 1
[[axis]]
key = "parallelism.pp"
values = [4, 8]
[[axis]]
key = "hardware.nic_gbps"
values = [200, 400]
[[axis]]
key = "workload.global_batch"
values = [512, 1024]
)",
      "Llama 3.1 70B on 1,024 H100: tp 8, pp 4 or 8, dp derived, 2 NIC speeds, batches of 512 and 1,024 "
      "sequences of 8K");
}

}  // namespace stepsim::cli
