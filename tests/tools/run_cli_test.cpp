// `stepsim run` and `stepsim validate` through the real binary: the JSON contract and bad input.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::TempDir;

namespace {

// A 16-GPU Llama-style job: small enough to run in a moment, with TP, PP and DP traffic.
constexpr const char* kSmallRun = R"(
[meta]
name = "small"
[model]
preset = "llama-3.1-8b"
layers = 8
[hardware]
gpu = "h100-sxm"
nodes = 2
gpus_per_node = 8
[workload]
kind = "train"
seq_len = 2048
global_batch = 16
micro_batch = 1
[parallelism]
tp = 4
pp = 2
dp = 2
)";

}  // namespace

TEST_CASE("stepsim run --format json keeps its contract") {
  TempDir dir;
  const auto file = dir.write("small.toml", kSmallRun);
  const auto r = run_stepsim("run '" + file.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"step_time_s", "tokens_per_s_per_gpu", "mfu", "hfu", "breakdown", "critical_path",
                          "memory", "estimate"})
    CHECK(j.contains(key));
  for (const char* key : {"peak_bytes", "capacity_bytes", "fits"}) CHECK(j["memory"].contains(key));
  // The breakdown partitions the step: compute + memory-bound + exposed comm + bubble + host-bound = step.
  const auto& b = j["breakdown"];
  double exposed = 0;
  for (const auto& [group, s] : b["exposed_comm_s"].items()) exposed += s.get<double>();
  const double sum = b["compute_s"].get<double>() + b["memory_bound_s"].get<double>() + exposed +
                     b["bubble_s"].get<double>() + b["host_bound_s"].get<double>();
  CHECK(sum == Approx(j["step_time_s"].get<double>()).epsilon(1e-9));
  // tokens/s per GPU = 16 sequences x 2,048 tokens / step / 16 GPUs.
  CHECK(j["tokens_per_s_per_gpu"].get<double>() == Approx(16 * 2048 / j["step_time_s"].get<double>() / 16));
  CHECK(j["mfu"].get<double>() > 0.0);
  CHECK(j["mfu"].get<double>() < 1.0);
  // MFU = F_model x tokens/s per GPU / 989 TFLOP/s (docs/model.md). 8 Llama-3.1-8B layers: 8 x (4096^2 x
  // 2 + 4096 x 1024 x 2 + 3 x 4096 x 14,336) = 1,744,830,464 matmul weights + the 525,336,576 head, x 6
  // = 13,621,002,240; causal attention 3 passes x 2 x (QK^T + PV) x 1,024 keys on average x 4096 x 8
  // = 402,653,184: F_model = 14,023,655,424 FLOPs per token.
  CHECK(j["mfu"].get<double>() ==
        Approx(14'023'655'424.0 * j["tokens_per_s_per_gpu"].get<double>() / 989e12).epsilon(1e-12));
  // Usable: (79.65 GiB - 1.35 GiB reserved) x (1 - 0.05 fragmentation), of 79.65 GiB on the device.
  CHECK(j["memory"]["capacity_bytes"].get<double>() == Approx((79.65 - 1.35) * 0.95 * 1073741824.0));
  CHECK(j["memory"]["device_capacity_bytes"].get<double>() == Approx(79.65 * 1073741824.0));
}

TEST_CASE("stepsim run prints the same bytes twice") {
  TempDir dir;
  const auto file = dir.write("small.toml", kSmallRun);
  const auto a = run_stepsim("run '" + file.string() + "' --format json");
  const auto b = run_stepsim("run '" + file.string() + "' --format json");
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
}

TEST_CASE("stepsim run rejects bad input with exit code 2") {
  TempDir dir;
  const auto file = dir.write("small.toml", kSmallRun);
  SECTION("an impossible layout") {
    // tp x pp x dp = 3 x 2 x 2 = 12 on 16 GPUs.
    const auto r = run_stepsim("run '" + file.string() + "' --set parallelism.tp=3");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("parallelism") != std::string::npos);
  }
  SECTION("an unknown option value") {
    const auto r = run_stepsim("run '" + file.string() + "' --ranks some");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--ranks: expected auto, representative, all or replay, got `some`") !=
          std::string::npos);
  }
  SECTION("a missing file") {
    const auto r = run_stepsim("run '" + (dir.path() / "nope.toml").string() + "'");
    CHECK(r.exit_code == 2);
  }
}

