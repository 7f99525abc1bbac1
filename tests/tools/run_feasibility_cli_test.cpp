// `stepsim run` through the real binary: a step that does not fit is said first and marked, exits 0
// by default and 2 under --strict; HFU is never below MFU in prefill; counts read as English.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::TempDir;

namespace {

// Llama-3.1-8B trained on one H100 with Adam: 8.0e9 parameters x (2 weights + 2 gradients + 12
// optimizer) bytes = 128 GB of static memory alone, over the ~80 GB usable. With 8 of its 32 layers
// (about 2.8e9 parameters, 45 GB) it fits. One sequence per step: 1 micro-batch.
constexpr const char* kTooBigForOneGpu = R"(
[meta]
name = "8B on one GPU"
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "train"
seq_len = 1024
global_batch = 1
)";

std::string cli_line_starting(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(start, 0) == 0) return line;
  return {};
}

}  // namespace

TEST_CASE("stepsim run: a step that does not fit says so before any rate and exits 0", "[feasibility]") {
  TempDir dir;
  const auto file = dir.write("big.toml", kTooBigForOneGpu);
  const auto r = run_stepsim("run '" + file.string() + "'");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto verdict = r.out.find("\nmemory      DOES NOT FIT: peak ");
  REQUIRE(verdict != std::string::npos);
  CHECK(verdict < r.out.find("\nstep time"));
  CHECK(cli_line_starting(r.out, "step time").find("[not achievable: does not fit in memory]") !=
        std::string::npos);
  CHECK(cli_line_starting(r.out, "tokens/s").find("[not achievable: does not fit in memory]") !=
        std::string::npos);
  CHECK(cli_line_starting(r.out, "cost:").find("[not achievable: does not fit in memory]") !=
        std::string::npos);
  // One sequence per step, one GPU: singular nouns.
  CHECK(r.out.find(", 1 micro-batch per step (1 rank simulated)") != std::string::npos);
  CHECK(r.out.find("1 micro-batches") == std::string::npos);
  CHECK(r.out.find("for 1 GPU,") != std::string::npos);

  const auto j = run_stepsim("run '" + file.string() + "' --format json");
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["feasible"] == false);
  // Static memory alone is over 128 GB against at most 85.5 GB on the device: over by > 40 GB.
  CHECK(doc["memory_headroom_bytes"].get<double>() < -40e9);
  CHECK(doc["memory_headroom_bytes"].get<double>() ==
        Approx(doc["memory"]["capacity_bytes"].get<double>() - doc["memory"]["peak_bytes"].get<double>()));
}

TEST_CASE("stepsim run --strict exits 2 for a step that does not fit, after its report", "[feasibility]") {
  TempDir dir;
  const auto file = dir.write("big.toml", kTooBigForOneGpu);
  const auto r = run_stepsim("run '" + file.string() + "' --strict");
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("DOES NOT FIT") != std::string::npos);  // the report is printed all the same
  CHECK(r.out.find("\ncost: ") != std::string::npos);
  CHECK(r.err.find("--strict: the step does not fit in memory") != std::string::npos);
  const auto j = run_stepsim("run '" + file.string() + "' --strict --format json");
  CHECK(j.exit_code == 2);
  CHECK(nlohmann::json::parse(j.out)["feasible"] == false);
  // The same model cut to 8 layers fits: --strict changes nothing.
  const auto fits = run_stepsim("run '" + file.string() + "' --strict --set model.layers=8");
  INFO(fits.err);
  CHECK(fits.exit_code == 0);
  CHECK(fits.out.find("\nmemory      fits: peak ") != std::string::npos);
  CHECK(fits.err.find("--strict") == std::string::npos);
}

TEST_CASE("stepsim run: HFU is never below MFU in prefill", "[feasibility]") {
  // Prefill turns only each sequence's last token into logits. Model FLOPs used to count the
  // 128,256 x 4,096 output head on all 2,048 tokens (7% of the 8B model's forward FLOPs), which the
  // step never executes: MFU came out 7% above HFU.
  TempDir dir;
  const auto file = dir.write("prefill.toml", R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "prefill"
batch = 2
seq_len = 2048
)");
  const auto r = run_stepsim("run '" + file.string() + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double mfu = j["mfu"].get<double>(), hfu = j["hfu"].get<double>();
  CHECK(hfu >= mfu);
  // The executed extras (the last tokens' logits, causal blocks on the diagonal) are small.
  CHECK(hfu < 1.02 * mfu);
}

TEST_CASE("stepsim run: KV capacity figures carry thousands separators", "[feasibility]") {
  // Batch 1 of an 8B model on an H200 (141 GB): the cache for hundreds of thousands of tokens fits.
  TempDir dir;
  const auto file = dir.write("decode.toml", R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h200"
gpus = 1
[workload]
kind = "decode"
batch = 1
context = 1000
)");
  const auto r = run_stepsim("run '" + file.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string kv = cli_line_starting(r.out, "KV cache");
  INFO(kv);
  CHECK(std::regex_search(kv, std::regex("context \\d{1,3}(,\\d{3})+ at this batch")));
  CHECK_FALSE(std::regex_search(kv, std::regex("\\d{4}")));
  CHECK(r.out.find("-0.0%") == std::string::npos);
}
