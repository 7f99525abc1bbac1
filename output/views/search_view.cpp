// The layout search as a terminal report (ranked table, why the best wins) and as JSON.
#include "output/views/search_view.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string compact(const work::Layout& l) {
  return l.compact();
}

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
  return buf;
}

std::string money(double usd) {
  if (std::isnan(usd)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.3f", usd);
  return buf;
}

double exposed(const work::Breakdown& b) {
  double s = 0.0;
  for (double v : b.exposed_comm_s) s += v;
  return s;
}

/// "0.31 s (dp 0.25 s, pp 0.06 s)": exposed communication by group, largest first.
std::string exposed_text(const work::Breakdown& b) {
  std::vector<std::pair<double, std::string>> parts;
  for (std::size_t d = 0; d < work::kDimCount; ++d)
    if (b.exposed_comm_s[d] > 0.0)
      parts.emplace_back(b.exposed_comm_s[d], std::string(work::name(static_cast<work::ParallelDim>(d))));
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string s = format_seconds(exposed(b));
  if (parts.empty()) return s;
  s += " (";
  for (std::size_t i = 0; i < parts.size(); ++i)
    s += (i ? ", " : "") + parts[i].second + " " + format_seconds(parts[i].first);
  return s + ")";
}

/// The part of the step where the runner-up loses most against the winner, as shares of each
/// one's step (the steps differ in length when the cluster sizes do).
std::string versus(const SearchCandidate& best, const SearchCandidate& next) {
  const work::Breakdown &a = best.sim.mean, &b = next.sim.mean;
  const double sa = best.sim.step_time_s, sb = next.sim.step_time_s;
  struct Part {
    double mine, theirs;
    const char* what;
  };
  const Part parts[] = {{a.compute_s / sa, b.compute_s / sb, "compute"},
                        {a.memory_bound_s / sa, b.memory_bound_s / sb, "memory-bound kernels"},
                        {exposed(a) / sa, exposed(b) / sb, "exposed communication"},
                        {a.bubble_s / sa, b.bubble_s / sb, "the pipeline bubble"}};
  const Part* worst = &parts[0];
  for (const Part& p : parts)
    if (p.theirs - p.mine > worst->theirs - worst->mine) worst = &p;
  const double gain = best.sim.tokens_per_s_per_gpu / next.sim.tokens_per_s_per_gpu - 1.0;
  if (gain < 5e-4) return "#2 (" + compact(next.layout) + ") is within 0.05%: either will do.";
  const std::string head = pct(gain) + " more tokens/s per GPU than #2 (" + compact(next.layout) + ")";
  if (worst->theirs - worst->mine < 5e-4) return head + ".";
  return head + ", which spends " + pct(worst->theirs) + " of its step on " + worst->what + " against " +
         pct(worst->mine) + ".";
}

Json layout_json(const work::Layout& l) {
  Json j{{"tp", l.tp}, {"pp", l.pp}, {"virtual_stages", l.virtual_stages},
         {"cp", l.cp}, {"ep", l.ep}, {"dp", l.dp}};
  if (l.first_stage_layers > 0) j["first_stage_layers"] = l.first_stage_layers;
  if (l.last_stage_layers > 0) j["last_stage_layers"] = l.last_stage_layers;
  for (const work::KnobInfo& k : work::knobs()) {
    const int v = l.knob(k.knob);
    if (k.choices.empty())
      j[std::string(k.name)] = v;
    else
      j[std::string(k.name)] = std::string(k.choices[static_cast<std::size_t>(v)]);
  }
  return j;
}

Json candidate_json(const SearchResult& r, const SearchCandidate& c, std::size_t rank) {
  Json exposed_by = Json::object();
  for (std::size_t d = 0; d < work::kDimCount; ++d)
    exposed_by[std::string(work::name(static_cast<work::ParallelDim>(d)))] = c.sim.mean.exposed_comm_s[d];
  const double usd = c.sim.usd_per_million_tokens;
  const SearchConfig& cfg = r.configs[c.config];
  return Json{{"rank", rank},
              {"gpu", cfg.gpu},
              {"gpus", cfg.gpus},
              {"nodes", cfg.nodes},
              {"layout", layout_json(c.layout)},
              {"step_time_s", c.sim.step_time_s},
              {"tokens_per_s", c.sim.tokens_per_s},
              {"tokens_per_s_per_gpu", c.sim.tokens_per_s_per_gpu},
              {"mfu", c.sim.mfu},
              {"usd_per_million_tokens", std::isnan(usd) ? Json(nullptr) : Json(usd)},
              {"bottleneck", c.sim.bottleneck},
              {"compute_s", c.sim.mean.compute_s},
              {"memory_bound_s", c.sim.mean.memory_bound_s},
              {"exposed_comm_s", std::move(exposed_by)},
              {"bubble_s", c.sim.mean.bubble_s},
              {"memory_peak_bytes", c.sim.memory_peak_bytes},
              {"bound_step_s", c.bound_step_s},
              {"bound_memory_bytes", c.bound_memory_bytes}};
}

Json counts_json(const SearchConfig& c) {
  return Json{{"enumerated", c.enumerated},
              {"invalid", c.invalid},
              {"merged", c.merged},
              {"space", c.space},
              {"did_not_fit", c.did_not_fit},
              {"pruned", c.pruned},
              {"simulated", c.simulated},
              {"fit", c.fit},
              {"out_of_memory", c.out_of_memory},
              {"rejected", c.rejected}};
}

/// "3,780 layouts, 1,260 merged (same program), 12 invalid: space 2,508, 1,500 do not fit; of the 1,008
/// that may, 938 pruned by the bound, 70 simulated (68 fit, 2 out of memory)".
std::string counts_text(const SearchConfig& c) {
  const auto n = [](std::size_t v) { return format_number(static_cast<double>(v), 0); };
  std::string s = n(c.enumerated) + " layouts";
  if (c.merged > 0) s += ", " + n(c.merged) + " merged (same program)";
  if (c.invalid > 0) s += ", " + n(c.invalid) + " invalid";
  s += ": space " + n(c.space) + ", " + n(c.did_not_fit) + " do not fit; of the " +
       n(c.space - c.did_not_fit) + " that may, " + n(c.pruned) + " pruned by the bound, " + n(c.simulated) +
       " simulated (" + n(c.fit) + " fit";
  if (c.out_of_memory > 0) s += ", " + n(c.out_of_memory) + " out of memory";
  if (c.rejected > 0) s += ", " + n(c.rejected) + " rejected";
  return s + ")";
}

std::string rank_text(SearchRank r) {
  return r == SearchRank::tokens_per_s ? "tokens/s" : "$ per million tokens";
}

}  // namespace

