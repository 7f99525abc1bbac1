// Bad-input catalogue, limits (issue 16): a simulated clock that wrapped (a 1e12 us NVLink latency
// printed -3,396,263 s with exit 0; a slower NIC or a larger oversubscription came out faster),
// hardware figures outside any physical range, and steps too large to simulate (a million layers
// was killed at 22.6 GB; ten million GPUs ran on past 9 GB and 120 s).
#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/small_inputs.hpp"

namespace limits_rows {

using stepsim::test::bad::BadInput;

const std::string kExamples = std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/";
const std::string kDecode = kExamples + "llama3.1-70b-decode-8xh200-bs1.toml";
const std::string k70b = kExamples + "llama3.1-70b-512xh100.toml";

/// The decode example as a file of its own (sweeps and validation read folders and bases).
const std::string kSmall = stepsim::test::small_gpt_train() + "[parallelism]\ntp = 2\n";

BadInput row(std::string name, std::string args, std::vector<std::string> stderr_contains,
             int exit_code = 2) {
  return BadInput{
      std::move(name), {{"s.toml", kSmall}}, std::move(args), exit_code, std::move(stderr_contains)};
}

/// A sweep of the small scenario along `key` over `values` (TOML array text).
BadInput sweep_row(std::string name, const std::string& key, const std::string& values,
                   std::string extra = {}) {
  return BadInput{std::move(name),
                  {{"s.toml", kSmall},
                   {"w.toml", "[sweep]\nname = \"limits\"\nbase = \"s.toml\"\n[[axis]]\nkey = \"" + key +
                                  "\"\nvalues = " + values + "\n"}},
                  "sweep {dir}/w.toml --out {dir}/r.h5 --jobs 1" + extra,
                  0,
                  {}};
}

const std::vector<BadInput> kBounds = {
    row("an NVLink latency of 1e12 us (printed -3,396,263 s, exit 0)",
        "run " + kDecode + " --set hardware.nvlink_latency_us=1e12",
        {"hardware.nvlink_latency_us: must be in [0, 1e+06], got 1e+12", "plausible range 0 to 1 s"}),
    row("a NIC of 1e-6 Gb/s (was faster than 1e-5)", "run " + k70b + " --set hardware.nic_gbps=0.000001",
        {"hardware.nic_gbps: must be in [0.01, 1e+07], got 1e-06", "Gb/s (gigabits) per direction"}),
    row("a NIC of 1e-5 Gb/s", "run " + k70b + " --set hardware.nic_gbps=0.00001",
        {"hardware.nic_gbps: must be in [0.01, 1e+07]"}),
    row("an oversubscription of 1e12 (was faster than 1)",
        "run " + k70b + " --set fabric.oversubscription=1e12",
        {"fabric.oversubscription: must be in [1, 1000], got 1e+12", "plausible up to 1000"}),
    row("a hop latency of a day", "run " + k70b + " --set fabric.hop_latency_us=8.64e10",
        {"fabric.hop_latency_us: must be in [0, 1e+06]"}),
    row("an HBM bandwidth in B/s where TB/s belongs",
        "run {dir}/s.toml --set hardware.gpu.preset='\"h100-sxm\"' "
        "--set hardware.gpu.hbm_tb_s=3.35e12",
        {"hbm_tb_s: must be in [0.001, 1000], got 3.35e+12"}),
    row("an NVLink bandwidth of 1e-9 GB/s (0 means none; a positive one must be plausible)",
        "run {dir}/s.toml --set hardware.gpu.preset='\"h100-sxm\"' --set hardware.gpu.nvlink_gb_s=1e-9",
        {"nvlink_gb_s: must be 0 (none) or in [0.001, 1e+06], got 1e-09"}),
    row("a NIC efficiency of 1e-300", "run {dir}/s.toml --set hardware.efficiency.nic=1e-300",
        {"hardware.efficiency.nic: must be in [0.01, 1], got 1e-300"}),
    // Found by fuzz_topology: 777,777,777 nodes x 8 overflowed int (undefined behaviour) in
    // ClusterSpec::total_gpus before any check; counts are now at most 2^24 each and in product.
    row("nodes x gpus_per_node beyond int", "check {dir}/s.toml --set hardware.nodes=777777777",
        {"hardware.nodes: must be between 1 and 16777216, got 7.77778e+08"}),
    row("nodes x gpus_per_node above 2^24", "check {dir}/s.toml --set hardware.nodes=4194304",
        {"nodes x gpus_per_node = 4194304 x 8 = 33554432 GPUs, above the plausible maximum of 16777216"}),
    row("in range, but a step past 106 days: an error, not a wrapped time",
        "run " + k70b +
            " --set hardware.nic_gbps=0.01 --set hardware.efficiency.nic=0.01 --set "
            "fabric.oversubscription=1000",
        {"the step exceeds the simulator's time range (about 106 days in picoseconds)", "would end past it",
         "docs/scenarios.md lists the plausible ranges"}),
};

const std::vector<BadInput> kSizes = {
    row("a million layers (killed at 22.6 GB)", "run " + k70b + " --set model.layers=1000000",
        {"the step is too large to simulate", "1,000,000 layers", "above the limit of 50,000,000 ops",
         "--max-ops", "stepsim estimate"}),
    row("ten million GPUs (9 GB and 120 s, silently)",
        "run " + k70b +
            " --set hardware.nodes=1250000 --unset parallelism.dp --set workload.global_batch=2500000",
        {"the step is too large to simulate", "for the network of 10,000,000 GPUs", "--max-ops"}),
    row("estimate answers a million layers without simulating",
        "estimate " + kDecode + " --set model.layers=1000000", {}, 0),
    row("run --max-ops below the step", "run {dir}/s.toml --max-ops 100", {"above the limit of 100 ops"}),
    row("compare --max-ops below the step", "compare {dir}/s.toml {dir}/s.toml --max-ops 100",
        {"above the limit of 100 ops"}),
    row("size --max-ops below the step", "size {dir}/s.toml --tokens-per-s 1e5 --max-ops 100",
        {"above the limit of 100 ops"}),
    row("run --max-ops 0", "run {dir}/s.toml --max-ops 0", {"--max-ops: expected a whole number from 1"}),
    row("run --max-ops -1", "run {dir}/s.toml --max-ops -1", {"--max-ops: expected a whole number from 1"}),
};

}  // namespace limits_rows

