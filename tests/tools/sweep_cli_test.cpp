// `stepsim sweep`, `merge` and `slurm` through the real binary: identical bytes whatever the
// thread count, after kill -9 and --resume, and after sharding and merging.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <random>
#include <sstream>
#include <thread>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::slurp;
using stepsim::test::TempDir;
namespace fs = std::filesystem;

extern char** environ;

namespace {

// Megatron GPT 1.7B on 8 GPUs: 4 x 3 x 2 x 3 = 72 combinations, 24 removed by the filter (tp x pp
// > 8: tp 4 and 8 with pp 3 and 4, x 2 x 3): 48 points. pp = 3 does not divide 8 GPUs and micro-batch
// 4 x dp 8 does not divide the batch of 16 (invalid rows); small layouts exceed the 16 GB the base
// gives each GPU (out_of_memory rows).
const std::string kSweep = R"([sweep]
name = "cli-test"
where = ["tp * pp <= 8"]
[base.model]
preset = "megatron-gpt-1.7b"
[base.hardware]
nodes = 1
[base.hardware.gpu]
preset = "h100-sxm"
hbm_gb = 16
[base.workload]
kind = "train"
seq_len = 1024
global_batch = 16
[[axis]]
key = "parallelism.tp"
values = [1, 2, 4, 8]
[[axis]]
key = "parallelism.pp"
values = [1, 3, 4]
[[axis]]
keys = ["hardware.nic_gbps", "fabric.hop_latency_us"]
names = ["nic", "hop"]
values = [[100, 1.0], [400, 0.5]]
[[axis]]
key = "workload.micro_batch"
values = [1, 2, 4]
)";

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

void sweep_ok(const std::string& args) {
  const auto r = run_stepsim("sweep " + args + " --progress none");
  INFO(r.err << r.out);
  REQUIRE(r.exit_code == 0);
}

/// Starts `stepsim args...` with its output discarded; returns its pid.
pid_t spawn_stepsim(const std::vector<std::string>& args) {
  std::vector<std::string> all{STEPSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, STEPSIM_BINARY, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  return pid;
}

std::uintmax_t size_or_zero(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

/// The index of column `name` in a CSV header (the results' columns hold no commas).
std::size_t sweep_csv_column(const std::string& header, const std::string& name) {
  const auto at = ("," + header + ",").find("," + name + ",");
  return static_cast<std::size_t>(
      std::count(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(at), ','));
}

/// Field `i` of a CSV row.
std::string sweep_csv_field(const std::string& row, std::size_t i) {
  std::stringstream ss(row);
  std::string f;
  for (std::size_t k = 0; k <= i; ++k) std::getline(ss, f, ',');
  return f;
}

}  // namespace

TEST_CASE("Sweep results are byte-identical whatever the number of threads") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweep);
  for (const char* jobs : {"1", "2", "3"})
    sweep_ok(q(s) + " --out " + q(dir.path() / ("r" + std::string(jobs) + ".h5")) + " --csv " +
             q(dir.path() / ("r" + std::string(jobs) + ".csv")) + " --jobs " + jobs);
  const std::string h5 = slurp(dir.path() / "r1.h5"), csv = slurp(dir.path() / "r1.csv");
  CHECK(slurp(dir.path() / "r2.h5") == h5);
  CHECK(slurp(dir.path() / "r3.h5") == h5);
  CHECK(slurp(dir.path() / "r2.csv") == csv);
  CHECK(slurp(dir.path() / "r3.csv") == csv);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 49);  // 48 rows + the header
  CHECK(csv.find(",invalid,") != std::string::npos);
  CHECK(csv.find(",out_of_memory,") != std::string::npos);
  CHECK(csv.find(",ok,") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "r1.h5.journal"));
}

TEST_CASE("A sweep killed with SIGKILL at random moments resumes to the uninterrupted file") {
  TempDir dir;
  // Twice the points, the larger batch slower: long enough to be killed several times.
  const auto s =
      dir.write("s.toml", kSweep + "[[axis]]\nkey = \"workload.global_batch\"\nvalues = [16, 64]\n");
  sweep_ok(q(s) + " --out " + q(dir.path() / "full.h5") + " --csv " + q(dir.path() / "full.csv") +
           " --jobs 2");
  const auto out = dir.path() / "r.h5";
  const auto journal = dir.path() / "r.h5.journal";
  const std::vector<std::string> args{
      "sweep",  s.string(), "--out",    out.string(), "--csv", (dir.path() / "r.csv").string(),
      "--jobs", "2",        "--resume", "--progress", "none"};
  std::mt19937 rng(20240607);
  int mid_run_kills = 0;
  for (int round = 0; round < 6 && !fs::exists(out); ++round) {
    const auto before = size_or_zero(journal);
    const pid_t pid = spawn_stepsim(args);
    // Even rounds: once the journal grew by a random number of bytes (mid-run); odd rounds: after a
    // random delay (possibly before the journal exists, or while the results file is written).
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 250)(rng));
    const std::uintmax_t growth = std::uniform_int_distribution<std::uintmax_t>(1, 4000)(rng);
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      const bool due = round % 2 == 1 ? std::chrono::steady_clock::now() - start >= delay
                                      : size_or_zero(journal) >= before + growth;
      if (due) {
        mid_run_kills += size_or_zero(journal) > before ? 1 : 0;
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  CHECK(mid_run_kills > 0);  // at least one kill landed after rows had been journaled
  const auto r = run_stepsim("sweep " + q(s) + " --out " + q(out) + " --csv " + q(dir.path() / "r.csv") +
                             " --jobs 2 --resume --progress none");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(out) == slurp(dir.path() / "full.h5"));
  CHECK(slurp(dir.path() / "r.csv") == slurp(dir.path() / "full.csv"));
  CHECK_FALSE(fs::exists(journal));
  // Run again: the file is complete, nothing is recomputed.
  const auto again = run_stepsim("sweep " + q(s) + " --out " + q(out) + " --resume --progress none");
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("already complete"));
}

