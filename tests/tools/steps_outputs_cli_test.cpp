// `stepsim run --steps N` with [variability] through the real binary: --hdf5 holds every step of
// the JSON report, bit for bit, and --report draws a bar per step and a cell per GPU.
#include <H5Cpp.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("stepsim run --steps with variability writes the steps to HDF5 and charts them in the report") {
  const stepsim::test::TempDir dir;
  const auto h5 = dir.path() / "steps.h5", html = dir.path() / "steps.html";
  const auto r = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                             "/tests/output/data/small-train.toml' --steps 4 --format json"
                             " --set variability.seed=3 --set 'variability.slow_gpus=[{rank=9,factor=1.1}]'"
                             " --set variability.kernel_jitter_cv=0.05 --hdf5 '" +
                             h5.string() + "' --report '" + html.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& times = j["steps"]["step_time_s"];
  REQUIRE(times.size() == 4);

  struct Row {
    std::uint32_t step;
    double time_s;
  };
  H5::CompType t(sizeof(Row));
  t.insertMember("step", HOFFSET(Row, step), H5::PredType::NATIVE_UINT32);
  t.insertMember("time_s", HOFFSET(Row, time_s), H5::PredType::NATIVE_DOUBLE);
  const H5::H5File f(h5.string(), H5F_ACC_RDONLY);
  std::vector<Row> rows(4);
  REQUIRE(f.openDataSet("steps/times").getSpace().getSimpleExtentNpoints() == 4);
  f.openDataSet("steps/times").read(rows.data(), t);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(rows[i].step == i);
    CHECK(rows[i].time_s == times[i].get<double>());  // the JSON prints shortest round-trip doubles
  }
  // 16 GPUs in the slowness map, GPU 9 (node 2 of 4 GPUs each) the only one that differs.
  CHECK(f.openDataSet("steps/ranks").getSpace().getSimpleExtentNpoints() == 16);

  const std::string page = stepsim::test::slurp(html);
  const auto in_page = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(page.begin(), page.end(), re), std::sregex_iterator());
  };
  CHECK(in_page("class=\"step-bar\"") == 4);
  CHECK(in_page("class=\"gpu-cell\"") == 16);
  CHECK(page.find("slowest: gpu9 on node 2, kernels x1.100; 1 of 16 GPUs differ") != std::string::npos);
}

TEST_CASE("stepsim run --ranks replay: every GPU's steps replayed, in JSON, HDF5 and the table") {
  // The same job replayed: the JSON's steps say so, the slow GPU is among those waited on, and
  // the table says the report beside it is the representative step.
  const stepsim::test::TempDir dir;
  const auto h5 = dir.path() / "replay.h5";
  const std::string base = "run '" + std::string(STEPSIM_SOURCE_DIR) +
                           "/tests/output/data/small-train.toml' --ranks replay --steps 3"
                           " --set variability.seed=3 --set 'variability.slow_gpus=[{rank=9,factor=1.5}]'";
  const auto r = run_stepsim(base + " --format json --hdf5 '" + h5.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["steps"]["replayed"] == true);
  REQUIRE(j["steps"]["step_time_s"].size() == 3);
  // The slowest step waited on GPU 9's stretched kernels (and on GPU 10's, its stage-1 peer after
  // the last synchronisation, as every GPU simulated finds too).
  bool nine = false;
  for (const auto& w : j["steps"]["slowest_waited_on"]["ranks"])
    if (w["rank"] == 9) nine = w["factor"].get<double>() == 1.5;
  CHECK(nine);
  CHECK(j["steps"]["mean_s"].get<double>() > j["steps"]["nominal_s"].get<double>());
  const H5::H5File f(h5.string(), H5F_ACC_RDONLY);
  CHECK(f.openDataSet("steps/times").getSpace().getSimpleExtentNpoints() == 3);
  std::int64_t replayed = 0;
  f.openGroup("steps").openAttribute("replayed").read(H5::PredType::NATIVE_INT64, &replayed);
  CHECK(replayed == 1);
  const auto table = run_stepsim(base + " -q");
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("replayed over the representative step") != std::string::npos);
  // A generation or serving scenario is many steps: replay refuses it with exit 2.
  const auto serve = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                                 "/scenarios/examples/llama3.1-70b-serve-8xh100.toml' --ranks replay -q");
  CHECK(serve.exit_code == 2);
  CHECK(serve.err.find("--ranks replay") != std::string::npos);
}

