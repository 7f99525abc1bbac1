// The bad-input catalogue, sweeps and output files (issue 16): hostile filters, long sweep files,
// damaged journals and shards, full disks, symbolic links and output paths that cannot be written,
// each through the real binary: exit 2 with one line that names the file, never a crash or an
// internal error, and never a file left half written.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>

#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/file_size_limit.hpp"

namespace stepsim::test::bad {
namespace sweep_files_rows {

namespace fs = std::filesystem;

/// Three estimated points (Llama 3.1 8B on 16 H100, tp 1, 2, 4), about 0.1 s. Its journal is
/// about 2.3 kB, its results file about 7 kB.
std::string sweep_file(const std::string& extra_sweep_lines = "", const std::string& tail = "") {
  return "[sweep]\nname = \"bad-inputs\"\nmode = \"estimate\"\n" + extra_sweep_lines +
         "\n[base.model]\npreset = \"llama-3.1-8b\"\n[base.hardware]\ngpu = \"h100-sxm\"\nnodes = 2\n"
         "[base.workload]\nkind = \"train\"\nseq_len = 2048\nglobal_batch = 32\n"
         "[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1, 2, 4]\n" +
         tail;
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

/// `where = "<filter>"` on line 4 of the sweep file.
std::string where(const std::string& filter) {
  return "where = \"" + filter + "\"\n";
}

const std::string kSweep = "sweep {dir}/s.toml --out {dir}/r.h5 --progress none";
const std::string kRun = "run " + std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml";
const std::string kLong(300, 'x');

std::vector<BadInput> rows() {
  std::string predicates = "\n[predicates]\n";
  for (int i = 0; i < 20000; ++i)
    predicates += "p" + std::to_string(i) + " = \"p" + std::to_string(i + 1) + "\"\n";
  predicates += "p20000 = \"tp > 1\"\n";
  std::string comments;
  while (comments.size() < 70 * 1024)
    comments += "# a comment that makes the sweep file long, 70 KB in all\n";
  return {
      {"A: a where filter nested 10,000 parentheses deep (stack overflow in the parser)",
       {{"s.toml", sweep_file(where(repeat("(", 10000) + "tp > 1" + repeat(")", 10000)))}},
       kSweep,
       2,
       {"s.toml:4:", "sweep.where: nested more than 64 levels deep", "(character 65)"}},
      {"A: the same filter through stepsim slurm",
       {{"s.toml", sweep_file(where(repeat("(", 10000) + "tp > 1" + repeat(")", 10000)))}},
       "slurm {dir}/s.toml --tasks 2 --out {dir}/slurm",
       2,
       {"s.toml:4:", "nested more than 64 levels deep"}},
      {"A: 50,000 `not`",
       {{"s.toml", sweep_file(where(repeat("not ", 50000) + "true"))}},
       kSweep,
       2,
       {"s.toml:4:", "nested more than 64"}},
      {"A: 50,000 unary minus",
       {{"s.toml", sweep_file(where(repeat("- ", 50000) + "tp > 1"))}},
       kSweep,
       2,
       {"nested more than 64"}},
      {"A: a sum of 200,000 terms (stack overflow when evaluated)",
       {{"s.toml", sweep_file(where("tp" + repeat(" + 1", 200000) + " > 1"))}},
       kSweep,
       2,
       {"s.toml:4:", "more than 1000 operators in one chain"}},
      {"A: 20,000 predicates each using the next",
       {{"s.toml", sweep_file(where("p0"), predicates)}},
       kSweep,
       2,
       {"predicates use one another more than 64 deep"}},
      {"B: a sweep file of 70 KB (HDF5 attributes stop at 64 KiB)",
       {{"s.toml", sweep_file("", comments)}},
       kSweep,
       0,
       {}},
      {"G: --out names a folder",
       {{"s.toml", sweep_file()}, {"out/keep", ""}},
       "sweep {dir}/s.toml --out {dir}/out",
       2,
       {"--out: is a folder, not a file"}},
      {"G: --out in a folder that does not exist",
       {{"s.toml", sweep_file()}},
       "sweep {dir}/s.toml --out {dir}/none/r.h5",
       2,
       {"--out: cannot use its folder: No such file or directory", "create the folder first"}},
      {"G: --out with a name over 255 bytes (ENAMETOOLONG)",
       {{"s.toml", sweep_file()}},
       "sweep {dir}/s.toml --out {dir}/" + kLong + ".h5",
       2,
       {"--out: cannot use this name: File name too long"}},
      {"G: --out whose journal name would be over 255 bytes",
       {{"s.toml", sweep_file()}},
       "sweep {dir}/s.toml --out {dir}/" + kLong.substr(0, 250),
       2,
       {"too long", ".journal` beside it"}},
      {"G: --csv names a folder",
       {{"s.toml", sweep_file()}, {"out/keep", ""}},
       "sweep {dir}/s.toml --out {dir}/r.h5 --csv {dir}/out",
       2,
       {"--csv: is a folder"}},
      {"G: run --trace names a folder",
       {{"out/keep", ""}},
       kRun + " --trace {dir}/out",
       2,
       {"--trace: is a folder, not a file"}},
      {"G: run --hdf5 with a name over 255 bytes",
       {},
       kRun + " --hdf5 {dir}/" + kLong + ".h5",
       2,
       {"--hdf5: cannot use this name: File name too long"}},
      {"G: run --report in a missing folder",
       {},
       kRun + " --report {dir}/none/r.html",
       2,
       {"--report: cannot use its folder"}},
      {"G: merge into a folder",
       {{"out/keep", ""}},
       "merge {dir}/out {dir}/shard.h5",
       2,
       {"merge output: is a folder, not a file"}},
  };
}

/// `stepsim <args>` (shell-quoted) with files limited to `bytes` (a full disk: writes past it fail
/// with EFBIG) and its standard output discarded.
CliResult run_with_file_limit(const std::string& args, rlim_t bytes) {
  TempDir dir;
  const auto err = dir.path() / "err";
  const std::string cmd =
      "'" + std::string(STEPSIM_BINARY) + "' " + args + " >/dev/null 2>'" + err.string() + "'";
  int status = 0;
  {
    FileSizeLimit limit(bytes);
    status = std::system(cmd.c_str());
  }
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  return r;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

/// One line on stderr, the error, and nothing from HDF5 itself.
void check_one_line_error(const CliResult& r, const std::string& contains) {
  INFO("exit " << r.exit_code << "\nstderr:\n" << r.err);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("error: ") && Catch::Contains(contains));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("HDF5") == std::string::npos);
  CHECK(r.err.find("internal error") == std::string::npos);
}

}  // namespace sweep_files_rows

TEST_CASE("bad inputs: sweep filters, sweep files and output paths") {
  for (const BadInput& row : sweep_files_rows::rows()) {
    SECTION(row.name) {
      check_bad_input(row);
    }
  }
}

TEST_CASE("bad inputs: a full disk under a sweep keeps its journal, and zeros or garbage after it resume") {
  using namespace sweep_files_rows;
  TempDir dir;
  dir.write("s.toml", sweep_file());
  const std::string sweep =
      "sweep " + q(dir.path() / "s.toml") + " --out " + q(dir.path() / "r.h5") + " --progress none";
  // 4 kB: the journal (about 2.3 kB) fits, the results file (about 7 kB) does not.
  const CliResult full = run_with_file_limit(sweep, 4096);
  check_one_line_error(full, "r.h5: results file: cannot write it: File too large");
  CHECK_THAT(full.err, Catch::Contains("--resume writes the files without computing them again"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"r.h5.journal", "s.toml"});
  const std::string journal = slurp(dir.path() / "r.h5.journal");
  // A power loss on ext4 or XFS can leave the journal's last blocks as zeros (read as a record of
  // length 0 and CRC 0, the CRC of nothing) or as stale bytes.
  for (const std::string& tail :
       {std::string(4096, '\0'), std::string(5, '\0'), std::string("\x13\x00\x00\x00garbage", 11)}) {
    CAPTURE(tail.size());
    std::ofstream(dir.path() / "r.h5.journal", std::ios::binary | std::ios::trunc) << journal << tail;
    const CliResult r = run_stepsim(sweep + " --resume");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("evaluated 0 now, 3 from the journal"));
    CHECK(names_in(dir.path()) == std::vector<std::string>{"r.h5", "s.toml"});
    fs::remove(dir.path() / "r.h5");
  }
}

