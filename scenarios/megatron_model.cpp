// The model of a Megatron-LM / NeMo run, with Megatron's defaults (megatron/training/arguments.py
// validate_args): FFN width, KV channels, GeLU, LayerNorm, learned positions, biases, tied
// embeddings, dropout 0.1, and the vocabulary padded to a multiple of
// make_vocab_size_divisible_by x tp.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <string>

#include "scenarios/megatron_detail.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::megatron {
namespace megatron_model {

int required(const RunSettings& s, std::string_view name, const std::string& what) {
  if (const auto v = s.whole_of(name)) return static_cast<int>(*v);
  s.fail(name, "is missing (" + what + ")", "Megatron-LM needs it too");
}

int whole_or(const RunSettings& s, std::string_view name, int fallback) {
  const auto v = s.whole_of(name);
  return v ? static_cast<int>(*v) : fallback;
}

double number_or(const RunSettings& s, std::string_view name, double fallback) {
  const auto it = s.number.find(name);
  return it == s.number.end() ? fallback : it->second;
}

std::string word_or(const RunSettings& s, std::string_view name, std::string fallback) {
  const auto it = s.word.find(name);
  return it == s.word.end() ? fallback : it->second;
}

void note_unused(const RunSettings& s, ImportedRun& r, std::string_view name, const std::string& why) {
  r.not_used.push_back(s.given.at(std::string(name)).shown() + " (" + why + ")");
}

work::Activation activation(const RunSettings& s, ImportedRun& r) {
  const std::string a = word_or(s, "activation", "");
  if (s.on("swiglu") || a == "swiglu" || a == "fast-swiglu") return work::Activation::swiglu;
  if (s.on("quick_geglu") || a == "geglu" || a == "fast-geglu" || a == "reglu" || a == "fast-reglu") {
    r.derivations.push_back("activation = swiglu: a gated MLP (" + (a.empty() ? "quick GeGLU" : a) +
                            ") has SwiGLU's three GEMMs");
    return work::Activation::swiglu;
  }
  if (s.on("squared_relu") || a == "squared-relu" || a == "relu") return work::Activation::relu;
  return work::Activation::gelu;
}

void attention_shape(const RunSettings& s, ImportedRun& r) {
  work::ModelSpec& m = r.model;
  const bool grouped = s.dialect == Dialect::nemo ? s.has("num_query_groups") : s.on("group_query_attention");
  if (s.has("num_query_groups") && !grouped)
    note_unused(s, r, "num_query_groups", "Megatron reads it only with --group-query-attention");
  m.kv_heads = grouped ? whole_or(s, "num_query_groups", 1) : m.heads;
  if (m.heads % m.kv_heads != 0)
    s.fail("num_query_groups", std::to_string(m.kv_heads) + " does not divide the " +
                                   std::to_string(m.heads) + " attention heads");
  if (const auto kv = s.whole_of("kv_channels")) {
    m.head_dim = static_cast<int>(*kv);
  } else if (m.hidden % m.heads != 0) {
    s.fail("num_attention_heads",
           std::to_string(m.heads) + " heads do not divide hidden size " + std::to_string(m.hidden),
           "give the per-head width with --kv-channels");
  } else {
    m.head_dim = m.hidden / m.heads;
  }
  if (!s.on("multi_latent_attention")) return;
  m.attention = work::AttentionKind::mla;
  m.kv_heads = m.heads;
  m.head_dim = 0;
  m.mla = {whole_or(s, "q_lora_rank", 0), whole_or(s, "kv_lora_rank", 32), whole_or(s, "qk_head_dim", 128),
           whole_or(s, "qk_pos_emb_head_dim", 64), whole_or(s, "v_head_dim", 128)};
}

void position(const RunSettings& s, ImportedRun& r, int seq_len) {
  std::string type = word_or(s, "position_embedding_type", "learned_absolute");
  if (!s.has("position_embedding_type") && s.on("use_rotary_position_embeddings")) type = "rope";
  if (!s.has("position_embedding_type") && s.on("no_position_embedding")) type = "none";
  if (type == "learned_absolute") {
    r.model.position = work::PositionEmbedding::learned;
    r.model.max_positions = whole_or(s, "max_position_embeddings", seq_len);
    return;
  }
  if (type == "none") {
    r.model.position = work::PositionEmbedding::none;
    return;
  }
  r.model.position = work::PositionEmbedding::rope;
  if (type == "relative")
    note_unused(s, r, "position_embedding_type",
                "stepsim has rotary, learned or no positions; simulated as rope, which adds no weights");
  if (number_or(s, "rotary_percent", 1.0) < 1.0)
    note_unused(s, r, "rotary_percent", "rotary embedding on part of each head: stepsim rotates it whole");
}

/// "([0]*3+[1]*58)": Megatron's --moe-layer-freq list expression, [..] lists of 0/1 joined by +
/// and repeated by *.
class LayerPattern {
 public:
  /// `key` names the flag in messages; `entries` says what its 0 and 1 mean.
  LayerPattern(std::string_view text, const RunSettings& s, std::string key = "moe_layer_freq",
               std::string entries = "0 (dense) or 1 (experts)")
      : text_(text), s_(s), key_(std::move(key)), entries_(std::move(entries)) {}
  std::vector<int> parse() {
    std::vector<int> out = sum();
    skip();
    if (at_ < text_.size()) fail("unexpected `" + std::string(1, text_[at_]) + "`");
    return out;
  }

