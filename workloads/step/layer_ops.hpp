#pragma once
// One transformer layer (and the embedding, LM head and optimizer) as kernels and communication.
//
// Every figure is per rank and per micro-batch: a rank holds 1/tp of each weight matrix and
// 1/cp of each sequence. FLOPs are hardware FLOPs (what the kernels execute); bytes are HBM traffic
// (inputs read, outputs written, weights read). docs/model.md derives each op; tests check them by
// hand counts. The same emitters serve training, prefill (a forward that writes the KV cache) and
// decode (one query token per sequence attending to its cache): LayerDims::phase says which.

#include <functional>
#include <optional>
#include <string_view>

#include "workloads/model/attention_window.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/pointwise.hpp"
#include "workloads/step/op_sink.hpp"

namespace stepsim::work {

/// The per-rank dimensions of one layer for one micro-batch.
struct LayerDims {
  double b = 1;        ///< sequences in the micro-batch
  double s = 1;        ///< keys each query can see: the sequence (train, prefill) or context + 1 (decode)
  double s_local = 1;  ///< query tokens per sequence on this CP rank (s / cp; 1 in decode)
  double tokens = 1;   ///< b x s_local
  int tp = 1;
  int cp = 1;
  bool sp = false;  ///< sequence parallelism: norms/dropouts on tokens / tp
  double h = 0;     ///< hidden size
  // Attention widths of the whole layer (all heads) per token. MLA expands its latent keys and
  // values to every head before the attention core (training, prefill).
  double q_dim = 0;     ///< queries: heads x query/key head width
  double kv_dim = 0;    ///< keys: kv_heads x head width (MLA: heads x (nope + rope))
  double v_dim = 0;     ///< values: kv_heads x head width (MLA: heads x v_head_dim)
  double o_dim = 0;     ///< attention output: heads x value head width
  double heads = 0;     ///< attention heads (whole layer)
  double kv_heads = 0;  ///< KV heads (whole layer; MLA: heads)
  bool mla = false;     ///< DeepSeek multi-head latent attention projections
  MlaDims mla_dims;
  double ffn = 0;              ///< FFN width of this layer's dense MLP
  MambaDims mamba;             ///< a hybrid model's Mamba-2 mixers (whole-layer figures)
  GatedDeltaDims gated_delta;  ///< a hybrid model's Gated DeltaNet mixers (whole-layer figures)
  bool attention_output_gate = false;  ///< ModelSpec::attention_output_gate
  bool qk_norm = false;                ///< ModelSpec::qk_norm
  bool sandwich_norms = false;         ///< ModelSpec::sandwich_norms
  double act_bytes = 2;        ///< bytes per activation element
  double act_input_bytes = 2;  ///< bytes per element the activation function keeps of its input
  double param_bytes = 2;      ///< bytes per weight
  double grad_bytes = 2;       ///< bytes per gradient element (wgrad accumulation buffer)
  double kv_bytes = 2;         ///< bytes per KV-cache element (inference)
  /// Decode: times each cached key and value is read per step (per-query-head kernels read a
  /// grouped cache once per query head of the group; 1 for grouped kernels and MLA).
  double decode_kv_reads = 1;
  WeightQuant weight_quant = WeightQuant::none;  ///< weight-only int8/int4 linear weights
  WorkloadKind phase = WorkloadKind::train;
  /// Math of everything but the linear layers: attention, embedding, LM head, router (16-bit).
  topo::Precision precision = topo::Precision::bf16;
  /// Math of the linear layers' forward, data-gradient and weight-gradient GEMMs.
  topo::Precision linear = topo::Precision::bf16;
  LowPrecisionRecipe recipe = LowPrecisionRecipe::delayed;  ///< how FP8/FP4 linears are scaled
  bool fp8_attention = false;
  Activation activation = Activation::swiglu;
  NormKind norm = NormKind::rmsnorm;
  AttentionImpl attention = AttentionImpl::flash;
  topo::AttentionKernel attention_kernel = topo::AttentionKernel::cudnn;  ///< the fused kernel's library
  /// The kernels around the GEMMs run as PyTorch's eager modules, op by op with fp32 upcasts
  /// (workload.pointwise = "eager"), instead of fused kernels (Transformer Engine, Megatron-Core's
  /// fusions, torch.compile): see the eager_* byte counts below.
  bool eager_pointwise = false;
  /// FlashAttention over unpadded tokens (workload.attention_unpad): gathers, scatters and host syncs.
  bool attention_unpad = false;
  /// workload.document_tokens: each query attends within its document of this many tokens (a token's
  /// document length averaged over tokens); 0 = the whole sequence.
  double document = 0.0;
  bool dropout = false;
  bool linear_bias = false;
  /// Training with biases summed by reduction kernels of their own (WorkloadSpec::bias_grad).
  bool bias_grad_kernels = false;
  /// Training: the query, key and value gradients concatenated by a copy (WorkloadSpec::qkv_grad_concat).
  bool qkv_grad_concat = false;
  /// The loss's cross-entropy kernels (loss_kernels: WorkloadSpec::cross_entropy, PyTorch's when eager).
  CrossEntropy cross_entropy = CrossEntropy::fused;
  /// Attention sinks applied after a kernel that has no sink term (FlexAttention, FlashAttention-2):
  /// the output rescaled by sigmoid(lse - sink) in eager PyTorch, each way (attention_sink_bytes).
  bool sink_rescale = false;
  bool parallel_block = false;  ///< attention and MLP on one norm, one TP reduction (ModelSpec)
  bool causal = true;
  /// The layer's attention span: global (window 0), or a local layer's sliding window or chunk
  /// (ModelSpec::attention_window). Fused kernels skip the blocks outside it; the unfused path
  /// computes every score and masks them, so it pays the whole sequence.
  AttentionSpan span;
  /// Training with rotary position embeddings: queries and keys are rotated by a kernel of their
  /// own (Transformer Engine's fused RoPE, DeepSeek's rotary and MLA's query/key assembly).
  bool rope_kernels = false;
  GradAccumulation grad_accumulation = GradAccumulation::fused;
  /// What selective recomputation regenerates, when the step recomputes selectively.
  RecomputeModules recompute;
  /// How the sequence-parallel gathers and reductions meet their GEMMs (off without SP).
  TpCommOverlap tp_overlap = TpCommOverlap::off;
  int rs_splits = 4;  ///< userbuffers' pipelined GEMM+RS chunks where a GEMM's num_splits is 0
  /// Userbuffers' configuration per GEMM (ParallelSpec::ub_overlap), and the GPU's SMs that its
  /// SM margins are shares of (0: unknown, no margin).
  std::array<UbOverlap, kUbGemms> ub = default_ub_overlap(false);
  int sms = 0;
  CpComm cp_comm = CpComm::p2p;  ///< how the cp ranks share keys and values (cp > 1)

