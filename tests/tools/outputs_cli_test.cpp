// `stepsim run --trace/--hdf5/--report` and `stepsim compare` through the real binary: the files
// appear, bad options are user errors (exit 2), and the bundled topology comparison makes its point.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::TempDir;

namespace {

std::string src(const std::string& rel) {
  return "'" + std::string(STEPSIM_SOURCE_DIR) + "/" + rel + "'";
}
const std::string kSmall = src("tests/output/data/small-train.toml");

const nlohmann::json& row(const nlohmann::json& doc, const std::string& key) {
  for (const auto& r : doc["rows"])
    if (r["key"] == key) return r;
  FAIL("no row " << key);
  return doc;
}

}  // namespace

TEST_CASE("stepsim run writes the trace, HDF5 and report it is asked for", "[outputs]") {
  const TempDir dir;
  const auto p = dir.path().string();
  const auto r = run_stepsim("run " + kSmall + " --trace '" + p + "/t.json' --hdf5 '" + p +
                             "/r.h5' --report '" + p + "/r.html' --trace-ranks 0-1");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("wrote " + p + "/t.json") != std::string::npos);
  const auto trace = nlohmann::json::parse(stepsim::test::slurp(dir.path() / "t.json"));
  CHECK(trace["traceEvents"].size() > 100);
  CHECK(trace["otherData"]["traced_ranks"] == 1);  // of the simulated ranks 0 and 2, only GPU 0
  CHECK(stepsim::test::slurp(dir.path() / "r.h5").substr(1, 3) == "HDF");
  CHECK(stepsim::test::slurp(dir.path() / "r.html").rfind("<!DOCTYPE html>", 0) == 0);
}

TEST_CASE("output options: mistakes are user errors", "[outputs]") {
  const TempDir dir;
  const auto p = dir.path().string();
  auto r = run_stepsim("run " + kSmall + " --trace '" + p + "/t.json' --trace-ranks 5-1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--trace-ranks") != std::string::npos);
  r = run_stepsim("run " + kSmall + " --trace '" + p + "/t.json' --trace-ranks 1");  // GPU 1 is not simulated
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("simulated ranks (0, 2)") != std::string::npos);
  r = run_stepsim("run " + kSmall + " --trace-ranks 0");  // selects ranks of no output
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("neither is given") != std::string::npos);
  r = run_stepsim("run " + kSmall + " --hdf5 '" + p + "/no/such/dir/r.h5'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--hdf5") != std::string::npos);
  r = run_stepsim("compare " + kSmall);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("at least two") != std::string::npos);
}

TEST_CASE("the bundled topology comparison: same run, three fabrics", "[outputs]") {
  const std::string d = "scenarios/examples/compare/llama3.1-70b-576x";
  const auto r = run_stepsim("compare " + src(d + "h100-rail.toml") + " " + src(d + "h100-fattree.toml") +
                             " " + src(d + "gb200-nvl72.toml") + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& dp = row(doc, "exposed_comm_s.dp")["values"];
  const auto& step = row(doc, "step_time_s")["values"];
  // Same H100 step on both fabrics except for the gradient reduction: every stage reduces at once
  // (interleaved schedule, reduction after the backward pass), so a 2:1 leaf gives each of its 32
  // GPUs half a NIC's uplink, and the exposed DP time grows by more than half.
  CHECK(dp[1].get<double>() > 1.5 * dp[0].get<double>());
  CHECK(step[1].get<double>() > step[0].get<double>());
  // TP time is the same on both H100 fabrics (it never leaves the node).
  const auto& tp = row(doc, "exposed_comm_s.tp")["values"];
  CHECK(tp[0].get<double>() == Approx(tp[1].get<double>()).epsilon(1e-6));
  // GB200's 2.5x compute and NVL72 domain win the step time.
  CHECK(row(doc, "step_time_s")["winners"] == nlohmann::json::array({"70B, 576 GB200, NVL72 racks"}));
}
