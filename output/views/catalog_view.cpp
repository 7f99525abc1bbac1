#include "output/views/catalog_view.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"
#include "output/views/job_json.hpp"
#include "sim/units.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::out {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

/// A figure, or "-" when the catalog has none.
std::string figure(double v, int decimals) {
  return v > 0.0 ? format_number(v, decimals) : "-";
}

double usd_per_tflop_hour(const topo::GpuSpec& g) {
  return g.price_per_hour / (units::in_tflops_per_s(g.bf16_peak));
}
double usd_per_tb_s_hour(const topo::GpuSpec& g) {
  return g.price_per_hour / (units::in_tb_per_s(g.hbm_bw));
}

/// The GPUs to list: those `only` names (catalog ids), or every one, in catalog order.
std::vector<const topo::GpuSpec*> selected_gpus(const scen::Catalog& catalog,
                                                const std::vector<std::string>& only) {
  std::vector<const topo::GpuSpec*> out;
  for (const auto& g : catalog.gpus())
    if (only.empty() || std::find(only.begin(), only.end(), g.id) != only.end()) out.push_back(&g);
  return out;
}

std::string gpu_table(const std::vector<const topo::GpuSpec*>& gpus) {
  TextTable t(
      {"id", "BF16 TF/s", "FP8 TF/s", "FP4 TF/s", "HBM GB", "HBM TB/s", "NVLink GB/s", "domain", "NIC Gb/s",
       "$/GPU-h", "$/TFLOP-h", "$/TB/s-h", "name"},
      {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
       Align::right, Align::right, Align::right, Align::right, Align::right, Align::left});
  for (const auto* gp : gpus) {
    const auto& g = *gp;
    t.add_row({g.id, figure(units::in_tflops_per_s(g.bf16_peak), 0),
               figure(units::in_tflops_per_s(g.fp8_peak), 0), figure(units::in_tflops_per_s(g.fp4_peak), 0),
               figure(units::in_gb(g.hbm_capacity), 0), fixed(units::in_tb_per_s(g.hbm_bw), 2),
               figure(units::in_gb_per_s(g.nvlink_bw), 0), std::to_string(g.nvlink_domain),
               figure(units::in_gbit_per_s(g.nic_bw), 0), fixed(g.price_per_hour, 2),
               fixed(usd_per_tflop_hour(g), 5), fixed(usd_per_tb_s_hour(g), 2), g.name});
  }
  std::string out = t.render();
  out +=
      "\nTFLOP/s dense (no sparsity); NVLink and NIC per GPU per direction; $/TFLOP-h uses BF16.\nPrices:\n";
  for (const auto* g : gpus) out += "  " + g->id + ": " + g->price_note + "\n";
  return out;
}

std::string experts_cell(const work::ModelSpec& m) {
  if (!m.is_moe()) return "-";
  std::string s = std::to_string(m.experts) + " top-" + std::to_string(m.top_k);
  if (m.shared_experts > 0) s += " +" + std::to_string(m.shared_experts);
  return s;
}

std::string model_table(const scen::Catalog& catalog) {
  TextTable t({"id", "layers", "hidden", "heads", "kv", "ffn", "vocab", "experts", "params B", "published B",
               "active B", "published active B"});
  for (const auto& m : catalog.models()) {
    const work::ParamBreakdown b = work::count_params(m);
    t.add_row({m.id, std::to_string(m.layers), std::to_string(m.hidden), std::to_string(m.heads),
               std::to_string(m.kv_heads), m.ffn > 0 ? std::to_string(m.ffn) : "-", std::to_string(m.vocab),
               experts_cell(m), format_number(b.main_total() / 1e9, 2), figure(m.published_params / 1e9, 2),
               m.is_moe() ? format_number(b.main_active() / 1e9, 2) : "-",
               figure(m.published_active_params / 1e9, 2)});
  }
  return t.render() +
         "\nParameters are computed from the dimensions (MTP modules excluded, as model cards quote them).\n";
}

/// "0.25: 0.959, 0.5: 0.894, ..." (duty: clock), or "-" for a GPU with one fixed clock.
std::string clock_points(const topo::ClockCurve& c) {
  std::string s;
  for (std::size_t i = 0; i < c.duty.size(); ++i)
    s += (i ? ", " : "") + fixed(c.duty[i], 2) + ": " + fixed(c.clock[i], 3);
  return s.empty() ? "-" : s;
}

