// Typed, tracked access to a config.json's objects, and what the keys nothing read mean.
#include <algorithm>
#include <climits>

#include "scenarios/hf_fields.hpp"

namespace stepsim::scen::hf {

using nlohmann::json;

namespace fields_detail {

/// Whether keys of this kind are worth a note when left unread.
enum class KeyUse : std::uint8_t {
  ignored,       ///< irrelevant to a simulation: token ids, dtype, numerics, versions
  not_modelled,  ///< changes the model, but stepsim does not simulate it: a note when set
};

struct KnownKey {
  std::string_view key;
  KeyUse use;
  std::string_view why;  ///< for not_modelled: what stepsim does instead
};

/// Keys a reader may leave unread. A key in none of the readers and not here is reported as
/// unknown, so a key that new transformers versions add is seen, not silently dropped.
constexpr KnownKey kKnownKeys[] = {
    // Identity, tokenizer and serialisation.
    {"_name_or_path", KeyUse::ignored, ""},
    {"architectures", KeyUse::ignored, ""},
    {"model_type", KeyUse::ignored, ""},
    {"_attn_implementation_autoset", KeyUse::ignored, ""},
    {"auto_map", KeyUse::ignored, ""},
    {"bos_token_id", KeyUse::ignored, ""},
    {"eos_token_id", KeyUse::ignored, ""},
    {"pad_token_id", KeyUse::ignored, ""},
    {"sep_token_id", KeyUse::ignored, ""},
    {"decoder_start_token_id", KeyUse::ignored, ""},
    {"boi_token_index", KeyUse::ignored, ""},
    {"eoi_token_index", KeyUse::ignored, ""},
    {"image_token_index", KeyUse::ignored, ""},
    {"mm_tokens_per_image", KeyUse::ignored, ""},
    {"tokenizer_class", KeyUse::ignored, ""},
    {"id2label", KeyUse::ignored, ""},
    {"label2id", KeyUse::ignored, ""},
    {"torch_dtype", KeyUse::ignored, ""},
    {"dtype", KeyUse::ignored, ""},
    {"transformers_version", KeyUse::ignored, ""},
    {"use_cache", KeyUse::ignored, ""},
    {"cache_implementation", KeyUse::ignored, ""},
    {"for_llm_compressor", KeyUse::ignored, ""},
    // Numerics: constants inside kernels stepsim times by their shapes.
    {"initializer_range", KeyUse::ignored, ""},
    {"rms_norm_eps", KeyUse::ignored, ""},
    {"layer_norm_eps", KeyUse::ignored, ""},
    {"layer_norm_epsilon", KeyUse::ignored, ""},
    {"norm_eps", KeyUse::ignored, ""},
    {"rope_theta", KeyUse::ignored, ""},
    {"rope_scaling", KeyUse::ignored, ""},
    {"rope_parameters", KeyUse::ignored, ""},
    {"initial_context_length", KeyUse::ignored, ""},
    {"rope_local_base_freq", KeyUse::ignored, ""},
    {"rotary_emb_base", KeyUse::ignored, ""},
    {"no_rope_layers", KeyUse::ignored, ""},
    {"no_rope_layer_interval", KeyUse::ignored, ""},
    {"use_mrope", KeyUse::ignored, ""},
    {"query_pre_attn_scalar", KeyUse::ignored, ""},
    {"attn_scale", KeyUse::ignored, ""},
    {"attn_temperature_tuning", KeyUse::ignored, ""},
    {"floor_scale", KeyUse::ignored, ""},
    {"attn_logit_softcapping", KeyUse::ignored, ""},
    {"final_logit_softcapping", KeyUse::ignored, ""},
    {"apply_residual_connection_post_layernorm", KeyUse::ignored, ""},
    {"num_ln_in_parallel_attn", KeyUse::ignored, ""},
    {"pretraining_tp", KeyUse::ignored, ""},
    {"classifier_dropout", KeyUse::ignored, ""},
    // The context limit: the scenario's workload sets the sequence length.
    {"max_position_embeddings", KeyUse::ignored, ""},
    // Router training details: the routing model is the scenario's [moe] table.
    {"output_router_logits", KeyUse::ignored, ""},
    {"router_aux_loss_coef", KeyUse::ignored, ""},
    {"router_jitter_noise", KeyUse::ignored, ""},
    {"aux_loss_alpha", KeyUse::ignored, ""},
    {"seq_aux", KeyUse::ignored, ""},
    {"norm_topk_prob", KeyUse::ignored, ""},
    {"scoring_func", KeyUse::ignored, ""},
    {"topk_method", KeyUse::ignored, ""},
    {"routed_scaling_factor", KeyUse::ignored, ""},
    {"ep_size", KeyUse::ignored, ""},
    // Structure stepsim does not simulate.
    // Local attention: the architectures that have it read these (read_attention_window); in any
    // other architecture's config they are notes.
    {"sliding_window", KeyUse::not_modelled,
     "sliding-window attention, which this architecture's reader does not take: attention is simulated "
     "over the whole context (set [model] attention_window to simulate it)"},
    {"sliding_window_size", KeyUse::ignored, ""},
    {"sliding_window_pattern", KeyUse::ignored, ""},
    {"_sliding_window_pattern", KeyUse::ignored, ""},
    {"layer_types", KeyUse::ignored, ""},
    {"max_window_layers", KeyUse::ignored, ""},
    {"no_rope_layers", KeyUse::ignored, ""},
    {"no_rope_layer_interval", KeyUse::ignored, ""},
    {"use_sliding_window", KeyUse::not_modelled,
     "sliding-window attention, which this architecture's reader does not take: attention is simulated "
     "over the whole context (set [model] attention_window to simulate it)"},
    {"attention_chunk_size", KeyUse::not_modelled,
     "chunked local attention, which this architecture's reader does not take: attention is simulated "
     "over the whole context (set [model] attention_window and attention_window_kind = \"chunked\")"},
    {"swiglu_limit", KeyUse::not_modelled, "GPT-OSS's clamp of the SwiGLU inputs: element-wise, not priced"},
    {"use_qk_norm", KeyUse::not_modelled, "norms of queries and keys, which have no weights in Llama 4"},
    {"rotary_pct", KeyUse::not_modelled, "partial rotary embedding: RoPE is applied to whole heads"},
    {"partial_rotary_factor", KeyUse::not_modelled,
     "partial rotary embedding: RoPE is applied to whole heads"},
    {"alibi", KeyUse::not_modelled, "ALiBi positions: simulated as RoPE (neither has weights)"},
    {"vision_config", KeyUse::not_modelled, "the vision encoder: stepsim simulates the text decoder only"},
    {"quantization_config", KeyUse::not_modelled,
     "the checkpoint's quantisation: set [precision] (params, compute) to simulate it"},
    {"n_group", KeyUse::not_modelled,
     "group-limited routing: set [moe] max_nodes_per_token for node-limited dispatch"},
    {"topk_group", KeyUse::not_modelled,
     "group-limited routing: set [moe] max_nodes_per_token for node-limited dispatch"},
    {"attention_bias", KeyUse::not_modelled, "biases on the attention projections only"},
    {"mlp_bias", KeyUse::not_modelled, "biases on the MLP projections only"},
};

const KnownKey* known(std::string_view key) {
  for (const auto& k : kKnownKeys)
    if (k.key == key) return &k;
  return nullptr;
}

/// Whether a value says anything: null, false, 0, "" and empty lists or objects do not.
bool is_set(const json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  return !v.empty();
}

/// `text` with control characters escaped, so a key or value from the file stays on one line.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

/// A value as a note shows it: scalars as JSON, lists and objects by their size (never recursing,
/// so a hostile nesting depth costs nothing).
std::string value_text(const json& v) {
  if (v.is_array()) return "[" + std::to_string(v.size()) + (v.size() == 1 ? " value]" : " values]");
  if (v.is_object()) return "{" + std::to_string(v.size()) + (v.size() == 1 ? " key}" : " keys}");
  std::string s = printable(v.dump());
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string expected_got(const json& v) {
  return "got " + value_text(v);
}

}  // namespace fields_detail

SourceLocation locate(const Source& src, std::span<const std::string> path) {
  std::size_t pos = 0;
  std::size_t found = std::string_view::npos;
  for (const auto& part : path) {
    const std::string quoted = "\"" + part + "\"";
    found = std::string_view::npos;
    for (std::size_t at = src.text.find(quoted, pos); at != std::string_view::npos;
         at = src.text.find(quoted, at + 1)) {
      const std::size_t after = src.text.find_first_not_of(" \t\r\n", at + quoted.size());
      if (after != std::string_view::npos && src.text[after] == ':') {
        found = at;
        break;
      }
    }
    if (found == std::string_view::npos) return SourceLocation{src.file, 0, 0};
    pos = found + quoted.size();
  }
  if (found == std::string_view::npos) return SourceLocation{src.file, 0, 0};
  const std::string_view before = src.text.substr(0, found);
  const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  const int column =
      static_cast<int>(found - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
  return SourceLocation{src.file, line, column};
}

Fields::Fields(const json& object, std::vector<std::string> path, const Source& src,
               std::vector<Default> defaults)
    : object_(&object), path_(std::move(path)), src_(&src), defaults_(std::move(defaults)) {}

const json* Fields::find(std::string_view key) const {
  if (const auto it = object_->find(key); it != object_->end() && !it->is_null()) return &*it;
  for (const auto& d : defaults_)
    if (d.key == key) return &d.value;
  return nullptr;
}

const json* Fields::get(std::string_view key) {
  read_.emplace(key);
  return find(key);
}

bool Fields::has(std::string_view key) const {
  return find(key) != nullptr;
}

std::string Fields::dotted(std::string_view key) const {
  std::string out;
  for (const auto& p : path_) out += fields_detail::printable(p) + ".";
  return out + fields_detail::printable(key);
}

void Fields::fail(std::string_view key, const std::string& problem, const std::string& hint) const {
  std::vector<std::string> path = path_;
  path.emplace_back(key);
  throw UserError(locate(*src_, path), dotted(key), problem, hint);
}

std::optional<int> Fields::opt_dim(std::string_view key) {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer() || v->get<std::int64_t>() < 1 || v->get<std::int64_t>() > INT_MAX)
    fail(key, "must be a positive whole number, " + fields_detail::expected_got(*v),
         "a dimension of the model: a count or a width, at least 1");
  return static_cast<int>(v->get<std::int64_t>());
}

int Fields::dim(std::string_view key, std::string_view what) {
  if (const auto v = opt_dim(key)) return *v;
  std::vector<std::string> path = path_;
  throw UserError(
      path.empty() ? SourceLocation{src_->file, 0, 0} : locate(*src_, path), dotted(key),
      "is missing (" + std::string(what) + ")",
      "a config.json saved by transformers has it; add it, or check that this is the model's config");
}

int Fields::count(std::string_view key, int fallback) {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer() || v->get<std::int64_t>() < 0 || v->get<std::int64_t>() > INT_MAX)
    fail(key, "must be a whole number >= 0, " + fields_detail::expected_got(*v));
  return static_cast<int>(v->get<std::int64_t>());
}

bool Fields::flag(std::string_view key, bool fallback) {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) fail(key, "must be true or false, " + fields_detail::expected_got(*v));
  return v->get<bool>();
}

