// `stepsim run SCENARIO [--format table|json] [--ranks representative|all] [--catalog FILE]...
//  [--set KEY=VALUE]... [--trace FILE.json [--trace-ranks 0-15]] [--hdf5 FILE.h5] [--report FILE.html]`:
//  simulates one step event by event and reports where its time goes.
#include <boost/program_options.hpp>
#include <iostream>

#include "output/render_format.hpp"
#include "output/run_outputs.hpp"
#include "output/run_view.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/simulate.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct RunArgs {
  std::string scenario;
  std::string format = "table";
  std::string ranks = "representative";
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  out::RunOutputs outputs;
  bool help = false;
};

RunArgs parse(Args args) {
  RunArgs a;
  po::options_description visible(
      "stepsim run SCENARIO [options]\n\n"
      "Simulates one step of the scenario on every GPU (or on representative ranks that provably behave\n"
      "the same) and reports step time, throughput, MFU, where the time goes, the critical path, memory\n"
      "over the schedule and how it compares with the closed-form estimate");
  visible.add_options()("help,h", "show this help")("format", po::value(&a.format)->default_value("table"),
                                                    "table or json")(
      "ranks", po::value(&a.ranks)->default_value("representative"),
      "representative (one rank per pipeline stage, others as images) or all")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(), "override a scenario key, e.g. --set parallelism.tp=4")(
      "trace", po::value(&a.outputs.trace_path), "write a Chrome trace (open it at ui.perfetto.dev)")(
      "trace-ranks", po::value(&a.outputs.trace_ranks),
      "GPU ranks the trace and HDF5 ops cover, e.g. 0-15 or 0,8,16-31 (default: the first 64 simulated ranks "
      "in the trace, all in HDF5)")("hdf5", po::value(&a.outputs.hdf5_path),
                                    "write the summary, per-op timings, link utilisation and memory to HDF5")(
      "report", po::value(&a.outputs.report_path), "write a self-contained HTML report");
  a.help = !parse_command_line(args, visible, "scenario", a.scenario);
  return a;
}

}  // namespace

int cmd_run(Args args) {
  const RunArgs a = parse(args);
  if (a.help) return 0;
  if (a.scenario.empty()) throw UserError("missing the scenario file (usage: stepsim run SCENARIO)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  work::SimulateOptions options;
  options.ranks = parse_rank_mode(a.ranks);
  options.links = out::link_accounting_for(a.outputs);
  const work::Simulation sim = work::simulate(s.job, options);
  const out::RunLabels labels{scenario_label(s), s.job.cluster.gpu.id, s.job.model.id};
  std::cout << (format == out::RenderFormat::json ? out::run_json_text(s.job, sim, labels)
                                                  : out::run_table(s.job, sim, labels));
  for (const auto& line : out::write_run_outputs(a.outputs, s, a.load, sim, labels, catalog, STEPSIM_VERSION))
    std::cerr << line << "\n";
  return 0;
}

}  // namespace stepsim::cli
