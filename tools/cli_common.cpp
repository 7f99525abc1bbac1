// Command-line parsing and argument resolution shared by the stepsim subcommands.
#include "tools/cli_common.hpp"

#include <filesystem>
#include <iostream>

#include "sim/error.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

po::variables_map store_command_line(Args args, const po::options_description& visible,
                                     const char* positional_name, po::value_semantic* positional,
                                     int max_positional) {
  po::options_description all;
  all.add(visible).add_options()(positional_name, positional);
  po::positional_options_description pos;
  pos.add(positional_name, max_positional);
  po::variables_map vm;
  po::store(
      po::command_line_parser(static_cast<int>(args.size()), args.data()).options(all).positional(pos).run(),
      vm);
  po::notify(vm);
  return vm;
}

namespace {

/// Prints `visible` and returns false when --help was given, else true.
bool unless_help(const po::variables_map& vm, const po::options_description& visible) {
  if (!vm.count("help")) return true;
  std::cout << visible << "\n";
  return false;
}

}  // namespace

bool parse_command_line(Args args, const po::options_description& visible, const char* positional_name,
                        std::string& target) {
  return unless_help(store_command_line(args, visible, positional_name, po::value(&target), 1), visible);
}

bool parse_command_line(Args args, const po::options_description& visible, const char* positional_name,
                        std::vector<std::string>& targets) {
  return unless_help(store_command_line(args, visible, positional_name, po::value(&targets)->composing(), -1),
                     visible);
}

scen::Catalog load_catalog(const std::vector<std::string>& files) {
  const std::vector<std::filesystem::path> paths(files.begin(), files.end());
  return scen::Catalog::load_builtin().with_files(paths);
}

work::RankMode parse_rank_mode(const std::string& text) {
  if (text == "representative") return work::RankMode::representative;
  if (text == "all") return work::RankMode::all;
  throw UserError("--ranks: expected representative or all, got `" + text + "`");
}

const std::string& scenario_label(const scen::Scenario& s) {
  return s.meta.name.empty() ? s.display_name : s.meta.name;
}

}  // namespace stepsim::cli