double Fields::number(std::string_view key, double fallback) {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) fail(key, "must be a number, " + fields_detail::expected_got(*v));
  return v->get<double>();
}

bool Fields::peek_flag(std::string_view key, bool fallback) const {
  const json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) fail(key, "must be true or false, " + fields_detail::expected_got(*v));
  return v->get<bool>();
}

double Fields::peek_number(std::string_view key, double fallback) const {
  const json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) fail(key, "must be a number, " + fields_detail::expected_got(*v));
  return v->get<double>();
}

std::optional<std::string> Fields::text(std::string_view key) {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) fail(key, "must be a string, " + fields_detail::expected_got(*v));
  return v->get<std::string>();
}

std::optional<std::vector<int>> Fields::indices(std::string_view key) {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) fail(key, "must be a list of layer indices, " + fields_detail::expected_got(*v));
  std::vector<int> out;
  for (const json& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() < 0 || e.get<std::int64_t>() > INT_MAX)
      fail(key, "must list whole numbers >= 0 (0-based layer indices), " + fields_detail::expected_got(e));
    out.push_back(static_cast<int>(e.get<std::int64_t>()));
  }
  return out;
}

std::optional<std::vector<std::string>> Fields::words(std::string_view key) {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) fail(key, "must be a list of strings, " + fields_detail::expected_got(*v));
  std::vector<std::string> out;
  for (const json& e : *v) {
    if (!e.is_string()) fail(key, "must list strings, " + fields_detail::expected_got(e));
    out.push_back(e.get<std::string>());
  }
  return out;
}

