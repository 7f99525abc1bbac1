// Bad-input catalogue, `stepsim profile` (issue 18): traces that cannot be read, are not JSON or
// hold no GPU kernel, windows that select nothing, and malformed options: each exits 2 with a hint.
#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/small_inputs.hpp"

namespace profile_rows {

using stepsim::test::bad::BadInput;

const std::string kScenario = stepsim::test::small_gpt_train();

const std::string kTrace =
    R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256", "ts": 10, "dur": 5,)"
    R"( "pid": 0, "tid": 7, "args": {"device": 0, "stream": 7}}]})";

/// A row running `stepsim ARGS` with {dir}/s.toml the scenario above and {dir}/t.json a one-GEMM trace.
BadInput row(std::string name, std::string args, std::vector<std::string> stderr_contains,
             std::string trace = kTrace) {
  return BadInput{std::move(name),
                  {{"s.toml", kScenario}, {"t.json", std::move(trace)}},
                  std::move(args),
                  2,
                  std::move(stderr_contains)};
}

const std::vector<BadInput> kRows = {
    row("a trace that does not exist", "profile {dir}/missing.json --scenario {dir}/s.toml",
        {"cannot read the trace", "missing.json", "hint:"}),
    row("a directory given as the trace", "profile {dir} --scenario {dir}/s.toml", {"cannot read the trace"}),
    row("a trace that is not JSON", "profile {dir}/t.json --scenario {dir}/s.toml",
        {"t.json:2:", "not valid JSON", "uncompressed"}, "{\"traceEvents\": [\n  {\"cat\": }"),
    row("a JSON file that is not a Chrome trace", "profile {dir}/t.json --scenario {dir}/s.toml",
        {"t.json:1:1", "no \"traceEvents\" array"}, R"({"schemaVersion": 1})"),
    row("a trace of CPU ops only", "profile {dir}/t.json --scenario {dir}/s.toml",
        {"no GPU kernel events", "ProfilerActivity.CUDA"},
        R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 3}]})"),
    row("a kernel event without its duration", "profile {dir}/t.json --scenario {dir}/s.toml",
        {"without a name, \"ts\" or \"dur\""},
        R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0}]})"),
    row("no --scenario", "profile {dir}/t.json", {"missing --scenario", "hint:"}),
    row("no trace", "profile --scenario {dir}/s.toml", {"missing the trace file"}),
    row("a layer window past the model", "profile {dir}/t.json --scenario {dir}/s.toml --layers 500-600",
        {"selects no compute op", "hint:"}),
    row("a micro-batch window past the step",
        "profile {dir}/t.json --scenario {dir}/s.toml --microbatches 90", {"selects no compute op"}),
    row("a range that ends before it starts", "profile {dir}/t.json --scenario {dir}/s.toml --layers 6-3",
        {"--layers 6-3", "ends before it starts"}),
    row("a range that is not numbers", "profile {dir}/t.json --scenario {dir}/s.toml --microbatches a-b",
        {"--microbatches a-b", "expected a range of indices"}),
    row("a rank that is not simulated", "profile {dir}/t.json --scenario {dir}/s.toml --rank 100000",
        {"--rank 100000", "not simulated", "simulated ranks: 0"}),
    row("an unknown format", "profile {dir}/t.json --scenario {dir}/s.toml --format xml", {"xml"}),
    row("more traces than ranks", "profile {dir}/t.json {dir}/t.json --scenario {dir}/s.toml --rank 0",
        {"--rank is given 1 times for 2 traces", "hint: one --rank per trace"}),
    row("one rank for two traces",
        "profile {dir}/t.json {dir}/t.json --scenario {dir}/s.toml --rank 0 --rank 0",
        {"--rank 0 is given for two traces", "hint:"}),
    row("whole steps and a window at once",
        "profile {dir}/t.json --scenario {dir}/s.toml --steps 2 --layers 0-1",
        {"--steps says the trace covers whole steps", "hint:"}),
    row("a negative step count", "profile {dir}/t.json --scenario {dir}/s.toml --steps -1",
        {"--steps: expected the number of whole steps"}),
    row("a calibration file in a folder that does not exist",
        "profile {dir}/t.json --scenario {dir}/s.toml --write-calibration {dir}/no/such/cal.toml",
        {"--write-calibration", "cal.toml"}),
};

}  // namespace profile_rows

TEST_CASE("bad inputs: stepsim profile refuses unreadable traces and empty windows with a hint") {
  for (const auto& r : profile_rows::kRows) stepsim::test::bad::check_bad_input(r);
}
