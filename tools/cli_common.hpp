#pragma once
// What the stepsim subcommands share: parsing a command line with a hidden positional option and
// --help, the catalog from --catalog files, --ranks, and the name a scenario is reported under.

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "tools/commands.hpp"
#include "workloads/rank_sink.hpp"

namespace stepsim::cli {

/// Parses `args` (argv[0] is the subcommand) against `visible` plus the hidden option
/// `positional_name`, which takes up to `max_positional` positional arguments (-1: any number)
/// into `positional` (e.g. po::value(&x), owned from then on), and notifies. Throws
/// boost::program_options::error on a bad command line.
boost::program_options::variables_map store_command_line(
    Args args, const boost::program_options::options_description& visible, const char* positional_name,
    boost::program_options::value_semantic* positional, int max_positional);

/// store_command_line with one positional argument into `target`. Returns false when --help
/// was given: `visible` has then been printed to stdout and the command should exit 0.
bool parse_command_line(Args args, const boost::program_options::options_description& visible,
                        const char* positional_name, std::string& target);

/// store_command_line with any number of positional arguments appended to `targets`. Returns
/// false when --help was given: `visible` has then been printed and the command should exit 0.
bool parse_command_line(Args args, const boost::program_options::options_description& visible,
                        const char* positional_name, std::vector<std::string>& targets);

/// The built-in catalog with the --catalog `files` applied in order.
scen::Catalog load_catalog(const std::vector<std::string>& files);

/// The --ranks value: representative or all; throws UserError otherwise.
work::RankMode parse_rank_mode(const std::string& text);

/// The name a scenario is reported under: its [meta] name, else its display name.
const std::string& scenario_label(const scen::Scenario& s);

}  // namespace stepsim::cli
