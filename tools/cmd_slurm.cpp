// `stepsim slurm SWEEP.toml --tasks N --out DIR [--submit]`: batch scripts for a sweep as a Slurm
// array plus a merge job that waits for it; submits them when asked.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstring>
#include <iostream>

#include "output/common/atomic_file.hpp"
#include "output/sweep/slurm_script.hpp"
#include "scenarios/sweep.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

extern char** environ;

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

// Slurm's largest MaxArraySize is 4000001 (task indices 0 to 4000000).
constexpr std::uint64_t kMaxSlurmArrayTasks = 4'000'001;

/// Runs argv (looked up on PATH) with stdout and stderr captured together.
out::CommandResult run_command(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  out::CommandResult r;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  if (rc != 0)
    throw UserError("cannot run `" + argv[0] + "`: " + std::strerror(rc) + " (is Slurm installed here?)");
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Written like every other output (a full disk is a user error, no half-written script is
// left under the final name, a symlink there is replaced, not followed), then made executable.
void write_script(const std::filesystem::path& p, const std::string& text) {
  out::write_file_atomically(p, text, "--dir");
  std::filesystem::permissions(p, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                               std::filesystem::perm_options::add);
}

struct SlurmArgs {
  out::SlurmOptions o;
  std::string sweep, dir, sbatch = "sbatch";
  bool submit = false;
  bool help = false;
};

SlurmArgs parse_slurm_args(Args args) {
  SlurmArgs a;
  out::SlurmOptions& o = a.o;
  po::options_description visible(
      "stepsim slurm SWEEP.toml --tasks N --out DIR [options]\n\n"
      "Writes DIR/sweep-array.sbatch (a job array: task I runs `stepsim sweep --shard I/N --resume`) and\n"
      "DIR/sweep-merge.sbatch (joins the shards into DIR/results.h5). With --submit, submits the array and\n"
      "then the merge with --dependency=afterok:<array job id>");
  visible.add_options()("help,h", "show this help")(
      "tasks,n", count_value(o.tasks, "--tasks", 1, kMaxSlurmArrayTasks)->default_value("1"),
      "array tasks (shards)")("out,o", po::value(&a.dir), "output folder")(
      "submit", po::bool_switch(&a.submit), "submit both jobs with sbatch")(
      "cpus-per-task,c", count_value(o.cpus_per_task, "--cpus-per-task", 1, kMaxJobs)->default_value("1"),
      "threads per task")("partition,p", po::value(&o.partition), "Slurm partition")(
      "time,t", po::value(&o.time_limit), "time limit per task")(
      "job-name", po::value(&o.job_name)->default_value("stepsim-sweep"), "job name")(
      "sbatch-arg", po::value(&o.sbatch_args)->composing(),
      "extra #SBATCH option, e.g. --sbatch-arg=--account=x")("csv", po::bool_switch(&o.csv),
                                                             "the merge also writes DIR/results.csv")(
      "sbatch", po::value(&a.sbatch)->default_value("sbatch"), "the sbatch command");
  a.help = !parse_command_line(args, visible, "sweep", a.sweep);
  return a;
}

}  // namespace

int cmd_slurm(Args args) {
  SlurmArgs a = parse_slurm_args(args);
  if (a.help) return 0;
  out::SlurmOptions& o = a.o;
  const std::string &sweep = a.sweep, &dir = a.dir;
  if (sweep.empty() || dir.empty())
    throw UserError("usage: stepsim slurm SWEEP.toml --tasks N --out DIR [--submit]");
  scen::load_sweep(sweep);  // a broken sweep file fails here, not in N array tasks
  o.sweep = std::filesystem::absolute(sweep);
  o.dir = std::filesystem::absolute(dir);
  o.stepsim = std::filesystem::read_symlink("/proc/self/exe");
  out::check_slurm_options(o);  // before anything is written
  std::filesystem::create_directories(o.dir / "logs");
  const out::SlurmScripts scripts = out::slurm_scripts(o);
  write_script(out::slurm_array_script(o.dir), scripts.array);
  write_script(out::slurm_merge_script(o.dir), scripts.merge);
  std::cout << "wrote " << out::slurm_array_script(o.dir).string() << " (" << o.tasks << " tasks) and "
            << out::slurm_merge_script(o.dir).string() << "\n";
  if (!a.submit) {
    // Quoted for the shell: these lines are meant to be pasted, whatever the folder is called.
    std::cout << "submit with:\n  jid=$(sbatch --parsable "
              << out::shell_quote(out::slurm_array_script(o.dir).string())
              << ")\n  sbatch --dependency=afterok:$jid "
              << out::shell_quote(out::slurm_merge_script(o.dir).string()) << "\n";
    return 0;
  }
  const out::SlurmSubmission s = out::submit_slurm(o.dir, a.sbatch, run_command);
  std::cout << "submitted array job " << s.array_job << " and merge job " << s.merge_job
            << "; results will be in " << out::slurm_results(o.dir).string() << "\n";
  return 0;
}

}  // namespace stepsim::cli
