#pragma once
// A sweep on Slurm: an array job whose task i runs shard i/N of the sweep (resumable, so a
// requeued task continues), and a merge job that starts when every task has succeeded
// (--dependency=afterok) and joins the shards into the same file a local run writes.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace stepsim::out {

struct SlurmOptions {
  std::filesystem::path stepsim;  ///< the binary the jobs run (absolute)
  std::filesystem::path sweep;    ///< the sweep file (absolute)
  std::filesystem::path dir;      ///< where scripts, shards, logs and results go (absolute)
  unsigned tasks = 1;             ///< array tasks = shards
  unsigned cpus_per_task = 1;     ///< threads per task (sweep --jobs)
  std::string job_name = "stepsim-sweep";
  std::string partition;                 ///< empty: the cluster's default
  std::string time_limit;                ///< per task, Slurm syntax ("1:00:00"); empty: the default
  std::vector<std::string> sbatch_args;  ///< extra #SBATCH options ("--account=x")
  bool csv = false;                      ///< the merge also writes results.csv
};

/// The two batch scripts.
struct SlurmScripts {
  std::string array;  ///< runs shard $SLURM_ARRAY_TASK_ID of N
  std::string merge;  ///< joins shard-*.h5 into results.h5
};

SlurmScripts slurm_scripts(const SlurmOptions& o);

/// Paths inside the output folder.
std::filesystem::path slurm_array_script(const std::filesystem::path& dir);
std::filesystem::path slurm_merge_script(const std::filesystem::path& dir);
std::filesystem::path slurm_results(const std::filesystem::path& dir);

/// Runs a command (argv[0] looked up on PATH) and returns its exit status and standard output.
struct CommandResult {
  int status = 0;
  std::string out;
};
using CommandRunner = std::function<CommandResult(const std::vector<std::string>& argv)>;

struct SlurmSubmission {
  std::string array_job;  ///< job id of the array
  std::string merge_job;  ///< job id of the merge, which depends on it
};

/// Submits the array (`sbatch --parsable`), then the merge with --dependency=afterok:<array id>.
/// UserError with sbatch's output if either submission fails.
SlurmSubmission submit_slurm(const std::filesystem::path& dir, const std::string& sbatch,
                             const CommandRunner& run);

/// The job id in `sbatch --parsable` output ("1234" or "1234;cluster"); UserError if there is none.
std::string parse_job_id(const std::string& parsable);

/// `s` quoted for a POSIX shell.
std::string shell_quote(const std::string& s);

}  // namespace stepsim::out
