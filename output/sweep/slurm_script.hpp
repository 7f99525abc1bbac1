#pragma once
// A sweep on Slurm: an array job whose task i runs shard i/N of the sweep (resumable, so a
// requeued task continues), and a merge job that starts when every task has succeeded
// (--dependency=afterok) and joins the shards into the same file a local run writes.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
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

/// The scripts for `o`; check_slurm_options(o) first (a UserError if it fails).
SlurmScripts slurm_scripts(const SlurmOptions& o);

/// Refuses what cannot go into the scripts as written: a control character (below U+0020, or
/// U+007F) in any value that reaches an #SBATCH line (--out, --job-name, --partition, --time,
/// --sbatch-arg), where a newline would end the line and run the rest as shell; a --time that is
/// not one of Slurm's forms; an --sbatch-arg that is not an option; a backslash in --out (Slurm's
/// --output takes it as "no %-patterns"). The UserError names the option and the character.
void check_slurm_options(const SlurmOptions& o);

/// True for Slurm's time limits: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (digits), or
/// UNLIMITED / INFINITE in any case.
bool is_slurm_time(std::string_view t);

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

/// `s` quoted for a POSIX shell: in single quotes, each ' written as '\''. Any bytes but NUL
/// come back as one word, unchanged ($, `, \, newlines and all).
std::string shell_quote(const std::string& s);

/// `s` as one argument of an #SBATCH line, which sbatch splits itself: unchanged when it holds
/// nothing that sbatch's parser splits or strips (space, quotes, backslash, #), else in double
/// quotes with \ and " escaped by a backslash.
std::string sbatch_quote(const std::string& s);

}  // namespace stepsim::out