 private:
  std::vector<int> sum() {
    std::vector<int> out = product();
    while (take('+')) {
      const std::vector<int> more = product();
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }
  std::vector<int> product() {
    std::vector<int> part = primary();
    while (take('*')) {
      const int n = number();
      std::vector<int> out;
      if (part.size() * static_cast<std::size_t>(n) > 1'000'000) fail("the list is too long");
      for (int i = 0; i < n; ++i) out.insert(out.end(), part.begin(), part.end());
      part = std::move(out);
    }
    return part;
  }
  std::vector<int> primary() {
    if (take('(')) {
      std::vector<int> inner = sum();
      if (!take(')')) fail("a `(` without its `)`");
      return inner;
    }
    if (!take('[')) fail("expected `[` or `(`");
    std::vector<int> list;
    do {
      const int v = number();
      if (v > 1) fail("layer entries are " + entries_ + ", got " + std::to_string(v));
      list.push_back(v);
    } while (take(','));
    if (!take(']')) fail("a `[` without its `]`");
    return list;
  }
  int number() {
    skip();
    int n = 0;
    const std::size_t start = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])) && n < 1'000'000)
      n = n * 10 + (text_[at_++] - '0');
    if (at_ == start) fail("expected a number");
    return n;
  }
  bool take(char c) {
    skip();
    if (at_ >= text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }
  void skip() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  [[noreturn]] void fail(const std::string& what) {
    s_.fail(key_, "is not a layer pattern: " + what + " at character " + std::to_string(at_ + 1),
            "an integer N or a list of " + entries_ + " per layer such as ([0]*3+[1]*58)");
  }
  std::string_view text_;
  const RunSettings& s_;
  std::string key_, entries_;
  std::size_t at_ = 0;
};

void moe_layer_freq(const RunSettings& s, work::ModelSpec& m) {
  const std::string text = word_or(s, "moe_layer_freq", "1");
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    m.moe_layer_freq = text.size() > 7 ? 0 : std::stoi(text);
    if (m.moe_layer_freq < 1) s.fail("moe_layer_freq", "must be a whole number of at least 1, got " + text);
    return;
  }
  m.moe_layer_pattern = LayerPattern(text, s).parse();
  if (m.moe_layer_pattern.size() != static_cast<std::size_t>(m.layers))
    s.fail("moe_layer_freq",
           "lists " + std::to_string(m.moe_layer_pattern.size()) + " layers, but the model has " +
               std::to_string(m.layers),
           "one 0 (dense) or 1 (experts) per layer");
  // Leading dense layers, then experts everywhere (DeepSeek-V3's ([0]*3+[1]*58)): dense_layers.
  const auto& p = m.moe_layer_pattern;
  const auto first_moe = std::find(p.begin(), p.end(), 1);
  if (first_moe != p.end() && std::find(first_moe, p.end(), 0) == p.end()) {
    m.dense_layers = static_cast<int>(first_moe - p.begin());
    m.moe_layer_pattern.clear();
  }
}

