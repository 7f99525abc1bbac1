#pragma once
// What a query sees under local attention (docs/model.md, "Local attention"): the pair counts that
// price a fused attention kernel, the keys a decode step reads and the tokens a KV cache keeps. A
// window of 0 is global attention. The counts are continuous (s^2 / 2 for a causal sequence, as the
// global formula has always been), so a window at least as long as the sequence changes nothing.

#include <algorithm>
#include <cmath>
#include <optional>

#include "workloads/model/model.hpp"

namespace stepsim::work {

/// A layer's attention span: 0 = the whole context; `none` for a layer without attention (a hybrid
/// model's Mamba and FFN layers), which sees no keys and caches none.
struct AttentionSpan {
  double window = 0.0;
  AttentionWindowKind kind = AttentionWindowKind::sliding;
  bool none = false;
  bool global() const { return !none && !(window > 0.0); }
};

inline AttentionSpan attention_span(const ModelSpec& m, int layer) {
  if (!m.has_attention(layer)) return {0.0, AttentionWindowKind::sliding, true};
  if (!m.is_local_attention_layer(layer)) return {};
  return {static_cast<double>(m.attention_window), m.window_kind};
}

/// (query, key) pairs of one causal sequence of `s` tokens: s^2 / 2 globally; with a sliding window
/// w < s, query i sees min(i, w) keys: w^2 / 2 + (s - w) w = s w - w^2 / 2; in chunks of c, each
/// whole chunk is causal on its own (c^2 / 2) and so is the remainder r = s - floor(s / c) c.
inline double causal_pairs(double s, const AttentionSpan& span) {
  if (span.none) return 0.0;
  const double w = span.window;
  if (span.global() || s <= w) return 0.5 * s * s;
  if (span.kind == AttentionWindowKind::sliding) return s * w - 0.5 * w * w;
  const double chunks = std::floor(s / w), rest = s - chunks * w;
  return chunks * 0.5 * w * w + 0.5 * rest * rest;
}

/// The same over a sequence of `s` tokens packed from documents of `document` tokens each (a
/// token's document length averaged over tokens), each document causal on its own under the layer's
/// span: s / L documents of causal_pairs(L) pairs (continuous, as causal_pairs is). With documents
/// of varied lengths L_i this is exact for the sum of L_i^2 / 2 when L is sum L_i^2 / sum L_i and
/// the span is global. 0, or a document at least as long as the sequence: causal_pairs(s).
inline double causal_pairs_in_documents(double s, const AttentionSpan& span, double document) {
  if (!(document > 0.0) || document >= s) return causal_pairs(s, span);
  return s / document * causal_pairs(document, span);
}

/// Keys the query at position `s` (1-based, the newest token) attends to: s globally, min(s, w)
/// with a sliding window, its position within its chunk (((s - 1) mod c) + 1) with chunks.
inline double attended_keys_at(double s, const AttentionSpan& span) {
  if (span.none) return 0.0;
  const double w = span.window;
  if (span.global() || s <= w) return s;
  if (span.kind == AttentionWindowKind::sliding) return w;
  return std::fmod(s - 1.0, w) + 1.0;
}

/// Tokens of a `context`-token sequence the KV cache keeps for the layer: all of them globally, at
/// most the window (or the chunk) locally, as serving engines with per-layer windows hold them
/// (vLLM's sliding-window and chunked-local cache specs, TensorRT-LLM's per-layer attention window).
inline double cached_tokens(double context, const AttentionSpan& span) {
  if (span.none) return 0.0;
  return span.global() ? context : std::min(context, span.window);
}

/// Sum over the model's layers of cached_tokens(context, span): the cache of one sequence in
/// "layer-tokens" (multiply by the bytes a token takes in one layer).
inline double cached_layer_tokens(const ModelSpec& m, double context, int begin, int end) {
  double n = 0.0;
  for (int l = begin; l < end; ++l) n += cached_tokens(context, attention_span(m, l));
  return n;
}

/// The longest context whose cache of layers [begin, end) fits `layer_tokens` (layer-tokens of one
/// sequence): with G global and L local layers of window w, a context T <= w takes (G + L) T and a
/// longer one G T + L w. Without global layers every context that fits the window fits, and any
/// longer one too: kUnboundedContext.
inline constexpr double kUnboundedContext = 2147483647.0;
inline double max_cached_context(const ModelSpec& m, double layer_tokens, int begin, int end) {
  double global = 0.0, local = 0.0;
  for (int l = begin; l < end; ++l) {
    const AttentionSpan span = attention_span(m, l);
    if (!span.none) (span.global() ? global : local) += 1.0;
  }
  if (global + local == 0.0) return kUnboundedContext;
  if (!(layer_tokens > 0.0)) return 0.0;
  const double w = static_cast<double>(m.attention_window);
  if (local == 0.0 || (global + local) * w >= layer_tokens) return layer_tokens / (global + local);
  if (global == 0.0) return kUnboundedContext;
  return (layer_tokens - local * w) / global;
}

/// The context at which a sliding window bends a decode step's cost: from w - 1 on, the local layers'
/// keys stop growing. nullopt for global attention and for chunks, whose cost is a sawtooth of period
/// c that no bend describes.
inline std::optional<double> decode_cost_bend(const ModelSpec& m) {
  if (!m.has_local_attention() || m.window_kind != AttentionWindowKind::sliding) return std::nullopt;
  return static_cast<double>(m.attention_window) - 1.0;
}

/// Mean over the model's layers of the keys a query sees, averaged over a causal sequence of `s`
/// tokens (causal_pairs / s): s / 2 globally; packed from documents of `document` tokens,
/// causal_pairs_in_documents / s.
inline double mean_causal_keys(const ModelSpec& m, double s, double document = 0.0) {
  if (m.layers < 1 || !(s > 0.0)) return 0.0;
  double sum = 0.0;
  for (int l = 0; l < m.layers; ++l) sum += causal_pairs_in_documents(s, attention_span(m, l), document) / s;
  return sum / m.layers;
}

/// Mean over the model's layers of the keys the newest token (position s) attends to.
inline double mean_attended_keys_at(const ModelSpec& m, double s) {
  if (m.layers < 1) return 0.0;
  double sum = 0.0;
  for (int l = 0; l < m.layers; ++l) sum += attended_keys_at(s, attention_span(m, l));
  return sum / m.layers;
}

}  // namespace stepsim::work
