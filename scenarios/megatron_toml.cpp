// `stepsim import --megatron/--nemo`: an imported run as a whole scenario file, with how each
// derived value came about and every argument stepsim does not use as comments.
#include <cstdio>
#include <filesystem>
#include <string>

#include "scenarios/choices.hpp"
#include "scenarios/hf_config.hpp"
#include "scenarios/megatron_args.hpp"
#include "scenarios/toml_text.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::scen {
namespace megatron_toml {

/// `head` then `items` joined by ", ", as comment lines of at most about 100 characters.
std::string wrapped(const std::string& head, const std::vector<std::string>& items) {
  std::string out;
  std::string line = head;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (line.size() + item.size() > 98 && line != head) {
      out += toml_comment(line);
      line = "   ";
    }
    line += " " + item;
  }
  return out + toml_comment(line);
}

template <class E, std::size_t N>
std::string name_of(E value, const std::array<Choice<E>, N>& choices) {
  for (const auto& c : choices)
    if (c.value == value) return toml_string(c.name);
  return "\"?\"";
}

std::string line(const std::string& key, long long value) {
  return key + " = " + std::to_string(value) + "\n";
}
std::string line(const std::string& key, bool value) {
  return key + " = " + (value ? "true" : "false") + "\n";
}
std::string line(const std::string& key, const std::string& value) {
  return key + " = " + toml_string(value) + "\n";
}
std::string line(const std::string& key, const char* value) {
  return line(key, std::string(value));
}
std::string line(const std::string& key, int value) {
  return line(key, static_cast<long long>(value));
}

std::string moe_lines(const work::ModelSpec& m) {
  std::string out = line("experts", m.experts) + line("top_k", m.top_k) +
                    line("shared_experts", m.shared_experts) + line("expert_ffn", m.expert_ffn) +
                    line("dense_layers", m.dense_layers);
  if (m.moe_layer_pattern.empty()) return out + line("moe_layer_freq", m.moe_layer_freq);
  out += "moe_layer_freq = [";
  for (std::size_t i = 0; i < m.moe_layer_pattern.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(m.moe_layer_pattern[i]);
  return out + "]  # one 0 (dense) or 1 (experts) per layer\n";
}

std::string model_table(const work::ModelSpec& m) {
  std::string out = "[model]\n" + line("name", m.name) + line("layers", m.layers) + line("hidden", m.hidden) +
                    line("heads", m.heads) + line("kv_heads", m.kv_heads);
  if (m.attention == work::AttentionKind::standard && m.head_dim * m.heads != m.hidden)
    out += line("head_dim", m.head_dim);
  out += line("ffn", m.ffn) + line("vocab", m.vocab);
  out += "activation = " + name_of(m.activation, choices::kActivation) + "\n";
  out += "norm = " + name_of(m.norm, choices::kNorm) + "\n";
  out += "position = " + name_of(m.position, choices::kPosition) + "\n";
  if (m.position == work::PositionEmbedding::learned) out += line("max_positions", m.max_positions);
  out += line("linear_bias", m.linear_bias) + line("tied_embeddings", m.tied_embeddings) +
         line("dropout", m.dropout);
  out += "attention = " + name_of(m.attention, choices::kAttention) + "\n";
  if (m.is_moe()) out += moe_lines(m);
  if (m.mtp_layers > 0) out += line("mtp_layers", m.mtp_layers);
  out += attention_window_toml(m);
  out += hybrid_toml(m);
  if (m.attention == work::AttentionKind::mla)
    out += "\n[model.mla]\n" + line("q_lora_rank", m.mla.q_lora_rank) +
           line("kv_lora_rank", m.mla.kv_lora_rank) + line("qk_nope_head_dim", m.mla.qk_nope_head_dim) +
           line("qk_rope_head_dim", m.mla.qk_rope_head_dim) + line("v_head_dim", m.mla.v_head_dim);
  return out;
}

std::string workload_table(const ImportedRun& r) {
  std::string out = "[workload]\n" + line("kind", "train") + line("seq_len", r.seq_len) +
                    line("global_batch", r.global_batch) + line("micro_batch", r.micro_batch) +
                    line("recompute", r.recompute);
  if (!r.recompute_modules.empty()) {
    out += "recompute_modules = [";
    for (std::size_t i = 0; i < r.recompute_modules.size(); ++i)
      out += (i == 0 ? "" : ", ") + toml_string(r.recompute_modules[i]);
    out += "]\n";
  }
  if (r.recompute_layers > 0) out += line("recompute_layers", r.recompute_layers);
  out += line("attention_impl", r.attention_impl);
  if (r.grad_accumulation_separate) out += line("grad_accumulation", "separate");
  if (r.bias_grad_separate) out += line("bias_grad", "separate");
  out += line("cross_entropy", r.cross_entropy);
  return out;
}

std::string parallelism_table(const ImportedRun& r) {
  std::string out =
      "[parallelism]\n" + line("tp", r.tp) + line("pp", r.pp) + line("cp", r.cp) + line("dp", r.dp);
  if (!r.cp_comm.empty()) out += line("cp_comm", r.cp_comm);
  if (r.model.is_moe()) out += line("ep", r.ep) + line("expert_tp", r.expert_tp);
  out += line("virtual_stages", r.virtual_stages);
  if (r.first_stage_layers > 0) out += line("first_stage_layers", r.first_stage_layers);
  if (r.last_stage_layers > 0) out += line("last_stage_layers", r.last_stage_layers);
  if (r.account_for_embedding) out += line("account_for_embedding_in_pipeline_split", true);
  if (r.account_for_loss) out += line("account_for_loss_in_pipeline_split", true);
  out += line("sequence_parallel", r.sequence_parallel) + line("zero_stage", r.zero_stage) +
         line("dp_overlap", r.dp_overlap) + line("overlap_param_gather", r.overlap_param_gather) +
         line("tp_comm_overlap", r.tp_comm_overlap);
  if (r.model.is_moe()) out += line("ep_overlap", r.ep_overlap);
  if (r.pp_p2p_blocking) out += line("pp_p2p", "blocking");
  if (r.dp_bucket_mb > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "dp_bucket_mb = %.17g\n", r.dp_bucket_mb);
    out += buf;
  }
  if (r.tp_comm_overlap && !r.tp_overlap.empty()) {
    out += toml_comment("Transformer Engine userbuffers per GEMM, from " + r.tp_overlap_from +
                        "; the GEMMs it does not list take TE 2.x's defaults (tp_overlap_defaults = \"te1\" "
                        "for a TE 1.x run).");
    for (const auto& g : r.tp_overlap) {
      out += "[parallelism.tp_overlap." + g.gemm + "]\n";
      for (const auto& [key, value] : g.keys) out += key + " = " + value + "\n";
    }
  }
  return out;
}

