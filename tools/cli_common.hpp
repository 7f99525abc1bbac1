#pragma once
// What the stepsim subcommands share: parsing a command line (options spelled out in full, a
// bounded number of positional arguments, --help with an example), the catalog from --catalog
// files, --price, --ranks, progress on a terminal, and the name a scenario is reported under.

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/common/progress.hpp"
#include "output/common/render_format.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "tools/commands.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::cli {

/// A parsed command line: the options, and the positional arguments in order.
struct CommandLine {
  boost::program_options::variables_map options;
  std::vector<std::string> positional;
};

/// Parses `args` (argv[0] is the subcommand) against `visible` and notifies. Long options must be
/// spelled out in full: Program_options' prefix guessing is off, so `--compare` is never taken for
/// `--compare-nccl-h100`. At most `max_positional` positional arguments (-1: any number), called
/// `positional_name` in messages, are accepted. Throws UserError for an unknown option (with the
/// nearest option as a did-you-mean) or a stray argument, boost::program_options::error otherwise.
CommandLine store_command_line(Args args, const boost::program_options::options_description& visible,
                               const char* positional_name, int max_positional);

/// store_command_line with at most one positional argument into `target`. Returns false when
/// --help was given: the help has then been printed to stdout and the command should exit 0.
bool parse_command_line(Args args, const boost::program_options::options_description& visible,
                        const char* positional_name, std::string& target);

/// store_command_line with any number of positional arguments appended to `targets`. Returns
/// false when --help was given: the help has then been printed and the command should exit 0.
bool parse_command_line(Args args, const boost::program_options::options_description& visible,
                        const char* positional_name, std::vector<std::string>& targets);

/// The example lines ending a command's --help ("Example:\n  stepsim run ...\n"), from the command
/// table entry named by args[0].
std::string help_example(Args args);

/// --strict on a step that does not fit: says so on stderr (after the report) and returns 2, the
/// code of a user error; `what` names it ("the step", "job `a`").
int strict_memory_exit(std::string_view what, double peak_bytes, double usable_bytes);

/// Prints `visible` and then help_example(args) to stdout.
void print_help(Args args, const boost::program_options::options_description& visible);

/// Adds --price USD (per GPU-hour) to `options`, read as text into `text` (parse_price checks it).
void add_price_option(boost::program_options::options_description& options, std::string& text);

/// The --price value: nullopt when `text` is empty, else a finite number of at least 0 (a
/// UserError otherwise).
std::optional<double> parse_price(const std::string& text);

/// The most threads --jobs (and `stepsim slurm --cpus-per-task`, which becomes --jobs) may ask for.
inline constexpr unsigned kMaxJobs = 4096;

/// `text`, the value of `option` ("--jobs"), as a whole number from `min` to `max`: decimal digits
/// only, no sign, fraction or exponent (so `-1` never wraps to 4294967295). A UserError naming the
/// option, the range and `hint` otherwise.
std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t min,
                          std::uint64_t max, const std::string& hint = {});

/// A program_options value for a whole-number option: read as text and stored in `target`
/// through parse_count when the command line is notified; `target` keeps its value when the
/// option is absent. Use it instead of po::value<unsigned>, which takes "-1" as 4294967295.
template <class T>
boost::program_options::typed_value<std::string>* count_value(T& target, std::string option,
                                                              std::uint64_t min, std::uint64_t max,
                                                              std::string hint = {}) {
  return boost::program_options::value<std::string>()->value_name("N")->notifier(
      [&target, option = std::move(option), min, max, hint = std::move(hint)](const std::string& text) {
        target = static_cast<T>(parse_count(text, option, min, max, hint));
      });
}

/// --jobs N: threads, from 1 to kMaxJobs, into `jobs`, which stays as it is (the command's
/// "one per CPU") when the option is absent.
template <class T>
boost::program_options::typed_value<std::string>* jobs_value(T& jobs) {
  return count_value(jobs, "--jobs", 1, kMaxJobs, "leave --jobs out for one thread per CPU");
}

