#pragma once
#include <algorithm>
#include <vector>
// A transformer's dimensions, as the model catalog and scenarios give them. Parameter counts are
// computed from these (workloads/model/params.hpp), never stored, except the published figure kept for
// the catalog test.

#include <cstdint>
#include <string>

namespace stepsim::work {

enum class Activation : std::uint8_t { gelu, swiglu, relu };
enum class NormKind : std::uint8_t { layernorm, rmsnorm };
enum class AttentionKind : std::uint8_t {
  standard,  ///< multi-head / grouped-query / multi-query (kv_heads says which)
  mla,       ///< DeepSeek multi-head latent attention (MlaDims)
};
/// none: no position embedding at all (Nemotron-H's attention layers; its Mamba layers carry order).
enum class PositionEmbedding : std::uint8_t { rope, learned, none };
/// What one layer of a hybrid model is (Megatron-Core's hybrid layer pattern, one character per
/// layer: M, *, -, E). A transformer layer is attention and an FFN behind one residual each; the
/// hybrid kinds are one block each behind its own pre-norm and residual.
enum class LayerKind : std::uint8_t {
  transformer,  ///< attention + FFN (dense, or MoE as is_moe_layer says): every layer of a non-hybrid model
  mamba,        ///< M: a Mamba-2 mixer (selective state space, chunked SSD scan)
  attention,    ///< *: self-attention only
  mlp,          ///< -: a dense FFN only
  moe,          ///< E: a mixture-of-experts FFN only
  gated_delta,  ///< G: a Gated DeltaNet linear-attention mixer (Qwen3-Next, Qwen3.5; chunked delta rule)
};
/// How the local layers of a model with an attention window limit what a query sees.
enum class AttentionWindowKind : std::uint8_t {
  sliding,  ///< the last `window` positions, itself included (Mistral, Gemma 2/3, GPT-OSS)
  chunked,  ///< the positions of its own `window`-token chunk up to itself (Llama 4's local layers)
};

/// DeepSeek-V2/V3 multi-head latent attention projections.
struct MlaDims {
  int q_lora_rank = 0;  ///< 0 = queries projected directly (no low-rank query path)
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
};

/// Mamba-2 mixer dimensions (Dao and Gu 2024; Megatron-Core's MambaMixer): d_inner = heads x
/// head_dim; the input projection makes z and x (d_inner each), B and C (groups x state each) and
/// one dt per head; a depthwise causal convolution of conv_kernel taps runs over x, B and C.
struct MambaDims {
  int heads = 0;        ///< SSM heads (mamba_num_heads)
  int head_dim = 0;     ///< channels per head (P)
  int state = 0;        ///< state size per channel (N, ssm_state_size / mamba_state_dim)
  int groups = 1;       ///< B/C groups shared by heads / groups heads (n_groups)
  int conv_kernel = 4;  ///< causal convolution taps (d_conv)
  int chunk = 128;      ///< SSD chunk length (chunk_size)
  double inner() const { return double(heads) * head_dim; }
  /// Channels the convolution runs over: x, B and C.
  double conv_channels() const { return inner() + 2.0 * groups * state; }
  /// Width of the input projection's output: z, x, B, C and dt.
  double in_proj_width() const { return 2.0 * inner() + 2.0 * groups * state + heads; }
  /// The chunk the scan runs at over `s` tokens: `chunk`, or the whole sequence when it is shorter.
  double chunk_for(double s) const { return std::max(1.0, std::min(double(chunk), s)); }
  /// The SSD scan's forward FLOPs per token over every head, for sequences of `s` tokens: chunk
  /// states 2HPN, C B^T 2GQN, the chunk scan 2HP(Q/2 + N) (the causal half inside a chunk).
  double scan_flops_per_token(double s) const {
    const double H = heads, P = head_dim, N = state, Q = chunk_for(s);
    return 2.0 * H * P * N + 2.0 * groups * Q * N + 2.0 * H * P * (0.5 * Q + N);
  }
  /// A decode step's state update per token (selective_state_update): about 6HPN.
  double update_flops_per_token() const { return 6.0 * inner() * state; }
};

/// Gated DeltaNet mixer dimensions (Yang et al. 2024; Qwen3-Next's Qwen3NextGatedDeltaNet): q and k
/// of key_heads x key_dim, v and the output gate z of value_heads x value_dim, one beta and one decay
/// per value head; a depthwise causal convolution over q, k and v; keys shared by value_heads /
/// key_heads value heads. The chunked delta rule (flash-linear-attention's chunk_gated_delta_rule)
/// keeps a key_dim x value_dim state per value head.
struct GatedDeltaDims {
  int key_heads = 0;
  int value_heads = 0;
  int key_dim = 0;
  int value_dim = 0;
  int conv_kernel = 4;
  int chunk = 64;
  double qk_width() const { return double(key_heads) * key_dim; }  ///< q (or k) channels
  double v_width() const { return double(value_heads) * value_dim; }
  double conv_channels() const { return 2.0 * qk_width() + v_width(); }
  /// The input projections' output: q, k, v, z, and beta and the decay's input per value head.
  double in_proj_width() const { return 2.0 * qk_width() + 2.0 * v_width() + 2.0 * value_heads; }
  /// The chunk the rule runs at over `s` tokens: `chunk`, or the whole sequence when it is shorter.
  double chunk_for(double s) const { return std::max(1.0, std::min(double(chunk), s)); }
  /// The chunked delta rule's forward FLOPs per token over every value head, for sequences of `s`
  /// tokens: K K^T 2CK, the triangular inverse 2C^2/3, w and u 2C(K + V), the state 4KV, the output
  /// 2V(K + C/2) and its causal q k^T CK.
  double rule_flops_per_token(double s) const {
    const double K = key_dim, V = value_dim, C = chunk_for(s);
    return value_heads * (2.0 * C * K + (2.0 / 3.0) * C * C + 2.0 * C * (K + V) + 4.0 * K * V +
                          2.0 * V * (K + 0.5 * C) + C * K);
  }
  /// A decode step's recurrent update per token (fused_recurrent_gated_delta_rule): about 8KV per value head.
  double update_flops_per_token() const { return 8.0 * v_width() * key_dim; }
};

struct ModelSpec {
  std::string id;    ///< catalog key, e.g. "llama-3.1-70b"
  std::string name;  ///< display name
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< = heads for MHA, 1 for MQA
  int head_dim = 0;  ///< usually hidden / heads
  int ffn = 0;       ///< FFN width of dense layers
  int vocab = 0;
  Activation activation = Activation::swiglu;
  NormKind norm = NormKind::rmsnorm;
  PositionEmbedding position = PositionEmbedding::rope;
  int max_positions = 0;     ///< learned position embeddings: table rows
  bool linear_bias = false;  ///< biases on QKV/output/MLP projections (GPT-2/3, Megatron GPT)
  /// Attention sinks (GPT-OSS): one learned logit per head that joins every softmax's denominator.
  bool attention_sinks = false;
  bool tied_embeddings = false;
  bool dropout = false;  ///< attention and hidden dropout in training (GPT-3/Megatron GPT: yes; Llama: no)
  /// Attention and MLP side by side on one shared input norm, their outputs summed before one TP
  /// all-reduce (GPT-J, GPT-NeoX's gpt_j_residual, Falcon's parallel_attn); simulated in inference.
  bool parallel_block = false;
  AttentionKind attention = AttentionKind::standard;
  MlaDims mla;
  // Mixture of experts (experts == 0 means dense).
  int experts = 0;         ///< routed experts per MoE layer
  int top_k = 0;           ///< routed experts per token
  int shared_experts = 0;  ///< always-active experts per MoE layer
  int expert_ffn = 0;      ///< FFN width of one expert
  int dense_layers = 0;    ///< leading layers that use a dense FFN (of width `ffn`)
  /// Megatron-Core's --moe-layer-freq: layer i (0-based, after the dense_layers) is MoE when
  /// i % moe_layer_freq == 0, or as moe_layer_pattern says (one 0/1 per layer) when that is given.
  /// Llama 4 Maverick: [0, 1] x 24, MoE in every second layer.
  int moe_layer_freq = 1;
  std::vector<int> moe_layer_pattern;
  int mtp_layers = 0;             ///< multi-token-prediction modules (DeepSeek-V3), counted in total params
  // Local attention (workloads/model/attention_window.hpp). attention_window == 0: every layer
  // attends to the whole context. Otherwise the local layers see `attention_window` tokens as
  // `window_kind` says; which layers are local: local_attention_pattern (one 0/1 per layer, 1 =
  // local) when given, else every layer but each global_attention_every-th (layer i global when
  // (i + 1) % global_attention_every == 0; 0 = no global layer). Gemma 3: window 1024, every 6th
  // global; Gemma 2 and GPT-OSS: every 2nd; Llama 4: chunks of 8192, every 4th global; Mistral 7B:
  // window 4096, none global.
  int attention_window = 0;
  AttentionWindowKind window_kind = AttentionWindowKind::sliding;
  int global_attention_every = 0;
  std::vector<int> local_attention_pattern;
  /// Hybrid models (Nemotron-H, Jamba-style stacks): one kind per layer, `layers` of them; empty
  /// for a plain transformer. MoE layers of a hybrid model are its `moe` entries.
  std::vector<LayerKind> hybrid_layers;
  MambaDims mamba;                ///< the Mamba-2 mixers' dimensions (hybrid models with mamba layers)
  GatedDeltaDims gated_delta;     ///< the Gated DeltaNet mixers' dimensions (hybrid models with G layers)
  /// Attention with a sigmoid output gate (Qwen3-Next, Qwen3.5: attn_output_gate): the query
  /// projection also makes a gate of the attention output's width, multiplied in before o_proj.
  bool attention_output_gate = false;
  /// Per-head norms of the queries and keys before RoPE (Qwen3, Qwen3-MoE, Qwen3-Next, Gemma 3;
  /// Megatron-Core's qk_layernorm): a norm of head_dim weights over every query and every key head.
  bool qk_norm = false;
  /// Norms of the attention output and of the MLP output before their residual adds (Gemma 2 and
  /// 3: post_attention_layernorm, post_feedforward_layernorm), each of `hidden` weights.
  bool sandwich_norms = false;
  double published_params = 0.0;  ///< total parameters as published (for the catalog test)
  double published_active_params = 0.0;  ///< MoE: activated parameters per token as published
  /// Relative agreement the catalog test demands between computed and published counts: 0.01
  /// unless the source prints its figure more coarsely (e.g. "1.7B" covers 1.65-1.75B).
  double published_tolerance = 0.01;

