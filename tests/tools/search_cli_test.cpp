// `stepsim search` through the real binary: ranked, valid, deterministic layouts.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::TempDir;

namespace {

// Megatron GPT 1.7B (24 layers, 24 heads) on one node of 8 H100, 2K tokens, batch 16.
const char* kScenario = R"([model]
preset = "megatron-gpt-1.7b"
[hardware]
gpu = "h100-sxm"
nodes = 1
[workload]
kind = "train"
seq_len = 2048
global_batch = 16
)";

nlohmann::json search(const TempDir& dir, const std::string& args) {
  const auto r = run_stepsim("search '" + (dir.path() / "s.toml").string() + "' --format json " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("The layout search ranks valid simulated layouts, the same on any number of threads") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  const auto args = "--simulate 8 --top 8 --micro-batches 1,2 --zero 0,1 --recompute none,full";
  const nlohmann::json one = search(dir, std::string(args) + " --jobs 1");
  const nlohmann::json two = search(dir, std::string(args) + " --jobs 2");
  CHECK(one == two);
  const auto& counts = one["counts"];
  // Every layout is accounted for: pruned by the estimate, or among the 8 simulated.
  CHECK(counts["simulated"].get<int>() + counts["invalid"].get<int>() == 8);
  CHECK(counts["enumerated"].get<int>() > 8);
  const auto& layouts = one["layouts"];
  REQUIRE(layouts.size() >= 2);
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const auto& l = layouts[i]["layout"];
    CHECK(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>() == 8);
    CHECK(16 % (l["micro_batch"].get<int>() * l["dp"].get<int>()) == 0);
    CHECK(24 % (l["pp"].get<int>() * l["virtual_stages"].get<int>()) == 0);
    CHECK(layouts[i]["rank"] == i + 1);
    if (i > 0) CHECK(layouts[i]["tokens_per_s"].get<double>() <= layouts[i - 1]["tokens_per_s"].get<double>());
  }
  CHECK_THAT(one["why"].get<std::string>(), Catch::Contains("Best: ") && Catch::Contains("Bound by "));
}

TEST_CASE("Ranking by cost across cluster sizes") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  const nlohmann::json j = search(dir, "--rank cost --nodes 1,2 --simulate 6 --micro-batches 1 --zero 1 --recompute none");
  CHECK(j["rank_by"] == "usd_per_million_tokens");
  const auto& layouts = j["layouts"];
  REQUIRE(!layouts.empty());
  for (std::size_t i = 1; i < layouts.size(); ++i)
    CHECK(layouts[i]["usd_per_million_tokens"].get<double>() >= layouts[i - 1]["usd_per_million_tokens"].get<double>());
  for (const auto& l : layouts) CHECK((l["gpus"] == 8 || l["gpus"] == 16));
}

TEST_CASE("Layout search errors") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  const std::string file = "'" + (dir.path() / "s.toml").string() + "'";
  auto r = run_stepsim("search " + file + " --rank speed");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--rank: expected throughput or cost"));
  r = run_stepsim("search " + file + " --zero 4");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--zero: expected integers from 0 to 3"));
  r = run_stepsim("search " + file + " --set workload.kind=decode --set workload.context=128");
  CHECK(r.exit_code == 2);
}
