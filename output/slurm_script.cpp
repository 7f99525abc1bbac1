#include "output/slurm_script.hpp"

#include <algorithm>
#include <cctype>

#include "sim/error.hpp"

namespace stepsim::out {
namespace {

std::string header(const SlurmOptions& o, const std::string& name, const std::string& log) {
  std::string s = "#!/bin/bash\n";
  s += "#SBATCH --job-name=" + name + "\n";
  s += "#SBATCH --output=" + (o.dir / "logs" / log).string() + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  for (const auto& a : o.sbatch_args) s += "#SBATCH " + a + "\n";
  return s;
}

std::string shard_path(const SlurmOptions& o, const std::string& index) {
  return shell_quote((o.dir / "shard-").string()) + index +
         shell_quote("-of-" + std::to_string(o.tasks) + ".h5");
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::filesystem::path slurm_array_script(const std::filesystem::path& dir) {
  return dir / "sweep-array.sbatch";
}
std::filesystem::path slurm_merge_script(const std::filesystem::path& dir) {
  return dir / "sweep-merge.sbatch";
}
std::filesystem::path slurm_results(const std::filesystem::path& dir) {
  return dir / "results.h5";
}

SlurmScripts slurm_scripts(const SlurmOptions& o) {
  const std::string n = std::to_string(o.tasks);
  const std::string bin = shell_quote(o.stepsim.string());
  SlurmScripts s;
  s.array = header(o, o.job_name, "shard-%a.log");
  s.array += "#SBATCH --array=0-" + std::to_string(o.tasks - 1) + "\n";
  s.array += "#SBATCH --cpus-per-task=" + std::to_string(o.cpus_per_task) + "\n";
  if (!o.time_limit.empty()) s.array += "#SBATCH --time=" + o.time_limit + "\n";
  s.array += "# Written by `stepsim slurm`: task I of this array runs shard I/" + n +
             " of the sweep below.\n"
             "# --resume makes a task that was requeued or preempted continue where it stopped.\n"
             "set -euo pipefail\n"
             "task=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch; it reads SLURM_ARRAY_TASK_ID}\n"
             "exec " +
             bin + " sweep " + shell_quote(o.sweep.string()) + " --out " + shard_path(o, "\"${task}\"") +
             " --shard \"${task}/" + n +
             "\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\" --resume --progress lines\n";
  s.merge = header(o, o.job_name + "-merge", "merge.log");
  s.merge += "#SBATCH --cpus-per-task=1\n";
  s.merge += "# Written by `stepsim slurm`: joins the " + n +
             " shards once every array task succeeded\n"
             "# (submitted with --dependency=afterok:<array job id>).\n"
             "set -euo pipefail\n"
             "shards=()\n"
             "for ((i = 0; i < " +
             n + "; i++)); do shards+=(" + shard_path(o, "\"${i}\"") +
             "); done\n"
             "exec " +
             bin + " merge " + shell_quote(slurm_results(o.dir).string()) + " \"${shards[@]}\"" +
             (o.csv ? " --csv " + shell_quote((o.dir / "results.csv").string()) : std::string()) + "\n";
  return s;
}

std::string parse_job_id(const std::string& parsable) {
  std::string id;
  for (const char c : parsable) {
    if (c == ';' || c == '\n') break;
    if (!std::isspace(static_cast<unsigned char>(c))) id += c;
  }
  const bool numeric = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (!numeric) throw UserError("sbatch --parsable printed `" + parsable + "`, not a job id");
  return id;
}

SlurmSubmission submit_slurm(const std::filesystem::path& dir, const std::string& sbatch,
                             const CommandRunner& run) {
  const auto submit = [&](std::vector<std::string> argv) {
    const CommandResult r = run(argv);
    if (r.status != 0) {
      std::string cmd;
      for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
      throw UserError("`" + cmd + "` failed (exit status " + std::to_string(r.status) + "): " + r.out);
    }
    return parse_job_id(r.out);
  };
  SlurmSubmission s;
  s.array_job = submit({sbatch, "--parsable", slurm_array_script(dir).string()});
  s.merge_job =
      submit({sbatch, "--parsable", "--dependency=afterok:" + s.array_job, slurm_merge_script(dir).string()});
  return s;
}

}  // namespace stepsim::out