TEST_CASE("Shards merged equal one run, and merge checks completeness and origin") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweep);
  sweep_ok(q(s) + " --out " + q(dir.path() / "full.h5") + " --csv " + q(dir.path() / "full.csv") +
           " --jobs 2");
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const auto shard = dir.path() / ("shard" + std::to_string(i) + ".h5");
    sweep_ok(q(s) + " --out " + q(shard) + " --shard " + std::to_string(i) + "/3 --jobs 1");
    shards += " " + q(shard);
  }
  const auto m =
      run_stepsim("merge " + q(dir.path() / "m.h5") + shards + " --csv " + q(dir.path() / "m.csv"));
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  CHECK(slurp(dir.path() / "m.h5") == slurp(dir.path() / "full.h5"));
  CHECK(slurp(dir.path() / "m.csv") == slurp(dir.path() / "full.csv"));

  // Shard 1 of 3 missing: its 16 points (1, 4, 7, ..., 46) are named.
  const auto missing = run_stepsim("merge " + q(dir.path() / "x.h5") + " " + q(dir.path() / "shard0.h5") +
                                   " " + q(dir.path() / "shard2.h5"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("16 points are missing (1, 4, 7,") && Catch::Contains("shard 1/3"));
  const auto twice =
      run_stepsim("merge " + q(dir.path() / "x.h5") + shards + " " + q(dir.path() / "shard0.h5"));
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("point 0 is also in"));
  // A shard of another sweep (one value changed) is refused by its hash.
  std::string other = kSweep;
  other.replace(other.find("[1, 2, 4]"), 9, "[1, 2, 8]");
  const auto s2 = dir.write("s2.toml", other);
  sweep_ok(q(s2) + " --out " + q(dir.path() / "o.h5") + " --shard 1/3 --jobs 1");
  const auto mixed = run_stepsim("merge " + q(dir.path() / "x.h5") + " " + q(dir.path() / "shard0.h5") + " " +
                                 q(dir.path() / "o.h5") + " " + q(dir.path() / "shard2.h5"));
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Catch::Contains("the sweep (hash"));
  CHECK_FALSE(fs::exists(dir.path() / "x.h5"));
}

TEST_CASE("Estimate-only sweeps fill the estimate columns and leave the simulation's empty") {
  TempDir dir;
  std::string text = kSweep;
  text.insert(text.find('\n') + 1, "mode = \"estimate\"\n");
  const auto s = dir.write("s.toml", text);
  sweep_ok(q(s) + " --out " + q(dir.path() / "r.h5") + " --csv " + q(dir.path() / "r.csv"));
  std::istringstream csv(slurp(dir.path() / "r.csv"));
  std::string header, line;
  std::getline(csv, header);
  const auto column = [&](const std::string& name) { return sweep_csv_column(header, name); };
  const auto field = sweep_csv_field;
  int ok = 0;
  while (std::getline(csv, line)) {
    if (field(line, column("status")) != "ok") continue;
    ++ok;
    CHECK(field(line, column("step_time_s")).empty());
    CHECK(field(line, column("fits")) == "-1");
    CHECK(std::stod(field(line, column("est_step_time_s"))) > 0.0);
    CHECK(field(line, column("est_fits")) == "1");
  }
  CHECK(ok > 0);
}

TEST_CASE("Sweep command-line errors") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweep);
  const auto bad = dir.write("bad.toml", kSweep + "[[axis]]\nkey = \"parallelism.zero\"\nvalues = [1]\n");
  auto r = run_stepsim("sweep " + q(bad) + " --out " + q(dir.path() / "r.h5"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.toml:29:7: parallelism.zero: is not a key of the base scenario") &&
                        Catch::Contains("did you mean `zero_stage`?"));
  r = run_stepsim("sweep " + q(s));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("missing --out"));
  r = run_stepsim("sweep " + q(s) + " --out " + q(dir.path() / "r.h5") + " --shard 2/2");
  CHECK(r.exit_code == 2);
  // A journal left by an interrupted run is not discarded silently.
  dir.write("r.h5.journal", "");
  r = run_stepsim("sweep " + q(s) + " --out " + q(dir.path() / "r.h5"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("pass --resume to continue it"));
}

