// `stepsim sweep SWEEP.toml --out results.h5 [--jobs N] [--resume] [--csv FILE] [--shard I/N]`:
// runs every point of a sweep file on threads, crash-safe, into an HDF5 results table.
#include <boost/program_options.hpp>
#include <iostream>
#include <thread>

#include "output/sweep/sweep_run.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/sweep.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct SweepArgs {
  std::string sweep, out, csv, shard = "0/1", progress = "auto", price;
  unsigned jobs = 0;
  bool resume = false, quiet = false;
  std::uint64_t max_ops = work::kDefaultMaxOps;  ///< --max-ops: points estimated above it are invalid rows
  std::vector<std::string> catalogs;
  bool help = false;
};

SweepArgs parse_sweep_args(Args args) {
  SweepArgs a;
  po::options_description visible(
      "stepsim sweep SWEEP.toml --out RESULTS.h5 [options]\n\n"
      "Runs every point of a sweep file (a base scenario, axes of values, filters) and writes one row per\n"
      "point to an HDF5 table: its axis values, status, and the simulated figures. Rows are journaled as\n"
      "they finish, so an interrupted sweep continues with --resume. docs/sweeps.md describes the format");
  visible.add_options()("help,h", "show this help")("out,o", po::value(&a.out), "results file (HDF5)")(
      "jobs,j", jobs_value(a.jobs), "worker threads (default: one per CPU)")(
      "resume", po::bool_switch(&a.resume), "continue an interrupted run from its journal (or start one)")(
      "csv", po::value(&a.csv), "also write the rows as CSV")(
      "shard", po::value(&a.shard)->default_value("0/1"),
      "run only shard I of N (points with index % N == I)")(
      "progress", po::value(&a.progress)->default_value("auto"),
      "bar, lines (one every ten seconds, for logs), none, or auto (bar on a terminal, else none)")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)");
  add_price_option(visible, a.price);
  add_quiet_option(visible, a.quiet);
  add_max_ops_option(visible, a.max_ops);
  a.help = !parse_command_line(args, visible, "sweep", a.sweep);
  return a;
}

/// --progress as a style; --quiet silences any.
out::ProgressStyle progress_style(const std::string& s, bool quiet) {
  if (s == "bar") return quiet ? out::ProgressStyle::none : out::ProgressStyle::bar;
  if (s == "lines") return quiet ? out::ProgressStyle::none : out::ProgressStyle::lines;
  if (s == "none") return out::ProgressStyle::none;
  if (s == "auto") return terminal_progress_style(quiet, out::RenderFormat::table);
  throw UserError("--progress: expected bar, lines, none or auto, got `" + s + "`");
}

void print_summary(const scen::Sweep& sweep, const out::SweepRunOptions& o, const out::SweepRunSummary& s) {
  std::cout << "sweep " << sweep.name << ": " << s.points_total << " points";
  if (s.rejected > 0) std::cout << " (" << s.rejected << " combinations removed by filters)";
  if (o.shard.count > 1)
    std::cout << ", shard " << o.shard.index << "/" << o.shard.count << ": " << s.points_shard;
  std::cout << "\n";
  if (s.already_complete) {
    std::cout << "  " << o.out.string() << " is already complete; nothing to do\n";
    return;
  }
  std::cout << "  evaluated " << s.evaluated << " now";
  if (s.resumed > 0) std::cout << ", " << s.resumed << " from the journal";
  if (s.evaluated > 0 && s.run_s > 0)
    std::cout << ", " << static_cast<double>(s.evaluated) / s.run_s << " points/s on " << o.jobs << " thread"
              << (o.jobs == 1 ? "" : "s");
  std::cout << "\n  ";
  for (std::size_t i = 0; i < s.by_status.size(); ++i)
    std::cout << (i ? ", " : "") << out::name(static_cast<out::PointStatus>(i)) << " " << s.by_status[i];
  if (!s.first_problem.empty()) std::cout << "\n  first problem, " << s.first_problem;
  std::cout << "\n  results: " << o.out.string() << (o.csv ? " and " + o.csv->string() : std::string())
            << "\n";
}

}  // namespace

int cmd_sweep(Args args) {
  const SweepArgs a = parse_sweep_args(args);
  if (a.help) return 0;
  if (a.sweep.empty())
    throw UserError("missing the sweep file (usage: stepsim sweep SWEEP.toml --out RESULTS.h5)");
  if (a.out.empty()) throw UserError("missing --out RESULTS.h5 (where the results table goes)");
  out::SweepRunOptions o;
  o.out = a.out;
  if (!a.csv.empty()) o.csv = a.csv;
  o.jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  o.resume = a.resume;
  o.shard = scen::parse_shard(a.shard, "--shard");
  o.version = STEPSIM_VERSION;
  o.progress = progress_style(a.progress, a.quiet);
  o.max_ops = a.max_ops;
  const scen::Sweep sweep = scen::load_sweep(a.sweep);
  const scen::Catalog catalog = load_catalog(a.catalogs, parse_price(a.price));
  const out::SweepRunSummary s = out::run_sweep(sweep, catalog, o, std::cerr);
  print_summary(sweep, o, s);
  return 0;
}

}  // namespace stepsim::cli
