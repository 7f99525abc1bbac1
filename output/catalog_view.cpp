#include "output/catalog_view.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/format.hpp"
#include "output/job_json.hpp"
#include "output/text_table.hpp"
#include "sim/units.hpp"
#include "workloads/params.hpp"

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
  return g.price_per_hour / (g.bf16_flops_per_s / units::kTera);
}
double usd_per_tb_s_hour(const topo::GpuSpec& g) {
  return g.price_per_hour / (g.hbm_bw_Bps / units::kTB);
}

std::string gpu_table(const scen::Catalog& catalog) {
  TextTable t(
      {"id", "BF16 TF/s", "FP8 TF/s", "FP4 TF/s", "HBM GB", "HBM TB/s", "NVLink GB/s", "domain", "NIC Gb/s",
       "$/GPU-h", "$/TFLOP-h", "$/TB/s-h", "name"},
      {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
       Align::right, Align::right, Align::right, Align::right, Align::right, Align::left});
  for (const auto& g : catalog.gpus())
    t.add_row({g.id, figure(g.bf16_flops_per_s / units::kTera, 0),
               figure(g.fp8_flops_per_s / units::kTera, 0), figure(g.fp4_flops_per_s / units::kTera, 0),
               figure(g.hbm_capacity_bytes / units::kGB, 0), fixed(g.hbm_bw_Bps / units::kTB, 2),
               figure(g.nvlink_bw_Bps / units::kGB, 0), std::to_string(g.nvlink_domain),
               figure(g.nic_bw_Bps * units::kBitsPerByte / 1e9, 0), fixed(g.price_per_hour, 2),
               fixed(usd_per_tflop_hour(g), 5), fixed(usd_per_tb_s_hour(g), 2), g.name});
  std::string out = t.render();
  out +=
      "\nTFLOP/s dense (no sparsity); NVLink and NIC per GPU per direction; $/TFLOP-h uses BF16.\nPrices:\n";
  for (const auto& g : catalog.gpus()) out += "  " + g.id + ": " + g.price_note + "\n";
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

}  // namespace

std::string render_gpu_catalog(const scen::Catalog& catalog, RenderFormat format) {
  if (format == RenderFormat::table) return gpu_table(catalog);
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : catalog.gpus()) {
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

}  // namespace stepsim::out
