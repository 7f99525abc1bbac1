#include "scenarios/spec_readers.hpp"

#include "scenarios/choices.hpp"
#include "sim/units.hpp"

namespace stepsim::scen {
namespace {

using units::kGB;
using units::kTera;

/// A missing required figure: names the key and how to supply it.
[[noreturn]] void missing(const TableReader& r, std::string_view key, std::string_view what) {
  r.fail("", "missing `" + std::string(key) + "` (" + std::string(what) + ")",
         "set " + std::string(key) + " in " + r.table_label() + " or start from a catalog preset");
}

void read_mla(TableReader& r, work::MlaDims& mla) {
  r.read("q_lora_rank", mla.q_lora_rank, kNonNegativeInt);
  r.read("kv_lora_rank", mla.kv_lora_rank, kPositiveInt);
  r.read("qk_nope_head_dim", mla.qk_nope_head_dim, kPositiveInt);
  r.read("qk_rope_head_dim", mla.qk_rope_head_dim, kPositiveInt);
  r.read("v_head_dim", mla.v_head_dim, kPositiveInt);
  r.finish();
}

void check_moe(const work::ModelSpec& m, const TableReader& r) {
  if (!m.is_moe()) {
    for (auto [key, value] : {std::pair<std::string_view, int>{"top_k", m.top_k},
                              {"shared_experts", m.shared_experts},
                              {"expert_ffn", m.expert_ffn},
                              {"dense_layers", m.dense_layers}})
      if (value > 0)
        r.fail(key, "is a mixture-of-experts key, but the model has no experts",
               "set experts = N (routed experts per layer), or remove " + std::string(key));
    return;
  }
  if (m.top_k < 1 || m.top_k > m.experts)
    r.fail(
        "top_k",
        "must be between 1 and experts (" + std::to_string(m.experts) + "), got " + std::to_string(m.top_k),
        "top_k is the number of routed experts each token uses");
  if (m.expert_ffn < 1) missing(r, "expert_ffn", "FFN width of one expert");
  if (m.dense_layers >= m.layers)
    r.fail(
        "dense_layers",
        "must be less than layers (" + std::to_string(m.layers) + "), got " + std::to_string(m.dense_layers),
        "dense_layers counts the leading dense-FFN layers");
}

void check_attention(work::ModelSpec& m, const TableReader& r) {
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    r.fail("kv_heads",
           "heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" +
               std::to_string(m.kv_heads) + ")",
           "grouped-query attention shares each KV head among heads / kv_heads query heads");
  if (m.head_dim == 0) {
    if (m.hidden % m.heads != 0)
      r.fail("heads",
             "hidden (" + std::to_string(m.hidden) + ") is not divisible by heads (" +
                 std::to_string(m.heads) + ")",
             "set head_dim explicitly");
    m.head_dim = m.hidden / m.heads;
  }
  const work::MlaDims& a = m.mla;
  const bool any_mla =
      a.q_lora_rank + a.kv_lora_rank + a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim > 0;
  if (m.attention == work::AttentionKind::mla) {
    if (a.kv_lora_rank < 1 || a.qk_nope_head_dim < 1 || a.qk_rope_head_dim < 1 || a.v_head_dim < 1)
      r.fail("mla",
             "attention = \"mla\" needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim",
             "add a [" + r.path("mla") + "] table");
  } else if (any_mla) {
    r.fail("mla", "MLA dimensions are set but attention is \"standard\"", "set attention = \"mla\"");
  }
}

}  // namespace

void read_efficiency(TableReader& r, topo::Efficiency& eff) {
  using topo::OpClass;
  auto& c = eff.compute;
  r.read("large_gemm", c[static_cast<std::size_t>(OpClass::large_gemm)], kFraction);
  r.read("small_gemm", c[static_cast<std::size_t>(OpClass::small_gemm)], kFraction);
  r.read("attention", c[static_cast<std::size_t>(OpClass::attention)], kFraction);
  r.read("elementwise", c[static_cast<std::size_t>(OpClass::elementwise)], kFraction);
  r.read("hbm", eff.hbm, kFraction);
  r.read("gemm_hbm", eff.gemm_hbm, kFraction);
  r.read("nvlink", eff.nvlink, kFraction);
  r.read("nic", eff.nic, kFraction);
  r.read("nvls", eff.nvls, RealRange{0.0, 1.0, false, "a fraction of NVLink line rate; 0 = no NVLS"});
  double all = 0.0;
  if (r.read("estimate", all, kFraction))
    eff.estimate_compute = eff.estimate_memory = eff.estimate_network = all;
  r.read("estimate_compute", eff.estimate_compute, kFraction);
  r.read("estimate_memory", eff.estimate_memory, kFraction);
  r.read("estimate_network", eff.estimate_network, kFraction);
  r.finish();
}

void read_gpu_fields(TableReader& r, topo::GpuSpec& g) {
  r.read("name", g.name);
  r.read("bf16_tflops", g.bf16_flops_per_s, kPositive, kTera);
  r.read("fp8_tflops", g.fp8_flops_per_s, kNonNegative, kTera);
  r.read("fp4_tflops", g.fp4_flops_per_s, kNonNegative, kTera);
  r.read("fp32_tflops", g.fp32_flops_per_s, kNonNegative, kTera);
  r.read("hbm_gb", g.hbm_capacity_bytes, kPositive, kGB);
  r.read("hbm_tb_s", g.hbm_bw_Bps, kPositive, units::kTB);
  r.read("nvlink_gb_s", g.nvlink_bw_Bps, kNonNegative, kGB);
  r.read("nvlink_domain", g.nvlink_domain, kPositiveInt);
  r.read("pcie_gb_s", g.pcie_bw_Bps, kNonNegative, kGB);
  double nic_gbps = 0.0;
  if (r.read("nic_gbps", nic_gbps, kNonNegative)) g.nic_bw_Bps = units::gbps_to_Bps(nic_gbps);
  r.read("price_per_hour", g.price_per_hour, kNonNegative);
  r.read("price_note", g.price_note);
  r.read("comm_sm_fraction", g.comm_sm_fraction,
         RealRange{0.0, 0.9, false, "share of SMs used by communication"});
  double launch_us = 0.0;
  if (r.read("kernel_launch_us", launch_us, kNonNegative)) g.kernel_launch_s = launch_us * 1e-6;
  if (r.read("graph_launch_us", launch_us, kNonNegative)) g.graph_launch_s = launch_us * 1e-6;
  double nvls_us = 0.0;
  if (r.read("nvls_latency_us", nvls_us, kNonNegative)) g.nvls_latency_s = nvls_us * 1e-6;
  if (auto eff = r.table("efficiency")) read_efficiency(*eff, g.eff);
}

void validate_gpu(const topo::GpuSpec& g, const TableReader& r) {
  if (!(g.bf16_flops_per_s > 0.0)) missing(r, "bf16_tflops", "dense BF16 TFLOP/s");
  if (!(g.hbm_capacity_bytes > 0.0)) missing(r, "hbm_gb", "memory capacity in GB");
  if (!(g.hbm_bw_Bps > 0.0)) missing(r, "hbm_tb_s", "memory bandwidth in TB/s");
  if (g.nvlink_domain > 1 && !(g.nvlink_bw_Bps > 0.0))
    r.fail("nvlink_domain", "is " + std::to_string(g.nvlink_domain) + " but nvlink_gb_s is 0",
           "set nvlink_gb_s, or nvlink_domain = 1 for a GPU without scale-up links");
}

void mark_derived_model_fields(work::ModelSpec& m) {
  if (m.kv_heads == m.heads) m.kv_heads = 0;
  if (m.heads > 0 && m.head_dim * m.heads == m.hidden) m.head_dim = 0;
}

void read_model_fields(TableReader& r, work::ModelSpec& m, FieldSet set) {
  r.read("name", m.name);
  r.read("layers", m.layers, kPositiveInt);
  r.read("hidden", m.hidden, kPositiveInt);
  r.read("heads", m.heads, kPositiveInt);
  r.read("kv_heads", m.kv_heads, kPositiveInt);
  r.read("head_dim", m.head_dim, kPositiveInt);
  r.read("ffn", m.ffn, kPositiveInt);
  r.read("vocab", m.vocab, kPositiveInt);
  r.read("activation", m.activation, choices::kActivation);
  r.read("norm", m.norm, choices::kNorm);
  r.read("position", m.position, choices::kPosition);
  r.read("max_positions", m.max_positions, kPositiveInt);
  r.read("linear_bias", m.linear_bias);
  r.read("tied_embeddings", m.tied_embeddings);
  r.read("dropout", m.dropout);
  r.read("attention", m.attention, choices::kAttention);
  if (auto mla = r.table("mla")) read_mla(*mla, m.mla);
  r.read("experts", m.experts, kNonNegativeInt);
  r.read("top_k", m.top_k, kNonNegativeInt);
  r.read("shared_experts", m.shared_experts, kNonNegativeInt);
  r.read("expert_ffn", m.expert_ffn, kNonNegativeInt);
  r.read("dense_layers", m.dense_layers, kNonNegativeInt);
  r.read("mtp_layers", m.mtp_layers, kNonNegativeInt);
  if (set == FieldSet::catalog) {
    r.read("published_params", m.published_params, kNonNegative);
    r.read("published_active_params", m.published_active_params, kNonNegative);
    r.read("published_tolerance", m.published_tolerance, RealRange{0.0, 0.1, true, "relative, e.g. 0.01"});
  }
}

void finalize_model(work::ModelSpec& m, const TableReader& r) {
  if (m.layers < 1) missing(r, "layers", "number of transformer layers");
  if (m.hidden < 1) missing(r, "hidden", "model width d_model");
  if (m.heads < 1) missing(r, "heads", "attention heads");
  if (m.vocab < 1) missing(r, "vocab", "vocabulary size");
  if (m.ffn < 1 && (!m.is_moe() || m.dense_layers > 0)) missing(r, "ffn", "FFN width of dense layers");
  if (m.position == work::PositionEmbedding::learned && m.max_positions < 1)
    missing(r, "max_positions", "rows of the learned position table");
  check_attention(m, r);
  check_moe(m, r);
}

}  // namespace stepsim::scen
