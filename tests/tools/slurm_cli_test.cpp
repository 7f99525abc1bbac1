// `stepsim slurm` with hostile names (issue 16): folders, sweep files, job names and partitions
// holding spaces, $(...), backticks, quotes, semicolons, #, %, a leading dash and non-ASCII text.
// The scripts are run by bash with a stand-in `stepsim` that records its arguments, the #SBATCH
// lines are split as sbatch splits them, and the printed "submit with" lines are run with a
// stand-in `sbatch` on PATH: no injected command may run, and every path must arrive intact.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>

#include "output/sweep/slurm_script.hpp"
#include "sim/error.hpp"
#include "tests/support/small_inputs.hpp"
#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::slurp;
using stepsim::test::TempDir;
namespace fs = std::filesystem;

namespace slurm_cli {

// Each `touch` below would leave a file named CANARY... in the folder the shell runs in.
const std::string kHostile =
    "-x $(touch CANARY1) `touch CANARY2` 'q' \"dq\"; touch CANARY3 # 50% $HOME caf\xc3\xa9 \xe2\x9c\x93";

std::string q(const fs::path& p) {
  return stepsim::out::shell_quote(p.string());
}

/// Runs `command` with bash in `cwd`, its standard output discarded; returns its exit status.
int bash(const fs::path& cwd, const std::string& command, const std::string& env = {}) {
  const std::string line =
      "cd " + q(cwd) + " && " + env + " bash -c " + stepsim::out::shell_quote(command) + " >/dev/null";
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The arguments a stand-in recorded, one NUL-terminated string each.
std::vector<std::string> recorded_args(const fs::path& file) {
  std::vector<std::string> out;
  std::istringstream in(slurp(file));
  for (std::string a; std::getline(in, a, '\0');) out.push_back(a);
  return out;
}

/// A stand-in command at `path` that writes its arguments, NUL-terminated, to $STUB_ARGS and
/// prints `answer`.
void write_stub(const fs::path& path, const std::string& answer = {}) {
  std::ofstream(path) << "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$STUB_ARGS\"\n"
                      << (answer.empty() ? "" : "echo " + answer + "\n");
  fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
}

/// The arguments sbatch reads from a script's #SBATCH lines, split as sbatch splits them (its
/// _get_argument in src/sbatch/opt.c): whitespace separates, '...' and "..." group, a backslash
/// takes the next character as it is, an unquoted # ends the line, and the first line that is
/// not a comment ends the options.
std::vector<std::string> sbatch_arguments(const std::string& script) {
  std::vector<std::string> out;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') break;
    if (line.rfind("#SBATCH", 0) != 0) continue;
    std::string arg;
    bool in_arg = false, escaped = false;
    char quote = 0;
    for (std::size_t i = 7; i < line.size(); ++i) {
      const char c = line[i];
      if (escaped) {
        arg += c, escaped = false;
      } else if (c == '\\') {
        escaped = in_arg = true;
      } else if (quote != 0) {
        if (c == quote)
          quote = 0;
        else
          arg += c;
      } else if (c == '"' || c == '\'') {
        quote = c, in_arg = true;
      } else if (c == '#') {
        break;
      } else if (c == ' ' || c == '\t') {
        if (in_arg) out.push_back(arg), arg.clear(), in_arg = false;
      } else {
        arg += c, in_arg = true;
      }
    }
    if (in_arg) out.push_back(arg);
  }
  return out;
}

bool has_canary(const fs::path& dir) {
  for (const char* n : {"CANARY1", "CANARY2", "CANARY3"})
    if (fs::exists(dir / n)) return true;
  return false;
}

}  // namespace slurm_cli

