// Hugging Face readers of the hybrid architectures: Mamba-2 (Nemotron-H) or Gated DeltaNet
// (Qwen3-Next, Qwen3.5) layers beside attention, each layer's kind in ModelSpec::hybrid_layers.
#include <algorithm>
#include <optional>
#include <string>

#include "scenarios/hf_arch_readers.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::hf::arch_readers {

using work::ModelSpec;

/// NemotronHForCausalLM (Nemotron-H, Nemotron Nano 2, Nemotron 3): the hybrid pattern, one
/// character per layer, Mamba-2 mixers beside attention, squared-ReLU MLP and MoE layers.
void read_nemotron_h(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  const std::optional<std::string> pattern = f.text("hybrid_override_pattern");
  if (!pattern || pattern->empty())
    f.fail("hybrid_override_pattern", "is missing or empty",
           "NemotronH configs list every layer's kind: M (Mamba), * (attention), - (MLP), E (MoE)");
  if (const auto bad = work::parse_hybrid_pattern(*pattern, m.hybrid_layers))
    f.fail("hybrid_override_pattern", std::string("has '") + *bad + "', which stepsim does not know",
           std::string(work::kHybridPatternHint));
  m.layers = f.dim("num_hidden_layers", "the number of layers");
  if (m.layers != static_cast<int>(m.hybrid_layers.size()))
    f.fail("hybrid_override_pattern", "has " + std::to_string(m.hybrid_layers.size()) +
                                          " layers, but num_hidden_layers is " + std::to_string(m.layers));
  m.hidden = f.dim("hidden_size", "the model width");
  m.heads = f.dim("num_attention_heads", "the number of attention heads");
  m.kv_heads = f.opt_dim("num_key_value_heads").value_or(m.heads);
  m.head_dim = f.opt_dim("head_dim").value_or(f.opt_dim("attention_head_dim").value_or(0));
  f.use({"head_dim", "attention_head_dim"});
  m.vocab = f.dim("vocab_size", "the vocabulary size");
  m.ffn = f.opt_dim("intermediate_size").value_or(0);
  m.tied_embeddings = f.flag("tie_word_embeddings", false);
  // Squared ReLU (relu2): two matrices and one element-wise kernel, as relu.
  const std::string act = f.text("mlp_hidden_act").value_or("relu2");
  if (act != "relu2" && act != "relu")
    f.fail("mlp_hidden_act", "is \"" + act + "\"; NemotronH's MLPs are squared ReLU (relu2)");
  m.activation = work::Activation::relu;
  f.use({"hidden_act", "mamba_hidden_act", "layer_norm_epsilon", "residual_in_fp32", "use_conv_bias",
         "mamba_proj_bias", "expand", "time_step_min", "time_step_max", "time_step_floor", "time_step_limit",
         "rescale_prenorm_residual", "initializer_range", "max_position_embeddings", "use_bias",
         "rms_norm_eps", "use_mamba_kernels", "num_logits_to_keep"});
  m.position = work::PositionEmbedding::none;  // NemotronH's attention layers have no rotary embedding
  m.linear_bias = f.flag("attention_bias", false) && f.flag("mlp_bias", false);
  m.dropout = f.number("attention_dropout", 0.0) > 0.0 || f.number("hidden_dropout", 0.0) > 0.0;
  m.mamba.heads = f.dim("mamba_num_heads", "the Mamba-2 heads");
  m.mamba.head_dim = f.dim("mamba_head_dim", "the Mamba-2 head width");
  m.mamba.state = f.dim("ssm_state_size", "the Mamba-2 state size");
  m.mamba.groups = f.count("n_groups", 1);
  m.mamba.conv_kernel = f.count("conv_kernel", 4);
  m.mamba.chunk = f.count("chunk_size", 128);
  if (f.has("n_routed_experts")) {
    m.experts = f.dim("n_routed_experts", "the number of routed experts");
    m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
    m.expert_ffn = f.dim("moe_intermediate_size", "the width of one expert");
    // The shared expert's width as a number of routed experts' widths (Nemotron 3 Nano: 3,712 = 2 x 1,856).
    const int shared = f.opt_dim("moe_shared_expert_intermediate_size").value_or(0);
    m.shared_experts = (shared + m.expert_ffn / 2) / m.expert_ffn;
    if (shared % m.expert_ffn != 0)
      out.notes.push_back("shared expert of " + std::to_string(shared) + " simulated as " +
                          std::to_string(m.shared_experts) + " x moe_intermediate_size");
    check_top_k(f, m);
    f.use({"n_shared_experts", "n_group", "topk_group", "norm_topk_prob", "routed_scaling_factor"});
  }
}

