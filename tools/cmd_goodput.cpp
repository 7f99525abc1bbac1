// `stepsim goodput SCENARIO (--tokens T | --steps N) [--interval-steps K] [--trials N] [--seed S]
//  [reliability options] [--format table|json] [--ranks representative|all] [--catalog FILE]...
//  [--set KEY=VALUE]... [--hdf5 FILE.h5] [--report FILE.html] [--quiet]`: a training run's wall time
//  and goodput with failures and checkpoints, from the simulated step
//  (workloads/reliability/goodput.hpp, docs/reliability.md).
#include <array>
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <limits>

#include "output/common/atomic_file.hpp"
#include "output/common/format.hpp"
#include "output/common/render_format.hpp"
#include "output/hdf5/goodput_hdf5.hpp"
#include "output/report/goodput_report.hpp"
#include "output/views/goodput_view.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/reliability/goodput.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

/// Options that override one [reliability] key: each becomes `--set reliability.KEY=VALUE` after the
/// user's own --set, so that the scenario reader checks it and names the option in its errors.
struct ReliabilityOption {
  const char* option;
  const char* key;
  const char* help;
};
constexpr ReliabilityOption kReliabilityOptions[] = {
    {"interval-steps", "checkpoint_interval_steps",
     "checkpoint every K steps (default: Young/Daly's optimum)"},
    {"checkpoint-mode", "checkpoint_mode",
     "sync (training waits for the write) or async (only for the copy to host)"},
    {"storage-write-gb-s", "storage_write_gb_s", "aggregate checkpoint write bandwidth, GB/s (default 2000)"},
    {"storage-read-gb-s", "storage_read_gb_s", "aggregate checkpoint read bandwidth, GB/s (default 2000)"},
    {"restart-s", "restart_s", "seconds from a failure to running again, before the read (default 600)"},
    {"gpu-mtbf-hours", "gpu_mtbf_hours",
     "hours between failures of one GPU (default from the Llama 3 report)"},
    {"node-mtbf-hours", "node_mtbf_hours",
     "hours between failures of one node's host (CPU, memory, PSU, software)"},
    {"nic-mtbf-hours", "nic_mtbf_hours", "hours between failures of one NIC"},
    {"switch-mtbf-hours", "switch_mtbf_hours", "hours between failures of one scale-out switch"},
};
constexpr std::size_t kReliabilityOptionCount = std::size(kReliabilityOptions);

struct GoodputArgs {
  std::string scenario;
  std::string format = "table";
  std::string ranks = "representative";
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  double tokens = 0.0;
  std::int64_t steps = 0;
  work::MonteCarloOptions monte_carlo;
  std::array<std::string, kReliabilityOptionCount> reliability;  ///< as typed, "" when absent
  std::uint64_t max_ops = work::kDefaultMaxOps;
  std::string hdf5_path;    ///< --hdf5; empty = none
  std::string report_path;  ///< --report; empty = none
  bool quiet = false;
  bool strict = false;  ///< --strict: a step that does not fit in memory exits 2
};

po::options_description goodput_options(GoodputArgs& a) {
  po::options_description o(
      "stepsim goodput SCENARIO (--tokens T | --steps N) [options]\n\n"
      "Wall time and goodput of a whole training run with failures and checkpoints: the step is simulated,\n"
      "failures arrive at the rate of the job's GPUs, nodes, NICs and switches, every checkpoint stops\n"
      "training for its write, and each failure loses the work since the last checkpoint and pays a\n"
      "restart. A Monte Carlo over the run gives the expected wall time and goodput with their spread,\n"
      "at the chosen checkpoint interval and over a range of intervals beside Young/Daly's optimum.\n"
      "The scenario's [reliability] table (docs/scenarios.md) sets the rates; the options below override it");
  o.add_options()("help,h", "show this help")(
      "tokens", po::value<double>()->notifier([&a](double v) { a.tokens = v; }),
      "training tokens of the run")("steps", count_value(a.steps, "--steps", 1, std::uint64_t{1} << 40),
                                    "steps of the run (instead of --tokens)")(
      "trials", count_value(a.monte_carlo.trials, "--trials", 1, 1'000'000)->default_value("200"),
      "Monte Carlo trials")(
      "seed",
      count_value(a.monte_carlo.seed, "--seed", 0, std::numeric_limits<std::uint64_t>::max())
          ->default_value("1"),
      "Monte Carlo seed: the same seed gives the same result")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "ranks", po::value(&a.ranks)->default_value("representative"),
      "representative (one rank per pipeline stage, others as images) or all")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(), "override a scenario key, e.g. --set parallelism.tp=4")(
      "hdf5", po::value(&a.hdf5_path)->value_name("FILE"),
      "write goodput over checkpoint intervals and the summary to an HDF5 file (docs/hdf5.md)")(
      "report", po::value(&a.report_path)->value_name("FILE"),
      "write a self-contained HTML page: goodput over intervals beside Young/Daly, where the wall time goes");
  for (std::size_t i = 0; i < kReliabilityOptionCount; ++i)
    o.add_options()(kReliabilityOptions[i].option, po::value(&a.reliability[i])->value_name("VALUE"),
                    kReliabilityOptions[i].help);
  o.add_options()("strict", po::bool_switch(&a.strict),
                  "exit 2 after the report when the step does not fit in memory");
  add_quiet_option(o, a.quiet);
  add_max_ops_option(o, a.max_ops);
  return o;
}

