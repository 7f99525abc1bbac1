// `stepsim search SCENARIO [--rank throughput|cost] [--nodes LIST] [--simulate K] [--top N]
//  [--jobs N] [--max-tp N] [--format table|json]`: the best parallel layout for a training job.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>
#include <thread>

#include "output/render_format.hpp"
#include "output/search_view.hpp"
#include "scenarios/catalog.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace {

/// "1,2,4" as integers in [lo, hi].
std::vector<int> int_list(const std::string& text, const char* option, int lo = 1, int hi = 1 << 20) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || v < lo || v > hi)
      throw UserError(std::string(option) + ": expected integers from " + std::to_string(lo) + " to " +
                      std::to_string(hi) + " separated by commas, got `" + text + "`");
    out.push_back(v);
  }
  return out;
}

std::vector<work::Recompute> recompute_list(const std::string& text) {
  std::vector<work::Recompute> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    if (part == "none")
      out.push_back(work::Recompute::none);
    else if (part == "selective")
      out.push_back(work::Recompute::selective);
    else if (part == "full")
      out.push_back(work::Recompute::full);
    else
      throw UserError("--recompute: expected none, selective and/or full, got `" + part + "`");
  }
  return out;
}

struct SearchArgs {
  std::string scenario, format = "table", rank = "throughput", nodes, micro = "1,2,4,8", zero = "0,1,2,3";
  std::string recompute = "none,selective,full";
  std::vector<std::string> catalogs;
  out::SearchOptions o;
  std::size_t top = 10;
  bool help = false;
};

SearchArgs parse(Args args) {
  namespace po = boost::program_options;
  SearchArgs a;
  auto& [scenario, format, rank, nodes, micro, zero, recompute, catalogs, o, top, help] = a;
  po::options_description visible(
      "stepsim search SCENARIO [options]\n\n"
      "Finds the best parallel layout for the scenario's model, GPUs, fabric and global batch: enumerates\n"
      "TP, PP (and interleaved stages), CP, EP, DP, micro-batch, ZeRO stage and recomputation, drops what "
      "the\n"
      "closed-form estimate says cannot fit, simulates the most promising layouts and ranks them");
  visible.add_options()("help,h", "show this help")("rank", po::value(&rank)->default_value("throughput"),
                                                    "throughput (tokens/s) or cost ($ per million tokens)")(
      "nodes", po::value(&nodes), "cluster sizes to compare, e.g. 16,32,64 (default: the scenario's)")(
      "simulate", po::value(&o.simulate)->default_value(32),
      "layouts to simulate (the best by the estimate)")("top", po::value(&top)->default_value(10),
                                                        "layouts to show")(
      "jobs,j", po::value(&o.jobs)->default_value(0), "threads (0: one per CPU)")(
      "max-tp", po::value(&o.space.max_tp)->default_value(0), "largest TP (0: the NVLink domain)")(
      "max-pp", po::value(&o.space.max_pp)->default_value(64), "largest PP")(
      "max-cp", po::value(&o.space.max_cp)->default_value(8), "largest CP")(
      "micro-batches", po::value(&micro)->default_value("1,2,4,8"), "micro-batch sizes to try")(
      "zero", po::value(&zero)->default_value("0,1,2,3"), "ZeRO stages to try")(
      "recompute", po::value(&recompute)->default_value("none,selective,full"), "recomputation modes to try")(
      "format", po::value(&format)->default_value("table"), "table or json")(
      "catalog", po::value(&catalogs)->composing(), "extra catalog file (repeatable)")(
      "set", po::value(&o.set)->composing(), "override a scenario key, e.g. --set workload.global_batch=512");
  help = !parse_command_line(args, visible, "scenario", scenario);
  return a;
}

}  // namespace

int cmd_search(Args args) {
  SearchArgs a = parse(args);
  if (a.help) return 0;
  auto& [scenario, format, rank, nodes, micro, zero, recompute, catalogs, o, top, help] = a;
  if (scenario.empty()) throw UserError("missing the scenario file (usage: stepsim search SCENARIO)");
  if (rank != "throughput" && rank != "cost")
    throw UserError("--rank: expected throughput or cost, got `" + rank + "`");
  o.rank = rank == "cost" ? out::SearchRank::cost : out::SearchRank::throughput;
  if (!nodes.empty()) o.nodes = int_list(nodes, "--nodes");
  o.space.micro_batches = int_list(micro, "--micro-batches");
  o.space.zero_stages = int_list(zero, "--zero", 0, 3);
  o.space.recomputes = recompute_list(recompute);
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  const out::RenderFormat f = out::parse_render_format(format);
  const scen::Catalog catalog = load_catalog(catalogs);
  const out::SearchResult r = out::search_layouts(scenario, catalog, o);
  std::cout << (f == out::RenderFormat::json ? out::search_json(r, top) : out::search_table(r, top));
  return 0;
}

}  // namespace stepsim::cli
