// `stepsim compare A.toml B.toml [...] [--format table|json] [--report FILE.html] [--ranks ...]
//  [--catalog FILE]... [--set KEY=VALUE]...`: simulates each scenario and sets them side by side.
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "output/common/atomic_file.hpp"
#include "output/common/render_format.hpp"
#include "output/report/compare_report.hpp"
#include "output/views/compare_view.hpp"
#include "scenarios/accuracy.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct CompareArgs {
  std::vector<std::string> scenarios;
  std::string format = "table";
  std::string ranks = "representative";
  std::string report;
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  std::string price;  ///< --price as typed
  bool quiet = false;
  std::uint64_t max_ops = work::kDefaultMaxOps;  ///< --max-ops: the pre-flight size limit
  bool help = false;
};

CompareArgs parse_compare_args(Args args) {
  CompareArgs a;
  po::options_description visible(
      "stepsim compare A.toml B.toml [...] [options]\n\n"
      "Simulates each scenario and sets them side by side: step time, tokens/s, MFU, bottleneck, exposed\n"
      "communication per group, memory verdict and $ per million tokens, with the best of each row marked");
  visible.add_options()("help,h", "show this help")("format", po::value(&a.format)->default_value("table"),
                                                    "table or json")(
      "report", po::value(&a.report), "also write the comparison as a self-contained HTML page")(
      "ranks", po::value(&a.ranks)->default_value("representative"),
      "representative or all (as in stepsim run)")("catalog", po::value(&a.catalogs)->composing(),
                                                   "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(),
      "override a key in every scenario, e.g. --set parallelism.tp=4");
  add_price_option(visible, a.price);
  add_quiet_option(visible, a.quiet);
  add_max_ops_option(visible, a.max_ops);
  a.help = !parse_command_line(args, visible, "scenario", a.scenarios);
  a.load.set = with_price(std::move(a.load.set), parse_price(a.price));
  return a;
}

/// Column names: the scenario's name, made unique with its position when two share one.
std::vector<std::string> unique_names(const std::vector<scen::Scenario>& ss) {
  std::vector<std::string> names;
  for (const auto& s : ss) names.push_back(scenario_label(s));
  for (std::size_t i = 0; i < names.size(); ++i)
    if (std::count(names.begin(), names.end(), names[i]) > 1) names[i] += " (" + std::to_string(i + 1) + ")";
  return names;
}

/// Simulates each scenario in turn, with progress over them on a terminal when it takes a while.
std::vector<work::Simulation> simulate_compared(const std::vector<scen::Scenario>& scenarios,
                                                const work::SimulateOptions& options, const CompareArgs& a,
                                                out::RenderFormat format) {
  out::ProgressOptions o;
  o.label = "compare";
  o.unit = "scenarios";
  o.total = scenarios.size();
  o.delay_s = 1.0;
  TerminalProgress progress(std::move(o), a.quiet, format);
  std::vector<work::Simulation> sims;
  for (const auto& s : scenarios) {
    progress.reporter().set_detail("simulating " + scenario_label(s));
    sims.push_back(work::simulate(s.job, options));
    progress.reporter().advance();
  }
  progress.reporter().set_detail("");
  progress.finish();
  return sims;
}

}  // namespace

int cmd_compare(Args args) {
  const CompareArgs a = parse_compare_args(args);
  if (a.help) return 0;
  if (a.scenarios.size() < 2)
    throw UserError("compare needs at least two scenario files (usage: stepsim compare A.toml B.toml [...])");
  const out::RenderFormat format = out::parse_render_format(a.format);
  if (!a.report.empty()) out::check_output_path(a.report, "--report");  // before any simulation
  const scen::Catalog catalog = load_catalog(a.catalogs, parse_price(a.price));
  std::vector<scen::Scenario> scenarios;
  for (const auto& f : a.scenarios) scenarios.push_back(scen::load_scenario(f, catalog, a.load));
  for (const auto& s : scenarios)
    if (s.job.workload.kind == work::WorkloadKind::generate ||
        s.job.workload.kind == work::WorkloadKind::serve)
      throw UserError(
          s.where("workload.kind"), "workload.kind",
          "compare sets one step against another, not whole generations or serving runs",
          "compare kind = \"decode\" or \"prefill\" steps; run each generation with `stepsim run`");
  work::SimulateOptions options;
  options.ranks = parse_rank_mode(a.ranks);
  options.max_ops = a.max_ops;
  const std::vector<work::Simulation> sims = simulate_compared(scenarios, options, a, format);
  const auto names = unique_names(scenarios);
  // The accuracy table is read once for all the columns.
  const auto bands = scen::load_builtin_accuracy();
  std::vector<out::CompareEntry> entries;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    entries.push_back({names[i], a.scenarios[i], &scenarios[i].job, &sims[i], std::nullopt});
    if (bands) entries.back().validated = scen::match_accuracy(*bands, scenarios[i].job);
  }
  const auto rows = out::compare_rows(entries);
  std::cout << (format == out::RenderFormat::json ? out::compare_json(entries, rows).dump(2) + "\n"
                                                  : out::compare_table(entries, rows));
  if (!a.report.empty()) {
    out::write_file_atomically(a.report, out::compare_html(entries, rows, STEPSIM_VERSION), "--report");
    std::cerr << "wrote " << a.report << "\n";
  }
  return 0;
}

}  // namespace stepsim::cli
