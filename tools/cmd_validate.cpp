// `stepsim validate [DIR] [--format table|json] [--jobs N]`: simulates the published measurements
// (the shipped validation scenarios by default) and reports the error per case and MAPE per group;
// cases marked not simulated are listed with their reason and counted apart.
#include <boost/program_options.hpp>
#include <iostream>
#include <thread>

#include "output/common/atomic_file.hpp"
#include "output/common/render_format.hpp"
#include "output/views/validate_view.hpp"
#include "scenarios/data_dir.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_validate(Args args) {
  namespace po = boost::program_options;
  std::string dir, format = "table", accuracy_file;
  std::vector<std::string> catalogs;
  bool quiet = false;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po::options_description visible(
      "stepsim validate [DIR] [options]\n\n"
      "Simulates every scenario with a [validation] block in DIR (default: the shipped\n"
      "scenarios/validation) and compares the step time with the published measurement.\n"
      "Cases with validation.not_simulated are listed with that reason (and the error if\n"
      "stepsim refuses their configuration) and left out of every error figure");
  visible.add_options()("help,h", "show this help")("format", po::value(&format)->default_value("table"),
                                                    "table or json")("jobs,j", jobs_value(jobs),
                                                                     "threads (default: all cores)")(
      "catalog", po::value(&catalogs)->composing(), "extra catalog file (repeatable)")(
      "write-accuracy", po::value(&accuracy_file),
      "also write the errors per class of run (GPU, workload, dense or MoE, precision) to this\n"
      "TOML file: the table `stepsim run` shows beside a prediction\n"
      "(scenarios/accuracy/validated.toml for the shipped cases)");
  add_quiet_option(visible, quiet);
  std::uint64_t max_ops = work::kDefaultMaxOps;
  add_max_ops_option(visible, max_ops);
  if (!parse_command_line(args, visible, "dir", dir)) return 0;
  const out::RenderFormat fmt = out::parse_render_format(format);
  const std::filesystem::path folder =
      dir.empty() ? scen::data_dir() / "validation" : std::filesystem::path(dir);
  const scen::Catalog catalog = load_catalog(catalogs);
  out::ProgressOptions shown;
  shown.label = "validate";
  shown.unit = "files";
  TerminalProgress progress(std::move(shown), quiet, fmt);
  const auto report = scen::run_validation(
      folder, catalog, jobs,
      [&progress](std::size_t done, std::size_t files) {
        progress.reporter().set_total(files);
        progress.reporter().set_done(done);
      },
      max_ops);
  progress.finish();
  if (!accuracy_file.empty())
    out::write_file_atomically(accuracy_file, scen::accuracy_toml(scen::accuracy_bands(report)),
                               "--write-accuracy");
  std::cout << (fmt == out::RenderFormat::json ? out::validate_json_text(report)
                                               : out::validate_table(report) + "\n");
  return 0;
}

}  // namespace stepsim::cli