std::string search_no_layout(const SearchResult& r) {
  const SearchConfig& t = r.total;
  std::string s = "no layout was ranked: of " + std::to_string(t.enumerated) + " layouts, " +
                  std::to_string(t.invalid) + " were invalid, " + std::to_string(t.did_not_fit) +
                  " cannot fit by their memory lower bound, " + std::to_string(t.out_of_memory) +
                  " ran out of memory when simulated and " + std::to_string(t.rejected) +
                  " were refused by the scenario reader or the simulator";
  if (!r.first_problem.empty()) s += " (the first: " + r.first_problem + ")";
  return s;
}

std::string search_explanation(const SearchResult& r) {
  if (r.ranked.empty()) return "No layout fits: " + search_no_layout(r) + ".\n";
  const SearchCandidate& w = r.ranked.front();
  const work::Breakdown& b = w.sim.mean;
  std::string s = "Best: " + w.layout.text() + " on " + std::to_string(r.configs[w.config].gpus) + " " +
                  r.configs[w.config].gpu + ".\n";
  s += "  " + format_number(w.sim.tokens_per_s_per_gpu, 0) + " tokens/s per GPU, MFU " + pct(w.sim.mfu) +
       ", " + money(w.sim.usd_per_million_tokens) + " per million tokens; step " +
       format_seconds(w.sim.step_time_s) + ".\n";
  s += "  Waits most on " + w.sim.bottleneck + ": compute " + format_seconds(b.compute_s) +
       ", memory-bound kernels " + format_seconds(b.memory_bound_s) + ", exposed communication " +
       exposed_text(b) + ", bubble " + format_seconds(b.bubble_s) + "; memory peak " +
       format_bytes(w.sim.memory_peak_bytes) + " of " + format_bytes(w.sim.capacity_bytes) + ".\n";
  if (r.ranked.size() > 1) s += "  " + versus(w, r.ranked[1]) + "\n";
  return s;
}