/// Qwen3NextForCausalLM (Qwen3-Next): Gated DeltaNet linear attention in three of every four layers
/// and gated full attention in the fourth, an MoE (or dense) FFN in every layer. Each decoder layer is
/// two hybrid layers here, its mixer (G or *) and its FFN (E or -), each behind its own norm, as the
/// model has them (input_layernorm, post_attention_layernorm).
void read_qwen3_next(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  read_decoder(f, m, false);
  const int decoder_layers = m.layers;
  m.ffn = f.opt_dim("intermediate_size").value_or(0);
  m.attention_output_gate = f.flag("attn_output_gate", true);  // Qwen3NextAttention's q_proj makes the gate
  f.use({"rms_norm_eps", "rope_theta", "partial_rotary_factor", "rope_scaling", "rope_parameters",
         "max_position_embeddings", "initializer_range", "use_cache", "attention_bias", "norm_topk_prob",
         "output_router_logits", "router_aux_loss_coef", "use_sliding_window", "sliding_window",
         "max_window_layers", "mamba_ssm_dtype", "dtype", "mtp_use_dedicated_embeddings"});
  // Qwen3.5's multi-token-prediction layers serve speculative decoding; a hybrid model's MTP is not modelled.
  if (f.count("mtp_num_hidden_layers", 0) > 0)
    out.notes.push_back("the " + std::to_string(f.count("mtp_num_hidden_layers", 0)) +
                        " multi-token-prediction layer(s) are not modelled");
  // Which layers attend: layer_types, or every full_attention_interval-th (Qwen3NextConfig's rule).
  std::vector<bool> full(static_cast<std::size_t>(decoder_layers));
  if (const auto types = f.words("layer_types")) {
    if (static_cast<int>(types->size()) != decoder_layers)
      f.fail("layer_types", "lists " + std::to_string(types->size()) + " layers, but num_hidden_layers is " +
                                std::to_string(decoder_layers));
    for (std::size_t i = 0; i < types->size(); ++i) {
      if ((*types)[i] != "full_attention" && (*types)[i] != "linear_attention")
        f.fail("layer_types",
               "has \"" + (*types)[i] + "\"; stepsim reads full_attention and linear_attention");
      full[i] = (*types)[i] == "full_attention";
    }
    f.use({"full_attention_interval"});
  } else {
    const int every = f.count("full_attention_interval", 4);
    if (every < 1) f.fail("full_attention_interval", "must be at least 1");
    for (int i = 0; i < decoder_layers; ++i) full[static_cast<std::size_t>(i)] = (i + 1) % every == 0;
  }
  // Experts as in Qwen3-MoE: unless the layer is in mlp_only_layers, and (i + 1) is a multiple of
  // decoder_sparse_step.
  std::vector<bool> moe(static_cast<std::size_t>(decoder_layers), false);
  if (f.has("num_experts") && f.peek_number("num_experts", 0) > 0) {
    m.experts = f.dim("num_experts", "the number of experts");
    m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
    m.expert_ffn = f.dim("moe_intermediate_size", "the width of one expert");
    check_top_k(f, m);
    if (const auto shared = f.opt_dim("shared_expert_intermediate_size")) {
      if (*shared % m.expert_ffn != 0)
        f.fail("shared_expert_intermediate_size", std::to_string(*shared) +
                                                      " is not a multiple of moe_intermediate_size " +
                                                      std::to_string(m.expert_ffn));
      m.shared_experts = *shared / m.expert_ffn;
      out.notes.push_back("the shared expert's sigmoid gate (hidden_size weights per layer) is not modelled");
    }
    const int step = f.count("decoder_sparse_step", 1);
    if (step < 1) f.fail("decoder_sparse_step", "must be at least 1");
    const std::vector<int> dense = f.indices("mlp_only_layers").value_or(std::vector<int>{});
    check_layer_indices(f, "mlp_only_layers", dense, decoder_layers);
    for (int i = 0; i < decoder_layers; ++i)
      moe[static_cast<std::size_t>(i)] =
          (i + 1) % step == 0 && std::find(dense.begin(), dense.end(), i) == dense.end();
  }
  for (int i = 0; i < decoder_layers; ++i) {
    m.hybrid_layers.push_back(full[static_cast<std::size_t>(i)] ? work::LayerKind::attention
                                                                : work::LayerKind::gated_delta);
    m.hybrid_layers.push_back(moe[static_cast<std::size_t>(i)] ? work::LayerKind::moe : work::LayerKind::mlp);
  }
  m.layers = static_cast<int>(m.hybrid_layers.size());
  if (m.ffn < 1 && m.ffn_layers() > m.moe_layers())
    f.fail("intermediate_size", "is missing, but some layers have a dense MLP");
  work::GatedDeltaDims& g = m.gated_delta;
  g.key_heads = f.dim("linear_num_key_heads", "the Gated DeltaNet's key heads");
  g.value_heads = f.dim("linear_num_value_heads", "the Gated DeltaNet's value heads");
  g.key_dim = f.dim("linear_key_head_dim", "the Gated DeltaNet's key head width");
  g.value_dim = f.dim("linear_value_head_dim", "the Gated DeltaNet's value head width");
  g.conv_kernel = f.count("linear_conv_kernel_dim", 4);
  if (g.value_heads % g.key_heads != 0)
    f.fail("linear_num_value_heads", "must be a multiple of linear_num_key_heads");
  out.notes.push_back(
      "each of the " + std::to_string(decoder_layers) +
      " decoder layers is two hybrid layers here: its mixer (G: Gated DeltaNet, *: gated attention) "
      "and its FFN (E: experts, -: MLP)");
  m.qk_norm = true;  // Qwen3NextAttention's q_norm and k_norm
}

/// Qwen3.5 (dense and MoE): Qwen3-Next's layers under the vision-language wrapper's text_config, or
/// the text model alone.
void read_qwen3_5(Fields& top, Mapped& out) {
  if (!top.has("text_config")) {
    read_qwen3_next(top, out);
    return;
  }
  Fields text = top.object("text_config");
  read_qwen3_next(text, out);
  note_unread(text, out.notes);
  if (top.has("vision_config")) out.notes.push_back("the vision encoder (vision_config) is not modelled");
  top.use({"vision_config", "tie_word_embeddings", "image_token_id", "video_token_id",
           "vision_start_token_id", "vision_end_token_id"});
}

}  // namespace stepsim::scen::hf::arch_readers