  /// KV-cache elements one token adds per layer on one TP rank: K and V of the rank's KV heads (at
  /// least one), or MLA's latent and shared RoPE key (replicated on every rank).
  double kv_cache_width() const;
  /// Whether the linear layers quantise their operands (FP8 or FP4).
  bool low_precision_linears() const {
    return linear == topo::Precision::fp8 || linear == topo::Precision::fp4;
  }
  /// Bytes per element of a linear's operand as Transformer Engine gathers it: the FP8/FP4 copy
  /// when the linears are low-precision, else the activations' width.
  double gathered_operand_bytes() const {
    return low_precision_linears() ? topo::bytes_per_element(linear) : act_bytes;
  }
  /// The same dimensions with the linear layers in 16 bits: the LM head and the router, which
  /// Megatron-Core builds outside Transformer Engine's FP8 region.
  /// Weight-only quantisation leaves them 16-bit too (TensorRT-LLM and AWQ keep the LM head).
  LayerDims high_precision() const {
    LayerDims c = *this;
    c.linear = precision;
    if (c.weight_quant != WeightQuant::none) c.param_bytes = c.act_bytes, c.weight_quant = WeightQuant::none;
    return c;
  }
};

/// Weights of one norm over the hidden width: RMSNorm a scale, LayerNorm a scale and a bias.
inline double hidden_norm_params(const LayerDims& d) {
  return d.h * (d.norm == NormKind::layernorm ? 2.0 : 1.0);
}

/// HBM bytes per element a norm's forward moves (read x, write y; eager: kEagerNormForwardExtra more).
inline double norm_forward_bytes(const LayerDims& d) {
  return 2.0 * d.act_bytes + (d.eager_pointwise ? kEagerNormForwardExtra : 0.0);
}
/// A norm's backward per element: read x and dy, write dx, and with `residual` also read the residual
/// branch's gradient and write the sum (fused: 4E). Eager runs autograd's kernels and then adds the
/// residual gradient in a kernel of its own (3E).
inline double norm_backward_bytes(const LayerDims& d, bool residual) {
  const double E = d.act_bytes;
  if (!d.eager_pointwise) return (residual ? 4.0 : 3.0) * E;
  return 2.0 * E + kEagerNormBackward + (residual ? 3.0 * E : 0.0);
}

/// HBM bytes per output element of the activation function (SwiGLU: out = silu(gate) x up; GeLU).
/// Forward: read the input (2 elements for SwiGLU), write the output, and with an FP8 input store
/// also write the kept FP8 copy of the input. Backward: read the kept input (act_input_bytes) and
/// the output gradient, write the input gradients.
/// Eager SwiGLU is two kernels, silu(gate) then its product with up: the silu output is written and
/// read again (+2E); its backward is the product's two gradients (2 x 3E) and silu's (3E): 9E
/// against the fused 5E. GeLU is one kernel either way.
inline double act_forward_bytes(const LayerDims& d) {
  const bool swiglu = d.activation == Activation::swiglu;
  const double in = swiglu ? 2.0 : 1.0;
  return (in + 1.0) * d.act_bytes + (d.act_input_bytes < d.act_bytes ? in * d.act_input_bytes : 0.0) +
         (d.eager_pointwise && swiglu ? 2.0 * d.act_bytes : 0.0);
}
inline double act_backward_bytes(const LayerDims& d) {
  const bool swiglu = d.activation == Activation::swiglu;
  const double in = swiglu ? 2.0 : 1.0;
  return in * d.act_input_bytes + (1.0 + in) * d.act_bytes +
         (d.eager_pointwise && swiglu ? 4.0 * d.act_bytes : 0.0);
}

/// The modules a layer recomputes in a step whose recomputation is `r` (none unless selective).
inline RecomputeModules selective_modules(const LayerDims& d, Recompute r) {
  return r == Recompute::selective ? d.recompute : RecomputeModules{false, false, false, false, false};
}

/// Dimensions of a layer of `job` for micro-batches of `micro_batch` sequences (training and
/// prefill: seq_len tokens each; decode: one new token attending to context + 1 keys).
LayerDims layer_dims(const JobSpec& job, double micro_batch);

/// A fused attention kernel's shape (topo::Efficiency::attention_shape): the keys each query row
/// spans (the sequence, or a local layer's window) and its 128-row query tiles (sequences x heads on
/// the rank x ceil(query rows on the rank / 128)), for the whole kernel before any ring-attention
/// split into key blocks.
struct AttentionShape {
  double keys = 0.0;
  double tiles = 0.0;
  /// (d_qk + d_v) over the head widths the layer's kernel computes at (topo::attention_head_tile).
  double width = 1.0;
};
AttentionShape fused_attention_shape(const LayerDims& d);
/// CUDA-core operations a weight-only GEMM [m x k] x [k x n] (`count` of them) spends converting its
/// `q`-quantised weights to 16 bits (KernelWork::vector_ops).
double dequant_ops(WeightQuant q, double m, double n, double k, double count = 1.0);

/// Columns of the MLP's first GEMM on one TP rank: the gate and up projections of a gated MLP.
inline double mlp_up_width(const LayerDims& d) {
  return (d.activation == Activation::swiglu ? 2.0 : 1.0) * d.ffn / d.tp;
}

/// Emits the kernels and TP/CP communication of one dense transformer layer. Its attention and MLP
/// halves are public so that the MoE layer reuses the attention block.
class DenseLayer {
 public:
  explicit DenseLayer(const LayerDims& dims) : d_(dims) {}

