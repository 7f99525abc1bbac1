// `stepsim import CONFIG.json [--out model.toml]`: a Hugging Face config.json as a [model] table.
#include <boost/program_options.hpp>
#include <iostream>

#include "output/atomic_file.hpp"
#include "scenarios/hf_config.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace cmd_import_help {

/// One supported architecture per line.
std::string architecture_lines() {
  std::string list = scen::supported_hf_architectures();
  for (auto at = list.find(", "); at != std::string::npos; at = list.find(", ", at))
    list.replace(at, 2, "\n  ");
  return list;
}

}  // namespace cmd_import_help

int cmd_import(Args args) {
  namespace po = boost::program_options;
  using cmd_import_help::architecture_lines;
  std::string config;
  std::string out_path;
  po::options_description visible(
      "stepsim import CONFIG.json [--out model.toml]\n\n"
      "Reads a Hugging Face config.json (or a model folder holding one) and writes the [model] table\n"
      "with every dimension explicit, so a scenario can keep the model without the JSON file. Keys the\n"
      "config sets that stepsim does not simulate are listed as comments.\n\n"
      "Architectures (the config's architectures[0]):\n  " +
      architecture_lines());
  visible.add_options()("help,h", "show this help")("out", po::value(&out_path),
                                                    "write the table to this file instead of stdout");
  if (!parse_command_line(args, visible, "config", config)) return 0;
  if (config.empty())
    throw UserError("missing the config file (usage: stepsim import CONFIG.json [--out FILE])");
  if (!out_path.empty()) out::check_output_path(out_path, "--out");
  const scen::HfModel model = scen::load_hf_config(config);
  const std::string toml = scen::hf_model_toml(model, config);
  if (out_path.empty()) {
    std::cout << toml;
    return 0;
  }
  out::write_file_atomically(out_path, toml, "--out");
  std::cerr << "wrote the [model] table of " << model.model.name << " (" << model.architecture << ") to "
            << out_path << "\n";
  return 0;
}

}  // namespace stepsim::cli
