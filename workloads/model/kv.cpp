#include "workloads/model/kv.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/error.hpp"
#include "workloads/model/attention_window.hpp"

namespace stepsim::work {

namespace {

/// Cached elements per token per layer (whole model width, no parallelism).
double kv_elements_per_layer(const ModelSpec& m) {
  if (m.attention == AttentionKind::mla) return double(m.mla.kv_lora_rank) + m.mla.qk_rope_head_dim;
  return 2.0 * m.kv_heads * m.head_dim;
}

void check(const KvQuery& q) {
  if (q.context < 1)
    throw UserError("kv: the context must be at least 1 token, got " + std::to_string(q.context));
  if (q.batch < 1)
    throw UserError("kv: the batch must be at least 1 sequence, got " + std::to_string(q.batch));
  if (!(q.overhead >= 1.0))
    throw UserError("kv: the overhead factor must be at least 1 (typical 1.1-1.3), got " +
                    std::to_string(q.overhead));
  if (q.gpus < 1) throw UserError("kv: the GPU count must be at least 1, got " + std::to_string(q.gpus));
}

}  // namespace

double kv_bytes_per_token(const ModelSpec& m, double bytes_per_element) {
  return kv_elements_per_layer(m) * m.attention_layers() * bytes_per_element;
}

double mamba_state_elements(const MambaDims& a, int tp) {
  const double t = std::max(1, tp);
  return a.heads / t * a.head_dim * a.state + a.conv_channels() / t * (a.conv_kernel - 1.0);
}

double state_bytes_per_sequence_layer(const GatedDeltaDims& g, double bytes_per_element, int tp) {
  const double t = std::max(1, tp);
  // The delta rule's state in fp32, the convolution's last conv_kernel - 1 inputs in 16 bits.
  return 4.0 * g.value_heads / t * g.key_dim * g.value_dim +
         bytes_per_element * g.conv_channels() / t * (g.conv_kernel - 1.0);
}

double state_bytes_per_sequence(const ModelSpec& m, double bytes_per_element, int tp, int begin, int end) {
  double bytes = 0.0;
  for (int l = begin; l < end; ++l) {
    if (m.layer_kind(l) == LayerKind::mamba) bytes += mamba_state_elements(m.mamba, tp) * bytes_per_element;
    if (m.layer_kind(l) == LayerKind::gated_delta)
      bytes += state_bytes_per_sequence_layer(m.gated_delta, bytes_per_element, tp);
  }
  return bytes;
}

double decode_kv_reads(const JobSpec& job) {
  const ModelSpec& m = job.model;
  if (job.workload.decode_attention != DecodeAttention::per_query_head || m.attention == AttentionKind::mla)
    return 1.0;
  // A rank's heads / tp query heads share its max(1, kv_heads / tp) KV heads.
  const double tp = job.parallel.tp;
  return std::max(1.0, (m.heads / tp) / std::max(1.0, m.kv_heads / tp));
}

double kv_bytes_per_token_layer_rank(const ModelSpec& m, double bytes_per_element, int tp) {
  if (m.attention == AttentionKind::mla) return kv_elements_per_layer(m) * bytes_per_element;
  const double heads_per_rank = std::max(1.0, double(m.kv_heads) / std::max(1, tp));
  return 2.0 * heads_per_rank * m.head_dim * bytes_per_element;
}

KvReport size_kv(const ModelSpec& m, const KvQuery& q) {
  check(q);
  KvReport r;
  const double T = q.context;
  const double C = q.batch;
  r.bytes_per_token = kv_bytes_per_token(m, q.kv_bytes);
  // Each attention layer keeps and reads the tokens its span leaves (attention_window.hpp: all of
  // them in a global layer, at most the window in a local one, none in a hybrid model's other
  // layers); per attention layer a token takes kv_elements_per_layer x bytes.
  const double per_layer = kv_elements_per_layer(m) * q.kv_bytes;
  r.local_attention = m.has_local_attention();
  // A hybrid model's Mamba layers hold a fixed state per sequence instead (whole model: tp = 1).
  r.state_bytes_per_sequence = state_bytes_per_sequence(m, q.state_bytes, 1, 0, m.layers);
  r.bytes_per_sequence = per_layer * cached_layer_tokens(m, T, 0, m.layers) + r.state_bytes_per_sequence;
  r.cache_bytes = C * r.bytes_per_sequence * q.overhead;
  r.weights_bytes = q.params * q.weight_bytes;
  r.total_bytes = r.weights_bytes + r.cache_bytes;
  // Each step reads and writes every Mamba state once.
  r.decode_bytes_per_token = r.weights_bytes / C + per_layer * m.layers * mean_attended_keys_at(m, T) +
                             2.0 * r.state_bytes_per_sequence;
  if (q.target_tokens_per_s) r.decode_bandwidth_Bps = *q.target_tokens_per_s * r.decode_bytes_per_token;
  if (!q.gpu) return r;
  const topo::GpuSpec& g = *q.gpu;
  const double capacity = q.gpus * g.usable_hbm().value();
  r.capacity_bytes = capacity;
  r.fits = r.total_bytes <= capacity;
  r.max_tokens_per_s = q.gpus * g.hbm_bw.value() * g.eff.estimate_memory / r.decode_bytes_per_token;
  const double free = std::max(0.0, capacity - r.weights_bytes);
  r.max_batch = static_cast<long long>(std::floor(free / (r.bytes_per_sequence * q.overhead)));
  // What a sequence of the batch may cache beyond its fixed state, in layer-tokens.
  const double layer_tokens = std::max(0.0, free / (q.overhead * C) - r.state_bytes_per_sequence) / per_layer;
  r.max_context = static_cast<long long>(std::floor(max_cached_context(m, layer_tokens, 0, m.layers)));
  return r;
}

}  // namespace stepsim::work