/// The catalog's spelling of a figure's value, in the catalog's units.
std::string figure_value(const topo::GpuSpec& g, const std::string& key) {
  const auto curve = [](const topo::GemmCurve& c) {
    return "peak " + fixed(c.peak, 3) + ", mn_half " + fixed(c.mn_half, 0) + ", k_half " + fixed(c.k_half, 0);
  };
  const topo::Efficiency& e = g.eff;
  const std::pair<const char*, std::string> values[] = {
      {"bf16_tflops", fixed(units::in_tflops_per_s(g.bf16_peak), 1)},
      {"fp8_tflops", fixed(units::in_tflops_per_s(g.fp8_peak), 1)},
      {"fp4_tflops", fixed(units::in_tflops_per_s(g.fp4_peak), 1)},
      {"fp32_tflops", fixed(units::in_tflops_per_s(g.fp32_peak), 1)},
      {"hbm_gib", fixed(units::in_gib(g.hbm_capacity), 2)},
      {"hbm_gb", fixed(units::in_gb(g.hbm_capacity), 2)},
      {"hbm_reserved_gib", fixed(g.hbm_reserved.value() / units::kGiB, 2)},
      {"hbm_fragmentation", fixed(g.hbm_fragmentation, 3)},
      {"hbm_tb_s", fixed(units::in_tb_per_s(g.hbm_bw), 3)},
      {"nvlink_gb_s", fixed(units::in_gb_per_s(g.nvlink_bw), 0)},
      {"nvlink_domain", std::to_string(g.nvlink_domain)},
      {"pcie_gb_s", fixed(units::in_gb_per_s(g.pcie_bw), 0)},
      {"nic_gbps", fixed(units::in_gbit_per_s(g.nic_bw), 0)},
      {"price_per_hour", fixed(g.price_per_hour, 2)},
      {"comm_sm_fraction", fixed(g.comm_sm_fraction, 3)},
      {"sms", g.sms > 0 ? std::to_string(g.sms) : "-"},
      {"kernel_gap_us", fixed(g.kernel_gap_s * 1e6, 2)},
      {"host_launch_us", fixed(g.host_launch_s * 1e6, 2)},
      {"host_framework_us", fixed(g.host_framework_s * 1e6, 2)},
      {"gemm_fixed_us", fixed(g.gemm_fixed_s * 1e6, 2)},
      {"attention_fixed_us", fixed(g.attention_fixed_s * 1e6, 2)},
      {"nvls_latency_us", fixed(g.nvls_latency_s * 1e6, 1)},
      {"sustained_clock", g.clock_duty.empty() ? fixed(g.sustained_clock, 3) : "by duty (clock_duty)"},
      {"clock_duty", clock_points(g.clock_duty)},
      {"comm_interference", fixed(g.comm_interference, 3)},
      {"efficiency.gemm_bf16", curve(e.gemm16)},
      {"efficiency.gemm_fp8", curve(e.gemm8)},
      {"efficiency.fp8_split_accumulation", fixed(e.fp8_split_accumulation, 3)},
      {"efficiency.fp8_blockwise", fixed(e.fp8_blockwise, 3)},
      {"efficiency.fp8_blockwise_wgrad", fixed(e.fp8_blockwise_wgrad, 3)},
      {"efficiency.attention", fixed(e.attention, 3)},
      {"efficiency.attention_fa2", e.attention_fa2 > 0.0 ? fixed(e.attention_fa2, 3) : "none"},
      {"efficiency.attention_fa3", e.attention_fa3 > 0.0 ? fixed(e.attention_fa3, 3) : "none"},
      {"efficiency.attention_flex", e.attention_flex > 0.0 ? fixed(e.attention_flex, 3) : "none"},
      {"efficiency.attention_triton", e.attention_triton > 0.0 ? fixed(e.attention_triton, 3) : "none"},
      {"efficiency.attention_seq_half", e.attention_seq_half > 0.0 ? fixed(e.attention_seq_half, 0) : "none"},
      {"efficiency.attention_tiles_half",
       e.attention_tiles_half > 0.0 ? fixed(e.attention_tiles_half, 0) : "none"},
      {"efficiency.elementwise", fixed(e.elementwise, 3)},
      {"efficiency.hbm", fixed(e.hbm, 3)},
      {"efficiency.gemm_hbm", fixed(e.gemm_hbm, 3)},
      {"efficiency.attention_hbm", e.attention_hbm > 0.0 ? fixed(e.attention_hbm, 3) : "as hbm"},
      {"efficiency.grouped_m_half", fixed(e.grouped_m_half, 1)},
      {"efficiency.nvlink", fixed(e.nvlink, 3)},
      {"efficiency.nvlink_p2p", e.nvlink_p2p > 0.0 ? fixed(e.nvlink_p2p, 3) : "as nvlink"},
      {"efficiency.nic", fixed(e.nic, 3)},
      {"efficiency.nvls", fixed(e.nvls, 3)},
      {"efficiency.estimate", fixed(e.estimate_compute, 3)},
      {"efficiency.estimate_compute", fixed(e.estimate_compute, 3)},
      {"efficiency.estimate_memory", fixed(e.estimate_memory, 3)},
      {"efficiency.estimate_network", fixed(e.estimate_network, 3)},
  };
  for (const auto& [k, v] : values)
    if (key == k) return v;
  for (std::size_t k = 0; k < topo::kKernelKindCount; ++k)
    if (key == "efficiency.hbm_" + std::string(topo::name(static_cast<topo::KernelKind>(k))))
      return e.hbm_kind[k] > 0.0 ? fixed(e.hbm_kind[k], 3) : "as hbm";
  return "?";
}

}  // namespace

