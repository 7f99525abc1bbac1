#include "output/views/advise_view.hpp"

#include <cmath>
#include <cstdio>

#include "output/common/format.hpp"
#include "output/common/svg.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string signed_pct(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (ratio - 1.0));
  return buf;
}

std::string usd_text(double usd) {
  return std::isfinite(usd) ? "$" + format_number(usd, 3) : "-";
}

std::string memory_text(const SimulatedFigures& f) {
  return format_bytes(f.memory_peak_bytes) + (f.fits ? "" : " (does not fit)");
}

/// "--set a=1 --set b=2 --unset c": how to reproduce the change from the command line.
std::string edits_text(const AdviceChange& c) {
  std::string s;
  for (const auto& k : c.set) s += (s.empty() ? "" : " ") + std::string("--set '") + k + "'";
  for (const auto& k : c.unset) s += (s.empty() ? "" : " ") + std::string("--unset ") + k;
  return s;
}

/// Why changes that were tried are not advised, counted.
std::string tried_text(const Advice& a) {
  std::size_t refused = 0, no_fit = 0, no_gain = 0;
  for (const AdviceChange& c : a.tried) {
    if (!c.simulated)
      ++refused;
    else if (!c.sim.fits)
      ++no_fit;
    else if (c.gain < 1.0 + a.min_gain)
      ++no_gain;
  }
  return std::to_string(a.tried.size()) + " changes simulated or tried: " + std::to_string(no_gain) +
         " slower or gaining under " + format_number(100.0 * a.min_gain, 1) + "%, " + std::to_string(no_fit) +
         " do not fit in memory, " + std::to_string(refused) + " not possible for this scenario";
}

Json figures_json(const SimulatedFigures& f) {
  Json j;
  j["step_time_s"] = f.step_time_s;
  j["tokens_per_s"] = f.tokens_per_s;
  j["tokens_per_s_per_gpu"] = f.tokens_per_s_per_gpu;
  j["mfu"] = f.mfu;
  j["usd_per_million_tokens"] =
      std::isfinite(f.usd_per_million_tokens) ? Json(f.usd_per_million_tokens) : Json();
  j["memory_peak_bytes"] = f.memory_peak_bytes;
  j["capacity_bytes"] = f.capacity_bytes;
  j["feasible"] = f.fits;
  return j;
}

Json change_json(const AdviceChange& c) {
  Json j;
  j["family"] = std::string(name(c.family));
  j["change"] = c.title;
  j["set"] = c.set;
  j["unset"] = c.unset;
  j["costs"] = c.costs;
  j["simulated"] = c.simulated;
  if (c.simulated) {
    j["tokens_per_s_gain"] = c.gain - 1.0;
    j["figures"] = figures_json(c.sim);
  } else {
    j["problem"] = c.problem;
  }
  return j;
}

}  // namespace

std::string advice_table(const Advice& a) {
  std::string s = "what to change (each change simulated; now: " + a.base_layout + ", step " +
                  format_seconds(a.base.step_time_s) + ", " + format_number(a.base.tokens_per_s, 0) +
                  " tokens/s, " + format_bytes(a.base.memory_peak_bytes) + " of " +
                  format_bytes(a.base.capacity_bytes) + ", " + usd_text(a.base.usd_per_million_tokens) +
                  " per million tokens)\n";
  if (!a.base.fits)
    s += "  the step does not fit in memory: the changes below fit, fastest first (\"vs now\" compares with "
         "a rate that is not achievable)\n";
  if (a.helpful.empty()) {
    s += a.base.fits ? "  no change tried gains " + format_number(100.0 * a.min_gain, 1) +
                           "% or more and fits in memory\n"
                     : "  no change tried makes the step fit; try more GPUs or GPUs with more memory\n";
  } else {
    TextTable t({"#", "change", "step", "tokens/s", "vs now", "memory peak", "$/Mtok", "costs"},
                {Align::right, Align::left, Align::right, Align::right, Align::right, Align::right,
                 Align::right, Align::left});
    for (std::size_t i = 0; i < a.helpful.size(); ++i) {
      const AdviceChange& c = a.helpful[i];
      t.add_row({std::to_string(i + 1), c.title, format_seconds(c.sim.step_time_s),
                 format_number(c.sim.tokens_per_s, 0), signed_pct(c.gain), memory_text(c.sim),
                 usd_text(c.sim.usd_per_million_tokens), c.costs});
    }
    s += t.render();
    s += "to reproduce one: stepsim run SCENARIO with its edits\n";
    for (std::size_t i = 0; i < a.helpful.size(); ++i)
      s += "  " + std::to_string(i + 1) + ": " + edits_text(a.helpful[i]) + "\n";
  }
  s += "  " + tried_text(a) + "\n";
  return s;
}

std::string advice_html(const Advice& a) {
  std::string h =
      "<h2 id=\"s-advice\">What to change</h2>\n<p class=\"note\">Each change was simulated as a run of the "
      "scenario with the edits shown (<code>stepsim run SCENARIO</code> with them prints the same "
      "figures). " +
      svg::esc(a.base.fits ? "Listed when it fits in memory and raises tokens/s by at least " +
                                 format_number(100.0 * a.min_gain, 1) + "%."
                           : "The step does not fit in memory: every change that fits is listed, "
                             "fastest first.") +
      " " + svg::esc(tried_text(a)) + ".</p>\n";
  if (a.helpful.empty()) return h + "<p>No change tried helps.</p>\n";
  h += "<table>\n<tr><th>#</th><th style=\"text-align:left\">change</th><th>step</th><th>tokens/s</th>"
       "<th>vs now</th><th>memory peak</th><th>$/Mtok</th><th style=\"text-align:left\">costs</th>"
       "<th style=\"text-align:left\">edits</th></tr>\n";
  for (std::size_t i = 0; i < a.helpful.size(); ++i) {
    const AdviceChange& c = a.helpful[i];
    h += "<tr><td>" + std::to_string(i + 1) + "</td><td style=\"text-align:left\">" + svg::esc(c.title) +
         "</td><td>" + svg::esc(format_seconds(c.sim.step_time_s)) + "</td><td>" +
         svg::esc(format_number(c.sim.tokens_per_s, 0)) + "</td><td>" + svg::esc(signed_pct(c.gain)) +
         "</td><td>" + svg::esc(memory_text(c.sim)) + "</td><td>" +
         svg::esc(usd_text(c.sim.usd_per_million_tokens)) + "</td><td style=\"text-align:left\">" +
         svg::esc(c.costs) + "</td><td style=\"text-align:left\"><code>" + svg::esc(edits_text(c)) +
         "</code></td></tr>\n";
  }
  return h + "</table>\n";
}

nlohmann::ordered_json advice_json(const Advice& a) {
  Json j;
  j["base_layout"] = a.base_layout;
  j["base"] = figures_json(a.base);
  Json helpful = Json::array();
  for (const AdviceChange& c : a.helpful) helpful.push_back(change_json(c));
  j["helpful"] = std::move(helpful);
  Json tried = Json::array();
  for (const AdviceChange& c : a.tried) tried.push_back(change_json(c));
  j["tried"] = std::move(tried);
  return j;
}

}  // namespace stepsim::out
