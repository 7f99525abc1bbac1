// `stepsim profile TRACE [TRACE...] --scenario S.toml [--rank R]... [--layers A-B] [--microbatches M-N]
//  [--steps N] [--write-calibration FILE] [--format table|json]`: a PyTorch profiler (Kineto) trace's
//  or an Nsight Systems export's GPU kernels, classed, side by side with the simulation of the same
//  scenario over the same window, and the calibration that reproduces them (docs/profile.md).
#include <boost/program_options.hpp>
#include <iostream>

#include "output/common/atomic_file.hpp"
#include "output/common/render_format.hpp"
#include "output/profile/profile_calibrate.hpp"
#include "output/profile/profile_compare.hpp"
#include "output/profile/profile_nsys.hpp"
#include "output/profile/profile_run.hpp"
#include "output/profile/profile_trace.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct ProfileArgs {
  std::vector<std::string> traces;
  std::string scenario, layers, microbatches, format = "table", write_calibration;
  std::vector<int> ranks;
  int steps = 0;
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  bool quiet = false;
  bool help = false;
};

ProfileArgs parse_profile_args(Args args) {
  ProfileArgs a;
  po::options_description visible(
      "stepsim profile TRACE [TRACE...] --scenario S.toml [options]\n\n"
      "Reads a PyTorch profiler (Kineto) Chrome trace or an Nsight Systems SQLite export (one per profiled\n"
      "rank), classes its GPU kernels (GEMM, attention, norms, casts, MoE routing, optimizer, NCCL and\n"
      "DeepEP communication, ...) and sets the measured time of each class beside the simulated time of\n"
      "the same ops of the scenario's step; kernels no rule classes are listed. --write-calibration\n"
      "fits the GPU's efficiencies that reproduce the trace and writes them as a catalog file");
  visible.add_options()("help,h", "show this help")("scenario", po::value(&a.scenario),
                                                    "the scenario of the profiled run (required)")(
      "layers", po::value(&a.layers), "the layers the trace covers, e.g. 3-6 (default: all)")(
      "microbatches", po::value(&a.microbatches),
      "the micro-batches the trace covers, e.g. 0-0 (default: all)")(
      "rank", po::value(&a.ranks)->composing(),
      "the profiled GPU's global rank, once per trace in their order (default 0)")(
      "steps", po::value(&a.steps)->default_value(0),
      "the whole training steps each trace covers: adds step time, MFU and tokens/s (default: a window)")(
      "write-calibration", po::value(&a.write_calibration),
      "write the catalog file (for --catalog) whose efficiencies reproduce the trace")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(), "override a scenario key, e.g. --set parallelism.tp=4");
  add_quiet_option(visible, a.quiet);
  a.help = !parse_command_line(args, visible, "trace", a.traces);
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

/// The window, traces and scenario in words, for the calibration file's provenance.
std::string origin_of(const ProfileArgs& a, const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < a.traces.size(); ++i)
    text += (i ? ", " : "") + a.traces[i] + " (rank " + std::to_string(ranks[i]) + ")";
  text += " against " + a.scenario;
  if (!a.layers.empty()) text += ", layers " + a.layers;
  if (!a.microbatches.empty()) text += ", micro-batches " + a.microbatches;
  if (a.steps > 0) text += ", " + std::to_string(a.steps) + " steps";
  return text;
}

}  // namespace

int cmd_profile(Args args) {
  const ProfileArgs a = parse_profile_args(args);
  if (a.help) return 0;
  if (a.traces.empty())
    throw UserError("missing the trace file (usage: stepsim profile TRACE.json --scenario S.toml)");
  if (a.scenario.empty())
    throw UserError(
        "missing --scenario (hint: the scenario of the run the trace was taken of: stepsim profile " +
        a.traces.front() + " --scenario S.toml)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  std::vector<int> ranks = a.ranks;
  if (ranks.empty()) ranks.assign(a.traces.size(), 0);
  if (ranks.size() != a.traces.size())
    throw UserError(
        "--rank is given " + std::to_string(ranks.size()) + " times for " + std::to_string(a.traces.size()) +
        " traces (hint: one --rank per trace, in the traces' order: stepsim profile r0.json r8.json "
        "--rank 0 --rank 8 ...)");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0) throw UserError("--rank: expected a global rank from 0");
    for (std::size_t j = 0; j < i; ++j)
      if (ranks[j] == ranks[i])
        throw UserError("--rank " + std::to_string(ranks[i]) +
                        " is given for two traces (hint: one trace per profiled rank)");
  }
  if (a.steps < 0) throw UserError("--steps: expected the number of whole steps the trace covers, from 1");
  if (a.steps > 0 && (!a.layers.empty() || !a.microbatches.empty()))
    throw UserError(
        "--steps says the trace covers whole steps, and --layers/--microbatches a part of one "
        "(hint: give one or the other)");
  out::ProfileWindow window;
  parse_range(a.layers, "--layers", window.first_layer, window.last_layer);
  parse_range(a.microbatches, "--microbatches", window.first_microbatch, window.last_microbatch);
  std::vector<out::GpuTrace> traces;
  for (const std::string& t : a.traces) traces.push_back(out::read_gpu_trace(t));
  const std::vector<out::ProfiledRank> profiled = out::profiled_ranks(traces, ranks);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  if (s.job.workload.kind == work::WorkloadKind::serve || s.job.workload.kind == work::WorkloadKind::generate)
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "a profile is compared with one step, and this scenario is many steps",
                    "use kind = \"train\", \"prefill\" or \"decode\"");
  const auto compare = [&](const work::JobSpec& job) {
    return out::compare_job(profiled, job, window, a.steps);
  };
  out::ProfileComparison c = with_elapsed_spinner("profile", a.quiet, format, [&] { return compare(s.job); });
  std::string traces_text;
  for (const std::string& t : a.traces) traces_text += (traces_text.empty() ? "" : ", ") + t;
  c.trace = traces_text;
  c.scenario = a.scenario;
  std::optional<out::Calibration> cal;
  std::optional<out::ProfileComparison> applied;
  if (!a.write_calibration.empty()) {
    cal = with_elapsed_spinner("calibrate", a.quiet, format, [&] {
      return out::calibrate(s.job.cluster.gpu,
                            {s.job.precision.low_precision_linears(), s.job.workload.attention_kernel},
                            [&](const topo::GpuSpec& gpu) {
                              work::JobSpec job = s.job;
                              job.cluster.gpu = gpu;
                              return compare(job);
                            });
    });
    out::write_file_atomically(a.write_calibration, out::calibration_toml(*cal, origin_of(a, ranks)),
                               "--write-calibration");
    // The check: the scenario again, read through the catalog with the file applied.
    const scen::Scenario again =
        scen::load_scenario(a.scenario, load_catalog(a.catalogs).with_file(a.write_calibration), a.load);
    applied = with_elapsed_spinner("check", a.quiet, format, [&] { return compare(again.job); });
    applied->trace = c.trace;
    applied->scenario = a.scenario + " with " + a.write_calibration;
  }
  if (format == out::RenderFormat::json) {
    nlohmann::json j = out::profile_json(c);
    if (cal) {
      j["calibration"] = out::calibration_json(*cal);
      j["calibration"]["file"] = a.write_calibration;
      j["calibration"]["applied"] = out::profile_json(*applied);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << out::profile_table(c);
  if (cal) {
    std::cout << out::calibration_text(*cal);
    std::cout << "\nwritten: " << a.write_calibration << "; the scenario again with it (--catalog "
              << a.write_calibration << "):\n\n"
              << out::profile_table(*applied);
  }
  return 0;
}

}  // namespace stepsim::cli
