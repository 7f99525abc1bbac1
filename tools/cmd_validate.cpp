// `stepsim validate [DIR] [--format table|json] [--jobs N]`: simulates the published measurements
// (the shipped validation scenarios by default) and reports the error per case and MAPE per group.
#include <boost/program_options.hpp>
#include <iostream>
#include <thread>

#include "output/render_format.hpp"
#include "output/validate_view.hpp"
#include "scenarios/data_dir.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_validate(Args args) {
  namespace po = boost::program_options;
  std::string dir, format = "table";
  std::vector<std::string> catalogs;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po::options_description visible(
      "stepsim validate [DIR] [options]\n\n"
      "Simulates every scenario with a [validation] block in DIR (default: the shipped\n"
      "scenarios/validation) and compares the step time with the published measurement");
  visible.add_options()("help,h", "show this help")("format", po::value(&format)->default_value("table"),
                                                    "table or json")(
      "jobs,j", po::value(&jobs), "threads (default: all cores)")(
      "catalog", po::value(&catalogs)->composing(), "extra catalog file (repeatable)");
  po::options_description all;
  all.add(visible).add_options()("dir", po::value(&dir));
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(static_cast<int>(args.size()), args.data()).options(all).positional(pos).run(),
            vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << visible << "\n";
    return 0;
  }
  const out::RenderFormat fmt = out::parse_render_format(format);
  const std::filesystem::path folder = dir.empty() ? scen::data_dir() / "validation" : std::filesystem::path(dir);
  const std::vector<std::filesystem::path> files(catalogs.begin(), catalogs.end());
  const auto report = scen::run_validation(folder, scen::Catalog::load_builtin().with_files(files), jobs);
  std::cout << (fmt == out::RenderFormat::json ? out::validate_json_text(report) : out::validate_table(report) + "\n");
  return 0;
}

}  // namespace stepsim::cli