/// The run length from --tokens or --steps: exactly one of them.
work::RunLength run_length(const GoodputArgs& a) {
  const bool tokens = a.tokens != 0.0, steps = a.steps != 0;
  if (tokens == steps)
    throw UserError({}, tokens ? "--tokens" : "",
                    "give the run's length as --tokens T or as --steps N, not both", "e.g. --tokens 15e12");
  if (tokens && !(std::isfinite(a.tokens) && a.tokens > 0.0))
    throw UserError({}, "--tokens", "expected a positive number of tokens", "e.g. --tokens 15e12");
  return work::RunLength{tokens ? a.tokens : 0.0, a.steps};
}

/// Writes the files asked for, each whole or not at all, and says so on stderr.
void write_goodput_files(const GoodputArgs& a, const scen::Scenario& s, const work::GoodputAssessment& g,
                         const out::RunLabels& labels) {
  const auto written = [](const std::string& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    std::cerr << "wrote " << path << " (" << (ec ? "?" : out::format_bytes(static_cast<double>(n))) << ")\n";
  };
  if (!a.hdf5_path.empty()) {
    std::string overrides;
    for (const auto& kv : a.load.set) overrides += kv + "\n";
    out::write_goodput_hdf5(a.hdf5_path, g,
                            out::Hdf5Meta{STEPSIM_VERSION, labels.scenario, s.source_text, overrides,
                                          out::goodput_json(s.job, g, labels)});
    written(a.hdf5_path);
  }
  if (!a.report_path.empty()) {
    out::write_file_atomically(a.report_path, out::goodput_html(s.job, g, labels, STEPSIM_VERSION),
                               "--report");
    written(a.report_path);
  }
}

}  // namespace

int cmd_goodput(Args args) {
  GoodputArgs a;
  if (!parse_command_line(args, goodput_options(a), "scenario", a.scenario)) return 0;
  if (a.scenario.empty())
    throw UserError("missing the scenario file (usage: stepsim goodput SCENARIO --tokens 15e12)");
  // Before any work: a file that cannot be written fails now.
  if (!a.hdf5_path.empty()) out::check_output_path(a.hdf5_path, "--hdf5");
  if (!a.report_path.empty()) out::check_output_path(a.report_path, "--report");
  const out::RenderFormat format = out::parse_render_format(a.format);
  const work::RunLength length = run_length(a);
  for (std::size_t i = 0; i < kReliabilityOptionCount; ++i)
    if (!a.reliability[i].empty())
      a.load.set.push_back(std::string("reliability.") + kReliabilityOptions[i].key + "=" + a.reliability[i]);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  if (s.job.workload.kind != work::WorkloadKind::train)
    throw UserError(s.where("workload.kind"), "workload.kind", "goodput is a question about a training run",
                    "use a scenario with kind = \"train\"");
  work::SimulateOptions options;
  options.ranks = parse_rank_mode(a.ranks);
  options.max_ops = a.max_ops;
  const work::Simulation sim =
      with_elapsed_spinner("goodput", a.quiet, format, [&] { return work::simulate(s.job, options); });
  work::GoodputAssessment g =
      work::assess_goodput(s.job, *sim.topology, sim.metrics.step_time_s, sim.metrics.tokens_per_step,
                           sim.estimate.params, s.reliability, length, a.monte_carlo);
  g.memory_peak_bytes = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
  g.usable_hbm_bytes = sim.usable_hbm.value();
  const out::RunLabels labels{scenario_label(s), s.job.cluster.gpu.id, s.job.model.id};
  if (format == out::RenderFormat::json)
    std::cout << out::goodput_json(s.job, g, labels).dump(2) << "\n";
  else
    std::cout << out::goodput_table(s.job, g, labels);
  write_goodput_files(a, s, g, labels);
  if (a.strict && !g.step_fits())
    return strict_memory_exit("the step", g.memory_peak_bytes, g.usable_hbm_bytes);
  return 0;
}

}  // namespace stepsim::cli