std::string render_gpu_provenance(const scen::Catalog& catalog, RenderFormat format,
                                  const std::vector<std::string>& only) {
  if (format == RenderFormat::json) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto* gp : selected_gpus(catalog, only)) {
      const auto& g = *gp;
      nlohmann::json sources = nlohmann::json::array();
      for (const auto& s : g.sources)
        sources.push_back({{"key", s.key},
                           {"value", figure_value(g, s.key)},
                           {"kind", std::string(topo::name(s.kind))},
                           {"source", s.text}});
      gpus.push_back({{"id", g.id}, {"sources", sources}});
    }
    return nlohmann::json{{"gpus", gpus}}.dump(2) + "\n";
  }
  std::string out;
  for (const auto* gp : selected_gpus(catalog, only)) {
    const auto& g = *gp;
    out += g.id + " (" + g.name + ")\n";
    TextTable t({"figure", "value", "kind", "source"}, {Align::left, Align::right, Align::left, Align::left});
    for (const auto& s : g.sources)
      t.add_row({s.key, figure_value(g, s.key), std::string(topo::name(s.kind)), s.text});
    out += t.render() + "\n";
  }
  return out +
         "kinds: datasheet (vendor specification), measured (a benchmark file or a public measurement), "
         "derived (a stated rule), assumed (a stated source, or a guess), user (set by a catalog or "
         "scenario file without a source).\n";
}

std::string render_gpu_catalog(const scen::Catalog& catalog, RenderFormat format,
                               const std::vector<std::string>& only) {
  if (format == RenderFormat::table) return gpu_table(selected_gpus(catalog, only));
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto* gp : selected_gpus(catalog, only)) {
    const auto& g = *gp;
    nlohmann::json j = gpu_json(g);
    j["aliases"] = catalog.gpu_aliases(g.id);
    j["usd_per_tflop_hour"] = usd_per_tflop_hour(g);
    j["usd_per_tb_s_hour"] = usd_per_tb_s_hour(g);
    gpus.push_back(std::move(j));
  }
  return nlohmann::json{{"gpus", gpus}}.dump(2) + "\n";
}

std::string render_model_catalog(const scen::Catalog& catalog, RenderFormat format) {
  if (format == RenderFormat::table) return model_table(catalog);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : catalog.models()) {
    nlohmann::json j = model_json(m);
    j["aliases"] = catalog.model_aliases(m.id);
    models.push_back(std::move(j));
  }
  return nlohmann::json{{"models", models}}.dump(2) + "\n";
}

std::string render_tp_overlap_catalog(const scen::Catalog& catalog, RenderFormat format) {
  if (format == RenderFormat::json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : catalog.tp_overlaps())
      out.push_back({{"id", c.id}, {"source", c.source}, {"gemms", ub_overlap_json(c.gemms)}});
    return nlohmann::json{{"tp_overlap", out}}.dump(2) + "\n";
  }
  // One row per configuration, one column per GEMM: method initial and SMs, "+m" for the margin.
  std::vector<std::string> head{"id"};
  std::vector<Align> align{Align::left};
  for (std::size_t i = 0; i < work::kUbGemms; ++i) {
    head.emplace_back(work::name(static_cast<work::UbGemm>(i)));
    align.push_back(Align::left);
  }
  TextTable t(head, align);
  for (const auto& c : catalog.tp_overlaps()) {
    std::vector<std::string> row{c.id};
    for (const work::UbOverlap& u : c.gemms) {
      std::string cell = u.method == work::UbMethod::ring_exchange ? "ring"
                         : u.method == work::UbMethod::pipeline    ? "pipe " + std::to_string(u.num_sm)
                                                                   : "bulk " + std::to_string(u.num_sm);
      if (u.aggregate) cell += " agg";
      if (u.set_sm_margin) cell += " +m";
      row.push_back(cell);
    }
    t.add_row(row);
  }
  return t.render() +
         "ring: ring exchange on the copy engines; pipe N / bulk N: userbuffers kernels on N SMs; agg: two "
         "chunks a "
         "step; +m: the GEMM leaves those SMs to them (set_sm_margin)\n";
}

}  // namespace stepsim::out
