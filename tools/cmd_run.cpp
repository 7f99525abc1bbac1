// `stepsim run SCENARIO [--format table|json] [--ranks auto|representative|all|replay] [--steps N] [--catalog
// FILE]...
//  [--set KEY=VALUE]... [--trace FILE.json [--trace-ranks 0-15]] [--hdf5 FILE.h5] [--report FILE.html]`:
//  simulates one step event by event and reports where its time goes.
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <thread>

#include "output/common/format.hpp"
#include "output/common/render_format.hpp"
#include "output/report/run_outputs.hpp"
#include "output/search/advise.hpp"
#include "output/views/advise_view.hpp"
#include "output/views/generation_view.hpp"
#include "output/views/run_view.hpp"
#include "output/views/serving_view.hpp"
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

struct RunArgs {
  std::string scenario;
  std::string format = "table";
  std::string ranks = "auto";
  int steps = 1;  ///< --steps: steps simulated with [variability]'s draws
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  out::RunOutputs outputs;
  double slo_ttft_ms = 0.0, slo_tpot_ms = 0.0, slo_percentile = 99.0;
  std::string price;  ///< --price as typed
  bool quiet = false;
  bool strict = false;  ///< --strict: a step that does not fit in memory exits 2
  bool advise = false;  ///< --advise: the changes that help most, each simulated
  std::size_t advise_top = 5;
  unsigned jobs = 0;  ///< --jobs: simulations at once for --advise; 0 = one per core
  std::uint64_t max_ops = work::kDefaultMaxOps;  ///< --max-ops: the pre-flight size limit
  bool help = false;
};

RunArgs parse_run_args(Args args) {
  RunArgs a;
  po::options_description visible(
      "stepsim run SCENARIO [options]\n\n"
      "Simulates one step of the scenario on every GPU (or on representative ranks that provably behave\n"
      "the same) and reports step time, throughput, MFU, where the time goes, the critical path, memory\n"
      "over the schedule and how it compares with the closed-form estimate");
  visible.add_options()("help,h", "show this help")("format", po::value(&a.format)->default_value("table"),
                                                    "table or json")(
      "ranks", po::value(&a.ranks)->default_value("auto"),
      "representative (one rank per pipeline stage, others as images), all, replay (every GPU replayed over "
      "the representative step: fast at any scale, collectives held at their representative durations), or "
      "auto (with [variability]: all, or replay when every GPU's graph would exceed 2 M ops; else "
      "representative)")("steps", count_value(a.steps, "--steps", 1, 100000)->default_value("1"),
                         "simulate this many steps, each with its own [variability] draws: the step-time "
                         "distribution and what the slow steps waited on")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(), "override a scenario key, e.g. --set parallelism.tp=4")(
      "trace", po::value(&a.outputs.trace_path), "write a Chrome trace (open it at ui.perfetto.dev)")(
      "trace-ranks", po::value(&a.outputs.trace_ranks),
      "GPU ranks the trace and HDF5 ops cover, e.g. 0-15 or 0,8,16-31 (default: the first 64 simulated ranks "
      "in the trace, all in HDF5)")("hdf5", po::value(&a.outputs.hdf5_path),
                                    "write the summary, per-op timings, link utilisation and memory to HDF5")(
      "report", po::value(&a.outputs.report_path), "write a self-contained HTML report")(
      "slo-ttft-ms", po::value(&a.slo_ttft_ms),
      "serving: find the highest rate whose TTFT percentile meets this")(
      "slo-tpot-ms", po::value(&a.slo_tpot_ms), "serving: ... and whose time per output token meets this")(
      "slo-percentile", po::value(&a.slo_percentile)->default_value(99.0),
      "serving: the percentile the SLO bounds")(
      "unset", po::value(&a.load.unset)->composing(),
      "remove a scenario key before --set applies, as if the file did not have it, e.g. --unset "
      "parallelism.dp")("advise", po::bool_switch(&a.advise),
                        "after the report, the changes that help this step most, each one simulated: layouts "
                        "around this one, runtime overlap options, FP8, NIC bandwidth, fabric")(
      "advise-top", count_value(a.advise_top, "--advise-top", 1, 1000)->default_value("5"),
      "--advise: how many helpful changes to list")("jobs", jobs_value(a.jobs),
                                                    "--advise: simulations at once (default: one per core)")(
      "strict", po::bool_switch(&a.strict),
      "exit 2 after the report when the step does not fit in memory (default: exit 0, the report marks "
      "its rates not achievable)");
  add_price_option(visible, a.price);
  add_quiet_option(visible, a.quiet);
  add_max_ops_option(visible, a.max_ops);
  a.help = !parse_command_line(args, visible, "scenario", a.scenario);
  a.load.set = with_price(std::move(a.load.set), parse_price(a.price));
  return a;
}

/// A whole static batch: its own report; the per-step files describe one step, so they are refused.
int run_generation(const RunArgs& a, const scen::Scenario& s, const work::SimulateOptions& options,
                   const out::RunLabels& labels, out::RenderFormat format) {
  if (a.outputs.any())
    throw UserError(
        s.where("workload.kind"), "workload.kind",
        "--trace, --hdf5 and --report describe one step, and kind = \"generate\" is a whole batch",
        "run its prefill (kind = \"prefill\") or one decode step (kind = \"decode\", context = N) "
        "with those options");
  work::GenerationOptions g;
  g.simulate = options;
  const work::Generation gen =
      with_elapsed_spinner("run", a.quiet, format, [&] { return work::simulate_generation(s.job, g); });
  std::cout << (format == out::RenderFormat::json ? out::generation_json_text(s.job, gen, labels)
                                                  : out::generation_table(s.job, gen, labels));
  return 0;
}

