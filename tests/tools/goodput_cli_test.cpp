// `stepsim goodput` through the real binary: its step is `stepsim run`'s, its run length and
// checkpoint follow from the scenario by the stated rules, the defaults give back the Llama 3
// report's failure count on the bundled example, options override [reliability], and bad input
// exits 2 naming the option.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

namespace {

std::string goodput_cli_small() {
  return "'" + std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml'";
}

std::string goodput_cli_405b() {
  return "'" + std::string(STEPSIM_SOURCE_DIR) +
         "/scenarios/examples/reliability/llama3.1-405b-16384xh100-goodput.toml'";
}

nlohmann::json goodput_cli_json(const std::string& command) {
  const auto r = run_stepsim(command + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("stepsim goodput: the run is `stepsim run`'s step, repeated and checkpointed by the stated rules") {
  const auto run = goodput_cli_json("run " + goodput_cli_small());
  const auto j = goodput_cli_json("goodput " + goodput_cli_small() + " --tokens 1e9 --interval-steps 100");
  CHECK(j["step_time_s"].get<double>() == run["step_time_s"].get<double>());
  // 16 sequences of 1,024 tokens per step: 1e9 / 16,384 = 61,035.2, rounded up to 61,036 steps.
  CHECK(j["tokens_per_step"].get<double>() == 16384.0);
  CHECK(j["steps"] == 61036);
  // The small model's parameters x (2 bytes of bf16 weights + 12 of fp32 master and Adam moments),
  // written at the default 2,000 GB/s: one checkpoint blocks bytes / 2e12 s (synchronous).
  const auto& c = j["checkpoint"];
  CHECK(c["bytes_per_param"].get<double>() == 14.0);
  CHECK(c["bytes"].get<double>() == Approx(c["params"].get<double>() * 14.0));
  CHECK(c["block_s"].get<double>() == Approx(c["bytes"].get<double>() / 2e12));
  CHECK(c["bytes_per_gpu"].get<double>() == Approx(c["bytes"].get<double>() / 16.0));
  // Restart: the default 600 s plus the read.
  CHECK(j["restart_with_read_s"].get<double>() == Approx(600.0 + c["read_s"].get<double>()));
  // Failure-free: 61,036 steps and 61,035 / 100 = 610 checkpoints. The Monte Carlo rounds each
  // duration up to whole nanoseconds: at most 1 ns per step and checkpoint.
  const double step = j["step_time_s"].get<double>();
  CHECK(j["failure_free_s"].get<double>() ==
        Approx(61036 * step + 610 * c["block_s"].get<double>()).margin((61036 + 610) * 1e-9));
  // The breakdown adds up to the mean wall time, and goodput is useful / wall.
  const auto& r = j["result"];
  CHECK(r["interval_steps"] == 100);
  const auto& t = r["time_s"];
  const double wall = r["wall_s"]["mean"].get<double>();
  CHECK(t["useful"].get<double>() + t["checkpoints"].get<double>() + t["rework"].get<double>() +
            t["restarts"].get<double>() ==
        Approx(wall).epsilon(1e-12));
  CHECK(r["goodput"]["mean"].get<double>() == Approx(t["useful"].get<double>() / wall));
  // 16 GPUs, 4 nodes, 16 NICs; the components' rates add to the job's.
  const auto& comp = j["failures"]["components"];
  CHECK(comp[0]["count"] == 16.0);
  CHECK(comp[1]["count"] == 4.0);
  CHECK(comp[2]["count"] == 16.0);
  double sum = 0.0;
  for (const auto& x : comp) sum += x["failures_per_hour"].get<double>();
  CHECK(j["failures"]["per_hour"].get<double>() == Approx(sum));
  // The asked interval is in the sweep, and the best is marked.
  bool found = false;
  for (const auto& x : j["sweep"]) found = found || x["interval_steps"] == 100;
  CHECK(found);
}

TEST_CASE("stepsim goodput: the defaults give back the Llama 3 report's 419 interruptions in 54 days",
          "[slow]") {
  // The bundled 405B example on 16,384 H100: 16,384 GPUs, 2,048 nodes, 16,384 NICs and, in stepsim's
  // model of its fabric, 2,048 switches (llama3_report::kSwitches): the defaults make them fail
  // 268 + 109 + 7 + 35 = 419 times in 1,296 hours.
  const auto j = goodput_cli_json("goodput " + goodput_cli_405b() + " --steps 1000 --trials 20");
  const auto& comp = j["failures"]["components"];
  CHECK(comp[0]["count"] == 16384.0);
  CHECK(comp[1]["count"] == 2048.0);
  CHECK(comp[2]["count"] == 16384.0);
  CHECK(comp[3]["count"] == 2048.0);
  CHECK(j["failures"]["per_hour"].get<double>() * 1296.0 == Approx(419.0).epsilon(1e-5));
  CHECK(comp[3]["failures_per_hour"].get<double>() * 1296.0 == Approx(35.0).epsilon(1e-5));
  // 405.9 B parameters x 14 bytes = 5.68 TB, written in 2.84 s at 2 TB/s.
  CHECK(j["checkpoint"]["bytes"].get<double>() == Approx(5.68e12).epsilon(0.01));
}

TEST_CASE(
    "stepsim goodput: options override the reliability table, the same seed repeats and another differs") {
  const std::string base = "goodput " + goodput_cli_small() + " --steps 200000 --interval-steps 1000";
  // GPUs failing every 10 hours each: 16 / 10 = 1.6 failures per hour from the GPUs alone.
  const auto fast = goodput_cli_json(base + " --gpu-mtbf-hours 10 --restart-s 60 --seed 5");
  CHECK(fast["failures"]["components"][0]["failures_per_hour"].get<double>() == Approx(1.6));
  CHECK(fast["restart_s"].get<double>() == 60.0);
  CHECK(fast["result"]["failures"].get<double>() > 0.0);
  const auto again = goodput_cli_json(base + " --gpu-mtbf-hours 10 --restart-s 60 --seed 5");
  CHECK(again.dump() == fast.dump());
  const auto other = goodput_cli_json(base + " --gpu-mtbf-hours 10 --restart-s 60 --seed 6");
  CHECK(other["result"]["wall_s"]["mean"] != fast["result"]["wall_s"]["mean"]);
  // Asynchronous: training stops only for the copy to host, bytes per GPU over PCIe (64 GB/s on H100).
  const auto async = goodput_cli_json(base + " --checkpoint-mode async");
  const auto& c = async["checkpoint"];
  CHECK(c["mode"] == "async");
  CHECK(c["block_s"].get<double>() == Approx(c["bytes_per_gpu"].get<double>() / 64e9));
  CHECK(c["durable_after_s"].get<double>() == Approx(c["write_s"].get<double>()));
  // The table names the sections a reader looks for.
  const auto table = run_stepsim(base);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("job MTBF"));
  CHECK_THAT(table.out, Catch::Contains("where the wall time goes"));
  CHECK_THAT(table.out, Catch::Contains("Young/Daly tau_opt = sqrt(2 C M)"));
}

TEST_CASE("stepsim goodput: bad input exits 2 naming the option or key") {
  struct Case {
    std::string args, fragment;
  };
  const Case cases[] = {
      {" --tokens 1e9 --steps 10", "not both"},
      {"", "give the run's length as --tokens T or as --steps N"},
      {" --tokens -5", "--tokens: expected a positive number of tokens"},
      {" --steps 0", "--steps: expected a whole number from 1"},
      {" --steps 10 --trials 0", "--trials: expected a whole number from 1"},
      {" --steps 10 --interval-steps 0", "--set reliability.checkpoint_interval_steps=0"},
      {" --steps 10 --gpu-mtbf-hours -1", "reliability.gpu_mtbf_hours: must be greater than 0"},
      {" --steps 10 --checkpoint-mode later", "reliability.checkpoint_mode"},
      {" --steps 10 --storage-read-gb-s 0", "reliability.storage_read_gb_s: must be greater than 0"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = run_stepsim("goodput " + goodput_cli_small() + c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.fragment));
  }
  const auto decode = run_stepsim("goodput '" + std::string(STEPSIM_SOURCE_DIR) +
                                  "/scenarios/examples/llama3.1-70b-decode-8xh200-bs1.toml' --steps 10");
  CHECK(decode.exit_code == 2);
  CHECK_THAT(decode.err, Catch::Contains("workload.kind: goodput is a question about a training run"));
}

TEST_CASE("stepsim goodput: a step that does not fit in memory is marked, and --strict exits 2") {
  // The small scenario on H100s cut to 1.5 GB of HBM: its step (about 0.7 GB at the busiest GPU)
  // cannot fit. The table says so before any wall time, JSON carries `stepsim run`'s peak and `fits`,
  // and --strict turns it into the user's error after the report. The scenario as it is fits:
  // --strict leaves it at 0.
  stepsim::test::TempDir dir;
  std::string text =
      stepsim::test::slurp(std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml");
  const std::string gpu_line = "gpu = \"h100-sxm\"\n";
  REQUIRE(text.find(gpu_line) != std::string::npos);
  text.replace(text.find(gpu_line), gpu_line.size(), "");
  text.replace(text.find("[fabric]"), 8, "[hardware.gpu]\npreset = \"h100-sxm\"\nhbm_gb = 1.5\n\n[fabric]");
  const std::string oom = "'" + dir.write("oom.toml", text).string() + "'";
  const auto run = goodput_cli_json("run " + oom);
  CHECK_FALSE(run["memory"]["fits"].get<bool>());
  const auto j = goodput_cli_json("goodput " + oom + " --steps 1000 --trials 5");
  CHECK_FALSE(j["fits"].get<bool>());
  CHECK(j["memory_peak_bytes"].get<double>() > j["usable_hbm_bytes"].get<double>());
  CHECK(j["memory_peak_bytes"].get<double>() == run["memory"]["peak_bytes"].get<double>());
  const auto table = run_stepsim("goodput " + oom + " --steps 1000 --trials 5");
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("DOES NOT FIT") < table.out.find("failure-free"));
  const auto strict = run_stepsim("goodput " + oom + " --steps 1000 --trials 5 --strict");
  CHECK(strict.exit_code == 2);
  CHECK_THAT(strict.err, Catch::Contains("--strict: the step does not fit in memory"));
  const auto small = run_stepsim("goodput " + goodput_cli_small() + " --steps 1000 --trials 5 --strict");
  INFO(small.err);
  CHECK(small.exit_code == 0);
  CHECK(small.out.find("DOES NOT FIT") == std::string::npos);
}