TEST_CASE("stepsim run --ranks auto replays a varied step too large to simulate every GPU of", "[slow]") {
  // The 405B example on 16,384 GPUs: every GPU's graph would be about 150 M ops (over 2 M), so a
  // [variability] scenario is replayed; the 16-GPU test step stays simulated on every GPU. [slow]:
  // about a second here, 15 minutes under the sanitizers (half of CI's sanitizer stage).
  const std::string big = "run '" + std::string(STEPSIM_SOURCE_DIR) +
                          "/scenarios/examples/llama3.1-405b-16384xh100.toml' --format json -q"
                          " --set variability.kernel_jitter_cv=0.02 --set variability.seed=5";
  const auto r = run_stepsim(big);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["steps"]["replayed"] == true);
  CHECK(j["steps"]["mean_s"].get<double>() > j["steps"]["nominal_s"].get<double>());
  const auto small = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                                 "/tests/output/data/small-train.toml' --format json -q"
                                 " --set variability.kernel_jitter_cv=0.02");
  REQUIRE(small.exit_code == 0);
  CHECK(nlohmann::json::parse(small.out)["steps"]["replayed"] == false);
}

TEST_CASE("stepsim run --ranks replay with a degraded NIC says what it slowed") {
  // The 8B straggler example's 64 GPUs without its variability, GPU 42's NIC at half rate,
  // replayed: the nominal step is the healthy fabric's; the slow NIC's groups (its data-parallel
  // rings) take longer, so the step does; JSON and the table say how many collectives and GPU copies
  // it slowed. Half the NIC's rate: a collective bound by it takes at most twice as long.
  const std::string run =
      "run '" + std::string(STEPSIM_SOURCE_DIR) +
      "/scenarios/examples/variability/llama3.1-8b-64xh100-straggler.toml' -q --ranks replay"
      " --unset variability --set 'variability.degraded_links=[{rank=42,link=\"nic\",bandwidth=0.5}]'";
  const auto r = run_stepsim(run + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["steps"]["replayed"] == true);
  CHECK(j["steps"]["step_time_s"][0].get<double>() > j["steps"]["nominal_s"].get<double>());
  CHECK(j["steps"]["degraded"]["collectives"].get<int>() > 0);
  CHECK(j["steps"]["degraded"]["gpu_copies"].get<int>() >= j["steps"]["degraded"]["collectives"].get<int>());
  const double f = j["steps"]["degraded"]["max_time_factor"].get<double>();
  CHECK(f > 1.0);
  CHECK(f <= 2.0 + 1e-9);
  const auto table = run_stepsim(run);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("whose groups the degraded links reach") != std::string::npos);
}

TEST_CASE("stepsim run --ranks auto replays a degraded step too large to simulate every GPU of", "[slow]") {
  // The 405B example on 16,384 GPUs (its every-GPU graph about 150 M ops, over 2 M) with GPU 4,242's
  // NIC at half rate is replayed, and the step slows. [slow]: about a second here, minutes under the
  // sanitizers.
  const auto r = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                             "/scenarios/examples/llama3.1-405b-16384xh100.toml' --format json -q"
                             " --set 'variability.degraded_links=[{rank=4242,link=\"nic\",bandwidth=0.5}]'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["steps"]["replayed"] == true);
  CHECK(j["steps"]["degraded"]["collectives"].get<int>() > 0);
  CHECK(j["steps"]["step_time_s"][0].get<double>() > j["steps"]["nominal_s"].get<double>());
}

TEST_CASE(
    "stepsim run: failed spines slow the fabric's collectives, and a switch the fabric lacks is an input "
    "error") {
  // The 8B straggler example's 64 GPUs without its variability, on a 2:1 fat-tree of 2-node leaves
  // (16 NICs each, P = 8 spines of a NIC's speed per leaf link). Half the spines down leaves each
  // leaf 4 uplinks: the cross-node rings slow (measured: +4.0% every GPU simulated, +3.6% replayed;
  // docs/simulation.md section 1).
  const std::string base =
      "run '" + std::string(STEPSIM_SOURCE_DIR) +
      "/scenarios/examples/variability/llama3.1-8b-64xh100-straggler.toml' -q --format json"
      " --unset variability --set 'fabric.kind=\"fat-tree\"' --set fabric.hosts_per_leaf=16"
      " --set fabric.oversubscription=2";
  const std::string four_down =
      " --set 'variability.degraded_switches=[{tier=\"spine\",index=0,bandwidth=0},{tier=\"spine\",index=1,"
      "bandwidth=0},{tier=\"spine\",index=2,bandwidth=0},{tier=\"spine\",index=3,bandwidth=0}]'";
  double time[2] = {0.0, 0.0};
  for (int i = 0; i < 2; ++i) {
    const auto r = run_stepsim(base + (i == 0 ? " --ranks all" : " --ranks replay") + four_down);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    time[i] = j["steps"]["step_time_s"][0].get<double>();
    CHECK(time[i] > j["steps"]["nominal_s"].get<double>());
  }
  CHECK(time[1] == Approx(time[0]).epsilon(0.01));
  const auto bad =
      run_stepsim(base + " --set 'variability.degraded_switches=[{tier=\"spine\",index=99,bandwidth=0}]'");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("variability.degraded_switches[0]: switch 99 is not in the fabric"));
  // The entry came from --set, so the error names that source.
  CHECK_THAT(bad.err, Catch::Contains("error: --set variability.degraded_switches="));
}
