// `stepsim bench [CASE...] [--format table|json]`: runs benchmark cases and prints what they measured.

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "output/common/format.hpp"
#include "output/common/render_format.hpp"
#include "scenarios/suggest.hpp"
#include "sim/error.hpp"
#include "tools/bench.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

namespace {

namespace po = boost::program_options;

const BenchCase& find_case(const std::string& name) {
  std::vector<std::string> known;
  for (const BenchCase& c : bench_cases()) {
    if (name == c.name) return c;
    known.emplace_back(c.name);
  }
  const std::string hint = scen::did_you_mean(name, known);
  throw UserError({}, "bench", "unknown benchmark case `" + name + "`",
                  hint.empty() ? "known cases: " + scen::join_names(known) : hint);
}

void print_table(const std::vector<BenchResult>& results) {
  for (const BenchResult& r : results) {
    std::printf("%s: %s\n", r.name.c_str(), r.note.c_str());
    std::printf("  %-22s %s\n", "wall", out::format_seconds(r.wall_s).c_str());
    std::printf("  %-22s %s\n", "peak RSS (process)", out::format_bytes(r.peak_rss_bytes).c_str());
    for (const auto& [key, value] : r.metrics) {
      const int decimals = value != 0.0 && std::abs(value) < 100.0 ? 3 : 0;
      std::printf("  %-22s %s\n", key.c_str(), out::format_number(value, decimals).c_str());
    }
  }
}

void print_json(const std::vector<BenchResult>& results) {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const BenchResult& r : results) {
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.metrics) metrics[key] = value;
    cases.push_back({{"name", r.name},
                     {"note", r.note},
                     {"wall_s", r.wall_s},
                     {"peak_rss_bytes", r.peak_rss_bytes},
                     {"metrics", metrics}});
  }
  std::cout << cases.dump(2) << '\n';
}

struct BenchOptions {
  std::vector<std::string> cases;
  out::RenderFormat format = out::RenderFormat::table;
  bool done = false;  ///< --help or --list was answered
};

BenchOptions parse_options(Args args) {
  po::options_description visible(
      "usage: stepsim bench [CASE...] [options]\n\nRuns benchmark cases (all by default)");
  std::string format = "table";
  visible.add_options()("help,h", "print this help")("list", "list the cases and exit")(
      "format", po::value(&format)->value_name("table|json"), "output format (default table)");
  BenchOptions options;
  const CommandLine line = store_command_line(args, visible, "case", -1);
  const po::variables_map& vm = line.options;
  options.cases = line.positional;
  options.format = out::parse_render_format(format);
  options.done = vm.count("help") > 0 || vm.count("list") > 0;
  if (vm.count("help")) std::cout << visible << "\ncases:\n";
  if (options.done)
    for (const BenchCase& c : bench_cases()) std::printf("  %-14s %s\n", c.name, c.summary);
  if (vm.count("help")) std::cout << "\n" << help_example(args);
  return options;
}

}  // namespace

int cmd_bench(Args args) {
  const BenchOptions options = parse_options(args);
  if (options.done) return 0;
  std::vector<const BenchCase*> selected;
  for (const std::string& n : options.cases) selected.push_back(&find_case(n));
  if (selected.empty())
    for (const BenchCase& c : bench_cases()) selected.push_back(&c);
  std::vector<BenchResult> results;
  std::vector<std::string> failed;
  for (const BenchCase* c : selected) {
    std::fprintf(stderr, "running %s...\n", c->name);
    // A case that cannot run (a bundled scenario it loads broke) is reported, and the others
    // still run: one broken case does not cost a long bench its figures.
    try {
      BenchResult r = c->run();
      if (r.peak_rss_bytes == 0.0) r.peak_rss_bytes = peak_rss_bytes();
      results.push_back(std::move(r));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench case %s failed: %s\n", c->name, e.what());
      failed.push_back(c->name);
    }
  }
  if (options.format == out::RenderFormat::json)
    print_json(results);
  else
    print_table(results);
  if (failed.empty()) return 0;
  std::string names;
  for (const std::string& n : failed) names += (names.empty() ? "" : ", ") + n;
  // The cases are built in: one that fails is stepsim's fault, not the user's.
  std::fprintf(stderr, "error: %zu bench case(s) failed: %s\n", failed.size(), names.c_str());
  return 1;
}

}  // namespace stepsim::cli
