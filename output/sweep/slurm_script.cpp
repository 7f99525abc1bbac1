#include "output/sweep/slurm_script.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "sim/error.hpp"

namespace stepsim::out {
namespace {

/// `s` with control characters written as escapes (\n, \t, \r, \xNN), for messages.
std::string slurm_visible(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out;
}

/// "a newline (U+000A)": the control character `c` by name and code point.
std::string slurm_control_name(unsigned char c) {
  char code[8];
  std::snprintf(code, sizeof code, "U+%04X", c);
  const char* name = c == '\n'   ? "a newline"
                     : c == '\r' ? "a carriage return"
                     : c == '\t' ? "a tab"
                     : c == 0x7f ? "a delete character"
                                 : "a control character";
  return std::string(name) + " (" + code + ")";
}

/// Refuses a control character in `value`, which goes on an #SBATCH line: sbatch reads one
/// option per line, and bash runs a line that is not a comment, so a newline would inject one.
void refuse_control_characters(const std::string& option, const std::string& value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c != 0x7f) continue;
    throw UserError({}, option,
                    "`" + slurm_visible(value) + "` contains " + slurm_control_name(c) + " at character " +
                        std::to_string(i + 1),
                    "values that go on #SBATCH lines may not hold control characters: a newline would end "
                    "the line, and the shell would run the rest as a command");
  }
}

bool slurm_all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// `path` for Slurm's --output, which expands %-patterns: each % of the path doubled.
std::string slurm_filename(const std::string& path) {
  std::string out;
  for (const char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

std::string header(const SlurmOptions& o, const std::string& name, const std::string& log) {
  std::string s = "#!/bin/bash\n";
  s += "#SBATCH --job-name=" + sbatch_quote(name) + "\n";
  s += "#SBATCH --output=" + sbatch_quote(slurm_filename((o.dir / "logs").string()) + "/" + log) + "\n";
  if (!o.partition.empty()) s += "#SBATCH --partition=" + sbatch_quote(o.partition) + "\n";
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

std::string sbatch_quote(const std::string& s) {
  const bool plain = !s.empty() && std::none_of(s.begin(), s.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '\\' || c == '#';
  });
  if (plain) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

bool is_slurm_time(std::string_view t) {
  std::string lower(t);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "unlimited" || lower == "infinite") return true;
  // [DAYS-]FIELD[:FIELD[:FIELD]]: MM, MM:SS, HH:MM:SS, or after DAYS- HH, HH:MM, HH:MM:SS.
  if (const auto dash = t.find('-'); dash != std::string_view::npos) {
    if (!slurm_all_digits(t.substr(0, dash))) return false;
    t.remove_prefix(dash + 1);
  }
  int fields = 0;
  for (std::size_t from = 0;; ++fields) {
    const auto colon = t.find(':', from);
    if (!slurm_all_digits(t.substr(from, colon == std::string_view::npos ? colon : colon - from)))
      return false;
    if (colon == std::string_view::npos) break;
    from = colon + 1;
  }
  return fields < 3;
}

void check_slurm_options(const SlurmOptions& o) {
  refuse_control_characters("--out", o.dir.string());
  refuse_control_characters("--job-name", o.job_name);
  refuse_control_characters("--partition", o.partition);
  refuse_control_characters("--time", o.time_limit);
  for (const auto& a : o.sbatch_args) refuse_control_characters("--sbatch-arg", a);
  if (o.job_name.empty())
    throw UserError({}, "--job-name", "is empty", "give the jobs a name, e.g. my-sweep");
  if (o.dir.string().find('\\') != std::string::npos)
    throw UserError({}, "--out", "`" + o.dir.string() + "` contains a backslash",
                    "Slurm's --output reads a backslash as 'no %-patterns', so every task would write the "
                    "same log; choose a folder without one");
  if (!o.time_limit.empty() && !is_slurm_time(o.time_limit))
    throw UserError(
        {}, "--time", "`" + o.time_limit + "` is not a Slurm time limit",
        "write MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES or "
        "DAYS-HOURS:MINUTES:SECONDS, e.g. --time 2:00:00, or UNLIMITED");
  for (const auto& a : o.sbatch_args)
    if (a.size() < 2 || a[0] != '-')
      throw UserError({}, "--sbatch-arg", "`" + a + "` is not an sbatch option",
                      "give one option as sbatch spells it, after an =, e.g. --sbatch-arg=--account=proj");
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
  check_slurm_options(o);
  const std::string n = std::to_string(o.tasks);
  const std::string bin = shell_quote(o.stepsim.string());
  SlurmScripts s;
  s.array = header(o, o.job_name, "shard-%a.log");
  s.array += "#SBATCH --array=0-" + std::to_string(o.tasks - 1) + "\n";
  s.array += "#SBATCH --cpus-per-task=" + std::to_string(o.cpus_per_task) + "\n";
  // is_slurm_time let only digits, - and : (or UNLIMITED) through: nothing to quote.
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
      for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
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
