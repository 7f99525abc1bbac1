#include "scenarios/spec_readers.hpp"

#include <algorithm>

#include "scenarios/choices.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen {
namespace {

void read_mla(TableReader& r, work::MlaDims& mla) {
  r.read("q_lora_rank", mla.q_lora_rank, kNonNegativeInt);
  r.read("kv_lora_rank", mla.kv_lora_rank, kPositiveInt);
  r.read("qk_nope_head_dim", mla.qk_nope_head_dim, kPositiveInt);
  r.read("qk_rope_head_dim", mla.qk_rope_head_dim, kPositiveInt);
  r.read("v_head_dim", mla.v_head_dim, kPositiveInt);
  r.finish();
}

void read_mamba(TableReader& r, work::MambaDims& a) {
  r.read("heads", a.heads, kPositiveInt);
  r.read("head_dim", a.head_dim, kPositiveInt);
  r.read("state", a.state, kPositiveInt);
  r.read("groups", a.groups, kPositiveInt);
  r.read("conv_kernel", a.conv_kernel, kPositiveInt);
  r.read("chunk", a.chunk, kPositiveInt);
  r.finish();
}

void read_gated_delta(TableReader& r, work::GatedDeltaDims& g) {
  r.read("key_heads", g.key_heads, kPositiveInt);
  r.read("value_heads", g.value_heads, kPositiveInt);
  r.read("key_dim", g.key_dim, kPositiveInt);
  r.read("value_dim", g.value_dim, kPositiveInt);
  r.read("conv_kernel", g.conv_kernel, kPositiveInt);
  r.read("chunk", g.chunk, kPositiveInt);
  r.finish();
}

/// hybrid_layers: Megatron-Core's hybrid layer pattern, one character per layer.
void read_hybrid_layers(TableReader& r, work::ModelSpec& m) {
  const toml::node* n = r.node("hybrid_layers");
  if (n == nullptr) return;
  const auto text = n->value<std::string>();
  const std::string hint(work::kHybridPatternHint);
  if (!text || text->empty()) r.fail_at(*n, "hybrid_layers", "must be a non-empty string", hint);
  if (const auto bad = work::parse_hybrid_pattern(*text, m.hybrid_layers))
    r.fail_at(*n, "hybrid_layers", std::string("has '") + *bad + "', which is no layer kind", hint);
}

void check_hybrid(work::ModelSpec& m, const TableReader& r) {
  const work::MambaDims& a = m.mamba;
  const work::GatedDeltaDims& g = m.gated_delta;
  const bool any_mamba = a.heads + a.head_dim + a.state > 0;
  const bool any_gdn = g.key_heads + g.value_heads + g.key_dim + g.value_dim > 0;
  if (!m.is_hybrid()) {
    if (any_mamba || any_gdn)
      r.fail(any_mamba ? "mamba" : "gated_delta",
             std::string(any_mamba ? "Mamba" : "Gated DeltaNet") +
                 " dimensions are set but the model has no hybrid_layers",
             "set hybrid_layers = \"M-M*-...\" (one character per layer) for a hybrid model");
    return;
  }
  if (r.has("layers") && m.layers != static_cast<int>(m.hybrid_layers.size()))
    r.fail("layers",
           "is " + std::to_string(m.layers) + ", but hybrid_layers lists " +
               std::to_string(m.hybrid_layers.size()) + " layers",
           "hybrid_layers has one character per layer; omit layers to take the pattern's length");
  m.layers = static_cast<int>(m.hybrid_layers.size());
  if (m.mamba_layers() > 0 && (a.heads < 1 || a.head_dim < 1 || a.state < 1))
    r.fail("mamba",
           "the pattern has Mamba layers (M) but [" + r.path("mamba") + "] lacks heads, head_dim or state",
           "add a [" + r.path("mamba") +
               "] table: heads, head_dim, state (groups = 1, conv_kernel = 4, chunk = 128)");
  if (m.gated_delta_layers() > 0 &&
      (g.key_heads < 1 || g.value_heads < 1 || g.key_dim < 1 || g.value_dim < 1))
    r.fail("gated_delta",
           "the pattern has Gated DeltaNet layers (G) but [" + r.path("gated_delta") +
               "] lacks key_heads, value_heads, key_dim or value_dim",
           "add a [" + r.path("gated_delta") +
               "] table: key_heads, value_heads, key_dim, value_dim (conv_kernel = 4, chunk = 64)");
  if (g.key_heads > 0 && g.value_heads % g.key_heads != 0)
    r.fail("gated_delta",
           "value_heads (" + std::to_string(g.value_heads) + ") must be a multiple of key_heads (" +
               std::to_string(g.key_heads) + ")",
           "each key head serves value_heads / key_heads value heads");
  if (a.groups > 0 && a.heads % a.groups != 0)
    r.fail("mamba",
           "mamba heads (" + std::to_string(a.heads) + ") must be a multiple of groups (" +
               std::to_string(a.groups) + ")",
           "each group's B and C serve heads / groups heads");
  for (auto [key, bad] : {std::pair<std::string_view, bool>{"dense_layers", m.dense_layers > 0},
                          {"moe_layer_freq", m.moe_layer_freq > 1 || !m.moe_layer_pattern.empty()},
                          {"mtp_layers", m.mtp_layers > 0},
                          {"parallel_block", m.parallel_block}})
    if (bad)
      r.fail(key, "does not apply to a hybrid model",
             "hybrid_layers says what every layer is; remove " + std::string(key));
  const bool has_moe = std::count(m.hybrid_layers.begin(), m.hybrid_layers.end(), work::LayerKind::moe) > 0;
  if (has_moe != m.is_moe())
    r.fail(has_moe ? "experts" : "hybrid_layers",
           has_moe ? "the pattern has MoE layers (E) but the model has no experts"
                   : "the model has experts but the pattern has no MoE layer (E)",
           "E layers need experts, top_k and expert_ffn; a model without E has none");
}

/// One 0 or 1 per layer from the array `a` at `key`; `meaning` names the two ("0 (dense) or 1 (MoE)").
std::vector<int> read_layer_bits(const TableReader& r, const toml::array& a, std::string_view key,
                                 const std::string& meaning, const std::string& example) {
  std::vector<int> out;
  for (const toml::node& e : a) {
    const auto v = e.value<std::int64_t>();
    if (!v || (*v != 0 && *v != 1))
      r.fail_at(e, key, "every element must be " + meaning, "one 0 or 1 per layer, e.g. " + example);
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

/// moe_layer_freq: an integer (every N-th layer is MoE) or Megatron's list of 0/1 per layer.
void read_moe_layer_freq(TableReader& r, work::ModelSpec& m) {
  const toml::node* n = r.node("moe_layer_freq");
  if (n == nullptr) return;
  if (const auto* a = n->as_array()) {
    m.moe_layer_pattern = read_layer_bits(r, *a, "moe_layer_freq", "0 (dense) or 1 (MoE)",
                                          "[0, 1, 0, 1] (Megatron's list form)");
    return;
  }
  r.read("moe_layer_freq", m.moe_layer_freq, kPositiveInt);
}

/// local_attention_layers: Hugging Face's layer_types as one 0/1 per layer (1 = local).
void read_local_attention_layers(TableReader& r, work::ModelSpec& m) {
  const toml::node* n = r.node("local_attention_layers");
  if (n == nullptr) return;
  const auto* a = n->as_array();
  if (a == nullptr)
    r.fail("local_attention_layers", "must be a list of one 0 or 1 per layer",
           "1 = the layer attends through attention_window, 0 = to the whole context; or set "
           "global_attention_every = N for every N-th layer global");
  m.local_attention_pattern = read_layer_bits(r, *a, "local_attention_layers", "0 (global) or 1 (local)",
                                              "[1, 0, 1, 0] for alternating sliding and full attention");
}

void check_attention_window(const work::ModelSpec& m, const TableReader& r) {
  if (m.attention_window == 0) {
    for (const char* key : {"attention_window_kind", "global_attention_every", "local_attention_layers"})
      if (r.has(key))
        r.fail(key, "describes local attention, but the model has no attention_window",
               "set attention_window = N (tokens a local layer sees), or remove " + std::string(key));
    return;
  }
  if (!m.local_attention_pattern.empty() && static_cast<int>(m.local_attention_pattern.size()) != m.layers)
    r.fail("local_attention_layers",
           "lists " + std::to_string(m.local_attention_pattern.size()) + " layers, but the model has " +
               std::to_string(m.layers),
           "give one 0 or 1 per layer, or global_attention_every = N for every N-th layer global");
  if (!m.local_attention_pattern.empty() && r.has("global_attention_every"))
    r.fail("global_attention_every", "is set together with local_attention_layers",
           "give one of the two: the list says every layer's kind");
  if (m.local_attention_layers() == 0)
    r.fail(m.local_attention_pattern.empty() ? "global_attention_every" : "local_attention_layers",
           "leaves no layer local, so attention_window does nothing",
           "remove attention_window for a model with global attention only");
}

void check_moe(const work::ModelSpec& m, const TableReader& r) {
  if (!m.is_moe()) {
    for (auto [key, value] :
         {std::pair<std::string_view, int>{"top_k", m.top_k},
          {"shared_experts", m.shared_experts},
          {"expert_ffn", m.expert_ffn},
          {"dense_layers", m.dense_layers},
          {"moe_layer_freq", m.moe_layer_freq > 1 || !m.moe_layer_pattern.empty() ? 1 : 0}})
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
  if (m.expert_ffn < 1) fail_missing(r, "expert_ffn", "FFN width of one expert");
  if (m.dense_layers >= m.layers)
    r.fail(
        "dense_layers",
        "must be less than layers (" + std::to_string(m.layers) + "), got " + std::to_string(m.dense_layers),
        "dense_layers counts the leading dense-FFN layers");
  if (!m.moe_layer_pattern.empty() && static_cast<int>(m.moe_layer_pattern.size()) != m.layers)
    r.fail("moe_layer_freq",
           "lists " + std::to_string(m.moe_layer_pattern.size()) + " layers, but the model has " +
               std::to_string(m.layers),
           "give one 0 or 1 per layer, or an integer N for MoE in every N-th layer");
  if (m.moe_layers() == 0)
    r.fail(m.moe_layer_pattern.empty() && m.moe_layer_freq == 1 ? "dense_layers" : "moe_layer_freq",
           "leaves no MoE layer", "an MoE model needs at least one layer with experts");
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

void fail_missing(const TableReader& r, std::string_view key, std::string_view what) {
  r.fail("", "missing `" + std::string(key) + "` (" + std::string(what) + ")",
         "set " + std::string(key) + " in " + r.table_label() + " or start from a catalog preset");
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
  r.read("attention_sinks", m.attention_sinks);
  r.read("tied_embeddings", m.tied_embeddings);
  r.read("dropout", m.dropout);
  r.read("parallel_block", m.parallel_block);
  r.read("attention", m.attention, choices::kAttention);
  if (auto mla = r.table("mla")) read_mla(*mla, m.mla);
  r.read("experts", m.experts, kNonNegativeInt);
  r.read("top_k", m.top_k, kNonNegativeInt);
  r.read("shared_experts", m.shared_experts, kNonNegativeInt);
  r.read("expert_ffn", m.expert_ffn, kNonNegativeInt);
  r.read("dense_layers", m.dense_layers, kNonNegativeInt);
  read_moe_layer_freq(r, m);
  r.read("mtp_layers", m.mtp_layers, kNonNegativeInt);
  r.read("attention_window", m.attention_window, kNonNegativeInt);
  r.read("attention_window_kind", m.window_kind, choices::kAttentionWindowKind);
  r.read("global_attention_every", m.global_attention_every, kNonNegativeInt);
  read_local_attention_layers(r, m);
  read_hybrid_layers(r, m);
  if (auto mamba = r.table("mamba")) read_mamba(*mamba, m.mamba);
  if (auto gdn = r.table("gated_delta")) read_gated_delta(*gdn, m.gated_delta);
  r.read("attention_output_gate", m.attention_output_gate);
  r.read("qk_norm", m.qk_norm);
  r.read("sandwich_norms", m.sandwich_norms);
  if (set == FieldSet::catalog) {
    r.read("published_params", m.published_params, kNonNegative);
    r.read("published_active_params", m.published_active_params, kNonNegative);
    r.read("published_tolerance", m.published_tolerance, RealRange{0.0, 0.1, true, "relative, e.g. 0.01"});
  }
}

void finalize_model(work::ModelSpec& m, const TableReader& r) {
  check_hybrid(m, r);
  if (m.qk_norm && m.attention == work::AttentionKind::mla)
    r.fail("qk_norm", "norms query and key heads of standard attention, but attention = \"mla\"",
           "MLA norms its latents instead (q_lora and kv_lora, always modelled); remove qk_norm");
  if (m.sandwich_norms && (m.experts > 0 || m.parallel_block || !m.hybrid_layers.empty()))
    r.fail("sandwich_norms",
           std::string("norms the attention and MLP outputs of a plain transformer layer (Gemma 2 and 3), "
                       "but the model has ") +
               (m.experts > 0      ? "experts"
                : m.parallel_block ? "a parallel block"
                                   : "hybrid layers"),
           "remove sandwich_norms: those layers are not modelled with it");
  if (m.layers < 1) fail_missing(r, "layers", "number of transformer layers");
  if (m.hidden < 1) fail_missing(r, "hidden", "model width d_model");
  if (m.heads < 1) fail_missing(r, "heads", "attention heads");
  if (m.vocab < 1) fail_missing(r, "vocab", "vocabulary size");
  if (m.ffn < 1 && m.ffn_layers() > m.moe_layers()) fail_missing(r, "ffn", "FFN width of dense layers");
  if (m.position == work::PositionEmbedding::learned && m.max_positions < 1)
    fail_missing(r, "max_positions", "rows of the learned position table");
  check_attention(m, r);
  check_attention_window(m, r);
  check_moe(m, r);
}

}  // namespace stepsim::scen

namespace stepsim::scen {

void read_switch(TableReader& r, std::string_view key, bool& out) {
  if (const toml::node* n = r.node(key); n != nullptr && n->is_integer()) {
    const std::int64_t v = n->value<std::int64_t>().value_or(-1);
    if (v != 0 && v != 1)
      r.fail(key, "expected true / false (or 1 / 0), got " + std::to_string(v),
             "e.g. " + std::string(key) + " = true");
    out = v == 1;
    return;
  }
  r.read(key, out);
}

namespace {
/// Which overlap methods Transformer Engine lets GEMM `g` take (initialize_ub: an all-gather's
/// GEMM cannot pipeline; the backward's column-parallel pair overlaps in bulk).
bool ub_method_allowed(work::UbGemm g, work::UbMethod m) {
  using work::UbGemm, work::UbMethod;
  switch (g) {
    case UbGemm::proj_fprop:
    case UbGemm::fc2_fprop: return m == UbMethod::pipeline || m == UbMethod::ring_exchange;
    case UbGemm::qkv_dgrad:
    case UbGemm::qkv_wgrad:
    case UbGemm::fc1_dgrad:
    case UbGemm::fc1_wgrad: return m == UbMethod::bulk;
    default: return m == UbMethod::ring_exchange;
  }
}
}  // namespace

void read_ub_gemm_fields(TableReader& c, work::UbGemm g, work::UbOverlap& u) {
  c.read("method", u.method, choices::kUbMethod);
  if (!ub_method_allowed(g, u.method))
    c.fail("method",
           "Transformer Engine does not run " + std::string(work::name(g)) + " as " +
               std::string(work::name(u.method)),
           ub_method_allowed(g, work::UbMethod::bulk) ? "the backward's column-parallel GEMMs overlap in bulk"
           : ub_method_allowed(g, work::UbMethod::pipeline)
               ? "the forward's row-parallel GEMMs take pipeline or ring_exchange"
               : "an all-gather's GEMM takes ring_exchange");
  c.read("num_sm", u.num_sm, IntRange{1, 4096});
  read_switch(c, "set_sm_margin", u.set_sm_margin);
  c.read("num_splits", u.num_splits, IntRange{1, 64});
  read_switch(c, "aggregate", u.aggregate);
  read_switch(c, "fp8_buf", u.fp8_buf);
  bool atomic = false;
  read_switch(c, "atomic_gemm", atomic);
  if (atomic)
    c.fail("atomic_gemm", "atomic GEMM overlap (cuBLAS's beta atomic-counter GEMMs) is not modelled",
           "set atomic_gemm = false, or remove it");
  // The CTA cluster shape of the communication kernels: no effect on their time is modelled.
  c.accept({"cga_size"});
}

}  // namespace stepsim::scen
