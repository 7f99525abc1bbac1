// `stepsim profile TRACE.json --scenario S.toml [--layers A-B] [--microbatches M-N] [--rank R]
//  [--format table|json]`: a PyTorch profiler (Kineto) trace's GPU kernels, classed, side by side
//  with the simulation of the same scenario over the same window (docs/profile.md).
#include <boost/program_options.hpp>
#include <iostream>

#include "output/profile_compare.hpp"
#include "output/profile_trace.hpp"
#include "output/render_format.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/simulate.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct ProfileArgs {
  std::string trace, scenario, layers, microbatches, format = "table";
  int rank = 0;
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  bool quiet = false;
  bool help = false;
};

ProfileArgs parse_profile_args(Args args) {
  ProfileArgs a;
  po::options_description visible(
      "stepsim profile TRACE.json --scenario S.toml [options]\n\n"
      "Reads a PyTorch profiler (Kineto) Chrome trace, classes its GPU kernels (GEMM, attention, norms,\n"
      "casts, MoE routing, optimizer, NCCL and DeepEP communication, ...) and sets the measured time of\n"
      "each class beside the simulated time of the same ops of the scenario's step; kernels no rule\n"
      "classes are listed");
  visible.add_options()("help,h", "show this help")("scenario", po::value(&a.scenario),
                                                    "the scenario of the profiled run (required)")(
      "layers", po::value(&a.layers), "the layers the trace covers, e.g. 3-6 (default: all)")(
      "microbatches", po::value(&a.microbatches),
      "the micro-batches the trace covers, e.g. 0-0 (default: all)")(
      "rank", po::value(&a.rank)->default_value(0), "the profiled GPU's global rank (default 0)")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(), "override a scenario key, e.g. --set parallelism.tp=4");
  add_quiet_option(visible, a.quiet);
  a.help = !parse_command_line(args, visible, "trace", a.trace);
  return a;
}

/// "A-B" or "A" into [first, last]; empty text leaves both at -1 (all).
void parse_range(const std::string& text, const char* option, int& first, int& last) {
  if (text.empty()) return;
  const auto dash = text.find('-');
  const auto number = [&](const std::string& s) {
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty() || v < 0)
      throw UserError(std::string(option) + " " + text +
                      ": expected a range of indices from 0, e.g. 3-6 or 0");
    return v;
  };
  first = number(text.substr(0, dash));
  last = dash == std::string::npos ? first : number(text.substr(dash + 1));
  if (last < first)
    throw UserError(std::string(option) + " " + text +
                    ": the range ends before it starts (hint: A-B with A <= B)");
}

}  // namespace

int cmd_profile(Args args) {
  const ProfileArgs a = parse_profile_args(args);
  if (a.help) return 0;
  if (a.trace.empty())
    throw UserError("missing the trace file (usage: stepsim profile TRACE.json --scenario S.toml)");
  if (a.scenario.empty())
    throw UserError(
        "missing --scenario (hint: the scenario of the run the trace was taken of: stepsim profile " +
        a.trace + " --scenario S.toml)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  out::ProfileWindow window;
  window.rank = a.rank;
  if (a.rank < 0) throw UserError("--rank: expected a global rank from 0");
  parse_range(a.layers, "--layers", window.first_layer, window.last_layer);
  parse_range(a.microbatches, "--microbatches", window.first_microbatch, window.last_microbatch);
  const out::GpuTrace trace = out::read_kineto_trace(a.trace);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  if (s.job.workload.kind == work::WorkloadKind::serve || s.job.workload.kind == work::WorkloadKind::generate)
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "a profile is compared with one step, and this scenario is many steps",
                    "use kind = \"train\", \"prefill\" or \"decode\"");
  work::SimulateOptions options;
  options.ranks = work::RankMode::representative;
  const work::Simulation sim =
      with_elapsed_spinner("profile", a.quiet, format, [&] { return work::simulate(s.job, options); });
  out::ProfileComparison c =
      out::compare_profiles(out::measure_profile(trace), out::simulate_window(sim.plan, window, &sim.run));
  c.trace = a.trace;
  c.scenario = a.scenario;
  c.window = window;
  if (format == out::RenderFormat::json)
    std::cout << out::profile_json(c).dump(2) << "\n";
  else
    std::cout << out::profile_table(c);
  return 0;
}

}  // namespace stepsim::cli