  /// Forward (also used to recompute it). Returns the op that produces the output.
  OpSink::Handle forward(OpSink& sink, OpSink::Deps input) const;
  /// Backward; with selective recompute the attention core is recomputed first. Returns the op
  /// that produces the input gradient.
  OpSink::Handle backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute) const;

  /// The attention half: norm, projections, core, output projection, residual. In prefill and
  /// decode it also writes the new tokens' keys and values to the KV cache.
  OpSink::Handle attention_forward(OpSink& sink, OpSink::Deps input) const;
  OpSink::Handle attention_backward(OpSink& sink, OpSink::Deps grad, Recompute recompute) const;
  /// The dense MLP half: norm, up projection, activation, down projection, residual.
  OpSink::Handle mlp_forward(OpSink& sink, OpSink::Deps input) const;
  /// GPT-J / Falcon block (LayerDims::parallel_block): both branches on one norm, one reduction.
  OpSink::Handle parallel_forward(OpSink& sink, OpSink::Deps input) const;
  OpSink::Handle mlp_backward(OpSink& sink, OpSink::Deps grad, RecomputeModules rc) const;

  /// Activation bytes this layer keeps from forward to backward for one micro-batch
  /// (Korthikanti et al. 2022, generalised to GQA, MLA, SwiGLU and FlashAttention).
  double stored_activation_bytes(Recompute recompute) const;
  /// The attention half's share of stored_activation_bytes (the MoE layer adds its own FFN's);
  /// under full recomputation, the layer's input.
  double attention_stored_bytes(Recompute recompute) const;
  /// The MLP half's share (a hybrid model's MLP layer: under full recomputation, its input).
  double mlp_stored_bytes(Recompute recompute) const;
  /// torchtitan's per-op selective checkpointing (RecomputeModules::alternate_mm): what the layer's
  /// backward replays before it starts, and what the layer keeps (layer_op_sac.cpp).
  OpSink::Handle op_sac_replay(OpSink& sink, OpSink::Deps after) const;
  double op_sac_stored_bytes() const;
  /// Whether that policy keeps the attention kernel's output: its save list names SDPA's flash and
  /// memory-efficient kernels, not cuDNN's, whose call is replayed.
  bool op_sac_keeps_attention() const { return d_.attention_kernel != topo::AttentionKernel::cudnn; }
  /// Weights of this layer held by one TP rank (norm weights are replicated).
  double params_per_rank() const;
  /// The attention half's weights per TP rank (projections, MLA norms, the input norm).
  double attention_params_per_rank() const;
  /// The MLP half's weights per TP rank (projections, biases, its norm).
  double mlp_params_per_rank() const;
  const LayerDims& dims() const { return d_; }