std::string precision_table(const ImportedRun& r) {
  std::string out = "[precision]\n" + line("compute", r.compute);
  if (!r.recipe.empty()) out += line("recipe", r.recipe);
  if (r.fp8_params) out += line("fp8_params", true);
  if (r.activation_fp8_input_store) out += line("activation_fp8_input_store", true);
  out += line("params", r.params) + line("grads", r.grads);
  const bool bytes = !r.optimizer.empty() && r.optimizer.find_first_not_of("0123456789") == std::string::npos;
  out += bytes ? "optimizer = " + r.optimizer + "  # bytes per parameter\n" : line("optimizer", r.optimizer);
  return out;
}

std::string header(const ImportedRun& r) {
  const work::ParamBreakdown p = work::count_params(r.model);
  char count[96];
  std::snprintf(count, sizeof count, "stepsim counts %.3fB parameters", p.main_total() / 1e9);
  std::string out = toml_comment("Imported by `stepsim import` from " + r.source + " (" + r.format + ").");
  std::string c = count;
  if (r.model.is_moe()) {
    char active[64];
    std::snprintf(active, sizeof active, ", %.3fB active per token", p.main_active() / 1e9);
    c += active;
  }
  out += toml_comment(c + ".");
  if (!r.derivations.empty()) {
    out += toml_comment("Derived:");
    for (const auto& d : r.derivations) out += toml_comment("  " + d);
  }
  for (const auto& s : r.skipped) out += toml_comment("Passed over: " + s);
  if (!r.no_effect.empty()) out += wrapped("No effect on a step (passed over):", r.no_effect);
  for (const auto& n : r.not_used) out += toml_comment("not used: " + n);
  out += toml_comment(
      "[fabric] is stepsim's default (rail-optimized, two non-blocking tiers): set your cluster's.");
  return out;
}

}  // namespace megatron_toml

std::string imported_scenario_toml(const ImportedRun& r) {
  using namespace megatron_toml;
  std::string out = header(r) + "\n";
  out += "[meta]\n" + line("name", r.model.name) +
         line("description", "Imported from " + std::filesystem::path(r.source).filename().string() + " (" +
                                 r.format + ")") +
         "\n";
  out += model_table(r.model) + "\n";
  out += "[hardware]\n" + line("gpu", r.gpu_id) + line("nodes", r.nodes) +
         line("gpus_per_node", r.gpus_per_node) + "\n";
  out += workload_table(r) + "\n" + parallelism_table(r) + "\n" + precision_table(r);
  if (r.shared_expert_overlap || r.ep_comm_sms > 0 || r.ep_comm_sms_deepep_v2) {
    out += "\n[moe]\n";
    if (r.shared_expert_overlap) out += line("shared_expert_overlap", true);
    if (r.ep_comm_sms_deepep_v2) out += line("ep_comm_sms", "deepep-v2");
    if (r.ep_comm_sms > 0) out += line("ep_comm_sms", r.ep_comm_sms);
  }
  return out;
}

}  // namespace stepsim::scen