TEST_CASE("bad inputs: a journal another process holds is said to be running, not interrupted") {
  using namespace sweep_files_rows;
  TempDir dir;
  dir.write("s.toml", sweep_file());
  const std::string sweep =
      "sweep " + q(dir.path() / "s.toml") + " --out " + q(dir.path() / "r.h5") + " --progress none";
  REQUIRE(run_with_file_limit(sweep, 4096).exit_code == 2);  // leaves a complete journal
  const int fd = ::open((dir.path() / "r.h5.journal").c_str(), O_RDONLY);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // as a running stepsim holds it
  CliResult r = run_stepsim(sweep);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("another stepsim process is running this sweep now") &&
                        !Catch::Contains("interrupted"));
  r = run_stepsim(sweep + " --resume");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("another stepsim process is running this sweep"));
  ::close(fd);
  r = run_stepsim(sweep);
  CHECK_THAT(r.err, Catch::Contains("an interrupted sweep left this journal"));
  CHECK(run_stepsim(sweep + " --resume").exit_code == 0);
}

TEST_CASE("bad inputs: a full disk under run's files is one line, exit 2, no crash, nothing left") {
  using namespace sweep_files_rows;
  for (const std::string option : {"--hdf5", "--trace", "--report"}) {
    CAPTURE(option);
    TempDir dir;
    // HDF5 used to crash at exit (SIGSEGV in H5close) after 144 lines of HDF5-DIAG; the trace and the
    // report were left truncated.
    const CliResult r = run_with_file_limit(kRun + " " + option + " " + q(dir.path() / "out"), 16 * 1024);
    check_one_line_error(r, "out: " + option + ": cannot write it: File too large");
    CHECK(fs::is_empty(dir.path()));
  }
}