/// Megatron-Core's sliding-window attention: --window-size LEFT,RIGHT (FlashAttention's window: a query
/// sees LEFT keys before it and itself, so attention_window = LEFT + 1; LEFT < 0 is no window) on every
/// layer, or as --window-attn-skip-freq says: N for one full-attention layer after N - 1 windowed ones
/// (global_attention_every = N), or a list of 1 (window) and 0 (full) per layer.
void attention_window(const RunSettings& s, ImportedRun& r) {
  work::ModelSpec& m = r.model;
  const std::string size = word_or(s, "window_size", "");
  if (size.empty() || size == "None") {
    if (s.has("window_attn_skip_freq")) note_unused(s, r, "window_attn_skip_freq", "no --window-size");
    return;
  }
  // The tuple's first number, however it is written: 4096,0 or (4096, 0).
  const std::size_t digit = size.find_first_of("-0123456789");
  long long left = 0;
  if (digit == std::string::npos ||
      std::from_chars(size.data() + digit, size.data() + size.size(), left).ec != std::errc{})
    s.fail("window_size", "is not a window: `" + size + "`", "LEFT,RIGHT as Megatron takes it, e.g. 4096,0");
  if (left < 0) return;  // FlashAttention's -1: unlimited
  if (left + 1 > 100'000'000) s.fail("window_size", "is longer than any context stepsim simulates: " + size);
  m.attention_window = static_cast<int>(left + 1);
  r.derivations.push_back("attention_window = " + std::to_string(left) +
                          " + 1 = " + std::to_string(m.attention_window) + " (--window-size " + size +
                          ": the keys before a query and itself)");
  const std::string freq = word_or(s, "window_attn_skip_freq", "");
  if (freq.empty() || freq == "None") return;
  if (freq.find_first_not_of("0123456789") == std::string::npos) {
    m.global_attention_every = freq.size() > 7 ? 0 : std::stoi(freq);
    if (m.global_attention_every < 1)
      s.fail("window_attn_skip_freq", "must be a whole number of at least 1, got " + freq);
    return;
  }
  m.local_attention_pattern =
      LayerPattern(freq, s, "window_attn_skip_freq", "1 (window) or 0 (full)").parse();
  if (m.local_attention_pattern.size() != static_cast<std::size_t>(m.layers))
    s.fail("window_attn_skip_freq",
           "lists " + std::to_string(m.local_attention_pattern.size()) + " layers, but the model has " +
               std::to_string(m.layers),
           "one 1 (window) or 0 (full attention) per layer");
}

void experts(const RunSettings& s, ImportedRun& r) {
  work::ModelSpec& m = r.model;
  const auto n = s.whole_of("num_experts");
  if (!n) {
    for (const char* name : {"moe_router_topk", "moe_ffn_hidden_size", "moe_shared_expert_intermediate_size",
                             "moe_layer_freq", "moe_shared_expert_overlap"})
      if (s.has(name)) note_unused(s, r, name, "a dense model: no --num-experts");
    return;
  }
  m.experts = static_cast<int>(*n);
  m.top_k = whole_or(s, "moe_router_topk", 2);
  if (m.top_k > m.experts)
    s.fail("moe_router_topk", std::to_string(m.top_k) + " is more than the " + std::to_string(m.experts) +
                                  " experts of a layer");
  m.expert_ffn = whole_or(s, "moe_ffn_hidden_size", m.ffn);
  if (const auto shared = s.whole_of("moe_shared_expert_intermediate_size")) {
    if (*shared % m.expert_ffn != 0)
      s.fail(
          "moe_shared_expert_intermediate_size",
          std::to_string(*shared) + " is not a multiple of the expert width " + std::to_string(m.expert_ffn),
          "stepsim's shared experts have the routed experts' width");
    m.shared_experts = static_cast<int>(*shared / m.expert_ffn);
  }
  moe_layer_freq(s, m);
  m.mtp_layers = whole_or(s, "mtp_num_layers", 0);
}