 private:
  OpSink::Handle projections_forward(OpSink& sink, OpSink::Handle input) const;
  OpSink::Handle projections_backward(OpSink& sink, OpSink::Handle grad) const;
  OpSink::Handle mla_projections_forward(OpSink& sink, OpSink::Handle input) const;
  OpSink::Handle mla_projections_backward(OpSink& sink, OpSink::Handle grad) const;
  /// Selective recompute of MLA's up-projections before the attention core's backward.
  OpSink::Handle mla_up_recompute(OpSink& sink, OpSink::Handle ready) const;
  OpSink::Handle attention_core_forward(OpSink& sink, OpSink::Handle qkv) const;
  /// workload.attention_unpad (flash-attn's bert_padding): before the kernel, unpad_input for the
  /// queries, the keys and the values, each a `nonzero` and a `.item()` the host waits on and a
  /// gather of the tokens' rows; after it, pad_input's scatter of the output into a zeroed tensor.
  OpSink::Handle unpad_forward(OpSink& sink, OpSink::Handle qkv) const;
  OpSink::Handle pad_forward(OpSink& sink, OpSink::Handle out) const;
  /// Their backward: the output gradient gathered before the kernel, the query, key and value
  /// gradients scattered into zeroed tensors after it (index_first_axis's backward).
  OpSink::Handle pad_backward(OpSink& sink, OpSink::Handle grad) const;
  OpSink::Handle unpad_backward(OpSink& sink, OpSink::Handle grads) const;
  /// Training with rotary embeddings (LayerDims::rope_kernels): the rotation of the queries and
  /// keys, and MLA's assembly of each head's query and key from its no-position and rotary parts;
  /// `suffix` names the pass (".bwd", ".recompute").
  OpSink::Handle rope(OpSink& sink, OpSink::Handle ready, std::string_view suffix) const;
  /// A norm without a residual over `elements` (its forward, and its backward under `name`.bwd):
  /// `ready` as is when there are none. The QK norms (qk_norm_elements) and Gemma's norms of the
  /// branch outputs (post_norm_elements) are such norms.
  OpSink::Handle norm_forward(OpSink& sink, std::string_view name, double elements,
                              OpSink::Handle ready) const;
  OpSink::Handle norm_backward(OpSink& sink, std::string_view name, double elements,
                               OpSink::Handle grad) const;
  /// Query and key elements the per-head QK norms cover per rank (0 without them).
  double qk_norm_elements() const;
  /// Elements of Gemma's norm of one branch output before its residual add (0 without them): the
  /// block's tokens x hidden, as the pre-norms.
  double post_norm_elements() const;
  /// Decode: one query per sequence against the cache (MLA: absorbed into the latent space).
  OpSink::Handle decode_core(OpSink& sink, OpSink::Handle qkv) const;
  /// Prefill and decode: the new tokens' keys and values (or MLA latents) into the cache.
  OpSink::Handle write_kv_cache(OpSink& sink, OpSink::Handle qkv) const;
  /// The attention kernel `whole` (this rank's share of the causal work) under context parallelism
  /// as LayerDims::cp_comm says (one kernel when cp = 1).
  OpSink::Handle cp_attention(OpSink& sink, OpSink::Handle ready, const topo::KernelWork& whole,
                              std::string_view name, bool backward) const;
  /// p2p: split into a ring over the CP ranks; each exchange moves key/value-sized blocks (twice
  /// that in backward: the blocks and their gradients), and the steps' partial results are merged
  /// (ring_merge_tensor_bytes).
  OpSink::Handle ring_attention(OpSink& sink, OpSink::Handle ready, const topo::KernelWork& whole,
                                std::string_view name, bool backward) const;
  /// all_gather: keys and values gathered (again in backward), their gradients reduce-scattered.
  OpSink::Handle gathered_kv_attention(OpSink& sink, OpSink::Handle ready, const topo::KernelWork& whole,
                                       std::string_view name, bool backward) const;
  /// a2a: queries, keys and values to head shards and the output back (gradients mirrored).
  OpSink::Handle a2a_attention(OpSink& sink, OpSink::Handle ready, const topo::KernelWork& whole,
                               std::string_view name, bool backward) const;
  /// One rank's tensor that ring attention merges, in bytes: the forward's output, the backward's
  /// query, key and value gradients together (the merges read and write it 2 or 3 times a step).
  double ring_merge_tensor_bytes(bool backward) const;
  /// The fused QKV projection's output width (whole layer): queries, keys, values, and the output
  /// gate's half of q_proj when the attention is gated (the gate is kept for its backward too).
  double qkv_width() const {
    return d_.q_dim + d_.kv_dim + d_.v_dim + (d_.attention_output_gate ? d_.o_dim : 0.0);
  }
  /// Tokens an element-wise op over hidden vectors touches (divided by tp with SP).
  double norm_tokens() const { return d_.sp ? d_.tokens / d_.tp : d_.tokens; }
  /// Rotary bytes per rotated element: read and write (eager: in complex fp32, kEagerRopeExtra more).
  double rope_bytes() const { return 2.0 * d_.act_bytes + (d_.eager_pointwise ? kEagerRopeExtra : 0.0); }
  /// Eager repeat_kv: each of the rank's key and value heads read once, written once per query head
  /// of its group (and the reverse, a sum, in backward).
  double repeat_kv_bytes() const {
    return d_.act_bytes * d_.tokens * (d_.kv_dim + d_.v_dim + d_.q_dim + d_.o_dim) / d_.tp;
  }
  /// Eager attention sinks (sink_rescale), per output element and per row and head, as AutoModel
  /// writes them: forward, `lse - sink` and its sigmoid over the fp32 log-sum-exp (read 4, write 4,
  /// twice: 16 B per row and head), the product with the output promoted to fp32 (read E, write 4)
  /// and cast back (read 4, write E): 2 E + 8 B per element; backward, the cast's gradient (read E,
  /// write 4), the output's (read 4, write E) and the scale's, a row sum of the gradient times the
  /// kept output (read 4 + E): 3 E + 12 B per element, 16 B per row and head.
  double attention_sink_bytes(bool backward) const {
    const double E = d_.act_bytes, per_element = backward ? 3.0 * E + 12.0 : 2.0 * E + 8.0;
    return d_.tokens / d_.tp * (d_.o_dim * per_element + 16.0 * d_.heads);
  }
  LayerDims d_;
};

