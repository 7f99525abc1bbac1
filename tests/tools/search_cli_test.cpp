// `stepsim search` through the real binary: ranked, valid, deterministic layouts; GPU types and
// counts; bases with uneven stages; the errors it gives.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

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

const std::string kExample =
    "'" + std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/search/gpt-1.7b-16xh100.toml'";

nlohmann::json search_json(const std::string& scenario, const std::string& args) {
  const auto r = run_stepsim("search " + scenario + " --format json " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());  // no progress line unless stderr is a terminal
  return nlohmann::json::parse(r.out);
}

nlohmann::json search(const TempDir& dir, const std::string& args) {
  return search_json("'" + (dir.path() / "s.toml").string() + "'", args);
}

/// Every enumerated layout is invalid, merged, or in the space; the space is did-not-fit, pruned or
/// simulated.
void check_counts(const nlohmann::json& c) {
  CHECK(c["enumerated"].get<int>() ==
        c["space"].get<int>() + c["merged"].get<int>() + c["invalid"].get<int>());
  CHECK(c["space"].get<int>() ==
        c["did_not_fit"].get<int>() + c["pruned"].get<int>() + c["simulated"].get<int>());
  CHECK(c["simulated"].get<int>() ==
        c["fit"].get<int>() + c["out_of_memory"].get<int>() + c["rejected"].get<int>());
}

}  // namespace

TEST_CASE("The layout search ranks valid simulated layouts, the same on any number of threads") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  const auto args = "--top 100 --micro-batches 1,2 --zero 0,1 --recompute none,full";
  const nlohmann::json one = search(dir, std::string(args) + " --jobs 1");
  const nlohmann::json two = search(dir, std::string(args) + " --jobs 2");
  CHECK(one == two);
  check_counts(one["counts"]);
  const auto& counts = one["counts"];
  CHECK(counts["simulated"].get<int>() >= 1);
  CHECK(counts["pruned"].get<int>() > 0);  // the bound spares most of the space
  const auto& layouts = one["layouts"];
  REQUIRE(layouts.size() == counts["fit"].get<std::size_t>());
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const auto& l = layouts[i]["layout"];
    CHECK(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>() == 8);
    CHECK(16 % (l["micro_batch"].get<int>() * l["dp"].get<int>()) == 0);
    CHECK(24 % (l["pp"].get<int>() * l["virtual_stages"].get<int>()) == 0);
    CHECK(layouts[i]["rank"] == i + 1);
    CHECK(layouts[i]["bound_step_s"].get<double>() <= layouts[i]["step_time_s"].get<double>());
    if (i > 0)
      CHECK(layouts[i]["tokens_per_s"].get<double>() <= layouts[i - 1]["tokens_per_s"].get<double>());
  }
  CHECK_THAT(one["why"].get<std::string>(), Catch::Contains("Best: ") && Catch::Contains("Waits most on "));
}

TEST_CASE("Selective recomputation under FlashAttention is its own layout, slower than none") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  // Megatron checkpoints the core attention whatever kernel runs it (selective core_attn), so
  // under FlashAttention the backward replays the fused forward first: never the same program as
  // no recomputation, and never faster.
  const nlohmann::json j = search(dir, "--top 1000 --micro-batches 1,2 --zero 1 --recompute none,selective");
  check_counts(j["counts"]);
  for (const auto& m : j["merged"])
    CHECK_THAT(m["what"].get<std::string>(), !Catch::Contains("selective recompute runs as"));
  // Nothing binds memory here, so replaying the forward only costs time: the best runs none.
  REQUIRE(!j["layouts"].empty());
  CHECK(j["layouts"][0]["layout"]["recompute"] == "none");
}

TEST_CASE("A knob value that runs as another is merged, not listed twice") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  // With one data-parallel replica (tp x pp = 8 GPUs) ZeRO has nothing to shard: zero 1 runs as 0.
  const nlohmann::json j = search(dir, "--top 1000 --micro-batches 1 --zero 0,1 --recompute none");
  check_counts(j["counts"]);
  CHECK(j["counts"]["merged"].get<int>() > 0);
  bool zero_merge = false;
  for (const auto& m : j["merged"])
    zero_merge =
        zero_merge || m["what"].get<std::string>().find("zero 1 runs as zero 0") != std::string::npos;
  CHECK(zero_merge);
  // Where one replica leaves ZeRO nothing to shard, a layout is listed once whatever its zero stage.
  std::set<std::string> seen;
  int single_replica = 0;
  for (const auto& row : j["layouts"]) {
    nlohmann::json l = row["layout"];
    if (l["dp"].get<int>() != 1) continue;
    ++single_replica;
    l.erase("zero_stage");
    CHECK(seen.insert(l.dump()).second);
  }
  CHECK(single_replica > 0);
}

