// `stepsim check SCENARIO [--format table|json] [--catalog FILE]... [--set KEY=VALUE]...`
#include <boost/program_options.hpp>
#include <iostream>

#include "output/views/check_view.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_check(Args args) {
  namespace po = boost::program_options;
  std::string path;
  std::string format = "table";
  std::vector<std::string> extra;
  scen::LoadOptions load;
  std::string price;
  po::options_description opts(
      "stepsim check SCENARIO [options]\n\nLoads and validates a scenario and prints what it resolved to");
  opts.add_options()("help,h", "show this help")("format", po::value(&format)->default_value("table"),
                                                 "table or json")("catalog", po::value(&extra)->composing(),
                                                                  "extra catalog file (repeatable)")(
      "set", po::value(&load.set)->composing(),
      "override a scenario key, e.g. --set parallelism.tp=4 (repeatable)");
  add_price_option(opts, price);
  if (!parse_command_line(args, opts, "scenario", path)) return 0;
  if (path.empty()) throw UserError("missing the scenario file (usage: stepsim check SCENARIO)");
  const auto fmt = out::parse_render_format(format);
  load.set = with_price(std::move(load.set), parse_price(price));
  const scen::Catalog catalog = load_catalog(extra, parse_price(price));
  const scen::Scenario s = scen::load_scenario(path, catalog, load);
  std::cout << out::render_check(s, fmt);
  return 0;
}

}  // namespace stepsim::cli
