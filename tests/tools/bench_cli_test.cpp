// `stepsim bench` through the real binary, on the two cases that load every bundled scenario (the
// example and validation files as the binary ships them): a scenario that stops loading, or a case
// whose settings a bundled scenario refuses, fails here rather than in a long bench run. Both
// take 5-10 s on two cores: tagged [slow] (ctest label `slow`). No wall-clock figure is asserted.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("stepsim bench: the cases that load every bundled scenario run to the end", "[bench][slow]") {
  const auto r = run_stepsim("bench scenario_load moe_imbalance --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["name"] == "scenario_load");
  CHECK(j[1]["name"] == "moe_imbalance");
  // Every MoE scenario shipped simulates with an imbalance of 1.3 (the AutoModel cases switch
  // their balanced gate to a random one).
  CHECK(j[1]["metrics"]["cases"].get<double>() >= 30.0);
}

TEST_CASE("stepsim bench: an unknown case is a user error") {
  const auto r = run_stepsim("bench no_such_case");
  CHECK(r.exit_code == 2);
}
