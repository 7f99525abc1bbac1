// Command-line parsing and argument resolution shared by the stepsim subcommands.
#include "tools/cli_common.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "output/common/format.hpp"
#include "scenarios/suggest.hpp"
#include "sim/error.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

namespace {

// Program_options' defaults without allow_guessing: a prefix of a long option is not that option,
// so a mistyped or shortened name is an error with a suggestion instead of a silent guess.
constexpr int kCommandLineStyle =
    po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

constexpr const char* kPriceNote = "set on the command line with --price";

std::string command_name(Args args) {
  return args.empty() ? std::string("stepsim") : "stepsim " + std::string(args[0]);
}

/// An unknown option as a UserError naming the nearest option of `visible`, if one is near.
UserError unknown_option(Args args, const po::options_description& visible, std::string name) {
  name = name.substr(0, name.find('='));
  double number = 0.0;
  const char* end = name.data() + name.size();
  if (std::from_chars(name.data(), end, number).ptr == end)
    return UserError({}, "", "`" + name + "` is read as an option, not as a value",
                     "write a value that starts with - after an =, as --OPTION=" + name);
  std::vector<std::string> known;
  for (const auto& o : visible.options())
    if (!o->long_name().empty()) known.push_back(o->long_name());
  const std::string word = name.substr(
      name.find_first_not_of('-') == std::string::npos ? name.size() : name.find_first_not_of('-'));
  const auto match = scen::closest_match(word, known);
  const std::string list = "`" + command_name(args) + " --help` lists the options";
  return UserError({}, name, "not an option of `" + command_name(args) + "`",
                   match ? "did you mean `--" + *match + "`? " + list : list);
}

/// A positional argument beyond the `max` a command takes, as a UserError.
UserError stray_argument(Args args, const char* positional_name, int max, const std::string& stray) {
  const std::string takes = max == 0   ? std::string("takes options only, no other arguments")
                            : max == 1 ? "takes one " + std::string(positional_name)
                                       : "takes at most " + std::to_string(max) + " " + positional_name + "s";
  return UserError({}, "", "unexpected argument `" + stray + "`: `" + command_name(args) + "` " + takes,
                   "options start with --, and switches take no value; `" + command_name(args) +
                       " --help` shows the usage");
}

/// Prints the help and returns false when --help was given, else true.
bool unless_help(Args args, const po::variables_map& vm, const po::options_description& visible) {
  if (!vm.count("help")) return true;
  print_help(args, visible);
  return false;
}

/// `value` as TOML: the shortest text that reads back to the same double.
std::string toml_number(double value) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  return std::string(buf, end);
}

}  // namespace

CommandLine store_command_line(Args args, const po::options_description& visible, const char* positional_name,
                               int max_positional) {
  CommandLine line;
  po::options_description all;
  all.add(visible).add_options()(positional_name, po::value(&line.positional)->composing());
  po::positional_options_description pos;
  pos.add(positional_name, -1);
  try {
    po::store(po::command_line_parser(static_cast<int>(args.size()), args.data())
                  .options(all)
                  .positional(pos)
                  .style(kCommandLineStyle)
                  .run(),
              line.options);
  } catch (const po::unknown_option& e) {
    throw unknown_option(args, visible, e.get_option_name());
  }
  po::notify(line.options);
  if (max_positional >= 0 && line.positional.size() > static_cast<std::size_t>(max_positional))
    throw stray_argument(args, positional_name, max_positional,
                         line.positional[static_cast<std::size_t>(max_positional)]);
  return line;
}

bool parse_command_line(Args args, const po::options_description& visible, const char* positional_name,
                        std::string& target) {
  const CommandLine line = store_command_line(args, visible, positional_name, 1);
  if (!line.positional.empty()) target = line.positional.front();
  return unless_help(args, line.options, visible);
}

bool parse_command_line(Args args, const po::options_description& visible, const char* positional_name,
                        std::vector<std::string>& targets) {
  const CommandLine line = store_command_line(args, visible, positional_name, -1);
  targets.insert(targets.end(), line.positional.begin(), line.positional.end());
  return unless_help(args, line.options, visible);
}

std::string help_example(Args args) {
  for (const Command& c : commands()) {
    if (args.empty() || c.name != args[0] || c.example.empty()) continue;
    std::string text = "Example:\n";
    for (std::string_view rest = c.example; !rest.empty();) {
      const auto eol = rest.find('\n');
      text += "  " + std::string(rest.substr(0, eol)) + "\n";
      rest = eol == std::string_view::npos ? std::string_view{} : rest.substr(eol + 1);
    }
    return text;
  }
  return {};
}

void print_help(Args args, const po::options_description& visible) {
  std::cout << visible << "\n" << help_example(args);
}

