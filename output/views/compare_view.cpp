#include "output/views/compare_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/common/svg.hpp"
#include "output/common/text_table.hpp"
#include "output/run/run_figures.hpp"
#include "output/views/accuracy_view.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

std::string_view better_name(Better b) {
  switch (b) {
    case Better::lower: return "lower";
    case Better::higher: return "higher";
    case Better::none: return "none";
  }
  return "none";
}

/// Eligible entries within a relative 1e-9 of the best eligible value (ties share the win; when
/// every eligible entry ties, there is nothing to choose and nobody wins).
std::vector<std::size_t> winners_of(const std::vector<double>& v, Better better,
                                    const std::vector<bool>& eligible) {
  if (better == Better::none || v.size() < 2) return {};
  std::optional<double> best;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!eligible[i]) continue;
    if (!best || (better == Better::lower ? v[i] < *best : v[i] > *best)) best = v[i];
  }
  std::vector<std::size_t> w;
  if (!best) return w;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (eligible[i] && std::abs(v[i] - *best) <= 1e-9 * std::max(1.0, std::abs(*best))) w.push_back(i);
  if (w.size() > 1 &&
      w.size() == static_cast<std::size_t>(std::count(eligible.begin(), eligible.end(), true)))
    w.clear();  // every candidate equal: nobody wins
  return w;
}

/// Only scenarios that fit in memory can win a row: the figures of one that does not are not
/// achievable.
std::vector<bool> feasible_of(std::span<const RunFigures> f) {
  std::vector<bool> ok;
  for (const auto& x : f) ok.push_back(x.fits);
  return ok;
}

/// A rate row: the cells of scenarios that do not fit say so.
CompareRow row(std::string key, std::string label, Better better, std::span<const RunFigures> f,
               double (*value)(const RunFigures&), std::string (*cell)(const RunFigures&)) {
  CompareRow r{std::move(key), std::move(label), better, {}, {}, {}};
  for (const auto& x : f) {
    r.values.push_back(value(x));
    r.cells.push_back(cell(x) + (x.fits ? "" : " (not achievable)"));
  }
  r.winners = winners_of(r.values, better, feasible_of(f));
  return r;
}

std::string pct_text(double v) {
  return svg::num(100.0 * v) + "%";
}

}  // namespace