TEST_CASE("Searching GPU types and counts ranks every configuration by cost") {
  const nlohmann::json j = search_json(kExample,
                                       "--gpu h100-sxm,h200 --gpus 8,16 --rank cost --top 1000 "
                                       "--micro-batches 1,2,4 --zero 1 --recompute none");
  CHECK(j["rank_by"] == "usd_per_million_tokens");
  REQUIRE(j["configs"].size() == 4);
  std::set<std::pair<std::string, int>> configs, ranked;
  for (const auto& c : j["configs"]) {
    configs.insert({c["gpu"].get<std::string>(), c["gpus"].get<int>()});
    check_counts(c["counts"]);
    CHECK(c["counts"]["fit"].get<int>() >= 1);  // each configuration's best is simulated
  }
  CHECK(configs ==
        std::set<std::pair<std::string, int>>{{"h100-sxm", 8}, {"h100-sxm", 16}, {"h200", 8}, {"h200", 16}});
  const auto& layouts = j["layouts"];
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    ranked.insert({layouts[i]["gpu"].get<std::string>(), layouts[i]["gpus"].get<int>()});
    const auto& l = layouts[i]["layout"];
    CHECK(l["tp"].get<int>() * l["pp"].get<int>() * l["cp"].get<int>() * l["dp"].get<int>() ==
          layouts[i]["gpus"].get<int>());
    if (i > 0)
      CHECK(layouts[i]["usd_per_million_tokens"].get<double>() >=
            layouts[i - 1]["usd_per_million_tokens"].get<double>());
  }
  CHECK(ranked == configs);
  // The table names the GPU and the count of every row.
  const auto t =
      run_stepsim("search " + kExample + " --gpu h100-sxm,h200 --gpus 8 --micro-batches 2 --zero 1");
  REQUIRE(t.exit_code == 0);
  CHECK_THAT(t.out, Catch::Contains("h100-sxm x 8: ") && Catch::Contains("h200 x 8: ") &&
                        Catch::Contains("gpu ") && Catch::Contains("GPUs"));
}

TEST_CASE("A base with uneven pipeline stages is searched, its end stages kept where they apply") {
  TempDir dir;
  // 24 layers on 4 stages as 3 + 9 + 9 + 3.
  dir.write("s.toml", std::string(kScenario) +
                          "[parallelism]\ntp = 2\npp = 4\nfirst_stage_layers = 3\n"
                          "last_stage_layers = 3\n");
  const nlohmann::json j = search(dir, "--top 1000 --micro-batches 1 --zero 1 --recompute none");
  check_counts(j["counts"]);
  REQUIRE(j["adapted"].size() == 1);
  CHECK_THAT(j["adapted"][0].get<std::string>(),
             Catch::Contains("first_stage_layers = 3") && Catch::Contains("pp 4"));
  bool other_pp = false;
  for (const auto& row : j["layouts"]) {
    const auto& l = row["layout"];
    if (l.contains("first_stage_layers")) CHECK((l["pp"] == 4 && l["virtual_stages"] == 1));
    other_pp = other_pp || l["pp"] != 4;
  }
  CHECK(other_pp);
  const auto t = run_stepsim("search '" + (dir.path() / "s.toml").string() + "' --micro-batches 1 --zero 1");
  REQUIRE(t.exit_code == 0);
  CHECK_THAT(t.out, Catch::Contains("adapted: the base's uneven end stages"));
}

TEST_CASE("Headroom keeps that much HBM free under every layout that counts as fitting") {
  const nlohmann::json j = search_json(
      kExample, "--headroom-gb 50 --top 1000 --micro-batches 1,2,4,8 --zero 0,1 --recompute none");
  CHECK(j["headroom_bytes"].get<double>() == 50e9);
  check_counts(j["counts"]);
  REQUIRE(!j["layouts"].empty());
  // H100: 80 GB of HBM, about 79.2 GB usable; 50 GB free leaves at most about 29 GB per layout.
  for (const auto& row : j["layouts"]) CHECK(row["memory_peak_bytes"].get<double>() + 50e9 <= 80e9);
}

TEST_CASE("Layout search errors") {
  TempDir dir;
  dir.write("s.toml", kScenario);
  const std::string file = "'" + (dir.path() / "s.toml").string() + "'";
  const auto fails = [&](const std::string& args, const std::string& message) {
    const auto r = run_stepsim("search " + file + " " + args);
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
  };
  fails("--rank speed", "--rank: expected tokens_per_s or cost");
  fails("--zero 4", "--zero: expected integers from 0 to 3");
  fails("--recompute some", "--recompute: expected none, selective, full");
  fails("--gpu h100-sxn", "--gpu: unknown GPU `h100-sxn`");
  fails("--gpu h100-sxn", "did you mean `h100-sxm`?");
  fails("--gpus 0", "--gpus: expected GPU counts of at least 1");
  fails("--gpus 8,x", "--gpus: expected GPU counts of at least 1");
  fails("--headroom-gb -1", "--headroom-gb: expected a size in GB (1e9 bytes) of at least 0");
  fails("--prune some", "--prune: expected per-config or global");
  fails("--set workload.kind=decode --set workload.context=128", "decode");
  dir.write("free.toml",
            std::string(kScenario).replace(std::string(kScenario).find("gpu = \"h100-sxm\""), 16,
                                           "gpu = { preset = \"h100-sxm\", price_per_hour = 0 }"));
  const auto r = run_stepsim("search '" + (dir.path() / "free.toml").string() + "' --rank cost");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--rank cost: GPU `h100-sxm` has no price_per_hour"));
}

TEST_CASE("A GPU count the base's own layout does not divide is still searched") {
  // The example's TP 2 x PP 2 does not divide 6 GPUs; another layout stands in to read the base.
  const nlohmann::json j = search_json(kExample, "--gpus 6 --micro-batches 1,2 --zero 1 --recompute none");
  REQUIRE(j["configs"].size() == 1);
  CHECK(j["configs"][0]["gpus"] == 6);
  check_counts(j["counts"]);
  REQUIRE(!j["layouts"].empty());
  // 12 GPUs are not whole 8-GPU nodes: the scenario reader's error, naming the configuration.
  const auto r = run_stepsim("search " + kExample + " --gpus 12");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("search on the scenario's GPU x 12") &&
                        Catch::Contains("not a multiple of gpus_per_node"));
}