std::string search_table(const SearchResult& r, std::size_t top) {
  std::string s = "Layout search: " + r.model + " (" + r.scenario + "), ranked by " + rank_text(r.rank) +
                  "; a layout is skipped only when its step lower bound cannot beat the best simulated one " +
                  (r.prune == PruneScope::global ? "overall" : "of its GPU and count") + "\n";
  for (const SearchConfig& c : r.configs)
    s += "  " + c.gpu + " x " + std::to_string(c.gpus) + ": " + counts_text(c) + "\n";
  if (r.configs.size() > 1) s += "  all: " + counts_text(r.total) + "\n";
  if (r.headroom_bytes > 0.0) s += "  fitting leaves " + format_bytes(r.headroom_bytes) + " of HBM free\n";
  for (const auto& [text, n] : r.merges) s += "  merged: " + text + " (" + std::to_string(n) + ")\n";
  for (const std::string& a : r.adaptations) s += "  adapted: " + a + "\n";
  s += "\n";
  TextTable t({"#", "gpu", "GPUs", "layout", "step", "tok/s/GPU", "MFU", "$/Mtok", "mem peak", "bottleneck",
               "exposed comm", "bubble", "bound"},
              {Align::right, Align::left, Align::right, Align::left});
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i) {
    const SearchCandidate& c = r.ranked[i];
    const SearchConfig& cfg = r.configs[c.config];
    t.add_row({std::to_string(i + 1), cfg.gpu, std::to_string(cfg.gpus), compact(c.layout),
               format_seconds(c.sim.step_time_s), format_number(c.sim.tokens_per_s_per_gpu, 0),
               pct(c.sim.mfu), money(c.sim.usd_per_million_tokens), format_bytes(c.sim.memory_peak_bytes),
               c.sim.bottleneck, format_seconds(exposed(c.sim.mean)), format_seconds(c.sim.mean.bubble_s),
               format_seconds(c.bound_step_s)});
  }
  s += t.render() + "\n" + search_explanation(r);
  s += std::string("The first row") +
       (r.prune == PruneScope::global || r.configs.size() == 1 ? " is" : " of each GPU and count is") +
       " the best of the whole space; the other rows are the best of the layouts simulated.\n";
  if (!r.first_invalid.empty()) s += "First invalid layout: " + r.first_invalid + "\n";
  if (!r.first_problem.empty()) s += "First rejected layout: " + r.first_problem + "\n";
  return s;
}

std::string search_json(const SearchResult& r, std::size_t top) {
  Json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["rank_by"] = r.rank == SearchRank::tokens_per_s ? "tokens_per_s" : "usd_per_million_tokens";
  j["prune"] = r.prune == PruneScope::global ? "global" : "per_config";
  j["headroom_bytes"] = r.headroom_bytes;
  Json configs = Json::array();
  for (const SearchConfig& c : r.configs)
    configs.push_back({{"gpu", c.gpu}, {"gpus", c.gpus}, {"nodes", c.nodes}, {"counts", counts_json(c)}});
  j["configs"] = std::move(configs);
  j["counts"] = counts_json(r.total);
  Json merges = Json::array();
  for (const auto& [text, n] : r.merges) merges.push_back({{"what", text}, {"layouts", n}});
  j["merged"] = std::move(merges);
  j["adapted"] = r.adaptations;
  Json rows = Json::array();
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i)
    rows.push_back(candidate_json(r, r.ranked[i], i + 1));
  j["layouts"] = std::move(rows);
  j["why"] = search_explanation(r);
  return j.dump(2) + "\n";
}

}  // namespace stepsim::out
