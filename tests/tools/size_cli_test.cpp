// `stepsim size` through the real binary: the size it reports is what `stepsim run` simulates for the
// scaled scenario, bad targets exit 2 naming the option, and `estimate --target` points at it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

namespace {

std::string size_cli_small() {
  return "'" + std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml'";
}

std::string size_cli_70b() {
  return "'" + std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/llama3.1-70b-512xh100.toml'";
}

nlohmann::json size_cli_json(const std::string& command) {
  const auto r = run_stepsim(command + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("stepsim size: the sized job is what stepsim run simulates at that size") {
  // The small step (16 H100, 4 per replica) runs at some rate R; twice R needs about 8 replicas.
  const double given = size_cli_json("run " + size_cli_small())["tokens_per_s"].get<double>();
  const double target = 2.0 * given;
  const auto j = size_cli_json("size " + size_cli_small() + " --tokens-per-s " + std::to_string(target));
  CHECK(j["status"] == "sized");
  CHECK(j["feasible"] == true);
  const int dp = j["dp"].get<int>();
  const int gpus = j["gpus"].get<int>();
  CHECK(gpus == 4 * dp);
  CHECK(j["layout"]["micro_batches_per_replica"] == 4);
  // tokens/s = tokens/s per GPU x GPUs, and it meets the target.
  CHECK(j["tokens_per_s_per_gpu"].get<double>() * gpus == Approx(j["tokens_per_s"].get<double>()));
  CHECK(j["tokens_per_s"].get<double>() >= target);
  // `stepsim run` of the scaled scenario (nodes of 4 = one replica each, 4 micro-batches per replica).
  const std::string at = " --set hardware.nodes=" + std::to_string(dp) +
                         " --set parallelism.dp=" + std::to_string(dp) +
                         " --set workload.global_batch=" + std::to_string(4 * dp);
  const auto run = size_cli_json("run " + size_cli_small() + at);
  CHECK(run["gpus"] == gpus);
  CHECK(run["tokens_per_s"].get<double>() == j["tokens_per_s"].get<double>());
  CHECK(run["step_time_s"].get<double>() == j["step_time_s"].get<double>());
  // One replica fewer falls short.
  REQUIRE(j["smaller"].is_object());
  CHECK(j["smaller"]["dp"] == dp - 1);
  CHECK(j["smaller"]["tokens_per_s"].get<double>() < target);
  // The closed form beside it, and the cost at the catalog price.
  // The closed form is `stepsim estimate --target`'s size for the same rate, and the simulated size
  // exceeds it by the fraction the JSON reports.
  const auto est = size_cli_json("estimate " + size_cli_small() + " --target " + std::to_string(target));
  const int closed_gpus = j["closed_form"]["gpus"].get<int>();
  CHECK(closed_gpus > 0);
  CHECK(closed_gpus == est["target"]["gpus_needed"].get<int>());
  CHECK(j["closed_form"]["undersized_by"].get<double>() == Approx(1.0 - double(closed_gpus) / gpus));
  CHECK(j["cost"]["cluster_per_hour"].get<double>() ==
        Approx(j["cost"]["price_per_gpu_hour"].get<double>() * gpus));
  CHECK(j["cost"]["run"].is_null());
}

TEST_CASE("stepsim size: the table names the size, the closed form beside it and the run's cost") {
  const auto r = run_stepsim("size " + size_cli_small() + " --tokens 1e12 --days 30");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 1e12 tokens in 30 days: 1e12 / 2,592,000 s = 385,802 tokens/s.
  CHECK_THAT(r.out, Catch::Contains("target 385,802 tokens/s (1,000,000,000,000 tokens in 30.0 days)"));
  CHECK_THAT(r.out, Catch::Contains("sized: "));
  CHECK_THAT(r.out, Catch::Contains("closed form (estimate)"));
  CHECK_THAT(r.out, Catch::Contains("GPU-hours"));
  CHECK_THAT(r.out, Catch::Contains("cost: $"));
}

TEST_CASE("stepsim size: the 70B example needs more GPUs than the closed form says") {
  // `stepsim estimate --target 1e6` sizes 640 GPUs from the closed-form rate (20 replicas of 32);
  // the simulated rate, about 1,064 tokens/s per GPU at 512 GPUs, needs about 1e6 / 1,064 = 940.
  const auto j = size_cli_json("size " + size_cli_70b() + " --tokens-per-s 1e6");
  CHECK(j["status"] == "sized");
  CHECK(j["closed_form"]["gpus"] == 640);
  const int gpus = j["gpus"].get<int>();
  CHECK(gpus == 32 * j["dp"].get<int>());
  CHECK(gpus >= 900);
  CHECK(j["tokens_per_s"].get<double>() >= 1e6);
  CHECK(j["smaller"]["tokens_per_s"].get<double>() < 1e6);
  // The closed form under-sizes by 1 - 640 / gpus, about a third.
  CHECK(j["closed_form"]["undersized_by"].get<double>() == Approx(1.0 - 640.0 / gpus));
  CHECK(j["closed_form"]["undersized_by"].get<double>() > 0.3);
}

TEST_CASE("stepsim size: bad targets exit 2 and name the option") {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"", "missing a target: expected --tokens-per-s RATE, or --tokens N with --days D"},
      {" --tokens-per-s 1e6 --tokens 1e12 --days 3", "expected one target, got both"},
      {" --tokens-per-s=-5", "--tokens-per-s: expected a positive cluster-wide rate in tokens/s, got -5"},
      {" --tokens-per-s 0", "--tokens-per-s: expected a positive"},
      {" --tokens 1e12 --days 0", "--days: expected a positive number of days, got 0"},
      {" --tokens=-1e12 --days 3", "--tokens: expected a positive token count"},
      {" --tokens 1e12", "--tokens: expected --days with it"},
      {" --days 30", "--days: expected --tokens with it"},
      {" --tokens-per-s 1e6 --format yaml", "table or json"},
      {" --tokens-per-s 1e6 --max-gpus 0", "--max-gpus: expected at least 1 GPU, got 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const auto r = run_stepsim("size " + size_cli_small() + c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK(r.out.empty());
  }
  const auto missing = run_stepsim("size --tokens-per-s 1e6");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("missing the scenario file"));
}

TEST_CASE("stepsim size: a sized job that does not fit exits 2 and is not sized") {
  const auto r = run_stepsim("size " + size_cli_small() +
                             " --tokens-per-s 1e5 --set 'hardware.gpu={preset=\"h100-sxm\", hbm_gb=0.5, "
                             "hbm_reserved_gib=0}' --format json");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["status"] == "does_not_fit");
  CHECK(j["feasible"] == false);
  CHECK(j["gpus"].is_null());
  CHECK(j["chosen"]["memory"]["fits"] == false);
}

TEST_CASE("stepsim estimate --target points at the simulated sizing") {
  const auto r = run_stepsim("estimate " + size_cli_70b() + " --target 1e6");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("640 GPUs"));
  CHECK_THAT(r.out,
             Catch::Contains("`stepsim size SCENARIO --tokens-per-s 1000000` sizes from the simulated rate"));
}
