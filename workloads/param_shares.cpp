#include "workloads/param_shares.hpp"

namespace stepsim::work {

namespace {

double norm_params(const ModelSpec& m, double width) {
  // RMSNorm has a scale per channel; LayerNorm a scale and a bias.
  return m.norm == NormKind::layernorm ? 2.0 * width : width;
}

double bias(const ModelSpec& m, double width) {
  return m.linear_bias ? width : 0.0;
}

double standard_attention(const ModelSpec& m) {
  const double h = m.hidden;
  const double q = double(m.heads) * m.head_dim;
  const double kv = double(m.kv_heads) * m.head_dim;
  // Q, K, V projections and the output projection back to the hidden size.
  return h * q + bias(m, q) + 2.0 * (h * kv + bias(m, kv)) + q * h + bias(m, h);
}

double mla_attention(const ModelSpec& m) {
  const MlaDims& d = m.mla;
  const double h = m.hidden;
  const double a = m.heads;
  const double qk = d.qk_nope_head_dim + d.qk_rope_head_dim;
  // Queries: optionally compressed to q_lora_rank (with its own norm), then expanded per head.
  const double q = d.q_lora_rank > 0
                       ? h * d.q_lora_rank + norm_params(m, d.q_lora_rank) + d.q_lora_rank * a * qk
                       : h * a * qk;
  // Keys/values: a shared latent of kv_lora_rank plus one decoupled RoPE key, then expanded.
  const double kv = h * (d.kv_lora_rank + d.qk_rope_head_dim) + norm_params(m, d.kv_lora_rank) +
                    d.kv_lora_rank * a * (d.qk_nope_head_dim + d.v_head_dim);
  return q + kv + a * d.v_head_dim * h;
}

double attention_params(const ModelSpec& m) {
  return m.attention == AttentionKind::mla ? mla_attention(m) : standard_attention(m);
}

/// One FFN of width `f`: gated (SwiGLU) FFNs have gate, up and down matrices, others up and down.
double ffn_params(const ModelSpec& m, double f) {
  const double h = m.hidden;
  if (m.activation == Activation::swiglu) return 3.0 * h * f + bias(m, 2.0 * f + h);
  return 2.0 * h * f + bias(m, f + h);
}

/// DeepSeek-V3 MTP modules: norms of the embedding, of the hidden state and of the shared head,
/// a 2h -> h projection and one transformer layer of the model's last kind.
void add_mtp(const ModelSpec& m, ParamShares& s) {
  if (m.mtp_layers <= 0) return;
  const double h = m.hidden;
  const double layer = attention_params(m) + 2.0 * norm_params(m, h);
  const double glue = 3.0 * norm_params(m, h) + 2.0 * h * h;
  double ffn = ffn_params(m, m.ffn);
  double ffn_active = ffn;
  if (m.is_moe()) {
    const double expert = ffn_params(m, m.expert_ffn);
    const double common = m.shared_experts * expert + double(m.experts) * h;
    ffn = common + m.experts * expert;
    ffn_active = common + m.top_k * expert;
  }
  s.mtp = m.mtp_layers * (glue + layer + ffn);
  s.mtp_active = m.mtp_layers * (glue + layer + ffn_active);
}

}  // namespace

double ParamShares::active_matmul(bool training) const {
  const double lookup = position + (lm_head > 0.0 ? embedding : 0.0);
  double p = active() - norms - lookup;
  // Each MTP module runs one more layer and the shared output head on every token.
  if (training && mtp_layers > 0) p += mtp_active + mtp_layers * (lm_head > 0.0 ? lm_head : embedding);
  return p;
}

ParamShares param_shares(const ModelSpec& m) {
  ParamShares s;
  const double h = m.hidden;
  s.moe_layers = m.moe_layers();
  s.experts = m.experts;
  s.top_k = m.top_k;
  s.mtp_layers = m.mtp_layers;
  s.embedding = double(m.vocab) * h;
  s.position = m.position == PositionEmbedding::learned ? double(m.max_positions) * h : 0.0;
  s.lm_head = m.tied_embeddings ? 0.0 : double(m.vocab) * h;
  s.attention = m.layers * attention_params(m);
  s.norms = m.layers * 2.0 * norm_params(m, h) + norm_params(m, h);
  s.dense_mlp = (m.layers - s.moe_layers) * ffn_params(m, m.ffn);
  if (m.is_moe()) {
    const double expert = ffn_params(m, m.expert_ffn);
    s.routed_experts = double(s.moe_layers) * m.experts * expert;
    s.shared_experts = double(s.moe_layers) * m.shared_experts * expert;
    s.routers = double(s.moe_layers) * m.experts * h;
  }
  add_mtp(m, s);
  return s;
}

}  // namespace stepsim::work
