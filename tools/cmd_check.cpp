// `stepsim check SCENARIO [--format table|json] [--catalog FILE]... [--set KEY=VALUE]...`
#include <boost/program_options.hpp>
#include <iostream>

#include "output/check_view.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_check(Args args) {
  namespace po = boost::program_options;
  std::string path;
  std::string format = "table";
  std::vector<std::string> extra;
  scen::LoadOptions load;
  po::options_description opts(
      "stepsim check SCENARIO [options]\n\nLoads and validates a scenario and prints what it resolved to");
  opts.add_options()("help,h", "show this help")("format", po::value(&format)->default_value("table"),
                                                 "table or json")("catalog", po::value(&extra)->composing(),
                                                                  "extra catalog file (repeatable)")(
      "set", po::value(&load.set)->composing(),
      "override a scenario key, e.g. --set parallelism.tp=4 (repeatable)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&path));
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  po::store(
      po::command_line_parser(static_cast<int>(args.size()), args.data()).options(all).positional(pos).run(),
      vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (path.empty()) throw UserError("missing the scenario file (usage: stepsim check SCENARIO)");
  const auto fmt = out::parse_render_format(format);
  const std::vector<std::filesystem::path> files(extra.begin(), extra.end());
  const scen::Catalog catalog = scen::Catalog::load_builtin().with_files(files);
  const scen::Scenario s = scen::load_scenario(path, catalog, load);
  std::cout << out::render_check(s, fmt);
  return 0;
}

}  // namespace stepsim::cli