Fields Fields::object(std::string_view key, std::vector<Default> defaults) {
  const json* v = get(key);
  if (v == nullptr || !v->is_object())
    fail(key,
         v == nullptr ? "is missing (the language model's settings)"
                      : "must be an object, " + fields_detail::expected_got(*v),
         "a multimodal config keeps the text model under text_config");
  std::vector<std::string> path = path_;
  path.emplace_back(key);
  return Fields(*v, std::move(path), *src_, std::move(defaults));
}

void Fields::add_defaults(std::vector<Default> defaults) {
  for (auto& d : defaults) defaults_.push_back(std::move(d));
}

void Fields::use(std::initializer_list<std::string_view> keys) {
  for (auto k : keys) read_.emplace(k);
}

std::vector<std::string> Fields::unread() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : object_->items())
    if (read_.find(k) == read_.end()) out.push_back(k);
  return out;
}

void note_unread(const Fields& f, std::vector<std::string>& notes) {
  for (const auto& key : f.unread()) {
    const json& v = f.raw().at(key);
    const fields_detail::KnownKey* k = fields_detail::known(key);
    if (k != nullptr && (k->use == fields_detail::KeyUse::ignored || !fields_detail::is_set(v))) continue;
    if (k == nullptr && v.is_null()) continue;
    const std::string what = k != nullptr ? std::string(k->why) : "a key stepsim does not know";
    notes.push_back("`" + f.dotted(key) + "` = " + fields_detail::value_text(v) + " not used by stepsim (" +
                    what + ")");
  }
}

}  // namespace stepsim::scen::hf