TEST_CASE("bad inputs: hardware figures outside their plausible range are refused at their key") {
  for (const auto& r : limits_rows::kBounds) stepsim::test::bad::check_bad_input(r);
}

TEST_CASE("bad inputs: steps too large to simulate are refused before any work") {
  for (const auto& r : limits_rows::kSizes) stepsim::test::bad::check_bad_input(r);
}

TEST_CASE("bad inputs: a sweep point too large or out of range is that point's error, not the sweep's") {
  using limits_rows::sweep_row;
  const auto layers = stepsim::test::bad::check_bad_input(
      sweep_row("a million layers in a sweep", "model.layers", "[24, 1000000]"));
  CHECK(layers.out.find("ok 1, out_of_memory 0, invalid 1") != std::string::npos);
  CHECK(layers.out.find("the step is too large to simulate") != std::string::npos);
  const auto nic = stepsim::test::bad::check_bad_input(
      sweep_row("a NIC of 1e-6 Gb/s in a sweep (was ranked best)", "hardware.nic_gbps", "[400, 0.000001]"));
  CHECK(nic.out.find("ok 1, out_of_memory 0, invalid 1") != std::string::npos);
  CHECK(nic.out.find("hardware.nic_gbps: must be in [0.01, 1e+07]") != std::string::npos);
  const auto raised = stepsim::test::bad::check_bad_input(
      sweep_row("--max-ops makes every point invalid", "parallelism.tp", "[1, 2]", " --max-ops 100"));
  CHECK(raised.out.find("ok 0, out_of_memory 0, invalid 2") != std::string::npos);
}

TEST_CASE("bad inputs: search and validate take --max-ops") {
  using stepsim::test::bad::BadInput;
  stepsim::test::bad::check_bad_input(
      BadInput{"validate --max-ops below a case",
               {{"v/s.toml", limits_rows::kSmall + "[validation]\nmeasured_step_s = 1.0\n"
                                                   "source = \"test\"\n"}},
               "validate {dir}/v --max-ops 100 --jobs 1",
               2,
               {"above the limit of 100 ops"}});
  const auto search = stepsim::test::bad::check_bad_input(BadInput{
      "search --max-ops below every layout: each is refused, and no ranking is an error (was exit 0)",
      {{"s.toml", limits_rows::kSmall}},
      "search {dir}/s.toml --max-ops 100 --jobs 1 --max-tp 1",
      2,
      {"search: no layout was ranked", "were refused", "a limit such as --max-ops may need raising"}});
  CHECK(search.out.find("No layout fits") != std::string::npos);
  CHECK(search.out.find("the step is too large to simulate") != std::string::npos);
}
