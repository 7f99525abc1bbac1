// `stepsim profile` end to end: a small Kineto trace written here against a small scenario's
// simulation, as a table and as JSON with the same fields.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/small_inputs.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim::test;

namespace profile_cli {

const std::string kScenario = stepsim::test::small_gpt_train();

std::string kernel(const std::string& name, double ts_us, double dur_us, int stream) {
  return nlohmann::json{
      {"ph", "X"},     {"cat", "kernel"}, {"name", name},  {"ts", ts_us},
      {"dur", dur_us}, {"pid", 0},        {"tid", stream}, {"args", {{"device", 0}, {"stream", stream}}}}
      .dump();
}

std::string trace() {
  return "{\"traceEvents\": [" +
         kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 0, 400, 7) + "," +
         kernel("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>", 400, 100, 7) + "," +
         kernel("void layer_norm::ln_fwd_kernel<float>", 500, 20, 7) + "," +
         kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 450, 300, 20) + "," +
         kernel("mystery_kernel_v2", 520, 10, 7) + "]}";
}

}  // namespace profile_cli

TEST_CASE("stepsim profile sets a trace's classes beside the simulated step", "[profile]") {
  TempDir dir;
  const auto s = dir.write("s.toml", profile_cli::kScenario);
  const auto t = dir.write("t.json", profile_cli::trace());
  const std::string args =
      "profile '" + t.string() + "' --scenario '" + s.string() + "' --layers 0-1 --quiet";
  const CliResult table = run_stepsim(args);
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("gemm_dense") != std::string::npos);
  CHECK(table.out.find("unclassified kernels: 1") != std::string::npos);
  CHECK(table.out.find("mystery_kernel_v2") != std::string::npos);

  const CliResult json = run_stepsim(args + " --format json");
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["kernels"] == 5);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& r : doc["classes"]) rows[r["class"].get<std::string>()] = r;
  REQUIRE(rows.count("gemm_dense") == 1);
  CHECK(rows["gemm_dense"]["measured_ms"].get<double>() == Approx(0.4));  // 400 us
  CHECK(rows["gemm_dense"]["kernels"] == 1);
  CHECK(rows["gemm_dense"]["simulated_ms"].get<double>() > 0.0);
  // The simulation knows the GEMMs' FLOPs: the measured kernels' rate at those FLOPs, for both GEMM
  // classes together (kernel names split them differently from the simulation).
  CHECK(rows["gemm_dense"]["measured_tflops"].is_null());
  // The window: layers 0-1 of the 1.7B GPT (h 2304, 24 heads of 96) for both micro-batches (global
  // batch 16 over dp 8) of 1,024 tokens, forward and backward. GEMMs: 2 x 1,024 x 12 h^2 per layer
  // forward (QKV 3h^2, projection h^2, MLP 8h^2) = 130,459,631,616 FLOPs, x 3 passes x 2 layers x 2
  // micro-batches over the 400 us measured = 3,913.79 TFLOP/s.
  CHECK(doc["gemm_total"]["measured_tflops"].get<double>() ==
        Approx(2.0 * 1024 * 12 * 2304.0 * 2304 * 3 * 2 * 2 / 400e-6 / 1e12).epsilon(1e-12));
  // Causal attention: 2 (QK^T, PV) x 1,024 x 1,024 / 2 keys x 2 x 2304 = 4,831,838,208 FLOPs forward; the
  // FlashAttention backward recomputes QK^T (5 GEMMs to the forward's 2: 2.5 x). x (1 + 2.5) x 2 layers
  // x 2 micro-batches over 100 us = 676.46 TFLOP/s.
  CHECK(rows["attention"]["measured_tflops"].get<double>() ==
        Approx(2.0 * 1024 * 1024 * 2304 * 3.5 * 2 * 2 / 100e-6 / 1e12).epsilon(1e-12));
  CHECK(rows["attention"]["measured_ms"].get<double>() == Approx(0.1));
  CHECK(rows["norm"]["kernels"] == 1);
  // Measured: 400 + 100 + 20 us of compute classes (the all-reduce is communication).
  CHECK(doc["total"]["measured_ms"].get<double>() == Approx(0.52));
  REQUIRE(doc["communication"].size() == 1);
  CHECK(doc["communication"][0]["class"] == "nccl_all_reduce");
  // The all-reduce (450-750 us) overlaps compute until 520 (the norm) and 530 (the mystery kernel):
  // 220 us ran alone.
  CHECK(doc["communication"][0]["measured_exposed_ms"].get<double>() == Approx(0.22));
  REQUIRE(doc["unclassified"].size() == 1);
  CHECK(doc["unclassified"][0]["name"] == "mystery_kernel_v2");
  CHECK(doc["unclassified"][0]["count"] == 1);
}

namespace profile_cli {

/// A trace of one GEMM, one attention and one norm kernel of the given durations, back to back.
std::string three_kernels(double gemm_us, double attention_us, double norm_us) {
  return "{\"traceEvents\": [" +
         kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 0, gemm_us, 7) + "," +
         kernel("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>", gemm_us, attention_us, 7) +
         "," + kernel("void layer_norm::ln_fwd_kernel<float>", gemm_us + attention_us, norm_us, 7) + "]}";
}

std::map<std::string, nlohmann::json> rows_of(const nlohmann::json& doc) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& r : doc["classes"]) rows[r["class"].get<std::string>()] = r;
  return rows;
}

}  // namespace profile_cli