TEST_CASE("stepsim run simulates decode and reports latency, throughput and KV capacity") {
  TempDir dir;
  const auto file = dir.write("decode.toml", R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "decode"
batch = 4
context = 1024
)");
  const auto r = run_stepsim("run '" + file.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double step = j["step_time_s"].get<double>();
  // One token per sequence per step: latency = step, 4 tokens per step.
  CHECK(j["latency_s"].get<double>() == step);
  CHECK(j["tokens_per_s"].get<double>() == Approx(4 / step));
  CHECK(j["inference"]["per_token_latency_s"].get<double>() == step);
  CHECK(j["inference"]["time_to_first_token_s"].is_null());
  // KV capacity (reference.md): usable (79.65 - 1.35 GiB) x 0.95 = 79,870,285,578 B less 8,030,261,248
  // bf16 weights (16,060,522,496 B) leaves 63,809,763,082 B; a token holds 2 x 32 layers x 8 KV heads x
  // 128 x 2 B = 131,072 B: floor(63,809,763,082 / (1,024 x 131,072)) = floor(475.4) = 475 sequences,
  // or floor(63,809,763,082 / (4 x 131,072)) = 121,707 tokens each at batch 4.
  CHECK(j["inference"]["kv_cache"]["max_batch"].get<long long>() == 475);
  CHECK(j["inference"]["kv_cache"]["max_context"].get<long long>() == 121'707);
  // Small-batch decode streams weights and cache: its kernels wait on HBM, on the critical path
  // and in the breakdown alike.
  CHECK(j["critical_path"]["bottleneck"] == "hbm");
  CHECK(j["bottleneck"]["primary"]["key"] == "memory_bound");
}

TEST_CASE("stepsim run reports an MoE job's routing and its imbalance cost") {
  TempDir dir;
  const auto file = dir.write("moe.toml", R"(
[model]
preset = "mixtral-8x7b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 1
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
[parallelism]
pp = 2
ep = 4
[moe]
imbalance = 2.0
)");
  const auto r = run_stepsim("run '" + file.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["latency_s"].is_null());
  CHECK(j["moe"]["expert_load_max_over_mean"].get<double>() == Approx(2.0));
  CHECK(j["moe"]["imbalance_s"].get<double>() > 0.0);
  CHECK(j["breakdown"]["exposed_comm_s"].contains("ep"));
}

TEST_CASE("stepsim run reports a whole static batch and a serving run and refuses per-step files for them") {
  TempDir dir;
  const std::string head = R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
)";
  const auto gen = dir.write("gen.toml", head + R"([workload]
kind = "generate"
batch = 8
input_len = 256
output_len = 64
)");
  auto r = run_stepsim("run '" + gen.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  // Whole batch = first token + 63 decode steps; TPOT = the decode steps / 63; 8 x 64 tokens out.
  const double total = j["total_s"].get<double>(), ttft = j["time_to_first_token_s"].get<double>();
  CHECK(total == Approx(ttft + j["decode_s"].get<double>()));
  CHECK(j["time_per_output_token_s"].get<double>() == Approx(j["decode_s"].get<double>() / 63));
  CHECK(j["output_tokens_per_s_per_gpu"].get<double>() == Approx(8 * 64 / total));
  CHECK(j["fits"] == true);
  CHECK(j["prefill"]["kind"] == "prefill");
  CHECK(j["last_decode"]["kind"] == "decode");
  CHECK(run_stepsim("run '" + gen.string() + "' --trace " + (dir.path() / "t.json").string()).exit_code == 2);

  const auto srv = dir.write("srv.toml", head + R"([workload]
kind = "serve"
[serving]
rate_per_s = 5
requests = 200
input_len = [100, 400]
output_len = [20, 80]
max_batch = 16
)");
  r = run_stepsim("run '" + srv.string() + "' --format json --slo-ttft-ms 500");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  j = nlohmann::json::parse(r.out);
  CHECK(j["requests"] == 200);
  CHECK(j["ttft"]["p99_s"].get<double>() >= j["ttft"]["p50_s"].get<double>());
  CHECK(j["slo"]["percentile"] == 99.0);
  CHECK(j["engine"]["kv_capacity_tokens"].get<long long>() > 480);
  CHECK(run_stepsim("run '" + srv.string() + "' --hdf5 " + (dir.path() / "r.h5").string()).exit_code == 2);
  // The SLO options belong to serving runs.
  CHECK(run_stepsim("run '" + gen.string() + "' --slo-tpot-ms 10").exit_code == 2);
}

TEST_CASE("stepsim run says when the host's launches pace a step the breakdown charges to the bubble") {
  // DeepSeek-V3 on 256 GB200, eager: the Grace host's launches bind every stage, so the other
  // stages wait on their neighbours (bubble in the breakdown) while the critical path is the host's.
  const std::string file =
      "'" + std::string(STEPSIM_SOURCE_DIR) + "/scenarios/validation/dgxc-deepseek-v3-gb200-256.toml'";
  const auto eager = run_stepsim("run " + file + " --quiet");
  REQUIRE(eager.exit_code == 0);
  CHECK_THAT(eager.out, Catch::Contains("critical path: ") && Catch::Contains("host 9"));
  CHECK_THAT(eager.out, Catch::Contains("the host's kernel launches pace the step"));
  const auto graphs = run_stepsim("run " + file + " --quiet --set workload.cuda_graphs=true");
  REQUIRE(graphs.exit_code == 0);
  CHECK_THAT(graphs.out, !Catch::Contains("the host's kernel launches pace the step"));
}
