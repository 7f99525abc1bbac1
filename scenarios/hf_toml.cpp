// `stepsim import`: a config.json's model as a self-contained [model] table.
#include <cstdio>
#include <string>

#include "scenarios/choices.hpp"
#include "scenarios/hf_config.hpp"
#include "scenarios/toml_text.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::scen {
namespace hf_toml {

template <class E, std::size_t N>
std::string_view name_of(E value, const std::array<Choice<E>, N>& choices) {
  for (const auto& c : choices)
    if (c.value == value) return c.name;
  return "?";
}

std::string billions(double params) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fB", params / 1e9);
  return buf;
}

std::string moe_keys(const work::ModelSpec& m) {
  std::string out = "experts = " + std::to_string(m.experts) + "\ntop_k = " + std::to_string(m.top_k) +
                    "\nshared_experts = " + std::to_string(m.shared_experts) +
                    "\nexpert_ffn = " + std::to_string(m.expert_ffn) +
                    "\ndense_layers = " + std::to_string(m.dense_layers) + "\n";
  if (m.moe_layer_pattern.empty()) return out + "moe_layer_freq = " + std::to_string(m.moe_layer_freq) + "\n";
  out += "moe_layer_freq = [";
  for (std::size_t i = 0; i < m.moe_layer_pattern.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(m.moe_layer_pattern[i]);
  return out + "]  # one 0 (dense) or 1 (experts) per layer\n";
}

}  // namespace hf_toml

std::string attention_window_toml(const work::ModelSpec& m) {
  if (m.attention_window <= 0) return "";
  std::string out = "attention_window = " + std::to_string(m.attention_window) + "\n" +
                    "attention_window_kind = " +
                    toml_string(hf_toml::name_of(m.window_kind, choices::kAttentionWindowKind)) + "\n";
  if (m.local_attention_pattern.empty())
    return out + "global_attention_every = " + std::to_string(m.global_attention_every) +
           (m.global_attention_every == 0 ? "  # every layer local\n" : "\n");
  out += "local_attention_layers = [";
  for (std::size_t i = 0; i < m.local_attention_pattern.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(m.local_attention_pattern[i]);
  return out + "]  # one 0 (global) or 1 (local) per layer\n";
}

std::string hybrid_toml(const work::ModelSpec& m) {
  std::string out = m.attention_output_gate ? "attention_output_gate = true\n" : "";
  if (m.qk_norm) out += "qk_norm = true\n";
  if (m.sandwich_norms) out += "sandwich_norms = true\n";
  if (!m.is_hybrid()) return out;
  out += "hybrid_layers = " + toml_string(work::hybrid_pattern(m)) +
         "  # M Mamba-2, * attention, - MLP, E MoE, G Gated DeltaNet\n";
  if (m.mamba_layers() > 0) {
    const work::MambaDims& a = m.mamba;
    out += "[model.mamba]\nheads = " + std::to_string(a.heads) +
           "\nhead_dim = " + std::to_string(a.head_dim) + "\nstate = " + std::to_string(a.state) +
           "\ngroups = " + std::to_string(a.groups) + "\nconv_kernel = " + std::to_string(a.conv_kernel) +
           "\nchunk = " + std::to_string(a.chunk) + "\n";
  }
  if (m.gated_delta_layers() > 0) {
    const work::GatedDeltaDims& g = m.gated_delta;
    out += "[model.gated_delta]\nkey_heads = " + std::to_string(g.key_heads) +
           "\nvalue_heads = " + std::to_string(g.value_heads) + "\nkey_dim = " + std::to_string(g.key_dim) +
           "\nvalue_dim = " + std::to_string(g.value_dim) +
           "\nconv_kernel = " + std::to_string(g.conv_kernel) + "\nchunk = " + std::to_string(g.chunk) + "\n";
  }
  return out;
}

std::string hf_model_toml(const HfModel& h, const std::string& source) {
  using namespace hf_toml;
  const work::ModelSpec& m = h.model;
  const work::ParamBreakdown p = work::count_params(m);
  std::string out;
  out += toml_comment("Imported by `stepsim import` from " + source + " (" + h.architecture + ", read as " +
                      h.family + ").");
  std::string count = "stepsim counts " + billions(p.main_total()) + " parameters";
  if (m.is_moe()) count += ", " + billions(p.main_active()) + " active per token";
  if (m.mtp_layers > 0) count += ", plus " + billions(p.mtp) + " in the multi-token-prediction modules";
  out += toml_comment(count + ".");
  if (!h.notes.empty()) {
    out += toml_comment("Notes:");
    for (const auto& n : h.notes) out += toml_comment("  " + n);
  }
  out += "[model]\n";
  out += "name = " + toml_string(m.name) + "\n";
  out += "layers = " + std::to_string(m.layers) + "\n";
  out += "hidden = " + std::to_string(m.hidden) + "\n";
  out += "heads = " + std::to_string(m.heads) + "\n";
  out += "kv_heads = " + std::to_string(m.kv_heads > 0 ? m.kv_heads : m.heads) + "\n";
  if (m.head_dim > 0 && m.attention == work::AttentionKind::standard)
    out += "head_dim = " + std::to_string(m.head_dim) + "\n";
  if (m.ffn > 0) out += "ffn = " + std::to_string(m.ffn) + "\n";
  out += "vocab = " + std::to_string(m.vocab) + "\n";
  out += "activation = " + toml_string(name_of(m.activation, choices::kActivation)) + "\n";
  out += "norm = " + toml_string(name_of(m.norm, choices::kNorm)) + "\n";
  out += "position = " + toml_string(name_of(m.position, choices::kPosition)) + "\n";
  if (m.position == work::PositionEmbedding::learned)
    out += "max_positions = " + std::to_string(m.max_positions) + "\n";
  out += std::string("linear_bias = ") + (m.linear_bias ? "true" : "false") + "\n";
  if (m.attention_sinks) out += "attention_sinks = true\n";
  out += std::string("tied_embeddings = ") + (m.tied_embeddings ? "true" : "false") + "\n";
  out += std::string("dropout = ") + (m.dropout ? "true" : "false") + "\n";
  out += std::string("parallel_block = ") + (m.parallel_block ? "true" : "false") + "\n";
  out += "attention = " + toml_string(name_of(m.attention, choices::kAttention)) + "\n";
  if (m.is_moe()) out += moe_keys(m);
  if (m.mtp_layers > 0) out += "mtp_layers = " + std::to_string(m.mtp_layers) + "\n";
  out += attention_window_toml(m);
  out += hybrid_toml(m);
  if (m.attention == work::AttentionKind::mla)
    out += "[model.mla]\nq_lora_rank = " + std::to_string(m.mla.q_lora_rank) +
           "\nkv_lora_rank = " + std::to_string(m.mla.kv_lora_rank) +
           "\nqk_nope_head_dim = " + std::to_string(m.mla.qk_nope_head_dim) +
           "\nqk_rope_head_dim = " + std::to_string(m.mla.qk_rope_head_dim) +
           "\nv_head_dim = " + std::to_string(m.mla.v_head_dim) + "\n";
  return out;
}

}  // namespace stepsim::scen
