// Bad-input catalogue, Slurm area (issue 16): values that would reach an #SBATCH line with a
// control character in them, time limits Slurm does not read, and counts that wrap. Each was
// accepted before (exit 0, with a newline turning the rest of the value into a shell command);
// each is now refused with the option, the character and what to write instead.
#include "tests/support/small_inputs.hpp"
#include "tests/bad_inputs/bad_input.hpp"

namespace slurm_rows {

using stepsim::test::bad::BadInput;

const std::string kSweep = stepsim::test::tiny_sweep("slurm-rows");

/// A row running `stepsim slurm` on the sweep above with `options`.
BadInput row(std::string name, const std::string& options, std::vector<std::string> stderr_contains) {
  return BadInput{
      std::move(name), {{"s.toml", kSweep}}, "slurm {dir}/s.toml " + options, 2, std::move(stderr_contains)};
}

// The shell that runs the command line turns "$(printf 'a\nb')" into a and b on two lines.
const std::vector<BadInput> kRows = {
    row("a newline in --out ends the #SBATCH --output line", "--out \"$(printf '{dir}/o\\ntouch PWNED')\"",
        {"--out: ", "contains a newline (U+000A)", "#SBATCH"}),
    row("a newline in --job-name", "--out {dir}/o --job-name \"$(printf 'x\\nrm -rf ~')\"",
        {"--job-name: `x\\nrm -rf ~` contains a newline (U+000A) at character 2"}),
    row("a newline in --partition", "--out {dir}/o --partition \"$(printf 'gpu\\necho hi')\"",
        {"--partition: ", "newline (U+000A)"}),
    row("a newline in --time", "--out {dir}/o --time \"$(printf '1:00\\necho hi')\"",
        {"--time: ", "newline (U+000A)"}),
    row("a newline in --sbatch-arg",
        "--out {dir}/o --sbatch-arg=\"$(printf '%s\\n%s' --account=x 'echo hi')\"",
        {"--sbatch-arg: ", "newline (U+000A)"}),
    row("a carriage return in --job-name", "--out {dir}/o --job-name \"$(printf 'x\\ry')\"",
        {"--job-name: ", "carriage return (U+000D)"}),
    row("a tab in --partition", "--out {dir}/o --partition \"$(printf 'a\\tb')\"",
        {"--partition: ", "tab (U+0009)"}),
    row("an escape character in --job-name", "--out {dir}/o --job-name \"$(printf 'x\\033[2Jy')\"",
        {"--job-name: `x\\x1b[2Jy` contains a control character (U+001B)"}),
    row("a delete character in --job-name", "--out {dir}/o --job-name \"$(printf 'x\\177')\"",
        {"--job-name: ", "delete character (U+007F)"}),
    row("a --time Slurm does not read", "--out {dir}/o --time banana",
        {"--time: `banana` is not a Slurm time limit", "HOURS:MINUTES:SECONDS"}),
    row("a --time with a unit", "--out {dir}/o --time 2h", {"--time: `2h` is not a Slurm time limit"}),
    row("an --sbatch-arg that is not an option", "--out {dir}/o --sbatch-arg=account=x",
        {"--sbatch-arg: `account=x` is not an sbatch option", "--sbatch-arg=--account="}),
    row("a backslash in --out", "--out '{dir}/a\\b'", {"--out: ", "contains a backslash", "%-patterns"}),
    row("an empty --job-name", "--out {dir}/o --job-name ''", {"--job-name: is empty"}),
    row("--tasks -1 wraps to 4294967295 array tasks", "--out {dir}/o --tasks -1",
        {"--tasks: expected a whole number from 1 to 4000001, got `-1`"}),
    row("--tasks 0", "--out {dir}/o --tasks 0",
        {"--tasks: expected a whole number from 1 to 4000001, got `0`"}),
    row("--cpus-per-task -1", "--out {dir}/o --cpus-per-task -1",
        {"--cpus-per-task: expected a whole number from 1 to 4096, got `-1`"}),
    row("--cpus-per-task beyond any node", "--out {dir}/o --cpus-per-task 100000",
        {"--cpus-per-task: expected a whole number from 1 to 4096, got `100000`"}),
};

}  // namespace slurm_rows

TEST_CASE("bad inputs: stepsim slurm refuses values that would break or inject into its scripts") {
  for (const auto& r : slurm_rows::kRows) {
    const auto result = stepsim::test::bad::check_bad_input(r);
    CHECK(result.out.find("wrote") == std::string::npos);  // refused before anything is written
  }
}