TEST_CASE("stepsim slurm scripts pass hostile paths and names intact and run nothing injected") {
  TempDir tmp;
  const fs::path dir = tmp.path() / slurm_cli::kHostile;
  const fs::path sweep = tmp.path() / ("s " + slurm_cli::kHostile + ".toml");
  fs::create_directories(dir / "logs");
  const fs::path stub = tmp.path() / ("stepsim " + slurm_cli::kHostile);
  slurm_cli::write_stub(stub);
  stepsim::out::SlurmOptions o;
  o.stepsim = stub;
  o.sweep = sweep;
  o.dir = dir;
  o.tasks = 3;
  o.job_name = slurm_cli::kHostile;
  o.partition = "gpu 'a' \"b\" #c \\d";
  o.time_limit = "1-02:03:04";
  o.sbatch_args = {"--comment=\"x $(touch CANARY1)\""};
  o.csv = true;
  const stepsim::out::SlurmScripts s = stepsim::out::slurm_scripts(o);
  const fs::path array = stepsim::out::slurm_array_script(dir), merge = stepsim::out::slurm_merge_script(dir);
  std::ofstream(array) << s.array;
  std::ofstream(merge) << s.merge;
  INFO(s.array << "\n" << s.merge);
  CHECK(slurm_cli::bash(tmp.path(),
                        "bash -n " + slurm_cli::q(array) + " && bash -n " + slurm_cli::q(merge)) == 0);

  // sbatch reads the values as written (Slurm's --output doubles a % to keep it literal).
  std::string escaped_dir;
  for (const char c : dir.string()) escaped_dir += c == '%' ? std::string("%%") : std::string(1, c);
  const std::vector<std::string> expected_options = {"--job-name=" + slurm_cli::kHostile,
                                                     "--output=" + escaped_dir + "/logs/shard-%a.log",
                                                     "--partition=gpu 'a' \"b\" #c \\d",
                                                     "--comment=x $(touch CANARY1)",
                                                     "--array=0-2",
                                                     "--cpus-per-task=1",
                                                     "--time=1-02:03:04"};
  CHECK(slurm_cli::sbatch_arguments(s.array) == expected_options);
  CHECK(slurm_cli::sbatch_arguments(s.merge).at(0) == "--job-name=" + slurm_cli::kHostile + "-merge");

  // Task 1 of 3, then the merge, each run by bash as Slurm would run it.
  const fs::path args = tmp.path() / "args";
  REQUIRE(slurm_cli::bash(tmp.path(), "bash " + slurm_cli::q(array),
                          "SLURM_ARRAY_TASK_ID=1 SLURM_CPUS_PER_TASK=2 STUB_ARGS=" + slurm_cli::q(args)) ==
          0);
  CHECK(slurm_cli::recorded_args(args) ==
        std::vector<std::string>{"sweep", sweep.string(), "--out", (dir / "shard-1-of-3.h5").string(),
                                 "--shard", "1/3", "--jobs", "2", "--resume", "--progress", "lines"});
  fs::remove(args);
  REQUIRE(slurm_cli::bash(tmp.path(), "bash " + slurm_cli::q(merge), "STUB_ARGS=" + slurm_cli::q(args)) == 0);
  CHECK(slurm_cli::recorded_args(args) ==
        std::vector<std::string>{"merge", (dir / "results.h5").string(), (dir / "shard-0-of-3.h5").string(),
                                 (dir / "shard-1-of-3.h5").string(), (dir / "shard-2-of-3.h5").string(),
                                 "--csv", (dir / "results.csv").string()});
  CHECK_FALSE(slurm_cli::has_canary(tmp.path()));
}

TEST_CASE("stepsim slurm prints submit commands that survive pasting into a shell") {
  TempDir tmp;
  const fs::path dir = tmp.path() / slurm_cli::kHostile;
  const auto sweep = tmp.write("s.toml", stepsim::test::tiny_sweep("hostile"));
  const auto r = run_stepsim("slurm " + slurm_cli::q(sweep) + " --tasks 2 --out=" + slurm_cli::q(dir) +
                             " --job-name=" + slurm_cli::q(slurm_cli::kHostile));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto at = r.out.find("submit with:\n");
  REQUIRE(at != std::string::npos);
  const std::string pasted = r.out.substr(at + 13);
  // A stand-in sbatch first on PATH, answering like `sbatch --parsable`.
  fs::create_directories(tmp.path() / "bin");
  slurm_cli::write_stub(tmp.path() / "bin" / "sbatch", "7");
  const fs::path args = tmp.path() / "args";
  REQUIRE(slurm_cli::bash(tmp.path(), pasted,
                          "PATH=" + slurm_cli::q(tmp.path() / "bin") +
                              ":\"$PATH\" STUB_ARGS=" + slurm_cli::q(args)) == 0);
  CHECK(slurm_cli::recorded_args(args) ==
        std::vector<std::string>{"--parsable", stepsim::out::slurm_array_script(dir).string(),
                                 "--dependency=afterok:7", stepsim::out::slurm_merge_script(dir).string()});
  CHECK_FALSE(slurm_cli::has_canary(tmp.path()));
}

TEST_CASE("shell_quote and sbatch_quote give back the text they quote") {
  using stepsim::out::sbatch_quote;
  using stepsim::out::shell_quote;
  TempDir tmp;
  for (const std::string& s : {std::string(), std::string("plain"), std::string("it's"), std::string("'''"),
                               std::string("a\nb"), slurm_cli::kHostile}) {
    const fs::path out = tmp.path() / "out";
    CHECK(slurm_cli::bash(tmp.path(), "printf %s " + shell_quote(s) + " > " + slurm_cli::q(out)) == 0);
    CHECK(slurp(out) == s);
  }
  CHECK(sbatch_quote("gpu") == "gpu");  // nothing to quote: the script stays as people write it
  CHECK(slurm_cli::sbatch_arguments("#SBATCH --x=" + sbatch_quote("a \\\"b\" 'c' #d") + "\n") ==
        std::vector<std::string>{"--x=a \\\"b\" 'c' #d"});
}

TEST_CASE("Slurm's time limit forms") {
  using stepsim::out::is_slurm_time;
  for (const char* ok : {"30", "30:00", "2:00:00", "1-0", "1-12:30", "7-00:00:00", "UNLIMITED", "infinite"})
    CHECK(is_slurm_time(ok));
  for (const char* bad : {"", "1h", "1:2:3:4", "-1", "1-", "1--2", ":30", "30:", "1-2:3:4:5", "1:00 ", "1.5"})
    CHECK_FALSE(is_slurm_time(bad));
}
