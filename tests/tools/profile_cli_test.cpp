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
  CHECK(doc["gemm_total"]["measured_tflops"].get<double>() > 0.0);
  CHECK(rows["attention"]["measured_tflops"].get<double>() > 0.0);
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
