// Bad-input catalogue, minor CLI defects (issue 16): counts that wrap (`--jobs -1` became
// 4294967295 threads), TOML syntax errors that all got one generic hint, a directory given as a
// scenario, a --set key located at the base file's 1:1, and paths that a NUL cut short.
#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/small_inputs.hpp"

namespace cli_minor_rows {

using stepsim::test::bad::BadInput;

const std::string kScenario = stepsim::test::small_gpt_train();

const std::string kSweep = stepsim::test::tiny_sweep("minor");

const std::string kJobsRange = "expected a whole number from 1 to 4096";

/// A row running `stepsim ARGS` where {dir}/s.toml is the scenario above and {dir}/w.toml the sweep.
BadInput row(std::string name, std::string args, std::vector<std::string> stderr_contains,
             std::vector<std::string> stderr_lacks = {"internal error"}) {
  return BadInput{std::move(name),
                  {{"s.toml", kScenario}, {"w.toml", kSweep}},
                  std::move(args),
                  2,
                  std::move(stderr_contains),
                  std::move(stderr_lacks)};
}

/// A row checking `stepsim check` on a scenario whose text is `toml`.
BadInput toml_row(std::string name, std::string toml, std::vector<std::string> stderr_contains) {
  return BadInput{
      std::move(name), {{"t.toml", std::move(toml)}}, "check {dir}/t.toml", 2, std::move(stderr_contains)};
}

const std::vector<BadInput> kCounts = {
    row("sweep --jobs -1", "sweep {dir}/w.toml --out {dir}/r.h5 --jobs -1",
        {"--jobs: " + kJobsRange + ", got `-1`", "leave --jobs out for one thread per CPU"}),
    row("sweep --jobs 0", "sweep {dir}/w.toml --out {dir}/r.h5 --jobs 0",
        {"--jobs: " + kJobsRange + ", got `0`"}),
    row("sweep --jobs beyond 4096", "sweep {dir}/w.toml --out {dir}/r.h5 --jobs 100000",
        {"--jobs: " + kJobsRange + ", got `100000`"}),
    row("sweep --jobs 2.5", "sweep {dir}/w.toml --out {dir}/r.h5 --jobs 2.5", {"--jobs: " + kJobsRange}),
    row("sweep --jobs 99999999999999999999",
        "sweep {dir}/w.toml --out {dir}/r.h5 --jobs 99999999999999999999", {"--jobs: " + kJobsRange}),
    row("run --advise --jobs -1", "run {dir}/s.toml --advise --jobs -1",
        {"--jobs: " + kJobsRange + ", got `-1`"}),
    row("run --advise-top -1", "run {dir}/s.toml --advise --advise-top -1",
        {"--advise-top: expected a whole number from 1 to 1000, got `-1`"}),
    row("search --jobs -1", "search {dir}/s.toml --jobs -1", {"--jobs: " + kJobsRange + ", got `-1`"}),
    row("search --top -1", "search {dir}/s.toml --top -1",
        {"--top: expected a whole number from 1 to 1000000, got `-1`"}),
    row("search --max-tp -1 (was taken as the NVLink domain)", "search {dir}/s.toml --max-tp -1",
        {"--max-tp: expected a whole number from 1 to 1000000, got `-1`"}),
    row("search --headroom-gb inf", "search {dir}/s.toml --headroom-gb inf",
        {"--headroom-gb: expected a size in GB"}),
    row("collective --channels -5 (was taken as the default)", "collective --channels -5",
        {"--channels: expected a whole number from 1 to 1024, got `-5`"}),
    row("collective --ranks -1 (was taken as all)", "collective --ranks -1",
        {"--ranks: expected a whole number from 1 to 1000000, got `-1`"}),
    row("collective --gpus-per-node -8", "collective --gpus-per-node -8",
        {"--gpus-per-node: expected a whole number from 1 to 1000000, got `-8`"}),
    row("collective --bytes inf", "collective --bytes inf", {"--bytes: `inf` is not a non-negative number"}),
    // The fabric options bypassed the plausible ranges a scenario file has (docs/scenarios.md).
    row("collective --nic-gbps 1e-9 (was simulated)", "collective --nic-gbps 1e-9",
        {"--nic-gbps: must be in [0.01, 1e+07], got 1e-09", "a ConnectX-7 NIC is 400"}),
    row("collective --nic-gbps -5 (was ignored)", "collective --nic-gbps -5",
        {"--nic-gbps: must be in [0.01, 1e+07], got -5"}),
    row("collective --oversubscription 1e12 (was simulated)", "collective --nodes 2 --oversubscription 1e12",
        {"--oversubscription: must be in [1, 1000], got 1e+12"}),
    row("collective --oversubscription 0.5", "collective --oversubscription 0.5",
        {"--oversubscription: must be in [1, 1000], got 0.5"}),
    row("collective --oversubscription with too many tiers (the extra ones were dropped)",
        "collective --oversubscription 2,2,2,2", {"--oversubscription: has 4 ratios but --tiers is 2"}),
    // Found by fuzz_topology: CollNet planned for two trays of one NVL72 rack (one NCCL node, no
    // switch route between the ranks) read past a link table: a segfault.
    row("collective --algorithm collnet-direct inside one NVLink domain (was a segfault)",
        "collective --gpu gb200 --topology nvl72 --nodes 2 --sharp --bytes 1048576 --algorithm "
        "collnet-direct",
        {"in two or more NVLink domains"}),
    row("collective --algorithm collnet-chain inside one NVLink domain",
        "collective --gpu gb200 --topology nvl72 --nodes 2 --sharp --bytes 1048576 --algorithm "
        "collnet-chain",
        {"2 or more hosts of at most 8 ranks each"}),
    BadInput{"collective with SHARP inside one NVLink domain chooses another algorithm (was a segfault)",
             {},
             "collective --gpu gb200 --topology nvl72 --nodes 2 --sharp --bytes 1048576",
             0,
             {}},
    row("collective --algorithm pat with --no-pat",
        "collective --nodes 8 --gpus-per-node 1 --op all-gather "
        "--algorithm pat --no-pat",
        {"--no-pat", "turns NCCL's PAT off, and --algorithm pat forces it"}),
    row("collective --algorithm pat at 8 GPUs per node",
        "collective --nodes 2 --op all-gather --algorithm pat", {"one rank on each of two or more nodes"}),
    row("collective --nodes -1", "collective --nodes -1",
        {"--nodes: expected a whole number from 1 to 1000000, got `-1`"}),
    row("collective --tiers 4", "collective --tiers 4",
        {"--tiers: expected a whole number from 2 to 3, got `4`"}),
    row("collective --hosts-per-leaf 0", "collective --hosts-per-leaf 0",
        {"--hosts-per-leaf: expected a whole number from 1 to 1000000, got `0`"}),
    row("validate --jobs -1", "validate {dir} --jobs -1", {"--jobs: " + kJobsRange + ", got `-1`"}),
    row("validate --jobs 0", "validate {dir} --jobs 0", {"--jobs: " + kJobsRange + ", got `0`"}),
};

const std::vector<BadInput> kToml = {
    toml_row("an unterminated string", "[model]\npreset = \"megatron-gpt-1.7b\n",
             {"t.toml:2:", "the string has no closing quote on its line"}),
    toml_row("a missing =", "[model]\npreset \"megatron-gpt-1.7b\"\n",
             {"t.toml:2:8:", "expected '='", "as key = value"}),
    toml_row("a key set twice", "[model]\npreset = \"a\"\npreset = \"b\"\n",
             {"t.toml:3:", "`preset` is already set in this table: keep one of the two lines"}),
    toml_row("an unquoted string", "[model]\npreset = megatron\n",
             {"t.toml:2:", "text needs double quotes, e.g. gpu = \"h100-sxm\""}),
    toml_row("a number with a unit", "[hardware]\nnic_gbps = 400 Gb/s\n",
             {"t.toml:2:", "text with spaces or units needs quotes"}),
    toml_row("an invalid escape", "[model]\npreset = \"C:\\data\"\n",
             {"t.toml:2:", "unknown escape sequence", "write \\\\ for a backslash, or use single quotes"}),
    toml_row("a table defined twice", "[model]\npreset = \"a\"\n[model]\n",
             {"t.toml:3:", "each table may appear once: merge its keys under one header"}),
    toml_row("an unclosed table header", "[model\npreset = \"a\"\n",
             {"t.toml:1:", "a table header is [name] on its own line"}),
    toml_row("an array without commas", "[sweep]\nx = [1 2]\n",
             {"t.toml:2:", "separate the elements of an array with commas"}),
};

const std::vector<BadInput> kPaths = {
    BadInput{"a directory given as the scenario file",
             {{"adir/s.toml", kScenario}},
             "check {dir}/adir",
             2,
             {"adir: is a directory, not a file"},
             {"internal error", "permissions"}},
    BadInput{"a directory given as the sweep file",
             {{"adir/w.toml", kSweep}},
             "sweep {dir}/adir --out {dir}/r.h5",
             2,
             {"adir: is a directory, not a file"},
             {"internal error", "permissions"}},
    // Was an empty table and exit 0: a wrong path read as nothing to check.
    BadInput{"validate on a directory holding scenarios but no validation case",
             {{"v/s.toml", kScenario}},
             "validate {dir}/v --jobs 1",
             2,
             {"v: holds no validation case (1 .toml file, none with a [validation] table)",
              "e.g. stepsim validate scenarios/validation"}},
    row("--set with an unknown first part is located at the override", "check {dir}/s.toml --set a.b.c.d=1",
        {"error: --set a.b.c.d=1: a: unknown key `a` in the top level"}, {"internal error", "s.toml:1:1"}),
    row("--set with an unknown inner part is located at the override",
        "check {dir}/s.toml --set model.b.c.d=1",
        {"error: --set model.b.c.d=1: model.b: unknown key `b` in [model]"},
        {"internal error", "s.toml:1:1"}),
    // "a" exists: with the NUL cutting the path short, the sweep ran on it without a word.
    BadInput{"a NUL in a sweep's base path",
             {{"a", kScenario},
              {"w.toml",
               "[sweep]\nbase = \"a\\u0000b\"\n[[axis]]\nkey = \"parallelism.tp\"\n"
               "values = [1, 2]\n"}},
             "sweep {dir}/w.toml --out {dir}/r.h5",
             2,
             {"w.toml:2:8: sweep.base: contains a NUL character (\\u0000)"}},
    BadInput{"a NUL in a scenario's catalog path",
             {{"c", ""}, {"s.toml", "catalog = [\"c\\u0000d\"]\n" + kScenario}},
             "check {dir}/s.toml",
             2,
             {"s.toml:1:12: catalog: contains a NUL character (\\u0000)"}},
    // Found by fuzz_sweep: std::filesystem's throwing queries turned ENAMETOOLONG into exit 1.
    BadInput{"a sweep base whose file name is over 255 bytes",
             {{"w.toml", "[sweep]\nbase = \"" + std::string(300, 'b') +
                             ".toml\"\n[[axis]]\n"
                             "key = \"parallelism.tp\"\nvalues = [1, 2]\n"}},
             "sweep {dir}/w.toml --out {dir}/r.h5",
             2,
             {"w.toml:2:8: sweep.base:", "has a name too long for the file system"}},
    BadInput{"a catalog file name over 255 bytes",
             {{"s.toml", "catalog = [\"" + std::string(300, 'c') + "\"]\n" + kScenario}},
             "check {dir}/s.toml",
             2,
             {"s.toml:1:11: catalog:", "has a name too long for the file system"}},
    row("a NUL in a string given with --set", "check {dir}/s.toml --set 'meta.name=\"x\\u0000y\"'",
        {"meta.name: contains a NUL character (\\u0000)"}),
};

}  // namespace cli_minor_rows

TEST_CASE("bad inputs: counts that wrap are refused on every command that takes them") {
  for (const auto& r : cli_minor_rows::kCounts) stepsim::test::bad::check_bad_input(r);
}

TEST_CASE("bad inputs: each TOML syntax error gets a hint that fits it") {
  for (const auto& r : cli_minor_rows::kToml) stepsim::test::bad::check_bad_input(r);
}

TEST_CASE("bad inputs: directories, NULs and --set keys in paths and keys are reported where they are") {
  for (const auto& r : cli_minor_rows::kPaths) stepsim::test::bad::check_bad_input(r);
}