namespace {

/// A row without winners: values are NaN, cells the text.
CompareRow text_row(std::string key, std::string label, std::span<const RunFigures> f,
                    std::string (*cell)(const RunFigures&)) {
  CompareRow r{std::move(key), std::move(label), Better::none, {}, {}, {}};
  for (const auto& x : f) {
    r.values.push_back(std::nan(""));
    r.cells.push_back(cell(x));
  }
  return r;
}

/// Exposed communication of each group that any scenario has.
void exposed_rows(std::span<const RunFigures> f, std::vector<CompareRow>& rows) {
  for (std::size_t d = 0; d < work::kDimCount; ++d) {
    if (std::none_of(f.begin(), f.end(), [&](const RunFigures& x) { return x.exposed_comm_s[d] > 0.0; }))
      continue;
    const std::string g(work::name(static_cast<work::ParallelDim>(d)));
    CompareRow r{"exposed_comm_s." + g, "exposed " + g + " communication", Better::lower, {}, {}, {}};
    for (const auto& x : f) {
      r.values.push_back(x.exposed_comm_s[d]);
      r.cells.push_back(format_seconds(x.exposed_comm_s[d]));
    }
    r.winners = winners_of(r.values, Better::lower, feasible_of(f));
    rows.push_back(std::move(r));
  }
}

/// The fraction of HBM the busiest rank needs; among the scenarios that fit, the most headroom wins.
CompareRow memory_row(std::span<const RunFigures> f) {
  CompareRow mem{"memory_fraction", "memory (peak / capacity)", Better::lower, {}, {}, {}};
  for (const auto& x : f) {
    mem.values.push_back(x.capacity_bytes > 0 ? x.peak_bytes / x.capacity_bytes : 0.0);
    mem.cells.push_back(std::string(x.fits ? "fits, " : "DOES NOT FIT, ") + format_bytes(x.peak_bytes) +
                        " of " + format_bytes(x.capacity_bytes) + ", " +
                        format_bytes(std::abs(x.headroom_bytes)) + (x.fits ? " free" : " over"));
  }
  mem.winners = winners_of(mem.values, Better::lower, feasible_of(f));
  return mem;
}

std::string fabric_text(const topo::FabricSpec& fabric) {
  std::string t = fabric.kind == topo::FabricKind::fat_tree         ? "fat-tree"
                  : fabric.kind == topo::FabricKind::rail_optimized ? "rail-optimized"
                                                                    : "custom";
  t += " " + std::to_string(fabric.tiers) + "-tier";
  if (fabric.oversubscription[0] != 1.0) t += fmt::format(" {:g}:1", fabric.oversubscription[0]);
  return t;
}

std::string batch_text(const work::JobSpec& j) {
  const auto& w = j.workload;
  if (w.kind == work::WorkloadKind::train)
    return "batch " + format_number(w.global_batch, 0) + " x " + format_number(w.seq_len, 0) +
           ", micro-batch " + std::to_string(w.micro_batch);
  if (w.kind == work::WorkloadKind::decode)
    return "batch " + std::to_string(w.batch) + " at context " + format_number(w.context_len, 0);
  return "batch " + std::to_string(w.batch) + " x " + format_number(w.seq_len, 0);
}

std::string precision_text(const work::JobSpec& j) {
  std::string t(topo::name(j.precision.compute));
  if (j.precision.low_precision_linears()) t += " " + std::string(work::name(j.precision.recipe));
  return t;
}

/// The settings the "what differs" row compares, each as the phrase the row prints, in its order.
using SettingText = std::string (*)(const CompareEntry&);
constexpr SettingText kComparedSettings[] = {
    [](const CompareEntry& e) { return e.job->model.id; },
    [](const CompareEntry& e) { return std::string(work::name(e.job->workload.kind)); },
    [](const CompareEntry& e) { return e.job->cluster.gpu.id; },
    [](const CompareEntry& e) { return format_count(e.sim->plan.world, "GPU", "GPUs"); },
    [](const CompareEntry& e) { return "NVLink domain " + std::to_string(e.job->cluster.nvlink_domain); },
    [](const CompareEntry& e) {
      return fmt::format("NIC {:g} Gb/s", units::in_gbit_per_s(e.job->cluster.nic_bw()));
    },
    [](const CompareEntry& e) { return fabric_text(e.job->cluster.fabric); },
    [](const CompareEntry& e) { return parallel_layout(*e.job); },
    [](const CompareEntry& e) { return std::string(work::name(e.job->parallel.schedule)) + " schedule"; },
    [](const CompareEntry& e) { return precision_text(*e.job); },
    [](const CompareEntry& e) { return batch_text(*e.job); },
    [](const CompareEntry& e) { return "recompute " + std::string(work::name(e.job->recompute)); },
    [](const CompareEntry& e) {
      return std::string(e.job->workload.cuda_graphs ? "CUDA graphs" : "eager launches");
    },
    [](const CompareEntry& e) { return "$" + svg::num(e.job->cluster.gpu.price_per_hour, 2) + "/GPU-h"; },
};

/// What differs between the scenarios: per scenario, its value of each setting on which they do
/// not all agree ("gb200, NIC 800 Gb/s"); "same settings" when they agree on all of them.
CompareRow differs_row(std::span<const CompareEntry> entries) {
  CompareRow r{"differs", "what differs", Better::none, {}, {}, {}};
  std::vector<std::string> cells(entries.size());
  for (const SettingText setting : kComparedSettings) {
    std::vector<std::string> v;
    for (const auto& e : entries) v.push_back(setting(e));
    if (std::all_of(v.begin(), v.end(), [&](const std::string& x) { return x == v.front(); })) continue;
    for (std::size_t i = 0; i < v.size(); ++i) cells[i] += (cells[i].empty() ? "" : ", ") + v[i];
  }
  for (auto& c : cells) {
    r.values.push_back(std::nan(""));
    r.cells.push_back(c.empty() ? "same settings" : c);
  }
  return r;
}

}  // namespace