/// A GEMM of an [m x k] by [k x n] product, `count` times (batched), as kernel work, in the
/// 16-bit precision of non-linear math (attention cores, the LM head, the router).
topo::KernelWork gemm(const LayerDims& d, double m, double n, double k, double count = 1.0);
/// A linear layer's GEMM (forward, dgrad or wgrad) in the linear precision: FP8/FP4 operands are
/// read in their own bytes, the output is written in the activations' precision.
topo::KernelWork linear_gemm(const LayerDims& d, double m, double n, double k, double count = 1.0);
/// The same for a data- or weight-gradient GEMM: FP8 ones accumulate in split (precise) mode.
/// Bytes per element of a block-scaled FP8 tensor: one byte and an fp32 scale per 1 x 128 tile
/// (DeepSeek-V3's activations; DeepEP's 7,168 + 56 x 4 bytes per dispatched token).
inline constexpr double kFp8BlockScaleBytes = 4.0 / 128.0;
inline constexpr double kFp8BlockBytes = 1.0 + kFp8BlockScaleBytes;

/// Bytes per element of a linear layer's input as it is kept for the weight gradient. 16-bit
/// linears keep the input tensor itself (shared with whatever else saved it). Low-precision ones
/// keep their own quantised copy instead, as Transformer Engine's Linear, LayerNormLinear and
/// GroupedLinear do (module/linear.py: `saved_inputmat = inputmat`, the quantised input with only
/// its column-wise data; `save_original_input` is off by default): 1 byte per element with
/// per-tensor scales (delayed, tensorwise), plus an fp32 scale per 128 (blockwise) or an E8M0
/// scale per 32 (MXFP8); NVFP4 half a byte plus an FP8 scale per 16.
double saved_linear_input_bytes(const LayerDims& d);

