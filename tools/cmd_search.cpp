// `stepsim search SCENARIO [--gpu LIST] [--gpus LIST] [--rank tokens_per_s|cost] [--prune per-config|global]
//  [--headroom-gb X] [--top N] [--jobs N] [--max-tp N] [--max-pp N] [--max-cp N] [--micro-batches LIST]
//  [--zero LIST] [--recompute LIST] [--format table|json]`: the best parallel layout for a training job.
#include <boost/program_options.hpp>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "output/common/format.hpp"
#include "output/common/render_format.hpp"
#include "output/views/search_view.hpp"
#include "scenarios/catalog.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) out.push_back(part);
  return out;
}

/// "512,1024" as integers of at least 1.
std::vector<int> count_list(const std::string& text, const char* option) {
  std::vector<int> out;
  for (const std::string& w : words(text)) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != w.size() || w.empty() || v < 1)
      throw UserError(std::string(option) + ": expected GPU counts of at least 1 separated by commas, got `" +
                      text + "`");
    out.push_back(v);
  }
  return out;
}

double headroom_bytes(const std::string& text) {
  std::size_t used = 0;
  double gb = -1.0;
  try {
    gb = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(gb >= 0.0) || !std::isfinite(gb))
    throw UserError("--headroom-gb: expected a size in GB (1e9 bytes) of at least 0, got `" + text + "`");
  return gb * 1e9;
}

out::SearchRank rank_of(const std::string& s) {
  if (s == "tokens_per_s" || s == "throughput") return out::SearchRank::tokens_per_s;
  if (s == "cost") return out::SearchRank::cost;
  throw UserError("--rank: expected tokens_per_s or cost, got `" + s + "`");
}

out::PruneScope prune_of(const std::string& s) {
  if (s == "per-config") return out::PruneScope::per_config;
  if (s == "global") return out::PruneScope::global;
  throw UserError("--prune: expected per-config or global, got `" + s + "`");
}

/// Feeds the search's progress to `r`: first bounding every layout, then simulating the candidates
/// in order of their bounds, which stops early once no bound can win (so that ETA is an upper bound).
std::function<void(const out::SearchProgress&)> search_progress_feed(out::ProgressReporter& r) {
  enum class Phase : std::uint8_t { loading, bounding, simulating };
  auto phase = std::make_shared<Phase>(Phase::loading);  // calls are serialised by the search
  return [&r, phase](const out::SearchProgress& p) {
    if (p.candidates > 0 || p.simulated > 0) {
      if (*phase != Phase::simulating) r.start_phase("simulating", p.candidates, out::EtaMeaning::at_most);
      *phase = Phase::simulating;
      std::string detail = out::format_number(static_cast<double>(p.skipped), 0) + " skipped";
      if (p.best_tokens_per_s_per_gpu > 0.0)
        detail += ", best " + out::format_number(p.best_tokens_per_s_per_gpu, 0) + " tok/s/GPU";
      r.set_detail(std::move(detail));
      r.set_done(p.simulated + p.skipped);
      return;
    }
    if (*phase == Phase::loading) r.start_phase("bounding", p.layouts);
    *phase = Phase::bounding;
    r.set_done(p.bounded);
  };
}

struct SearchArgs {
  std::string scenario, format = "table", rank = "tokens_per_s", prune = "per-config", gpu, gpus,
                        headroom = "0";
  std::array<std::string, work::kKnobCount> knobs;
  std::vector<std::string> catalogs;
  out::SearchOptions o;
  std::size_t top = 10;
  std::string price;  ///< --price as typed
  bool quiet = false;
  bool help = false;
};

std::string joined(const work::KnobInfo& k) {
  std::string s;
  for (int v : k.defaults)
    s += (s.empty() ? "" : ",") + (k.choices.empty() ? std::to_string(v) : std::string(k.choices[v]));
  return s;
}

