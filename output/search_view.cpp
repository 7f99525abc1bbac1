// The layout search as a terminal report (ranked table, why the best wins) and as JSON.
#include "output/search_view.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/format.hpp"
#include "output/text_table.hpp"
#include "workloads/names.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string compact(const work::Layout& l) {
  std::string s = "TP" + std::to_string(l.tp) + " PP" + std::to_string(l.pp);
  if (l.virtual_stages > 1) s += "x" + std::to_string(l.virtual_stages);
  if (l.cp > 1) s += " CP" + std::to_string(l.cp);
  if (l.ep > 1) s += " EP" + std::to_string(l.ep);
  s += " DP" + std::to_string(l.dp) + " mb" + std::to_string(l.micro_batch) + " Z" +
       std::to_string(l.zero_stage);
  if (l.recompute != work::Recompute::none)
    s += l.recompute == work::Recompute::full ? " rc-full" : " rc-sel";
  return s;
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

Json candidate_json(const SearchCandidate& c, std::size_t rank) {
  const auto& l = c.layout;
  Json exposed_by = Json::object();
  for (std::size_t d = 0; d < work::kDimCount; ++d)
    exposed_by[std::string(work::name(static_cast<work::ParallelDim>(d)))] = c.sim.mean.exposed_comm_s[d];
  const double usd = c.sim.usd_per_million_tokens;
  return Json{{"rank", rank},
              {"layout",
               {{"tp", l.tp},
                {"pp", l.pp},
                {"virtual_stages", l.virtual_stages},
                {"cp", l.cp},
                {"ep", l.ep},
                {"dp", l.dp},
                {"micro_batch", l.micro_batch},
                {"zero_stage", l.zero_stage},
                {"recompute", std::string(work::name(l.recompute))}}},
              {"nodes", c.nodes},
              {"gpus", c.gpus},
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
              {"est_tokens_per_s", c.est_tokens_per_s},
              {"est_bound", c.est_bound}};
}

}  // namespace

std::string search_explanation(const SearchResult& r) {
  if (r.ranked.empty()) return "No layout fits: every candidate was invalid or out of memory.\n";
  const SearchCandidate& w = r.ranked.front();
  const work::Breakdown& b = w.sim.mean;
  std::string s =
      "Best: " + w.layout.text() + (w.nodes > 0 ? " on " + std::to_string(w.gpus) + " GPUs" : "") + ".\n";
  s += "  " + format_number(w.sim.tokens_per_s_per_gpu, 0) + " tokens/s per GPU, MFU " + pct(w.sim.mfu) +
       ", " + money(w.sim.usd_per_million_tokens) + " per million tokens; step " +
       format_seconds(w.sim.step_time_s) + ".\n";
  s += "  Bound by " + w.sim.bottleneck + ": compute " + format_seconds(b.compute_s) +
       ", memory-bound kernels " + format_seconds(b.memory_bound_s) + ", exposed communication " +
       exposed_text(b) + ", bubble " + format_seconds(b.bubble_s) + "; memory peak " +
       format_bytes(w.sim.memory_peak_bytes) + " of " + format_bytes(w.sim.capacity_bytes) + ".\n";
  if (r.ranked.size() > 1) s += "  " + versus(w, r.ranked[1]) + "\n";
  return s;
}

std::string search_table(const SearchResult& r, std::size_t top) {
  std::string s = "Layout search: " + r.model + " on " + r.gpu + " (" + r.scenario + "), ranked by " +
                  (r.rank == SearchRank::throughput ? "tokens/s" : "$ per million tokens") + "\n";
  s += "  " + std::to_string(r.enumerated) + " layouts; " + std::to_string(r.estimate_failed) +
       " rejected by the estimate, " + std::to_string(r.memory_pruned) +
       " estimated not to fit; simulated the best " + std::to_string(r.simulated + r.invalid) +
       " by estimate: " + std::to_string(r.ranked.size()) + " fit, " + std::to_string(r.out_of_memory) +
       " out of memory, " + std::to_string(r.invalid) + " invalid\n\n";
  TextTable t({"#", "layout", "GPUs", "step", "tok/s/GPU", "MFU", "$/Mtok", "mem peak", "bottleneck",
               "exposed comm", "bubble", "est tok/s/GPU"},
              {Align::right, Align::left});
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i) {
    const SearchCandidate& c = r.ranked[i];
    t.add_row({std::to_string(i + 1), compact(c.layout), std::to_string(c.gpus),
               format_seconds(c.sim.step_time_s), format_number(c.sim.tokens_per_s_per_gpu, 0),
               pct(c.sim.mfu), money(c.sim.usd_per_million_tokens), format_bytes(c.sim.memory_peak_bytes),
               c.sim.bottleneck, format_seconds(exposed(c.sim.mean)), format_seconds(c.sim.mean.bubble_s),
               format_number(c.est_tokens_per_s / c.gpus, 0)});
  }
  s += t.render() + "\n" + search_explanation(r);
  if (r.unsimulated_contenders > 0)
    s += std::to_string(r.unsimulated_contenders) +
         " layouts left unsimulated have an estimate better than the best simulated layout; --simulate " +
         std::to_string(2 * (r.simulated + r.invalid)) + " would test more of them.\n";
  if (!r.first_problem.empty()) s += "First invalid layout: " + r.first_problem + "\n";
  return s;
}

std::string search_json(const SearchResult& r, std::size_t top) {
  Json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["rank_by"] = r.rank == SearchRank::throughput ? "tokens_per_s" : "usd_per_million_tokens";
  j["counts"] = {{"enumerated", r.enumerated},
                 {"estimate_failed", r.estimate_failed},
                 {"memory_pruned", r.memory_pruned},
                 {"simulated", r.simulated},
                 {"invalid", r.invalid},
                 {"out_of_memory", r.out_of_memory},
                 {"unsimulated_contenders", r.unsimulated_contenders}};
  Json rows = Json::array();
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i)
    rows.push_back(candidate_json(r.ranked[i], i + 1));
  j["layouts"] = std::move(rows);
  j["why"] = search_explanation(r);
  return j.dump(2) + "\n";
}

}  // namespace stepsim::out
