// `stepsim merge OUT.h5 SHARD.h5... [--csv FILE]`: joins the results files of a sharded sweep.
#include <boost/program_options.hpp>
#include <iostream>

#include "output/sweep/sweep_merge.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_merge(Args args) {
  namespace po = boost::program_options;
  std::vector<std::string> files;
  std::string csv;
  po::options_description visible(
      "stepsim merge OUT.h5 SHARD.h5... [--csv FILE]\n\n"
      "Joins the results of `stepsim sweep --shard I/N` runs into one file, checking that they come from "
      "one\n"
      "sweep and hold every point exactly once. The result is byte-identical to an unsharded run's");
  visible.add_options()("help,h", "show this help")("csv", po::value(&csv), "also write the rows as CSV");
  if (!parse_command_line(args, visible, "file", files)) return 0;
  if (files.size() < 2)
    throw UserError("usage: stepsim merge OUT.h5 SHARD.h5... (the output, then at least one shard)");
  const std::vector<std::filesystem::path> shards(files.begin() + 1, files.end());
  std::optional<std::filesystem::path> csv_path;
  if (!csv.empty()) csv_path = csv;
  const out::MergeSummary s = out::merge_sweep_files(files.front(), shards, csv_path);
  std::cout << "merged " << s.files << " file" << (s.files == 1 ? "" : "s") << ", " << s.points
            << " points, into " << files.front() << (csv.empty() ? "" : " and " + csv) << "\n";
  return 0;
}

}  // namespace stepsim::cli
