// The estimate as a terminal report.
#include <fmt/format.h>
#include <cmath>

#include "output/views/estimate_view.hpp"
#include "output/common/format.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {

namespace {

/// "504.00 G" + unit: decimal SI prefixes with two decimals.
std::string si(double v, std::string_view unit) {
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (std::fabs(v) >= 1000.0 && p < 6) {
    v /= 1000.0;
    ++p;
  }
  return fmt::format("{:.2f} {}{}", v, kPrefix[p], unit);
}

/// Parameter counts as "70.55 B" / "125.00 M".
std::string params(double n) {
  return n >= 1e9 ? fmt::format("{:.2f} B", n / 1e9) : fmt::format("{:.2f} M", n / 1e6);
}

std::string tokens(double v) {
  return std::isfinite(v) ? format_number(v, 2) : "unbounded";
}

std::string dollars(double v, int decimals) {
  return std::isfinite(v) ? "$" + format_number(v, decimals) : "n/a";
}

bool is_compute(topo::Resource r) {
  return r == topo::Resource::compute;
}

void rates_section(std::string& out, const work::Estimate& e) {
  out +=
      fmt::format("{:<10} {:>16} {:>16} {:>18}\n", "resource", "demand/token", "usable", "tokens/s per GPU");
  for (const work::ResourceRate& r : e.rates) {
    const bool c = is_compute(r.resource);
    out += fmt::format("{:<10} {:>16} {:>16} {:>18}{}\n", topo::name(r.resource),
                       c ? si(r.demand_per_token, "FLOP") : format_bytes(r.demand_per_token),
                       c ? si(r.usable_per_s, "FLOP/s") : format_bytes(r.usable_per_s) + "/s",
                       tokens(r.tokens_per_s), r.resource == e.bound ? "  <- bound" : "");
  }
  if (e.pipeline_bubble > 0.0)
    out += fmt::format("(compute includes a pipeline bubble of {:.1f} %)\n", 100.0 * e.pipeline_bubble);
  out += fmt::format("\ntokens/s per GPU {}   cluster {}   step {}   MFU {:.1f} %\n",
                     tokens(e.tokens_per_s_per_gpu), tokens(e.tokens_per_s_cluster),
                     format_seconds(e.step_time_s), 100.0 * e.mfu);
  const bool above = e.intensity_flops_per_byte >= e.ridge_flops_per_byte;
  out += fmt::format("arithmetic intensity {} FLOP/B vs ridge {} FLOP/B: {} side of the roofline\n",
                     format_number(e.intensity_flops_per_byte, 1), format_number(e.ridge_flops_per_byte, 1),
                     above ? "compute" : "memory-bandwidth");
}

void network_section(std::string& out, const work::Estimate& e) {
  if (e.network.empty()) return;
  out += fmt::format("\n{:<30} {:>6} {:>8} {:>12} {:>15} {:>15}\n", "network term", "ranks", "domains",
                     "calls/step", "scale-up B/tok", "NIC B/tok");
  for (const work::NetworkTerm& t : e.network)
    out += fmt::format("{:<30} {:>6} {:>8} {:>12} {:>15} {:>15}\n", t.name, t.placement.size,
                       t.placement.domains, format_number(t.calls_per_step, 1),
                       format_bytes(t.scale_up_bytes_per_token), format_bytes(t.scale_out_bytes_per_token));
}

void memory_section(std::string& out, const work::Estimate& e) {
  if (!e.memory) {
    out += "\nmemory per GPU: not checked (the notebook formulas have no capacity check)\n";
    return;
  }
  const work::MemoryEstimate& m = *e.memory;
  out +=
      fmt::format("\nmemory per GPU: weights {}  gradients {}  optimizer {}  activations {}  KV cache {}\n",
                  format_bytes(m.weights), format_bytes(m.gradients), format_bytes(m.optimizer),
                  format_bytes(m.activations), format_bytes(m.kv_cache));
  if (e.gpus > 1 && m.stage > 0) out += fmt::format("  (pipeline stage {} is the most loaded)\n", m.stage);
  out += fmt::format("  total {} of {}: {}\n", format_bytes(m.total()), format_bytes(m.capacity),
                     m.fits() ? "fits" : "DOES NOT FIT, short by " + format_bytes(m.shortfall()));
}

void cost_section(std::string& out, const work::Estimate& e) {
  const work::CostEstimate& c = e.cost;
  out += fmt::format("\ncost: {}/GPU-h  {}/TFLOP-h  {}/TB/s-h  {}/GB-h  {}/Gbps-h\n",
                     dollars(c.per_gpu_hour, 2), dollars(c.per_tflop_hour, 4), dollars(c.per_tb_s_hour, 2),
                     dollars(c.per_gb_hour, 4), dollars(c.per_gbps_hour, 4));
  out += fmt::format("      {} per million tokens; this cluster ({} GPUs) {}/h\n",
                     dollars(c.per_million_tokens, 4), e.gpus, dollars(c.cluster_per_hour, 2));
  if (!e.sizing) return;
  const work::Sizing& s = *e.sizing;
  out += fmt::format("\ntarget {} tokens/s: {} GPUs{}, {}/h, cluster HBM traffic {} TB/s{}\n",
                     format_number(s.target_tokens_per_s, 0), format_number(s.gpus_needed, 0),
                     s.dp_needed > 0 ? fmt::format(" ({} replicas)", format_number(s.dp_needed, 0)) : "",
                     dollars(s.cluster_cost_per_hour, 2), format_number(s.cluster_hbm_Bps / 1e12, 3),
                     s.feasible ? "" : "  NOT REACHABLE");
  if (!s.note.empty()) out += "  " + s.note + "\n";
  out += fmt::format(
      "  closed-form figure; `stepsim size SCENARIO --tokens-per-s {:.0f}` sizes from the simulated rate "
      "(often more GPUs)\n",
      s.target_tokens_per_s);
}

}  // namespace

std::string estimate_table(const work::Estimate& e, const EstimateLabels& labels) {
  std::string out = fmt::format("{}\n", labels.scenario);
  out += fmt::format("formulas {}   workload {}   {} x {}   model {} ({} params",
                     e.formulas == work::EstimateFormulas::notebook ? "notebook" : "stepsim",
                     work::name(e.kind), e.gpus, labels.gpu, labels.model, params(e.params));
  if (e.active_params != e.params) out += fmt::format(", {} active", params(e.active_params));
  out += ")\n";
  // Whether the run fits comes first, before any rate (the breakdown is in the memory section).
  if (e.memory) {
    const work::MemoryEstimate& m = *e.memory;
    out += m.fits() ? fmt::format("memory: fits, {} of {} per GPU\n", format_bytes(m.total()),
                                  format_bytes(m.capacity))
                    : fmt::format(
                          "memory: DOES NOT FIT, {} of {} per GPU ({} over); the rates below are not "
                          "achievable as configured\n",
                          format_bytes(m.total()), format_bytes(m.capacity), format_bytes(m.shortfall()));
  }
  out += "\n";
  rates_section(out, e);
  network_section(out, e);
  memory_section(out, e);
  cost_section(out, e);
  if (!e.notes.empty()) out += "\n";
  for (const std::string& n : e.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace stepsim::out