/// A hybrid model (pretrain_mamba.py's MambaModel): --hybrid-override-pattern, one character per
/// layer, and the Mamba mixers' dimensions with Megatron's defaults (state 128, head width 64,
/// 8 groups, heads = 2 x hidden / head width).
void hybrid(const RunSettings& s, ImportedRun& r) {
  work::ModelSpec& m = r.model;
  const std::string pattern = word_or(s, "hybrid_override_pattern", "");
  if (pattern.empty()) {
    if (s.has("hybrid_attention_ratio") || s.has("hybrid_mlp_ratio"))
      s.fail(s.has("hybrid_attention_ratio") ? "hybrid_attention_ratio" : "hybrid_mlp_ratio",
             "allocates a hybrid model's layers by ratio, which stepsim does not reproduce",
             "pass --hybrid-override-pattern with one character per layer (M, *, -, E)");
    for (const char* name : {"mamba_state_dim", "mamba_head_dim", "mamba_num_groups", "mamba_num_heads"})
      if (s.has(name))
        note_unused(s, r, name, "no --hybrid-override-pattern: a transformer without Mamba layers");
    return;
  }
  if (const auto bad = work::parse_hybrid_pattern(pattern, m.hybrid_layers))
    s.fail("hybrid_override_pattern", std::string("has '") + *bad + "', which stepsim does not know",
           std::string(work::kHybridPatternHint));
  if (std::find(m.hybrid_layers.begin(), m.hybrid_layers.end(), work::LayerKind::gated_delta) !=
      m.hybrid_layers.end())
    s.fail("hybrid_override_pattern",
           "has 'G', stepsim's Gated DeltaNet layer, which no Megatron argument sizes",
           "import the model from its Hugging Face config.json, or give [model.gated_delta] in a scenario");
  if (static_cast<int>(m.hybrid_layers.size()) != m.layers)
    s.fail("hybrid_override_pattern",
           "has " + std::to_string(m.hybrid_layers.size()) + " layers, but --num-layers is " +
               std::to_string(m.layers),
           "one character per layer");
  const bool has_moe = m.moe_layers() > 0;
  if (has_moe != m.is_moe())
    s.fail("hybrid_override_pattern", has_moe ? "has MoE layers (E) but no --num-experts"
                                              : "has no MoE layer (E) but --num-experts is set");
  m.mamba.state = whole_or(s, "mamba_state_dim", 128);
  m.mamba.head_dim = whole_or(s, "mamba_head_dim", 64);
  m.mamba.groups = whole_or(s, "mamba_num_groups", 8);
  if (const auto heads = s.whole_of("mamba_num_heads")) {
    m.mamba.heads = static_cast<int>(*heads);
  } else {
    m.mamba.heads = 2 * m.hidden / m.mamba.head_dim;
    r.derivations.push_back("mamba heads = 2 x hidden / mamba head width = " + std::to_string(m.mamba.heads) +
                            " (Megatron's MambaMixer: d_inner = expand 2 x hidden)");
  }
  if (s.has("moe_layer_freq"))
    note_unused(s, r, "moe_layer_freq", "--hybrid-override-pattern places the MoE layers");
}

