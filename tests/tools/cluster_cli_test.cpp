// `stepsim cluster` through the real binary: two copies of the small test step on disjoint leaves
// run exactly as fast as alone, spread over the same leaves they contend on the fabric, JSON and
// table agree, and a bad cluster file exits 2 naming where it is wrong.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

namespace {

/// Two jobs of tests/output/data/small-train.toml (4 nodes of 4 H100, rail-optimised, 2 nodes per
/// leaf group) on an 8-node cluster of the same machine, both placed `placement`.
std::string cluster_cli_file(const stepsim::test::TempDir& dir, const std::string& placement) {
  const std::string small = std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml";
  return dir
      .write("c.toml", "[cluster]\nnodes = 8\nsteps = 2\n\n[[job]]\nname = \"a\"\nscenario = \"" + small +
                           "\"\nplacement = \"" + placement + "\"\n\n[[job]]\nname = \"b\"\nscenario = \"" +
                           small + "\"\nplacement = \"" + placement + "\"\n")
      .string();
}

nlohmann::json cluster_cli_json(const std::string& file) {
  const auto r = run_stepsim("cluster '" + file + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("stepsim cluster: packed jobs on disjoint leaves run as fast as alone, and share no link") {
  stepsim::test::TempDir dir;
  const auto j = cluster_cli_json(cluster_cli_file(dir, "packed"));
  CHECK(j["nodes"] == 8);
  REQUIRE(j["jobs"].size() == 2);
  CHECK(j["jobs"][0]["nodes"] == nlohmann::json::array({0, 1, 2, 3}));
  CHECK(j["jobs"][1]["nodes"] == nlohmann::json::array({4, 5, 6, 7}));
  for (const auto& job : j["jobs"]) {
    CHECK(job["gpus"] == 16);
    CHECK(job["shared_step_s"].get<double>() == job["alone_step_s"].get<double>());
    CHECK(job["slowdown"].get<double>() == 0.0);
    CHECK(job["steps_run"] == 2);
  }
  CHECK(j["contended_links"].empty());
  // Job a's nodes 0-3 are the leaf groups its own 4-node scenario has: alone it is `stepsim run
  // --ranks all`'s step, to the picosecond.
  const auto run = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                               "/tests/output/data/small-train.toml' --ranks all --format json");
  REQUIRE(run.exit_code == 0);
  CHECK(j["jobs"][0]["alone_step_s"].get<double>() ==
        nlohmann::json::parse(run.out)["step_time_s"].get<double>());
  const auto table = run_stepsim("cluster '" + cluster_cli_file(dir, "packed") + "'");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("no link carries traffic of more than one job"));
}

TEST_CASE("stepsim cluster: spread jobs share the leaf groups' uplinks and say so") {
  stepsim::test::TempDir dir;
  const auto j = cluster_cli_json(cluster_cli_file(dir, "spread"));
  // One node per leaf group in turn: a gets 0, 2, 4, 6 and b 1, 3, 5, 7.
  CHECK(j["jobs"][0]["nodes"] == nlohmann::json::array({0, 2, 4, 6}));
  CHECK(j["jobs"][1]["nodes"] == nlohmann::json::array({1, 3, 5, 7}));
  REQUIRE(!j["contended_links"].empty());
  for (const auto& l : j["contended_links"]) {
    CHECK(l["bytes_per_step"]["a"].get<double>() > 0.0);
    CHECK(l["bytes_per_step"]["b"].get<double>() > 0.0);
  }
  for (const auto& job : j["jobs"])
    CHECK(job["shared_step_s"].get<double>() >= job["alone_step_s"].get<double>());
  const auto table = run_stepsim("cluster '" + cluster_cli_file(dir, "spread") + "'");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("step alone") && Catch::Contains("step shared") &&
                            Catch::Contains("link directions carry traffic of more than one job"));
}

TEST_CASE("stepsim cluster: a bad cluster file exits 2 with its location") {
  stepsim::test::TempDir dir;
  const auto file =
      dir.write("bad.toml", "[cluster]\nnodes = 2\n[[job]]\nscenario = \"" + std::string(STEPSIM_SOURCE_DIR) +
                                "/tests/output/data/small-train.toml\"\n");
  const auto r = run_stepsim("cluster '" + file.string() + "'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.toml:2:") && Catch::Contains("cluster.nodes: is 2"));
  CHECK(run_stepsim("cluster").exit_code == 2);
}
