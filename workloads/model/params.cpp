#include "workloads/model/params.hpp"

namespace stepsim::work {
namespace {

double d(int v) {
  return static_cast<double>(v);
}

/// One norm over `width` elements: RMSNorm has a scale, LayerNorm a scale and a bias.
double norm_params(const ModelSpec& m, int width) {
  return m.norm == NormKind::layernorm ? 2.0 * d(width) : d(width);
}

double standard_attention(const ModelSpec& m) {
  const double h = d(m.hidden);
  const double q = d(m.heads) * d(m.head_dim);
  const double kv = d(m.kv_heads) * d(m.head_dim);
  double p = h * q + 2.0 * h * kv + q * h;  // W_Q, W_K, W_V, W_O
  if (m.linear_bias) p += q + 2.0 * kv + h;
  if (m.attention_output_gate) p += h * q + (m.linear_bias ? q : 0.0);  // the gate's half of q_proj
  if (m.qk_norm) p += 2.0 * norm_params(m, m.head_dim);                 // q_norm and k_norm
  return p;
}

/// DeepSeek MLA: queries through an optional low-rank path, keys and values through a shared
/// latent of kv_lora_rank plus a decoupled RoPE key of qk_rope_head_dim shared by all heads.
double mla_attention(const ModelSpec& m) {
  const MlaDims& a = m.mla;
  const double h = d(m.hidden);
  const double heads = d(m.heads);
  const double qk_head = d(a.qk_nope_head_dim) + d(a.qk_rope_head_dim);
  double q = 0.0;
  if (a.q_lora_rank > 0)
    q = h * d(a.q_lora_rank) + norm_params(m, a.q_lora_rank) + d(a.q_lora_rank) * heads * qk_head;
  else
    q = h * heads * qk_head;
  const double kv_down = h * (d(a.kv_lora_rank) + d(a.qk_rope_head_dim));
  const double kv_up = d(a.kv_lora_rank) * heads * (d(a.qk_nope_head_dim) + d(a.v_head_dim));
  const double out = heads * d(a.v_head_dim) * h;
  return q + kv_down + norm_params(m, a.kv_lora_rank) + kv_up + out;
}

/// Norms of the hidden state in one transformer layer: the two pre-norms, and with sandwich norms
/// the two after the attention and the MLP outputs.
double layer_norm_count(const ModelSpec& m) {
  return m.sandwich_norms ? 4.0 : 2.0;
}

/// Weights of one layer that every token uses, apart from the FFN: attention and its norms.
double layer_base(const ModelSpec& m) {
  return attention_params(m) + layer_norm_count(m) * norm_params(m, m.hidden);
}

struct MoeShape {
  double routed = 0.0;  ///< all routed experts
  double shared = 0.0;
  double router = 0.0;
  double active_ffn = 0.0;  ///< top_k routed + shared experts + router
};

MoeShape moe_layer(const ModelSpec& m) {
  const double expert = mlp_params(m, m.expert_ffn);
  MoeShape l;
  l.routed = d(m.experts) * expert;
  l.shared = d(m.shared_experts) * expert;
  l.router = d(m.experts) * d(m.hidden);
  l.active_ffn = d(m.top_k) * expert + l.shared + l.router;
  return l;
}

/// One MTP module (DeepSeek-V3 README_WEIGHTS): norms of the embedding and of the hidden state
/// (enorm, hnorm), the 2h -> h projection (eh_proj), one transformer layer of the model's last
/// kind, and the shared head's own norm. Embedding and output head are shared with the main model.
void add_mtp(const ModelSpec& m, ParamBreakdown& b) {
  if (m.mtp_layers <= 0) return;
  const double h = d(m.hidden);
  const double glue = 3.0 * norm_params(m, m.hidden) + 2.0 * h * h;
  double layer = layer_base(m);
  double layer_active = layer;
  if (m.is_moe()) {
    const MoeShape l = moe_layer(m);
    layer += l.routed + l.shared + l.router;
    layer_active += l.active_ffn;
  } else {
    layer += mlp_params(m, m.ffn);
    layer_active = layer;
  }
  b.mtp = d(m.mtp_layers) * (glue + layer);
  b.mtp_active = d(m.mtp_layers) * (glue + layer_active);
}

}  // namespace

double attention_params(const ModelSpec& m) {
  return m.attention == AttentionKind::mla ? mla_attention(m) : standard_attention(m);
}

double mlp_params(const ModelSpec& m, int ffn) {
  const double h = d(m.hidden);
  const double f = d(ffn);
  if (m.activation == Activation::swiglu) return 3.0 * h * f + (m.linear_bias ? 2.0 * f + h : 0.0);
  return 2.0 * h * f + (m.linear_bias ? f + h : 0.0);
}

double mamba_params(const ModelSpec& m) {
  const MambaDims& a = m.mamba;
  const double h = d(m.hidden), conv = a.conv_channels();
  // in_proj (z, x, B, C, dt), the depthwise convolution's taps and bias, dt_bias, A_log and D per
  // head, the gated RMSNorm's scale over d_inner, out_proj. Megatron-Core's MambaMixer, no biases
  // on the projections (Nemotron-H: mamba_proj_bias false, use_conv_bias true).
  return h * a.in_proj_width() + conv * (d(a.conv_kernel) + 1.0) + 3.0 * d(a.heads) + a.inner() +
         a.inner() * h;
}

double gated_delta_params(const ModelSpec& m) {
  const GatedDeltaDims& g = m.gated_delta;
  const double h = d(m.hidden);
  // in_proj_qkvz and in_proj_ba, the depthwise convolution's taps (no bias), dt_bias and A_log per
  // value head, the gated RMSNorm's scale over one value head, out_proj (Qwen3NextGatedDeltaNet).
  return h * g.in_proj_width() + g.conv_channels() * d(g.conv_kernel) + 2.0 * d(g.value_heads) +
         d(g.value_dim) + g.v_width() * h;
}

ParamBreakdown count_params(const ModelSpec& m) {
  ParamBreakdown b;
  const double h = d(m.hidden);
  const int moe_layers = m.moe_layers();
  const int dense_layers = m.ffn_layers() - moe_layers;  // leading and interleaved dense-FFN layers
  b.embedding = d(m.vocab) * h;
  b.position = m.position == PositionEmbedding::learned ? d(m.max_positions) * h : 0.0;
  b.lm_head = m.tied_embeddings ? 0.0 : d(m.vocab) * h;
  b.attention = d(m.attention_layers()) * attention_params(m);
  // A transformer layer has two pre-norms (attention, FFN), four with sandwich norms; a hybrid
  // layer one, before its block.
  const double layer_norms = m.is_hybrid() ? d(m.layers) : layer_norm_count(m) * d(m.layers);
  b.norms = layer_norms * norm_params(m, m.hidden) + norm_params(m, m.hidden);
  b.dense_mlp = d(dense_layers) * mlp_params(m, m.ffn);
  b.mamba = d(m.mamba_layers()) * mamba_params(m);
  b.linear_attention = d(m.gated_delta_layers()) * gated_delta_params(m);
  double moe_active = 0.0;
  if (moe_layers > 0) {
    const MoeShape l = moe_layer(m);
    b.routed_experts = d(moe_layers) * l.routed;
    b.shared_experts = d(moe_layers) * l.shared;
    b.routers = d(moe_layers) * l.router;
    moe_active = d(moe_layers) * l.active_ffn;
  }
  add_mtp(m, b);
  const double common = b.embedding + b.position + b.lm_head + b.attention + b.norms + b.dense_mlp + b.mamba +
                        b.linear_attention;
  b.total = common + b.routed_experts + b.shared_experts + b.routers + b.mtp;
  b.active = common + moe_active + b.mtp_active;
  return b;
}

}  // namespace stepsim::work