/// The tokenizer's vocabulary: --tokenizer-vocab, --vocab-size, GPT-2's BPE files, or a
/// tokenizer named after a catalog model.
int tokenizer_vocab(const RunSettings& s, const ImportCluster& c, const Catalog& catalog, ImportedRun& r) {
  if (c.tokenizer_vocab > 0) {
    r.derivations.push_back("tokenizer: " + std::to_string(c.tokenizer_vocab) +
                            " tokens (--tokenizer-vocab)");
    return c.tokenizer_vocab;
  }
  if (const auto v = s.whole_of("vocab_size")) return static_cast<int>(*v);
  const std::string type = word_or(s, "tokenizer_type", "");
  const std::string model = word_or(s, "tokenizer_model", "");
  const std::string vocab_file = std::filesystem::path(word_or(s, "vocab_file", "")).filename().string();
  if (type == "GPT2BPETokenizer" || model == "GPT2BPETokenizer" ||
      (type.empty() && vocab_file == "gpt2-vocab.json")) {
    r.derivations.push_back("tokenizer: GPT-2's BPE, 50257 tokens");
    return 50257;
  }
  for (const std::string& id : {model, std::filesystem::path(model).filename().string()}) {
    if (id.empty()) continue;
    if (const work::ModelSpec* m = catalog.find_model(id)) {
      r.derivations.push_back("tokenizer: " + id + ", the " + std::to_string(m->vocab) +
                              "-token vocabulary of catalog model " + m->id);
      return m->vocab;
    }
  }
  throw UserError(
      SourceLocation{s.source}, "",
      "the arguments do not give the vocabulary size (--vocab-size, or a tokenizer stepsim knows)",
      "pass --tokenizer-vocab N, the tokenizer's vocabulary before Megatron pads it: 128256 for "
      "Llama 3, 50257 for GPT-2's BPE");
}

}  // namespace megatron_model

void resolve_model(const RunSettings& s, const ImportCluster& c, const Catalog& catalog, ImportedRun& r) {
  using namespace megatron_model;
  work::ModelSpec& m = r.model;
  m.layers = required(s, "num_layers", "the number of transformer layers");
  m.hidden = required(s, "hidden_size", "the model width");
  m.heads = required(s, "num_attention_heads", "the number of attention heads");
  m.activation = activation(s, r);
  if (const auto ffn = s.whole_of("ffn_hidden_size")) {
    m.ffn = static_cast<int>(*ffn);
  } else if (m.activation == work::Activation::swiglu) {
    m.ffn = (4 * m.hidden * 2 / 3) / 64 * 64;
    r.derivations.push_back("ffn = 4 x hidden x 2/3, rounded down to a multiple of 64 = " +
                            std::to_string(m.ffn) + " (Megatron's default with a gated MLP)");
  } else {
    m.ffn = 4 * m.hidden;
    r.derivations.push_back("ffn = 4 x hidden = " + std::to_string(m.ffn) + " (Megatron's default)");
  }
  attention_shape(s, r);
  m.norm = word_or(s, "normalization", "layernorm") == "rmsnorm" ? work::NormKind::rmsnorm
                                                                 : work::NormKind::layernorm;
  position(s, r, whole_or(s, "seq_length", 0));
  m.linear_bias = s.on("add_bias_linear", true) && !s.on("disable_bias_linear");
  if (s.on("add_qkv_bias") && !m.linear_bias)
    note_unused(s, r, "add_qkv_bias", "stepsim has biases on every projection or none");
  m.tied_embeddings = s.has("share_embeddings_and_output_weights")
                          ? s.on("share_embeddings_and_output_weights")
                          : !s.on("untie_embeddings_and_output_weights");
  m.dropout = number_or(s, "attention_dropout", 0.1) > 0 || number_or(s, "hidden_dropout", 0.1) > 0 ||
              number_or(s, "ffn_dropout", 0.0) > 0;
  experts(s, r);
  hybrid(s, r);
  attention_window(s, r);
  const int vocab = tokenizer_vocab(s, c, catalog, r);
  const long long multiple = static_cast<long long>(whole_or(s, "make_vocab_size_divisible_by", 128)) * r.tp;
  const long long padded = (vocab + multiple - 1) / multiple * multiple;
  if (padded > 1'000'000'000)
    s.fail("make_vocab_size_divisible_by", "pads the vocabulary past a billion tokens");
  m.vocab = static_cast<int>(padded);
  if (padded != vocab)
    r.derivations.push_back("vocab = " + std::to_string(vocab) + " padded to a multiple of " +
                            std::to_string(multiple / r.tp) + " x tp " + std::to_string(r.tp) + ": " +
                            std::to_string(padded) + ", as Megatron pads it");
}

}  // namespace stepsim::scen::megatron