TEST_CASE("bad inputs: a symbolic link at the old temporary name is not written through") {
  using namespace sweep_files_rows;
  TempDir dir;
  dir.write("s.toml", sweep_file());
  const fs::path victim = dir.write("victim", "precious");
  fs::create_symlink(victim, dir.path() / "r.h5.tmp");
  const CliResult r = run_stepsim("sweep " + q(dir.path() / "s.toml") + " --out " + q(dir.path() / "r.h5") +
                                  " --csv " + q(dir.path() / "r.csv") + " --progress none");
  CHECK(r.exit_code == 0);
  CHECK(slurp(victim) == "precious");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"r.csv", "r.h5", "r.h5.tmp", "s.toml", "victim"});
}

TEST_CASE("bad inputs: merging a truncated shard names the shard in one line") {
  using namespace sweep_files_rows;
  TempDir dir;
  dir.write("s.toml", sweep_file());
  const fs::path shard = dir.path() / "shard.h5";
  REQUIRE(run_stepsim("sweep " + q(dir.path() / "s.toml") + " --out " + q(shard) + " --progress none")
              .exit_code == 0);
  fs::resize_file(shard, fs::file_size(shard) / 2);  // a copy cut short
  const CliResult r = run_stepsim("merge " + q(dir.path() / "merged.h5") + " " + q(shard));
  check_one_line_error(r, "shard.h5: the results file is damaged or incomplete");
  CHECK_FALSE(fs::exists(dir.path() / "merged.h5"));
}

TEST_CASE("bad inputs: --out naming a folder is found before any point, and leaves nothing behind") {
  using namespace sweep_files_rows;
  TempDir dir;
  dir.write("s.toml", sweep_file());
  fs::create_directories(dir.path() / "out");
  const CliResult r = run_stepsim("sweep " + q(dir.path() / "s.toml") + " --out " + q(dir.path() / "out"));
  CHECK(r.exit_code == 2);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out", "s.toml"});  // no .journal, no .tmp
}

}  // namespace stepsim::test::bad