/// The SLO the options ask for, if any.
std::optional<work::ServingSlo> slo_of(const RunArgs& a) {
  if (a.slo_ttft_ms < 0 || a.slo_tpot_ms < 0)
    throw UserError("--slo-ttft-ms and --slo-tpot-ms: expected a positive number of milliseconds");
  if (!(a.slo_percentile > 0 && a.slo_percentile <= 100))
    throw UserError("--slo-percentile: expected a percentile in (0, 100], e.g. 99");
  if (a.slo_ttft_ms == 0 && a.slo_tpot_ms == 0) return std::nullopt;
  work::ServingSlo slo;
  if (a.slo_ttft_ms > 0) slo.ttft_s = a.slo_ttft_ms * 1e-3;
  if (a.slo_tpot_ms > 0) slo.tpot_s = a.slo_tpot_ms * 1e-3;
  slo.percentile = a.slo_percentile;
  return slo;
}

/// Continuous-batching serving; like a generation it is many steps, so the per-step files are refused.
int run_serving(const RunArgs& a, const scen::Scenario& s, const work::SimulateOptions& options,
                const out::RunLabels& labels, out::RenderFormat format) {
  if (a.outputs.any())
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "--trace, --hdf5 and --report describe one step, and kind = \"serve\" is many",
                    "run one decode or prefill step (kind = \"decode\" / \"prefill\") with those options");
  const work::Serving served = with_elapsed_spinner(
      "run", a.quiet, format, [&] { return work::simulate_serve(s.job, *s.serve, slo_of(a), options); });
  std::cout << (format == out::RenderFormat::json ? out::serving_json_text(s.job, served, labels)
                                                  : out::serving_table(s.job, served, labels));
  return 0;
}

/// --advise: the changes around the scenario, simulated on `jobs` threads.
out::Advice advise_run(const RunArgs& a, const scen::Catalog& catalog, const scen::Scenario& s,
                       const work::Simulation& sim, out::RenderFormat format) {
  out::AdviceOptions o;
  o.top = a.advise_top;
  o.max_ops = a.max_ops;
  o.jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  out::ProgressOptions po;
  po.label = "advise";
  po.unit = "simulations";
  TerminalProgress progress(std::move(po), a.quiet, format);
  // The number of simulations grows as the layout search moves: the total is what is planned so far.
  o.progress = [&progress](std::size_t done, std::size_t planned) {
    progress.reporter().set_total(planned);
    progress.reporter().set_done(done);
  };
  out::Advice advice = out::advise(a.scenario, catalog, a.load, s.job, sim, o);
  progress.finish(out::ProgressEnd::clear);
  return advice;
}

/// --strict: an impossible configuration is the user's error (exit 2, as a bad scenario is), said
/// on stderr after the report has been printed and its files written.
int strict_exit_code(const work::Simulation& sim) {
  if (sim.fits) return 0;
  return strict_memory_exit("the step", sim.report.ranks[sim.report.peak_rank].memory.peak.value(),
                            sim.usable_hbm.value());
}

}  // namespace

int cmd_run(Args args) {
  const RunArgs a = parse_run_args(args);
  if (a.help) return 0;
  if (a.scenario.empty()) throw UserError("missing the scenario file (usage: stepsim run SCENARIO)");
  out::check_run_outputs(a.outputs);  // before any work: a file that cannot be written fails now
  const out::RenderFormat format = out::parse_render_format(a.format);
  const scen::Catalog catalog = load_catalog(a.catalogs, parse_price(a.price));
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  work::SimulateOptions options;
  apply_rank_mode(a.ranks, s.job, options);
  options.steps = a.steps;
  options.links = out::link_accounting_for(a.outputs);
  options.max_ops = a.max_ops;
  out::RunLabels labels{scenario_label(s), s.job.cluster.gpu.id, s.job.model.id};
  labels.validated = scen::builtin_accuracy_match(s.job);
  const bool serving = s.job.workload.kind == work::WorkloadKind::serve;
  if (!serving && (a.slo_ttft_ms != 0 || a.slo_tpot_ms != 0))
    throw UserError("--slo-ttft-ms and --slo-tpot-ms apply to serving scenarios (workload.kind = \"serve\")");
  if (a.advise && (serving || s.job.workload.kind == work::WorkloadKind::generate))
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "--advise simulates changes to one step, and this scenario is many steps",
                    "advise on one prefill or decode step (kind = \"prefill\" / \"decode\")");
  if (serving) return run_serving(a, s, options, labels, format);
  if (s.job.workload.kind == work::WorkloadKind::generate)
    return run_generation(a, s, options, labels, format);
  const work::Simulation sim = with_elapsed_spinner("run", a.quiet, format, [&] {
    return at_scenario_keys(s, [&] { return work::simulate(s.job, options); });
  });
  std::optional<out::Advice> advice;
  if (a.advise) advice = advise_run(a, catalog, s, sim, format);
  if (format == out::RenderFormat::json) {
    auto doc = out::run_json(s.job, sim, labels);
    if (advice) doc["advice"] = out::advice_json(*advice);
    std::cout << doc.dump(2) << "\n";
  } else {
    std::cout << out::run_table(s.job, sim, labels);
    if (advice) std::cout << "\n" << out::advice_table(*advice);
  }
  for (const auto& line : out::write_run_outputs(a.outputs, s, a.load, sim, labels, catalog, STEPSIM_VERSION,
                                                 advice ? &*advice : nullptr))
    std::cerr << line << "\n";
  return a.strict ? strict_exit_code(sim) : 0;
}

}  // namespace stepsim::cli