/// `set` plus the override that makes `price` the scenario GPU's price, whatever the catalog or
/// the scenario's own [hardware.gpu] price_per_hour says; `set` unchanged without a price.
std::vector<std::string> with_price(std::vector<std::string> set, std::optional<double> price);

/// The built-in catalog with the --catalog `files` applied in order and, with a `price`, every
/// GPU's price_per_hour replaced by it.
scen::Catalog load_catalog(const std::vector<std::string>& files, std::optional<double> price = std::nullopt);

/// Adds --quiet (-q): no progress on stderr.
void add_quiet_option(boost::program_options::options_description& options, bool& quiet);

/// Adds --max-ops N: simulate only steps whose estimated size (workloads/step/step_size.hpp) is at most
/// N ops, stored in `max_ops`, which keeps its value (work::kDefaultMaxOps) when the option is absent.
void add_max_ops_option(boost::program_options::options_description& options, std::uint64_t& max_ops);

/// ProgressStyle::bar when stderr is a terminal, not `quiet` and the output is not JSON; else
/// ProgressStyle::none, under which a reporter writes nothing.
out::ProgressStyle terminal_progress_style(bool quiet, out::RenderFormat format);

/// Progress on stderr for a command: a ProgressReporter in terminal_progress_style(quiet, format)
/// and, when it draws, a ticker that keeps its spinner and clock moving through long units of work.
class TerminalProgress {
 public:
  TerminalProgress(out::ProgressOptions options, bool quiet, out::RenderFormat format);
  out::ProgressReporter& reporter() { return reporter_; }
  /// Stops the ticker and finishes the reporter.
  void finish(out::ProgressEnd end = out::ProgressEnd::keep);

 private:
  out::ProgressReporter reporter_;
  std::optional<out::ProgressTicker> ticker_;
};

/// Runs `work()` and returns what it returns. When progress may be drawn (terminal_progress_style),
/// a spinner with the elapsed time appears on stderr once the work has taken two seconds, and
/// ends as "LABEL  done in M:SS"; shorter work leaves no trace.
template <class Work>
auto with_elapsed_spinner(std::string label, bool quiet, out::RenderFormat format, Work&& work) {
  out::ProgressOptions o;
  o.label = std::move(label);
  o.delay_s = 2.0;
  TerminalProgress progress(std::move(o), quiet, format);
  auto result = work();
  progress.finish();
  return result;
}

/// The --ranks value: representative or all; throws UserError otherwise.
work::RankMode parse_rank_mode(const std::string& text);

/// Runs `f`; a UserError from a layer below the reader (the topology, the step builder) that names
/// a key of `s` but no file position is rethrown at that key's position in the scenario (or its
/// nearest table's), so that a degraded switch the fabric lacks points at its entry.
template <class F>
decltype(auto) at_scenario_keys(const scen::Scenario& s, F&& f) {
  try {
    return f();
  } catch (const UserError& e) {
    if (!e.where().file.empty() || e.key().empty()) throw;
    throw UserError(s.where(e.key()), e.key(), e.problem(), e.hint());
  }
}
/// `stepsim run --ranks`: the values above, "replay" (every GPU replayed over representative
/// ranks, SimulateOptions::replay) or "auto": representative ranks when the job's GPUs are alike,
/// with [variability] every GPU simulated, or replayed when the step is single and its every-GPU
/// graph would exceed kAutoReplayOps ops. Sets options.ranks and
/// options.replay; throws UserError for another value.
void apply_rank_mode(const std::string& text, const work::JobSpec& job, work::SimulateOptions& options);
/// About two CPU-seconds per step and 300 MB with every GPU simulated (docs/simulation.md section 7).
inline constexpr double kAutoReplayOps = 2.0e6;

/// The name a scenario is reported under: its [meta] name, else its display name.
const std::string& scenario_label(const scen::Scenario& s);

}  // namespace stepsim::cli