topo::KernelWork linear_grad_gemm(const LayerDims& d, double m, double n, double k, double count = 1.0);
/// A forward projection X[m x k] W[k x n]: as linear_gemm(), with a 16-bit W read in the weights'
/// precision.
topo::KernelWork weight_gemm(const LayerDims& d, double m, double n, double k, double count = 1.0);
/// Emits the weight-gradient work of Y[m x n] = X[m x k] W[k x n] after `dep`: one GEMM that
/// accumulates into the gradient buffer, or (separate accumulation) a GEMM and an add kernel.
OpSink::Handle emit_wgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n,
                          double k, OpSink::Handle dep = {}, double count = 1.0, double sm_margin = 0.0);
/// With LayerDims::bias_grad_kernels, the bias gradient of a linear whose output gradient dY[rows x
/// cols] is ready at `dep`: a reduction over the rows, `<linear>.bgrad` (reads the 16-bit gradient,
/// writes the cols sums in fp32). Returns `dep` (nothing waits for the sum but the optimizer).
OpSink::Handle emit_bias_grad(OpSink& sink, const LayerDims& d, std::string_view linear, double rows,
                              double cols, OpSink::Handle dep);

/// What a low-precision linear GEMM's operand is quantised from.
enum class QuantOperand : std::uint8_t {
  input,        ///< a forward input in 16 bits: a cast (training: cast + transpose for the wgrad)
  norm_output,  ///< the output of a norm fused with the linear (TE LayerNormLinear): the norm
                ///< writes FP8 itself, only the transpose is left (delayed scaling)
  grad_output,  ///< the output gradient before dgrad and wgrad: cast + transpose
};
/// The quantisation kernel of `elements` values of one operand under the dims' recipe; no work
/// (zero bytes) when the linears run in 16 bits or nothing is left to do. docs/model.md derives
/// the bytes per recipe.
topo::KernelWork quantize_work(const LayerDims& d, double elements, QuantOperand operand);
/// Emits quantize_work as `<name>.quantize` after `dep` when there is work; returns the op the
/// GEMM must wait for (`dep` itself when nothing was emitted).
OpSink::Handle emit_quantize(OpSink& sink, const LayerDims& d, std::string_view name, double elements,
                             QuantOperand operand, OpSink::Handle dep);