std::vector<CompareRow> compare_rows(std::span<const CompareEntry> entries) {
  std::vector<RunFigures> f;
  for (const auto& e : entries) f.push_back(run_figures(*e.job, *e.sim));
  // What differs and whether each fits come before any rate.
  std::vector<CompareRow> rows{differs_row(entries), memory_row(f)};
  rows.push_back(row(
      "step_time_s", "step time", Better::lower, f, [](const RunFigures& x) { return x.step_time_s; },
      [](const RunFigures& x) { return format_seconds(x.step_time_s); }));
  rows.push_back(row(
      "tokens_per_s", "tokens/s", Better::higher, f, [](const RunFigures& x) { return x.tokens_per_s; },
      [](const RunFigures& x) { return format_number(x.tokens_per_s, 0); }));
  rows.push_back(row(
      "mfu", "MFU", Better::higher, f, [](const RunFigures& x) { return x.mfu; },
      [](const RunFigures& x) { return pct_text(x.mfu) + " of " + x.mfu_peak + " peak"; }));
  rows.push_back(text_row("bottleneck", "bottleneck", f, [](const RunFigures& x) {
    const auto& v = x.verdict;
    return v.primary.label + " " + format_percent(v.primary_share) +
           (v.secondary.seconds > 0.0 ? ", " + v.secondary.label + " " + format_percent(v.secondary_share)
                                      : "");
  }));
  exposed_rows(f, rows);
  // The host's floor under the step, where any scenario launches eagerly (a Grace host against an
  // x86 one, FP8 against BF16 kernels: the step cannot go below it).
  if (std::any_of(f.begin(), f.end(), [](const RunFigures& x) { return x.host_busy_s > 0.0; }))
    rows.push_back(row(
        "host_busy_s", "host busy (launches, framework)", Better::lower, f,
        [](const RunFigures& x) { return x.host_busy_s; },
        [](const RunFigures& x) {
          if (x.host_busy_s <= 0.0 || x.step_time_s <= 0.0) return std::string("-");
          return format_seconds(x.host_busy_s) + " (" + format_percent(x.host_busy_s / x.step_time_s) +
                 " of the step)";
        }));
  rows.push_back(row(
      "per_million_tokens", "$ per million tokens", Better::lower, f,
      [](const RunFigures& x) { return x.per_million_tokens; },
      [](const RunFigures& x) { return "$" + svg::num(x.per_million_tokens, 3); }));
  if (std::any_of(entries.begin(), entries.end(),
                  [](const CompareEntry& e) { return e.validated.has_value(); })) {
    CompareRow v{"validated_mean_error", "validated", Better::none, {}, {}, {}};
    for (const auto& e : entries) {
      const bool known = e.validated && e.validated->band;
      v.values.push_back(known ? e.validated->band->mean_error : std::nan(""));
      v.cells.push_back(e.validated ? validated_cell(*e.validated) : "-");
    }
    rows.push_back(std::move(v));
  }
  return rows;
}

std::string compare_table(std::span<const CompareEntry> entries, std::span<const CompareRow> rows) {
  std::vector<std::string> head{""};
  for (const auto& e : entries) head.push_back(e.name);
  TextTable t(head);
  for (const auto& r : rows) {
    std::vector<std::string> cells{r.label};
    for (std::size_t i = 0; i < r.cells.size(); ++i)
      cells.push_back(r.cells[i] + (std::count(r.winners.begin(), r.winners.end(), i) ? " *" : ""));
    t.add_row(cells);
  }
  std::string out = "stepsim compare: " + std::to_string(entries.size()) + " scenarios\n\n" + t.render();
  out += "\n* best in its row among the scenarios that fit in memory (memory: the most headroom)\n";
  if (std::any_of(rows.begin(), rows.end(),
                  [](const CompareRow& r) { return r.key == "validated_mean_error"; }))
    out +=
        "validated: stepsim's error on the published runs of each scenario's class (GPU, workload, dense or "
        "MoE,\n"
        "precision), simulated against measured; where two columns' classes erred differently, the "
        "simulated\n"
        "ratio between them carries that difference\n";
  for (std::size_t i = 0; i < entries.size(); ++i)
    out += "  " + entries[i].name + ": " + entries[i].file + "\n";
  return out;
}

nlohmann::ordered_json compare_json(std::span<const CompareEntry> entries, std::span<const CompareRow> rows) {
  Json scen = Json::array();
  for (const auto& e : entries)
    scen.push_back({{"name", e.name},
                    {"file", e.file},
                    {"gpu", e.job->cluster.gpu.id},
                    {"gpus", e.sim->plan.world},
                    {"layout", parallel_layout(*e.job)},
                    {"feasible", e.sim->fits},
                    {"memory_headroom_bytes", run_figures(*e.job, *e.sim).headroom_bytes}});
  Json rs = Json::array();
  for (const auto& r : rows) {
    Json values = Json::array();
    for (std::size_t i = 0; i < r.values.size(); ++i)
      values.push_back(std::isnan(r.values[i]) ? Json(r.cells[i]) : Json(r.values[i]));
    Json winners = Json::array();
    for (const auto w : r.winners) winners.push_back(entries[w].name);
    rs.push_back({{"key", r.key},
                  {"label", r.label},
                  {"better", std::string(better_name(r.better))},
                  {"values", std::move(values)},
                  {"winners", std::move(winners)}});
  }
  return Json{{"scenarios", std::move(scen)}, {"rows", std::move(rs)}};
}

}  // namespace stepsim::out
