// `stepsim estimate SCENARIO [--format table|json] [--formulas stepsim|notebook] [--target R]
//  [--catalog FILE]... [--set KEY=VALUE]...`: the closed-form bottleneck estimate (docs/model.md).
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "output/views/estimate_view.hpp"
#include "output/common/render_format.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/estimate/estimate.hpp"

namespace stepsim::cli {

namespace {

namespace po = boost::program_options;

struct EstimateArgs {
  std::string scenario;
  std::string format = "table";
  std::string formulas;  ///< empty: the scenario's [estimate] formulas
  std::optional<double> target;
  std::vector<std::string> catalogs;
  scen::LoadOptions load;
  std::string price;  ///< --price as typed
};

po::options_description visible_options(EstimateArgs& a) {
  po::options_description o(
      "stepsim estimate SCENARIO [options]\n\n"
      "Closed-form bottleneck estimate: the tokens/s each resource (compute, HBM, NVLink/PCIe, NIC)\n"
      "allows, the bound, memory per GPU, cost and the GPUs a target rate needs (docs/model.md)");
  o.add_options()("help,h", "show this help")("format", po::value(&a.format)->default_value("table"),
                                              "table or json")(
      "formulas", po::value(&a.formulas), "stepsim or notebook (default: the scenario's)")(
      "target", po::value<double>()->notifier([&a](double r) { a.target = r; }),
      "cluster-wide tokens/s to size for from the closed-form rate (overrides [target] tokens_per_s); "
      "`stepsim size` sizes from the simulated rate")("catalog", po::value(&a.catalogs)->composing(),
                                                      "extra catalog file (repeatable)")(
      "set", po::value(&a.load.set)->composing(),
      "override a scenario key, e.g. --set parallelism.tp=4 (repeatable)");
  add_price_option(o, a.price);
  return o;
}

work::EstimateFormulas parse_formulas(const std::string& text) {
  if (text == "stepsim") return work::EstimateFormulas::stepsim;
  if (text == "notebook") return work::EstimateFormulas::notebook;
  throw UserError("--formulas: expected stepsim or notebook, got `" + text + "`");
}

}  // namespace

int cmd_estimate(Args args) {
  EstimateArgs a;
  if (!parse_command_line(args, visible_options(a), "scenario", a.scenario)) return 0;
  if (a.scenario.empty()) throw UserError("missing the scenario file (usage: stepsim estimate SCENARIO)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  const std::optional<double> price = parse_price(a.price);
  a.load.set = with_price(std::move(a.load.set), price);
  const scen::Catalog catalog = load_catalog(a.catalogs, price);
  scen::Scenario s = scen::load_scenario(a.scenario, catalog, a.load);
  if (!a.formulas.empty()) s.job.estimate.formulas = parse_formulas(a.formulas);
  if (a.target) {
    if (!(*a.target > 0.0)) throw UserError("--target: expected a positive tokens/s rate");
    s.job.estimate.target_tokens_per_s = a.target;
  }
  const work::Estimate e = work::estimate(s.job);
  const out::EstimateLabels labels{scenario_label(s), s.job.cluster.gpu.id, s.job.model.id};
  std::cout << (format == out::RenderFormat::json ? out::estimate_json_text(e, labels)
                                                  : out::estimate_table(e, labels));
  return 0;
}

}  // namespace stepsim::cli