/// A linear layer's forward Y[m x n] = X[m x k] W[k x n] after quantising X: the common case.
OpSink::Handle linear_forward(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n,
                              double k, OpSink::Handle dep, QuantOperand input = QuantOperand::input);
/// That linear's data gradient dX[m x k] = dY[m x n] W^T after quantising dY (which its weight
/// gradient reuses).
OpSink::Handle linear_dgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n,
                            double k, OpSink::Handle dep, double sm_margin = 0.0);
/// Userbuffers' configuration of GEMM `g` where the layer's TP communication runs through
/// userbuffers (sequence parallel, tp > 1); null otherwise.
const UbOverlap* ub_config(const LayerDims& d, UbGemm g);
/// The share of the SMs GEMM `g` leaves to userbuffers' kernels (its set_sm_margin: num_sm of the
/// GPU's SMs); 0 without userbuffers, without the margin or without the GPU's SM count.
double ub_sm_margin(const LayerDims& d, UbGemm g);
/// A linear's forward whose input is sequence-parallel: the TP all-gather of X[m x k] (quantised
/// first when the linears are FP8) and the GEMM, overlapped as `d.tp_overlap` says.
OpSink::Handle gathered_linear_forward(OpSink& sink, const LayerDims& d, std::string_view gather_name,
                                       std::string_view name, double m, double n, double k,
                                       OpSink::Handle dep, UbGemm ub,
                                       QuantOperand input = QuantOperand::input);
