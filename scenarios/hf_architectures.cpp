// One reader per Hugging Face architecture: which config keys give which ModelSpec field, the
// defaults transformers' config classes fill in for keys a published file leaves out, and the
// structure stepsim cannot express (reported as notes).
#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "scenarios/hf_arch_readers.hpp"
#include "scenarios/hf_fields.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::hf {
namespace arch_readers {

using work::Activation;
using work::ModelSpec;

std::string with_commas(double v) {
  std::string digits = std::to_string(static_cast<long long>(v));
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

/// Heads must group evenly over KV heads, and hidden must split over heads unless head_dim is set.
void check_heads(Fields& f, const ModelSpec& m, std::string_view kv_key) {
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    f.fail(
        kv_key,
        std::to_string(m.kv_heads) + " does not divide num_attention_heads (" + std::to_string(m.heads) + ")",
        "grouped-query attention shares each KV head among a whole number of query heads");
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    f.fail("num_attention_heads",
           "hidden_size (" + std::to_string(m.hidden) + ") is not divisible by " + std::to_string(m.heads),
           "set head_dim");
}

/// A token cannot use more experts than a layer has.
void check_top_k(Fields& f, const ModelSpec& m) {
  if (m.top_k > m.experts)
    f.fail("num_experts_per_tok", std::to_string(m.top_k) + " is more than the " + std::to_string(m.experts) +
                                      " experts of a layer");
}

/// The keys every Llama-style decoder shares: SwiGLU-style gated MLP, RMSNorm, RoPE. The
/// activation function only names the gate's nonlinearity (SiLU, or GELU for Gemma's GeGLU);
/// the three GEMMs and the element-wise cost are the same, so both map to `swiglu`.
void read_decoder(Fields& f, ModelSpec& m, bool tied_by_default) {
  m.layers = f.dim("num_hidden_layers", "the number of transformer layers");
  m.hidden = f.dim("hidden_size", "the model width");
  m.heads = f.dim("num_attention_heads", "the number of attention heads");
  m.kv_heads = f.opt_dim("num_key_value_heads").value_or(m.heads);
  m.head_dim = f.opt_dim("head_dim").value_or(0);
  m.vocab = f.dim("vocab_size", "the vocabulary size");
  m.tied_embeddings = f.flag("tie_word_embeddings", tied_by_default);
  m.activation = Activation::swiglu;
  f.text("hidden_act");
  f.text("hidden_activation");
  m.dropout = f.number("attention_dropout", 0.0) > 0.0 || f.number("hidden_dropout", 0.0) > 0.0;
  check_heads(f, m, "num_key_value_heads");
}

/// Llama's attention_bias and mlp_bias: stepsim has biases on every projection or on none.
void read_llama_biases(Fields& f, ModelSpec& m) {
  const bool attention = f.peek_flag("attention_bias", false);
  const bool mlp = f.peek_flag("mlp_bias", false);
  if (attention == mlp) f.use({"attention_bias", "mlp_bias"});
  m.linear_bias = attention && mlp;
}

/// Local attention as transformers builds it: the window is `window_key`'s value (`fallback`, the
/// config class's default, when the file leaves the key out; null: no window), and the local layers
/// are those `layer_types` lists as "sliding_attention" or "chunked_attention" when the config has
/// it, else those `local` (the architecture's rule) says. A pattern with every N-th layer global is
/// kept as global_attention_every = N, any other as the per-layer list.
void read_attention_window(Fields& f, ModelSpec& m, std::string_view window_key,
                           work::AttentionWindowKind kind, std::optional<int> fallback,
                           const std::function<bool(int)>& local) {
  std::optional<int> window = f.has(window_key) ? f.opt_dim(window_key) : fallback;
  f.use({window_key});
  std::vector<bool> is_local(static_cast<std::size_t>(m.layers));
  if (const auto types = f.words("layer_types")) {
    if (static_cast<int>(types->size()) != m.layers)
      f.fail("layer_types", "lists " + std::to_string(types->size()) + " layers, but num_hidden_layers is " +
                                std::to_string(m.layers));
    for (std::size_t i = 0; i < types->size(); ++i) {
      const std::string& t = (*types)[i];
      if (t == "sliding_attention" || t == "chunked_attention") {
        is_local[i] = true;
        kind = t == "sliding_attention" ? work::AttentionWindowKind::sliding
                                        : work::AttentionWindowKind::chunked;
      } else if (t != "full_attention") {
        f.fail("layer_types", "names `" + t + "`, a layer kind stepsim does not simulate",
               "stepsim has full_attention, sliding_attention and chunked_attention layers");
      }
    }
  } else {
    for (int i = 0; i < m.layers; ++i) is_local[static_cast<std::size_t>(i)] = local(i);
  }
  if (!window || std::find(is_local.begin(), is_local.end(), true) == is_local.end()) return;
  m.attention_window = *window;
  m.window_kind = kind;
  for (int every = 0; every <= m.layers; every = every == 0 ? 2 : every + 1) {
    bool matches = true;
    for (int i = 0; i < m.layers && matches; ++i)
      matches = is_local[static_cast<std::size_t>(i)] == (every == 0 || (i + 1) % every != 0);
    if (matches) {
      m.global_attention_every = every;
      return;
    }
  }
  for (bool b : is_local) m.local_attention_pattern.push_back(b ? 1 : 0);
}

/// Every layer through the window (Mistral, Mixtral: MistralAttention's config.sliding_window).
void read_sliding_window_everywhere(Fields& f, ModelSpec& m) {
  read_attention_window(f, m, "sliding_window", work::AttentionWindowKind::sliding, std::nullopt,
                        [](int) { return true; });
}

/// Qwen2 and Qwen3 (Qwen2Config): with use_sliding_window, layers from max_window_layers on (default
/// 28) slide; without it the window size is irrelevant.
void read_sliding_window_switch(Fields& f, ModelSpec& m) {
  if (!f.flag("use_sliding_window", false)) {
    f.use({"use_sliding_window", "sliding_window", "max_window_layers", "layer_types"});
    return;
  }
  const int first = f.count("max_window_layers", 28);
  read_attention_window(f, m, "sliding_window", work::AttentionWindowKind::sliding, std::nullopt,
                        [first](int i) { return i >= first; });
}

void read_llama(Fields& f, Mapped& out) {
  read_decoder(f, out.model, false);
  out.model.ffn = f.dim("intermediate_size", "the MLP width");
  read_llama_biases(f, out.model);
}

void read_mistral(Fields& f, Mapped& out) {
  read_llama(f, out);
  read_sliding_window_everywhere(f, out.model);
}

void read_mixtral(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  read_decoder(f, m, false);
  m.experts = f.dim("num_local_experts", "the number of experts");
  m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
  m.expert_ffn = f.dim("intermediate_size", "the width of one expert");
  check_top_k(f, m);
  read_sliding_window_everywhere(f, m);
}

void read_qwen2(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  read_decoder(f, m, false);
  m.ffn = f.dim("intermediate_size", "the MLP width");
  read_sliding_window_switch(f, m);
  const int head_dim = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
  out.notes.push_back("Qwen2's biases on the q, k and v projections (" +
                      with_commas(static_cast<double>(m.layers) * (m.heads + 2.0 * m.kv_heads) * head_dim) +
                      " weights) are not modelled: stepsim puts biases on every projection or on none");
}

void read_qwen3(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  read_decoder(f, m, false);
  m.ffn = f.dim("intermediate_size", "the MLP width");
  read_llama_biases(f, m);
  read_sliding_window_switch(f, m);
  m.qk_norm = true;  // Qwen3Attention's q_norm and k_norm
}

/// Layers listed by index (0-based) as one 0/1 per layer, or empty when every layer is MoE.
std::vector<int> moe_pattern(const std::vector<bool>& is_moe) {
  for (bool b : is_moe)
    if (!b) {
      std::vector<int> out;
      for (bool x : is_moe) out.push_back(x ? 1 : 0);
      return out;
    }
  return {};
}

void check_layer_indices(Fields& f, std::string_view key, const std::vector<int>& layers, int n) {
  for (int i : layers)
    if (i >= n)
      f.fail(key, "lists layer " + std::to_string(i) + ", but num_hidden_layers is " + std::to_string(n),
             "layer indices are 0-based");
}

void read_qwen3_moe(Fields& f, Mapped& out) {
  read_qwen3(f, out);
  ModelSpec& m = out.model;
  m.experts = f.dim("num_experts", "the number of experts");
  m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
  m.expert_ffn = f.dim("moe_intermediate_size", "the width of one expert");
  check_top_k(f, m);
  // Qwen3MoeDecoderLayer: experts unless the layer is in mlp_only_layers, and (i + 1) is a
  // multiple of decoder_sparse_step.
  const int step = f.count("decoder_sparse_step", 1);
  if (step < 1) f.fail("decoder_sparse_step", "must be at least 1");
  const std::vector<int> dense = f.indices("mlp_only_layers").value_or(std::vector<int>{});
  check_layer_indices(f, "mlp_only_layers", dense, m.layers);
  std::vector<bool> is_moe(static_cast<std::size_t>(m.layers));
  for (int i = 0; i < m.layers; ++i)
    is_moe[static_cast<std::size_t>(i)] =
        (i + 1) % step == 0 && std::find(dense.begin(), dense.end(), i) == dense.end();
  m.moe_layer_pattern = moe_pattern(is_moe);
}

/// DeepSeek-V2 and V3: multi-head latent attention, fine-grained and shared experts, leading dense
/// layers, and (V3) multi-token prediction.
void read_deepseek(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  m.layers = f.dim("num_hidden_layers", "the number of transformer layers");
  m.hidden = f.dim("hidden_size", "the model width");
  m.heads = f.dim("num_attention_heads", "the number of attention heads");
  m.kv_heads = m.heads;  // MLA: every head has its keys and values, from the shared latent
  f.use({"num_key_value_heads"});
  m.vocab = f.dim("vocab_size", "the vocabulary size");
  m.ffn = f.dim("intermediate_size", "the MLP width of the dense layers");
  m.tied_embeddings = f.flag("tie_word_embeddings", false);
  f.text("hidden_act");
  if (!f.peek_flag("attention_bias", false)) f.use({"attention_bias"});
  m.attention = work::AttentionKind::mla;
  m.mla.q_lora_rank = f.opt_dim("q_lora_rank").value_or(0);  // null: queries projected directly
  m.mla.kv_lora_rank = f.dim("kv_lora_rank", "MLA's latent width");
  m.mla.qk_nope_head_dim = f.dim("qk_nope_head_dim", "MLA's per-head query/key width without RoPE");
  m.mla.qk_rope_head_dim = f.dim("qk_rope_head_dim", "MLA's decoupled RoPE key width");
  m.mla.v_head_dim = f.dim("v_head_dim", "MLA's per-head value width");
  m.dropout = f.number("attention_dropout", 0.0) > 0.0;
  if (f.has("n_routed_experts")) {
    m.experts = f.dim("n_routed_experts", "the number of routed experts");
    m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
    m.shared_experts = f.count("n_shared_experts", 0);
    m.expert_ffn = f.dim("moe_intermediate_size", "the width of one expert");
    m.dense_layers = f.count("first_k_dense_replace", 0);
    m.moe_layer_freq = f.opt_dim("moe_layer_freq").value_or(1);
    check_top_k(f, m);
    if (m.dense_layers >= m.layers)
      f.fail("first_k_dense_replace",
             "leaves no MoE layer (num_hidden_layers is " + std::to_string(m.layers) + ")");
    // Group-limited routing only restricts anything when a token may not reach every group; then
    // topk_group is left for a note.
    f.use({"n_group"});
    if (f.peek_number("topk_group", 1) >= f.peek_number("n_group", 1)) f.use({"topk_group"});
  } else {
    f.use({"num_experts_per_tok", "n_shared_experts", "moe_intermediate_size", "first_k_dense_replace",
           "moe_layer_freq", "n_group", "topk_group"});
  }
  m.mtp_layers = f.count("num_nextn_predict_layers", 0);
}

/// Gemma 2 and 3 put a norm after attention and after the MLP as well as before each.
void read_gemma2(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  read_decoder(f, m, true);
  if (m.head_dim == 0) m.head_dim = 256;  // Gemma2Config's default
  m.ffn = f.dim("intermediate_size", "the MLP width");
  read_llama_biases(f, m);
  m.sandwich_norms = true;  // post_attention_layernorm, post_feedforward_layernorm
  // Gemma2Config: window 4096; layer i slides when (i + 1) is odd, so every second layer is global.
  read_attention_window(f, m, "sliding_window", work::AttentionWindowKind::sliding, 4096,
                        [](int i) { return (i + 1) % 2 != 0; });
}

/// What Gemma3TextConfig fills in for the keys google/gemma-3-*'s text_config leaves out;
/// `tied` is the outer config's tie_word_embeddings (true unless it says otherwise).
std::vector<Default> gemma3_text_defaults(bool tied) {
  return {{"vocab_size", 262208},
          {"num_attention_heads", 8},
          {"num_key_value_heads", 4},
          {"head_dim", 256},
          {"hidden_activation", "gelu_pytorch_tanh"},
          {"tie_word_embeddings", tied}};
}

/// Gemma 3: the text model of Gemma3ForConditionalGeneration (under text_config) or of the
/// text-only Gemma3ForCausalLM (at the top level).
void read_gemma3(Fields& top, Mapped& out) {
  ModelSpec& m = out.model;
  const auto read_text = [&](Fields& f) {
    read_decoder(f, m, true);
    m.ffn = f.dim("intermediate_size", "the MLP width");
    read_llama_biases(f, m);
    m.sandwich_norms = true;  // post_attention_layernorm, post_feedforward_layernorm
    m.qk_norm = true;         // Gemma3Attention's q_norm and k_norm
    // Gemma3TextConfig: window 4096, sliding_window_pattern 6: layer i slides unless (i + 1) is a
    // multiple of the pattern.
    int pattern = f.count("sliding_window_pattern", 6);
    if (f.has("_sliding_window_pattern")) pattern = f.count("_sliding_window_pattern", pattern);
    if (pattern < 1) f.fail("sliding_window_pattern", "must be at least 1");
    read_attention_window(f, m, "sliding_window", work::AttentionWindowKind::sliding, 4096,
                          [pattern](int i) { return (i + 1) % pattern != 0; });
  };
  if (!top.has("text_config")) {
    top.add_defaults(gemma3_text_defaults(true));
    read_text(top);
    return;
  }
  const bool tied = top.flag("tie_word_embeddings", true);
  Fields text = top.object("text_config", gemma3_text_defaults(tied));
  read_text(text);
  note_unread(text, out.notes);
}

/// Llama 4: every `interleave_moe_layer_step`-th layer (or those `moe_layers` lists) has routed
/// experts of width intermediate_size plus one shared expert of the same width; the other layers
/// have a dense MLP of width intermediate_size_mlp.
void read_llama4_text(Fields& f, Mapped& out, bool tied_by_default) {
  ModelSpec& m = out.model;
  read_decoder(f, m, tied_by_default);
  read_llama_biases(f, m);
  m.experts = f.dim("num_local_experts", "the number of routed experts");
  m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
  m.shared_experts = 1;
  m.expert_ffn = f.dim("intermediate_size", "the width of one expert");
  m.ffn = f.dim("intermediate_size_mlp", "the MLP width of the dense layers");
  check_top_k(f, m);
  std::vector<bool> is_moe(static_cast<std::size_t>(m.layers), false);
  if (const auto listed = f.indices("moe_layers")) {
    check_layer_indices(f, "moe_layers", *listed, m.layers);
    for (int i : *listed) is_moe[static_cast<std::size_t>(i)] = true;
    f.use({"interleave_moe_layer_step"});
  } else {
    // Llama4TextConfig: moe_layers = range(step - 1, layers, step).
    const int step = f.opt_dim("interleave_moe_layer_step").value_or(1);
    for (int i = step - 1; i < m.layers; i += step) is_moe[static_cast<std::size_t>(i)] = true;
  }
  if (std::find(is_moe.begin(), is_moe.end(), true) == is_moe.end())
    f.fail("moe_layers", "leaves no layer with experts", "a Llama 4 model has experts in some layers");
  m.moe_layer_pattern = moe_pattern(is_moe);
  // Llama4TextConfig: the RoPE layers (no_rope_layers[i] == 1; by default all but every
  // no_rope_layer_interval-th, 4) attend within chunks of attention_chunk_size (8192); the NoPE
  // layers attend to the whole context.
  std::vector<int> rope(static_cast<std::size_t>(m.layers));
  if (const auto listed = f.indices("no_rope_layers"); listed && !listed->empty()) {
    if (static_cast<int>(listed->size()) != m.layers)
      f.fail("no_rope_layers",
             "lists " + std::to_string(listed->size()) + " layers, but num_hidden_layers is " +
                 std::to_string(m.layers),
             "one 1 (RoPE, chunked attention) or 0 (NoPE, global attention) per layer");
    rope = *listed;
    f.use({"no_rope_layer_interval"});
  } else {
    const int interval = f.count("no_rope_layer_interval", 4);
    for (int i = 0; i < m.layers; ++i)
      rope[static_cast<std::size_t>(i)] = interval < 1 || (i + 1) % interval != 0;
  }
  read_attention_window(f, m, "attention_chunk_size", work::AttentionWindowKind::chunked, 8192,
                        [&rope](int i) { return rope[static_cast<std::size_t>(i)] != 0; });
}

void read_llama4(Fields& top, Mapped& out) {
  if (!top.has("text_config")) {
    read_llama4_text(top, out, false);
    return;
  }
  // The top level's tie_word_embeddings (false for Scout and Maverick) applies unless the text
  // model sets its own.
  const bool tied = top.flag("tie_word_embeddings", false);
  Fields text = top.object("text_config");
  read_llama4_text(text, out, tied);
  note_unread(text, out.notes);
}

/// What GptOssConfig fills in for keys a config leaves out: its defaults are GPT-OSS-120B's.
std::vector<Default> gpt_oss_defaults() {
  return {{"num_hidden_layers", 36},     {"num_local_experts", 128},  {"vocab_size", 201088},
          {"hidden_size", 2880},         {"intermediate_size", 2880}, {"head_dim", 64},
          {"num_attention_heads", 64},   {"num_key_value_heads", 8},  {"num_experts_per_tok", 4},
          {"tie_word_embeddings", false}};
}

/// GPT-OSS (GptOssForCausalLM): every layer MoE (num_local_experts of width intermediate_size, top
/// num_experts_per_tok, no shared expert), grouped-query attention with biases on every projection
/// and the experts' too (GptOssConfig sets attention_bias), and sliding windows of sliding_window
/// (128) on every second layer (layer 0 slides) unless layer_types lists them.
void read_gpt_oss(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  f.add_defaults(gpt_oss_defaults());
  read_decoder(f, m, false);
  m.experts = f.dim("num_local_experts", "the number of experts");
  m.top_k = f.dim("num_experts_per_tok", "the experts each token uses");
  f.use({"experts_per_token"});  // the original release's name for num_experts_per_tok
  m.expert_ffn = f.dim("intermediate_size", "the width of one expert");
  m.linear_bias = true;
  f.use({"attention_bias"});
  check_top_k(f, m);
  m.attention_sinks = true;
  read_attention_window(f, m, "sliding_window", work::AttentionWindowKind::sliding, 128,
                        [](int i) { return (i + 1) % 2 != 0; });
}

/// GELU or ReLU for the two-matrix MLPs of GPT-NeoX and Falcon.
Activation plain_activation(Fields& f, std::string_view key, const std::string& fallback) {
  const std::string act = f.text(key).value_or(fallback);
  if (act.rfind("gelu", 0) == 0) return Activation::gelu;
  if (act == "relu") return Activation::relu;
  f.fail(key, "`" + act + "` is not an activation stepsim simulates in a two-matrix MLP",
         "gelu (any variant) or relu");
}

void read_gpt_neox(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  m.layers = f.dim("num_hidden_layers", "the number of transformer layers");
  m.hidden = f.dim("hidden_size", "the model width");
  m.heads = f.dim("num_attention_heads", "the number of attention heads");
  m.kv_heads = m.heads;
  m.vocab = f.dim("vocab_size", "the vocabulary size");
  m.ffn = f.dim("intermediate_size", "the MLP width");
  m.activation = plain_activation(f, "hidden_act", "gelu");
  m.norm = work::NormKind::layernorm;
  m.tied_embeddings = f.flag("tie_word_embeddings", false);
  m.parallel_block = f.flag("use_parallel_residual", true);
  // GPTNeoXConfig.attention_bias (default true) covers the attention projections; the MLP always
  // has biases.
  m.linear_bias = f.flag("attention_bias", true);
  if (!m.linear_bias) out.notes.push_back("GPT-NeoX's MLP biases are not modelled without attention biases");
  m.dropout = f.number("attention_dropout", 0.0) > 0.0 || f.number("hidden_dropout", 0.0) > 0.0;
  // GPTNeoXConfig's rotary_pct defaults to 0.25.
  if (f.peek_number("rotary_pct", 0.25) == 1.0) f.use({"rotary_pct"});
  if (f.peek_number("partial_rotary_factor", 1.0) == 1.0) f.use({"partial_rotary_factor"});
  check_heads(f, m, "num_attention_heads");
}

void read_falcon(Fields& f, Mapped& out) {
  ModelSpec& m = out.model;
  m.layers = f.dim("num_hidden_layers", "the number of transformer layers");
  m.hidden = f.dim("hidden_size", "the model width");
  m.heads = f.dim("num_attention_heads", "the number of attention heads");
  m.vocab = f.dim("vocab_size", "the vocabulary size");
  m.head_dim = f.opt_dim("head_dim").value_or(0);
  // FalconAttention: one KV head under multi_query, unless the new decoder architecture (or
  // plain multi-head attention) takes num_kv_heads.
  const bool new_arch = f.flag("new_decoder_architecture", false);
  const bool multi_query = f.flag("multi_query", true);
  if (new_arch || !multi_query) {
    m.kv_heads = f.opt_dim("num_kv_heads").value_or(m.heads);
  } else {
    m.kv_heads = 1;
    f.use({"num_kv_heads"});
  }
  m.ffn = f.opt_dim("ffn_hidden_size").value_or(4 * m.hidden);
  m.activation = plain_activation(f, "activation", "gelu");
  m.norm = work::NormKind::layernorm;
  m.linear_bias = f.flag("bias", false);
  m.parallel_block = f.flag("parallel_attn", true);
  m.tied_embeddings = f.flag("tie_word_embeddings", true);
  m.dropout = f.number("attention_dropout", 0.0) > 0.0 || f.number("hidden_dropout", 0.0) > 0.0;
  if (!f.peek_flag("alibi", false)) f.use({"alibi"});
  check_heads(f, m, new_arch || !multi_query ? "num_kv_heads" : "multi_query");
}

constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama", "Llama 2/3/3.1/3.3", read_llama},
    {"NemotronHForCausalLM", "nemotron_h", "Nemotron-H (hybrid Mamba-Transformer)", read_nemotron_h},
    {"Qwen3NextForCausalLM", "qwen3_next", "Qwen3-Next (hybrid Gated DeltaNet / attention)", read_qwen3_next},
    {"Qwen3_5ForConditionalGeneration", "qwen3_5", "Qwen3.5 (hybrid Gated DeltaNet / attention)",
     read_qwen3_5},
    {"Qwen3_5ForCausalLM", "qwen3_5_text", "Qwen3.5, text only", read_qwen3_5},
    {"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", "Qwen3.5-MoE (hybrid Gated DeltaNet / attention)",
     read_qwen3_5},
    {"Qwen3_5MoeForCausalLM", "qwen3_5_moe_text", "Qwen3.5-MoE, text only", read_qwen3_5},
    {"Llama4ForConditionalGeneration", "llama4", "Llama 4", read_llama4},
    {"Llama4ForCausalLM", "llama4_text", "Llama 4, text only", read_llama4},
    {"MistralForCausalLM", "mistral", "Mistral", read_mistral},
    {"MixtralForCausalLM", "mixtral", "Mixtral", read_mixtral},
    {"Qwen2ForCausalLM", "qwen2", "Qwen2/Qwen2.5", read_qwen2},
    {"Qwen3ForCausalLM", "qwen3", "Qwen3", read_qwen3},
    {"Qwen3MoeForCausalLM", "qwen3_moe", "Qwen3-MoE", read_qwen3_moe},
    {"DeepseekV2ForCausalLM", "deepseek_v2", "DeepSeek-V2", read_deepseek},
    {"DeepseekV3ForCausalLM", "deepseek_v3", "DeepSeek-V3", read_deepseek},
    {"Gemma2ForCausalLM", "gemma2", "Gemma 2", read_gemma2},
    {"Gemma3ForConditionalGeneration", "gemma3", "Gemma 3", read_gemma3},
    {"Gemma3ForCausalLM", "gemma3_text", "Gemma 3, text only", read_gemma3},
    {"GPTNeoXForCausalLM", "gpt_neox", "GPT-NeoX", read_gpt_neox},
    {"FalconForCausalLM", "falcon", "Falcon", read_falcon},
    {"GptOssForCausalLM", "gpt_oss", "GPT-OSS", read_gpt_oss},
};

}  // namespace arch_readers

std::span<const Architecture> architectures() {
  return arch_readers::kArchitectures;
}

}  // namespace stepsim::scen::hf