SearchArgs parse_search_args(Args args) {
  namespace po = boost::program_options;
  SearchArgs a;
  po::options_description visible(
      "stepsim search SCENARIO [options]\n\n"
      "Finds the best parallel layout for the scenario's model, fabric and global batch, on its GPUs or on\n"
      "each --gpu type and --gpus count: enumerates TP, PP (and interleaved stages), CP, EP, DP, "
      "micro-batch,\n"
      "ZeRO stage and recomputation, merges layouts that run the same program, bounds every step from its\n"
      "kernels, and simulates in order of the bound until no remaining layout can beat the best one found");
  auto add = visible.add_options();
  add("help,h", "show this help");
  add("gpu", po::value(&a.gpu),
      "GPU types to compare, catalog ids, e.g. h100-sxm,h200,b200 (default: the scenario's)");
  add("gpus", po::value(&a.gpus), "total GPU counts to compare, e.g. 512,1024 (default: the scenario's)");
  add("rank", po::value(&a.rank)->default_value("tokens_per_s"),
      "tokens_per_s or cost ($ per million tokens)");
  add("prune", po::value(&a.prune)->default_value("per-config"),
      "per-config: prove each GPU and count's best; global: only the overall best (fewer simulations)");
  add("headroom-gb", po::value(&a.headroom)->default_value("0"),
      "GB (1e9 bytes) of HBM a layout must leave free to count as fitting");
  add("top", count_value(a.top, "--top", 1, 1'000'000)->default_value("10"), "layouts to show");
  add("jobs,j", jobs_value(a.o.jobs), "threads (default: one per CPU)");
  add("max-tp", count_value(a.o.space.max_tp, "--max-tp", 1, 1'000'000),
      "largest TP (default: the NVLink domain)");
  add("max-pp", count_value(a.o.space.max_pp, "--max-pp", 1, 1'000'000)->default_value("64"), "largest PP");
  add("max-cp", count_value(a.o.space.max_cp, "--max-cp", 1, 1'000'000)->default_value("8"), "largest CP");
  for (const work::KnobInfo& k : work::knobs()) {
    const std::size_t i = static_cast<std::size_t>(k.knob);
    const std::string option(k.option);
    add(option.c_str(), po::value(&a.knobs[i])->default_value(joined(k)),
        (std::string(k.key.substr(k.key.find('.') + 1)) + " values to try").c_str());
  }
  add("format", po::value(&a.format)->default_value("table"), "table or json");
  add("catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)");
  add("set", po::value(&a.o.set)->composing(),
      "override a scenario key, e.g. --set workload.global_batch=512");
  add_price_option(visible, a.price);
  add_quiet_option(visible, a.quiet);
  add_max_ops_option(visible, a.o.max_ops);
  a.help = !parse_command_line(args, visible, "scenario", a.scenario);
  return a;
}

}  // namespace

int cmd_search(Args args) {
  SearchArgs a = parse_search_args(args);
  if (a.help) return 0;
  out::SearchOptions& o = a.o;
  if (a.scenario.empty()) throw UserError("missing the scenario file (usage: stepsim search SCENARIO)");
  o.rank = rank_of(a.rank);
  o.prune = prune_of(a.prune);
  o.headroom_bytes = headroom_bytes(a.headroom);
  if (!a.gpu.empty()) o.gpu_types = words(a.gpu);
  if (!a.gpus.empty()) o.gpu_counts = count_list(a.gpus, "--gpus");
  for (const work::KnobInfo& k : work::knobs()) {
    std::vector<int>& values = o.space.values(k.knob);
    const std::string option = "--" + std::string(k.option);
    for (const std::string& w : words(a.knobs[static_cast<std::size_t>(k.knob)]))
      values.push_back(k.parse(w, option));
    if (values.empty()) throw UserError(option + ": expected at least one value");
  }
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  const out::RenderFormat f = out::parse_render_format(a.format);
  const std::optional<double> price = parse_price(a.price);
  o.set = with_price(std::move(o.set), price);
  const scen::Catalog catalog = load_catalog(a.catalogs, price);
  out::ProgressOptions shown;
  shown.label = "search";
  shown.unit = "layouts";
  TerminalProgress progress(std::move(shown), a.quiet, f);
  if (terminal_progress_style(a.quiet, f) != out::ProgressStyle::none)
    o.progress = search_progress_feed(progress.reporter());
  const out::SearchResult r = out::search_layouts(a.scenario, catalog, o);
  progress.finish();
  std::cout << (f == out::RenderFormat::json ? out::search_json(r, a.top) : out::search_table(r, a.top));
  // The counts above say what happened; no ranked layout is not an answer (exit 2).
  if (r.ranked.empty())
    throw UserError({}, "search", out::search_no_layout(r),
                    r.total.rejected > 0 ? "see the first refusal: a limit such as --max-ops may need raising"
                                         : "try more GPUs (--gpus), a GPU with more memory (--gpu) or less "
                                           "--headroom-gb");
  return 0;
}

}  // namespace stepsim::cli