  bool is_moe() const { return experts > 0; }
  /// Key/value heads as attention kernels see them: MLA expands its latent to every query head.
  int key_value_heads() const { return attention == AttentionKind::mla ? heads : kv_heads; }
  /// Whether both the query heads and the key/value heads divide into `ways` equal shares.
  bool splits_heads(int ways) const { return ways > 0 && heads % ways == 0 && key_value_heads() % ways == 0; }
  /// Whether layer `i` has routed experts; multi-token-prediction layers (i >= layers) are MoE in
  /// an MoE model.
  bool is_hybrid() const { return !hybrid_layers.empty(); }
  /// Layer `i`'s kind: a hybrid model's entry, else transformer (multi-token-prediction layers too).
  LayerKind layer_kind(int i) const {
    if (!is_hybrid() || i < 0 || i >= layers) return LayerKind::transformer;
    return hybrid_layers[static_cast<std::size_t>(i)];
  }
  bool has_attention(int i) const {
    const LayerKind k = layer_kind(i);
    return k == LayerKind::transformer || k == LayerKind::attention;
  }
  bool has_ffn(int i) const {
    const LayerKind k = layer_kind(i);
    return k == LayerKind::transformer || k == LayerKind::mlp || k == LayerKind::moe;
  }
  int count_layers(bool (ModelSpec::*has)(int) const) const {
    int n = 0;
    for (int i = 0; i < layers; ++i) n += (this->*has)(i) ? 1 : 0;
    return n;
  }
  int attention_layers() const { return count_layers(&ModelSpec::has_attention); }
  int ffn_layers() const { return count_layers(&ModelSpec::has_ffn); }
  int layers_of_kind(LayerKind k) const {
    int n = 0;
    for (int i = 0; i < layers; ++i) n += layer_kind(i) == k ? 1 : 0;
    return n;
  }
  int mamba_layers() const { return layers_of_kind(LayerKind::mamba); }
  int gated_delta_layers() const { return layers_of_kind(LayerKind::gated_delta); }
  /// Layers whose mixer carries a recurrent state along the sequence (Mamba-2, Gated DeltaNet).
  int state_layers() const { return mamba_layers() + gated_delta_layers(); }
  bool is_moe_layer(int i) const {
    if (is_hybrid() && i < layers) return i >= 0 && layer_kind(i) == LayerKind::moe;
    if (!is_moe() || i < dense_layers) return false;
    if (i >= layers) return true;
    if (!moe_layer_pattern.empty()) return moe_layer_pattern[static_cast<std::size_t>(i)] != 0;
    return i % moe_layer_freq == 0;
  }
  int moe_layers() const {
    int n = 0;
    for (int i = 0; i < layers; ++i) n += is_moe_layer(i) ? 1 : 0;
    return n;
  }
  bool has_local_attention() const { return attention_window > 0 && local_attention_layers() > 0; }
  /// Whether layer `i` attends through the window; multi-token-prediction layers (i >= layers) and
  /// every layer of a model without a window attend to the whole context.
  bool is_local_attention_layer(int i) const {
    if (attention_window <= 0 || i < 0 || i >= layers || !has_attention(i)) return false;
    if (!local_attention_pattern.empty()) return local_attention_pattern[static_cast<std::size_t>(i)] != 0;
    return global_attention_every <= 0 || (i + 1) % global_attention_every != 0;
  }
  int local_attention_layers() const {
    if (attention_window <= 0) return 0;
    int n = 0;
    for (int i = 0; i < layers; ++i) n += is_local_attention_layer(i) ? 1 : 0;
    return n;
  }
};

}  // namespace stepsim::work