void add_price_option(po::options_description& options, std::string& text) {
  options.add_options()("price", po::value(&text)->value_name("USD"),
                        "GPU price in USD per GPU-hour, for every GPU: replaces the catalog's and the "
                        "scenario's price_per_hour in the cost figures");
}

std::optional<double> parse_price(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double price = -1.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), price);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(price) || price < 0.0)
    throw UserError({}, "--price", "expected USD per GPU-hour, a number of at least 0, got `" + text + "`",
                    "e.g. --price 2.49");
  return price;
}

std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t min,
                          std::uint64_t max, const std::string& hint) {
  std::uint64_t n = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, n);
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || ec != std::errc() || stop != end || n < min || n > max)
    throw UserError({}, option,
                    "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                        ", got `" + text + "`",
                    hint);
  return n;
}

std::vector<std::string> with_price(std::vector<std::string> set, std::optional<double> price) {
  if (!price) return set;
  set.push_back("hardware.gpu.price_per_hour=" + toml_number(*price));
  set.push_back(std::string("hardware.gpu.price_note=\"") + kPriceNote + "\"");
  return set;
}

scen::Catalog load_catalog(const std::vector<std::string>& files, std::optional<double> price) {
  const std::vector<std::filesystem::path> paths(files.begin(), files.end());
  scen::Catalog catalog = scen::Catalog::load_builtin().with_files(paths);
  if (!price) return catalog;
  std::string text;
  for (const topo::GpuSpec& g : catalog.gpus())
    text += "[gpu.\"" + g.id + "\"]\nprice_per_hour = " + toml_number(*price) + "\nprice_note = \"" +
            kPriceNote + "\"\n";
  return catalog.with_text(text, "--price");
}

void add_quiet_option(po::options_description& options, bool& quiet) {
  options.add_options()("quiet,q", po::bool_switch(&quiet), "no progress line on stderr");
}

void add_max_ops_option(po::options_description& options, std::uint64_t& max_ops) {
  options.add_options()(
      "max-ops",
      count_value(max_ops, "--max-ops", 1, 1'000'000'000'000'000,
                  "the size of a step in ops, as the refusal estimated it, e.g. --max-ops 100000000"),
      ("refuse, before simulating, a step estimated above N ops (default " +
       std::to_string(work::kDefaultMaxOps) +
       ", at most about 17 GB of memory; docs/simulation.md, \"Limits\")")
          .c_str());
}

out::ProgressStyle terminal_progress_style(bool quiet, out::RenderFormat format) {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  return terminal && !quiet && format != out::RenderFormat::json ? out::ProgressStyle::bar
                                                                 : out::ProgressStyle::none;
}

TerminalProgress::TerminalProgress(out::ProgressOptions options, bool quiet, out::RenderFormat format)
    : reporter_(out::stream_progress_sink(std::cerr), out::steady_progress_clock(), [&] {
        options.style = terminal_progress_style(quiet, format);
        return std::move(options);
      }()) {
  if (terminal_progress_style(quiet, format) != out::ProgressStyle::none) ticker_.emplace(reporter_);
}

void TerminalProgress::finish(out::ProgressEnd end) {
  ticker_.reset();
  reporter_.finish(end);
}

work::RankMode parse_rank_mode(const std::string& text) {
  if (text == "representative") return work::RankMode::representative;
  if (text == "all") return work::RankMode::all;
  throw UserError("--ranks: expected representative or all, got `" + text + "`");
}

void apply_rank_mode(const std::string& text, const work::JobSpec& job, work::SimulateOptions& options) {
  if (text != "auto" && text != "representative" && text != "all" && text != "replay")
    throw UserError("--ranks: expected auto, representative, all or replay, got `" + text + "`");
  const bool one_step =
      job.workload.kind != work::WorkloadKind::generate && job.workload.kind != work::WorkloadKind::serve;
  const bool varied = job.variability.active();
  // auto with [variability]: every GPU simulated while its graph stays small (about a second per
  // step), else replayed (degraded links too: the replay slows the groups they reach).
  const bool auto_replay = text == "auto" && varied && one_step &&
                           work::step_size(job, work::RankMode::all).graph_ops > kAutoReplayOps;
  options.replay = text == "replay" || auto_replay;
  if (options.replay && !one_step)
    throw UserError("--ranks replay: replays one step; this scenario is many (generation or serving)");
  if (options.replay || (text == "auto" && !varied))
    options.ranks = work::RankMode::representative;
  else
    options.ranks = text == "auto" ? work::RankMode::all : parse_rank_mode(text);
}

const std::string& scenario_label(const scen::Scenario& s) {
  return s.label();
}

int strict_memory_exit(std::string_view what, double peak_bytes, double usable_bytes) {
  std::cerr << "error: --strict: " << what << " does not fit in memory (peak "
            << out::format_bytes(peak_bytes) << " per GPU, " << out::format_bytes(usable_bytes)
            << " usable)\n";
  return 2;
}

}  // namespace stepsim::cli