/// A row-parallel linear's forward and the TP reduction of its [m x n] output (reduce-scatter with
/// SP, else all-reduce), overlapped as `d.tp_overlap` says.
OpSink::Handle reduced_linear_forward(OpSink& sink, const LayerDims& d, std::string_view name,
                                      std::string_view reduce_name, double m, double n, double k,
                                      OpSink::Handle dep, UbGemm ub);
/// A row-parallel linear's data gradient whose output gradient dY[m x n] is sequence-parallel: its
/// TP all-gather and the dgrad GEMM, overlapped as `d.tp_overlap` says.
OpSink::Handle gathered_linear_dgrad(OpSink& sink, const LayerDims& d, std::string_view gather_name,
                                     std::string_view name, double m, double n, double k, OpSink::Handle dep,
                                     UbGemm ub);
/// The kernel work of a GEMM over `rows` rows of its M (token) dimension.
using RowGemm = std::function<topo::KernelWork(double rows)>;
/// The TP all-gather of an operand (`gathered_bytes` per rank once gathered) and the GEMM over its
/// `m` gathered rows. Off: gather, then GEMM. Userbuffers and AsyncTP: tp steps, each a GEMM on
/// the m / tp rows at hand while the copy engines pass them on to the next rank (tp - 1 exchanges);
/// userbuffers' `aggregate` (GEMM `ub`'s configuration) exchanges with the neighbour first, then
/// runs tp / 2 steps of two chunks each.
OpSink::Handle gathered_gemm(OpSink& sink, const LayerDims& d, std::string_view gather_name,
                             std::string_view name, double m, double gathered_bytes, const RowGemm& rows,
                             OpSink::Handle dep, UbGemm ub);
/// The GEMM over `m` rows and the TP reduction of its output (`out_bytes` per rank). Off: GEMM,
/// then the collective. Userbuffers' pipeline (GEMM `ub`'s configuration): num_splits chunks, each
/// reduce-scattered by kernels on num_sm SMs (the last on 32) while the next computes. AsyncTP and
/// userbuffers' ring exchange: tp chunks, each another rank's rows, sent there by the copy
/// engines, and a final sum of the tp partials.
OpSink::Handle reduced_gemm(OpSink& sink, const LayerDims& d, std::string_view name,
                            std::string_view reduce_name, double m, double out_bytes, const RowGemm& rows,
                            OpSink::Handle dep, UbGemm ub);
/// A bandwidth-bound element-wise kernel moving `bytes` with `flops` of arithmetic.
topo::KernelWork elementwise(const LayerDims& d, double bytes, double flops = 0.0);
/// The reduction after a row-parallel GEMM (forward) or column-parallel dgrad (backward) of
/// `tokens` hidden vectors: an all-reduce, or a reduce-scatter with sequence parallelism. `beside`:
/// the weight-gradient GEMM a backward's reduce-scatter runs beside (userbuffers' bulk overlap: its
/// kernels on that GEMM's num_sm SMs).
OpSink::Handle tp_reduce(OpSink& sink, const LayerDims& d, std::string_view name, OpSink::Handle dep,
                         std::optional<UbGemm> beside = std::nullopt);
/// With sequence parallelism, the sharded tokens are gathered before a column-parallel GEMM.
OpSink::Handle sp_gather(OpSink& sink, const LayerDims& d, std::string_view name, OpSink::Handle dep);
/// The same for a norm's output that feeds a linear layer: Transformer Engine gathers it already
/// quantised when the linears run in FP8, so the bytes are the FP8 copy's. `beside`: the
/// data-gradient GEMM the backward's gather for the weight gradient runs beside (userbuffers' bulk
/// overlap: its kernels on that GEMM's num_sm SMs).
OpSink::Handle sp_gather_linear_input(OpSink& sink, const LayerDims& d, std::string_view name,
                                      OpSink::Handle dep, std::optional<UbGemm> beside = std::nullopt);

}  // namespace stepsim::work
