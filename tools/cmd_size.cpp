// `stepsim size SCENARIO (--tokens-per-s R | --tokens N --days D) [--format table|json]
//  [--ranks representative|all] [--catalog FILE]... [--set KEY=VALUE]... [--price USD] [--quiet]`: the GPUs a
//  target needs, from the simulated rate at the scenario's own layout (output/search/sizing.hpp).
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "output/common/render_format.hpp"
#include "output/views/size_view.hpp"
#include "output/search/sizing.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct SizeArgs {
  std::string scenario;
  std::string format = "table";
  std::string ranks = "representative";
  std::vector<std::string> catalogs;
  std::string price;  ///< --price as typed
  bool quiet = false;
  out::SizingOptions options;
};

po::options_description size_options(SizeArgs& a) {
  po::options_description o(
      "stepsim size SCENARIO (--tokens-per-s R | --tokens N --days D) [options]\n\n"
      "How many GPUs a target rate needs, from the SIMULATED rate: the scenario's layout (TP, PP, CP, EP)\n"
      "and per-replica batch stay fixed, data parallelism scales, and each size tried is simulated\n"
      "until the smallest one reaching the target is found. The closed-form answer of `stepsim\n"
      "estimate --target` is shown beside it. Exits 2 when the sized job does not fit in memory or\n"
      "no size reaches the target");
  auto& goal = a.options.goal;
  o.add_options()("help,h", "show this help")(
      "tokens-per-s", po::value<double>()->notifier([&goal](double v) { goal.tokens_per_s = v; }),
      "cluster-wide tokens/s to reach")("tokens",
                                        po::value<double>()->notifier([&goal](double v) { goal.tokens = v; }),
                                        "tokens the run must process (with --days)")(
      "days", po::value<double>()->notifier([&goal](double v) { goal.days = v; }), "days the run may take")(
      "max-gpus", po::value(&a.options.max_gpus)->default_value(a.options.max_gpus),
      "the most GPUs the cluster may have; a target beyond them is unreachable")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "ranks", po::value(&a.ranks)->default_value("representative"),
      "representative (one rank per pipeline stage, others as images) or all")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&a.options.set)->composing(),
      "override a scenario key, e.g. --set parallelism.tp=4 (repeatable)");
  add_price_option(o, a.price);
  add_quiet_option(o, a.quiet);
  add_max_ops_option(o, a.options.max_ops);
  return o;
}

}  // namespace

int cmd_size(Args args) {
  SizeArgs a;
  if (!parse_command_line(args, size_options(a), "scenario", a.scenario)) return 0;
  if (a.scenario.empty())
    throw UserError("missing the scenario file (usage: stepsim size SCENARIO --tokens-per-s 1e6)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  a.options.ranks = parse_rank_mode(a.ranks);
  a.options.goal.target_tokens_per_s();  // check the goal before loading anything
  const std::optional<double> price = parse_price(a.price);
  a.options.set = with_price(std::move(a.options.set), price);
  const scen::Catalog catalog = load_catalog(a.catalogs, price);
  const out::SizingResult r = with_elapsed_spinner(
      "size", a.quiet, format, [&] { return out::size_cluster(a.scenario, catalog, a.options); });
  std::cout << (format == out::RenderFormat::json ? out::size_json_text(r) : out::size_table(r));
  return r.outcome == out::SizingOutcome::sized ? 0 : 2;
}

}  // namespace stepsim::cli