TEST_CASE("stepsim profile --write-calibration writes the figures that reproduce the trace", "[profile]") {
  using profile_cli::rows_of;
  TempDir dir;
  const auto s = dir.write("s.toml", profile_cli::kScenario);
  // First the simulated times of the window; then a trace whose GEMMs take 1.3x, attention 1.2x and
  // norms 2x those (one kernel per class carrying the class's whole time).
  const auto probe = dir.write("probe.json", profile_cli::three_kernels(1, 1, 1));
  const std::string window = " --scenario '" + s.string() + "' --layers 0-1 --quiet --format json";
  const CliResult first = run_stepsim("profile '" + probe.string() + "'" + window);
  REQUIRE(first.exit_code == 0);
  auto sim = rows_of(nlohmann::json::parse(first.out));
  const double gemm_ms = sim["gemm_dense"]["simulated_ms"], attn_ms = sim["attention"]["simulated_ms"],
               norm_ms = sim["norm"]["simulated_ms"];
  const auto t =
      dir.write("t.json", profile_cli::three_kernels(1.3e3 * gemm_ms, 1.2e3 * attn_ms, 2e3 * norm_ms));
  const auto cal = dir.path() / "cal.toml";
  const CliResult run =
      run_stepsim("profile '" + t.string() + "'" + window + " --write-calibration '" + cal.string() + "'");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  std::map<std::string, nlohmann::json> fig;
  for (const auto& f : doc["calibration"]["figures"]) fig[f["key"].get<std::string>()] = f;
  // Slower kernels than the catalog's figures: each fitted figure is lower, by about the factor
  // (launch gaps do not scale, so a little more).
  CHECK(fig["efficiency.gemm_bf16"]["fitted"].get<double>() <
        fig["efficiency.gemm_bf16"]["catalog"].get<double>() / 1.3 * 1.001);
  CHECK(fig["efficiency.gemm_bf16"]["fitted"].get<double>() >
        fig["efficiency.gemm_bf16"]["catalog"].get<double>() / 1.3 * 0.9);
  CHECK(fig["efficiency.hbm_norm"]["fitted"].get<double>() <
        fig["efficiency.hbm_norm"]["catalog"].get<double>() / 2 * 1.001);
  // The scenario read again through the written file reproduces each fitted class within 2%.
  auto applied = rows_of(doc["calibration"]["applied"]);
  for (const char* cls : {"gemm_dense", "attention", "norm"}) {
    INFO(cls);
    CHECK(std::abs(applied[cls]["error"].get<double>()) < 0.02);
  }
  const std::string file = slurp(cal);
  CHECK(file.find("[gpu.\"h100-sxm\".efficiency]") != std::string::npos);
  CHECK(file.find("\"efficiency.hbm_norm\" = \"measured: from") != std::string::npos);
  // And `stepsim run --catalog` takes it.
  CHECK(run_stepsim("run '" + s.string() + "' --catalog '" + cal.string() + "' --quiet").exit_code == 0);
}

TEST_CASE("stepsim profile --steps: step time, compute, exposed communication and MFU of whole steps",
          "[profile]") {
  TempDir dir;
  const auto s = dir.write("s.toml", profile_cli::kScenario);
  const auto t = dir.write("t.json", profile_cli::trace());
  const CliResult r = run_stepsim("profile '" + t.string() + "' --scenario '" + s.string() +
                                  "' --steps 1 --quiet --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto step = nlohmann::json::parse(r.out)["per_step"];
  // The trace's kernels span 0-750 us; some compute kernel runs over 0-530 us; the all-reduce runs
  // alone over 530-750 us.
  CHECK(step["measured_step_ms"].get<double>() == Approx(0.75));
  CHECK(step["measured_compute_ms"].get<double>() == Approx(0.53));
  CHECK(step["measured_exposed_comm_ms"].get<double>() == Approx(0.22));
  // The same model FLOPs and tokens over the measured step.
  const double scale = step["simulated_step_ms"].get<double>() / 0.75;
  CHECK(step["mfu_measured"].get<double>() == Approx(step["mfu_simulated"].get<double>() * scale));
  CHECK(step["tokens_per_s_per_gpu_measured"].get<double>() ==
        Approx(step["tokens_per_s_per_gpu_simulated"].get<double>() * scale));
  const CliResult table =
      run_stepsim("profile '" + t.string() + "' --scenario '" + s.string() + "' --steps 1 --quiet");
  CHECK(table.out.find("MFU, %") != std::string::npos);
}

TEST_CASE("stepsim profile with a trace per rank sums the ranks' windows", "[profile]") {
  TempDir dir;
  const auto s = dir.write("s.toml", profile_cli::kScenario);
  const auto t = dir.write("t.json", profile_cli::trace());
  const std::string common = "' --scenario '" + s.string() + "' --set parallelism.pp=2 --quiet --format json";
  const CliResult one = run_stepsim("profile '" + t.string() + common + " --rank 1");
  // Ranks 0 and 1 are the two pipeline stages' simulated ranks (the hint of a rank not simulated
  // names them).
  const CliResult two =
      run_stepsim("profile '" + t.string() + "' '" + t.string() + common + " --rank 0 --rank 1");
  INFO(two.err);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  const auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  CHECK(b["ranks"] == nlohmann::json::array({0, 1}));
  CHECK(b["kernels"] == 10);  // both traces' 5 kernels
  CHECK(b["total"]["measured_ms"].get<double>() == Approx(2 * 0.52));
  // The second stage alone simulates less than both stages together.
  CHECK(b["total"]["simulated_ms"].get<double>() > a["total"]["simulated_ms"].get<double>());
}