TEST_CASE("stepsim slurm writes an array and a dependent merge, and submits them in that order") {
  TempDir dir;
  const auto s = dir.write("s.toml", kSweep);
  // A stand-in for sbatch: records its arguments and answers like `sbatch --parsable`.
  const auto log = dir.path() / "sbatch.log";
  const auto fake = dir.write("sbatch", "#!/bin/sh\necho \"$@\" >> '" + log.string() + "'\nn=$(wc -l < '" +
                                            log.string() + "')\necho \"$((41 + n));cluster\"\n");
  fs::permissions(fake, fs::perms::owner_exec, fs::perm_options::add);
  const auto r = run_stepsim("slurm " + q(s) + " --tasks 4 --out " + q(dir.path() / "job") +
                             " --csv --submit --sbatch " + q(fake));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("submitted array job 42 and merge job 43"));
  const std::string calls = slurp(log);
  const auto array = (dir.path() / "job" / "sweep-array.sbatch").string();
  const auto merge = (dir.path() / "job" / "sweep-merge.sbatch").string();
  CHECK(calls == "--parsable " + array + "\n--parsable --dependency=afterok:42 " + merge + "\n");
  const std::string a = slurp(array), m = slurp(merge);
  CHECK_THAT(a, Catch::Contains("#SBATCH --array=0-3") && Catch::Contains("--shard \"${task}/4\"") &&
                    Catch::Contains("SLURM_ARRAY_TASK_ID") && Catch::Contains("--resume"));
  CHECK_THAT(m, Catch::Contains(" merge '" + (dir.path() / "job" / "results.h5").string() + "'") &&
                    Catch::Contains("--csv"));
  // A failing sbatch is reported with its output.
  const auto broken =
      dir.write("sbatch-broken", "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n");
  fs::permissions(broken, fs::perms::owner_exec, fs::perm_options::add);
  const auto f =
      run_stepsim("slurm " + q(s) + " --out " + q(dir.path() / "job2") + " --submit --sbatch " + q(broken));
  CHECK(f.exit_code == 2);
  CHECK_THAT(f.err, Catch::Contains("invalid partition"));
}

TEST_CASE("Sweep points whose memory lower bound exceeds HBM are out of memory without a simulation") {
  // kSweep gives each GPU 16 GB: GPT 1.7B at tp 1 or 2 and pp 1 keeps its whole static memory
  // (weights, gradients, optimizer state: at least 1.7 B x 16 bytes / tp) and a micro-batch's
  // activations before the first backward step, over the usable HBM. Such a row is not simulated:
  // status out_of_memory, fits 0, no simulated figures, and the message says so. The same layout
  // through `stepsim run --strict` simulates it and fails for memory (exit 2): the bound was sound.
  TempDir dir;
  const auto s = dir.write("s.toml", kSweep);
  sweep_ok(q(s) + " --out " + q(dir.path() / "r.h5") + " --csv " + q(dir.path() / "r.csv"));
  std::istringstream csv(slurp(dir.path() / "r.csv"));
  std::string header, line;
  std::getline(csv, header);
  const auto column = [&](const std::string& name) { return sweep_csv_column(header, name); };
  const auto field = sweep_csv_field;
  int skipped = 0;
  std::string tp, pp, mb;
  while (std::getline(csv, line)) {
    const std::string message = field(line, column("message"));
    if (message.find("not simulated") == std::string::npos) continue;
    ++skipped;
    CHECK(field(line, column("status")) == "out_of_memory");
    CHECK_THAT(message, Catch::StartsWith("memory peak at least"));
    CHECK(field(line, column("fits")) == "0");
    CHECK(field(line, column("step_time_s")).empty());
    CHECK(std::stod(field(line, column("est_step_time_s"))) > 0.0);
    tp = field(line, column("parallelism.tp"));
    pp = field(line, column("parallelism.pp"));
    mb = field(line, column("workload.micro_batch"));
  }
  REQUIRE(skipped > 0);
  const std::string scenario = R"([model]
preset = "megatron-gpt-1.7b"
[hardware]
nodes = 1
[hardware.gpu]
preset = "h100-sxm"
hbm_gb = 16
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
)";
  const auto run =
      run_stepsim("run " + q(dir.write("p.toml", scenario)) + " --strict --set parallelism.tp=" + tp +
                  " --set parallelism.pp=" + pp + " --set workload.micro_batch=" + mb);
  INFO(run.out << run.err);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("the step does not fit in memory"));
}
