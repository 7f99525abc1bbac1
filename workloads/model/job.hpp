#pragma once
// What to simulate: a model, a cluster, a workload and how it is parallelised. Scenarios produce a
// validated JobSpec; the closed-form estimate and the step builders consume it.

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/cluster.hpp"
#include "topology/collectives.hpp"
#include "topology/gpu.hpp"
#include "workloads/model/model.hpp"
#include "workloads/model/tp_comm_overlap.hpp"
#include "workloads/model/variability_spec.hpp"

namespace stepsim::work {

/// generate: a static batch served start to finish (one prefill, then output_len - 1 decode steps);
/// the step builders see only its prefill and decode steps (workloads/serving/generation.hpp).
/// serve: requests served by continuous batching (workloads/serving/serve.hpp), priced by decode and
/// prefill steps.
enum class WorkloadKind : std::uint8_t { train, prefill, decode, generate, serve };
enum class AttentionImpl : std::uint8_t { flash, unfused };
/// How the framework runs the kernels around the GEMMs (norms, activation, rotary, loss): fused
/// (Transformer Engine and Megatron-Core's fusions, torch.compile) or eager PyTorch op by op.
enum class Pointwise : std::uint8_t { fused, eager };
/// A software release as "major.minor" ({0, 0}: not stated).
struct SoftwareVersion {
  int major = 0;
  int minor = 0;
  bool stated() const { return major > 0 || minor > 0; }
  auto operator<=>(const SoftwareVersion&) const = default;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};
/// How weight gradients of successive micro-batches are summed.
enum class GradAccumulation : std::uint8_t {
  fused,     ///< the weight-gradient GEMM accumulates into the gradient buffer (beta = 1)
  separate,  ///< the GEMM writes a fresh gradient and an element-wise kernel adds it to the buffer
};
/// Where the bias gradients of the linear layers are summed over the tokens.
enum class BiasGrad : std::uint8_t {
  fused,     ///< in the GEMM epilogue or the gradient's cast (Transformer Engine)
  separate,  ///< a reduction kernel per biased linear (PyTorch autograd, Megatron-LM's own layers)
};
/// How a training step's vocabulary-parallel cross-entropy runs over the logits.
enum class CrossEntropy : std::uint8_t {
  fused,              ///< one pass: the logits read once, the fp32 softmax written (a fused kernel)
  megatron,           ///< Megatron's vocab_parallel_cross_entropy op by op (cross_entropy_loss_fusion off)
  megatron_compiled,  ///< its three steps compiled by torch.compile (cross_entropy_loss_fusion on)
  pytorch,       ///< F.cross_entropy(logits.float()) uncompiled (eager PyTorch's loss; torchtitan, AutoModel)
  pytorch_bf16,  ///< F.cross_entropy on the 16-bit logits uncompiled (AutoModel with fp32_upcast false)
};
enum class Recompute : std::uint8_t { none, selective, full };
/// How pipeline stages exchange activations and gradients.
enum class P2pMode : std::uint8_t {
  overlapped,  ///< sends run on their own streams; only the consumer waits for the data
  blocking,    ///< Megatron-LM's batched isend/irecv + synchronize: the sender's next step waits
               ///< for the transfer to finish
  lockstep,    ///< torch.distributed.pipelining up to 2.8 (PipelineScheduleMulti): at each time
               ///< step of the schedule's table every rank runs its action, then batches its sends
               ///< with the receives of what its neighbours produced in the same time step and
               ///< waits for all of them before its next action (interleaved schedules only)
};
/// gpipe, 1F1B, Megatron's interleaved 1F1B, DeepSeek's DualPipe (bidirectional: each pipeline
/// rank holds stages r and pp - 1 - r, micro-batches enter from both ends) or DualPipeV (the V-shaped
/// "cut-in-half" DualPipe: rank r holds model chunks r and 2 pp - 1 - r; pipeline_schedule.hpp).
enum class PipelineSchedule : std::uint8_t { gpipe, one_f_one_b, interleaved, dualpipe, dualpipev };
/// DualPipe or DualPipeV: two model chunks per rank, overlapped pairs, zero-bubble weight steps.
inline bool is_dualpipe(PipelineSchedule s) {
  return s == PipelineSchedule::dualpipe || s == PipelineSchedule::dualpipev;
}
/// How context parallelism shares a sequence's keys and values among its cp ranks (Megatron-Core's
/// --cp-comm-type, Transformer Engine's cp_comm_type; docs/model.md, "Context parallelism").
enum class CpComm : std::uint8_t {
  p2p,         ///< a ring: cp steps, each attending to one key/value block while the next arrives
  all_gather,  ///< all-gather the keys and values, attend the local chunks to them; gradients
               ///< reduce-scattered (TE AttnFuncWithCPAndKVAllGather; Llama 3's long-context runs)
  a2a,         ///< all-to-all from sequence to head shards and back (DeepSpeed-Ulysses; TE
               ///< AttnFuncWithCPAndQKVOA2A): each rank attends the whole sequence on heads / cp
};
/// How the decode attention kernel reads a grouped-query cache (docs/model.md, "Decode attention").
enum class DecodeAttention : std::uint8_t {
  grouped,         ///< each KV head's keys and values are read once for all the query heads sharing
                   ///< them (XQA, FlashInfer, FlashAttention's pack-GQA, FlashDecoding)
  per_query_head,  ///< one thread block per (query head, sequence) reads its group's keys and values
                   ///< itself (TensorRT-LLM's decoderMaskedMultiheadAttention, FasterTransformer)
};
/// Parallel dimensions, used to order rank placement (innermost first).
enum class ParallelDim : std::uint8_t { tp, cp, ep, pp, dp };

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::train;
  int seq_len = 2048;    ///< train/prefill: tokens per sequence; generate: each prompt's tokens
  int global_batch = 0;  ///< train: sequences per optimizer step
  int micro_batch = 1;   ///< train: sequences per micro-batch per DP rank
  /// train: sequences per DP rank in one pipeline schedule (AutoModel's and torchtitan's local batch,
  /// torch.distributed.pipelining's schedule.step() per gradient-accumulation step); its
  /// micro-batches fill and drain the pipeline, and the step runs global_batch / (dp x local_batch)
  /// schedules one after the other. 0 = global_batch / dp: one schedule of every micro-batch
  /// (Megatron-Core).
  int local_batch = 0;
  int batch = 1;         ///< prefill/decode/generate: concurrent sequences per model replica
  int context_len = 0;   ///< decode: tokens already in each sequence's KV cache
  int output_len = 0;    ///< generate: tokens each sequence generates (the prefill yields the first)
  /// How attention is computed: fused IO-aware kernels (FlashAttention: causal blocks skipped, scores
  /// never in HBM) or the unfused GEMM + softmax + dropout path of Megatron-LM before 2022.
  AttentionImpl attention_impl = AttentionImpl::flash;
  /// Which fused kernel computes it (with attention_impl = flash): cuDNN's (Transformer Engine's
  /// default), FlashAttention-2 (flash-attn, PyTorch SDPA's flash backend) or FlashAttention-3.
  topo::AttentionKernel attention_kernel = topo::AttentionKernel::cudnn;
  /// Norms, activation, rotary and loss as fused kernels or as PyTorch's eager modules.
  Pointwise pointwise = Pointwise::fused;
  /// Variable-length FlashAttention over unpadded tokens, as flash-attn's bert_padding helpers run it
  /// (LLM Foundry's flash path, Hugging Face's FlashAttention-2 path with an attention mask): query,
  /// key and value are each gathered after a `nonzero` and a `.item()` that synchronise the host, the
  /// output is scattered back, and the backward scatters and gathers their gradients.
  bool attention_unpad = false;
  /// Packed sequences with document masking (training, prefill): each token attends only within its
  /// document, as Megatron-Core's packed sequences (THD with cu_seqlens), FlashAttention's
  /// variable-length kernels and FlexAttention's block_causal mask compute it. The length of the
  /// document a token belongs to, averaged over tokens (sum of L^2 over sum of L: for documents of
  /// one length, that length); 0 = one document per sequence.
  double document_tokens = 0.0;
  /// The Transformer Engine release the run used ({0, 0}: not stated, a current one). Older
  /// releases lack fused kernels for some shapes (workloads/model/attention_backend.hpp).
  SoftwareVersion transformer_engine;
  /// Why attention_impl is unfused when the stated software decided it ("" otherwise).
  std::string attention_note;
  /// Megatron-LM before its 2022 gradient-accumulation fusion added each micro-batch's weight
  /// gradients to the main-gradient buffer in a separate kernel (a DDP hook).
  GradAccumulation grad_accumulation = GradAccumulation::fused;
  /// With ModelSpec::linear_bias: Transformer Engine sums each bias gradient inside its GEMM or cast
  /// kernels; PyTorch's autograd (nn.Linear) and Megatron-LM's own linear layers and fused
  /// bias-GeLU / bias-dropout-add functions launch a reduction over the tokens of the output gradient.
  BiasGrad bias_grad = BiasGrad::fused;
  /// The training loss's cross-entropy kernels (with pointwise = fused; eager has its own).
  CrossEntropy cross_entropy = CrossEntropy::fused;
  /// Training: the fused QKV projection's output reaches attention as views (MPT's `qkv.split`,
  /// Megatron-LM's `split_tensor_along_last_dim`), so autograd concatenates the query, key and value
  /// gradients back into one tensor before the projection's backward: a copy of its output gradient.
  /// false: the kernel writes one packed gradient (Transformer Engine's layouts) or the projections are
  /// separate.
  bool qkv_grad_concat = false;
  /// Kernels are replayed from CUDA graphs (torch.compile "reduce-overhead", TensorRT-LLM, vLLM
  /// decode): no host timeline. Eager (false), each GPU op waits for its launch on the host
  /// (GpuSpec::host_launch_s each); the GPU's own per-kernel gap is the same in both modes.
  bool cuda_graphs = false;
  /// decode/generate: how the attention kernel reads the cache of a grouped-query model.
  DecodeAttention decode_attention = DecodeAttention::grouped;
};

struct ParallelSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int cp = 1;                    ///< context parallel ranks
  CpComm cp_comm = CpComm::p2p;  ///< how they share keys and values
  /// Expert-parallel ranks (MoE). Megatron-Core re-divides the tp x cp x dp ranks of each pipeline
  /// stage into expert_tp x ep x expert_dp (innermost first); see workloads/layout/rank_layout.hpp.
  int ep = 1;
  int expert_tp = 1;       ///< tensor parallelism inside an expert
  int virtual_stages = 1;  ///< interleaved 1F1B model chunks per pipeline rank
  /// Layers on the first / last pipeline stage when they differ from an even split (Megatron's
  /// --decoder-first/last-pipeline-num-layers; Llama 3 405B puts 7 of 126 layers on each end so the
  /// embedding and the output head balance). 0 = even split; the other stages share the rest evenly.
  /// With virtual stages each stage's layers split evenly over its chunks.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  /// Megatron-Core's --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split:
  /// the embedding (loss) counts as one layer of the split, so the first (last) model chunk builds
  /// one transformer layer fewer. Not combined with first/last_stage_layers (Megatron asserts it).
  bool embedding_in_split = false;
  bool loss_in_split = false;
  /// Transformer layers of each model chunk, given outright in virtual-stage order (chunk x pp +
  /// rank), as torch.distributed.pipelining runs a split into per-stage module lists (NeMo
  /// AutoModel's and torchtitan's splits, which give the first chunks one layer more when the
  /// layers do not divide); empty = the rules above. Not with first/last_stage_layers or the
  /// account_for flags.
  std::vector<int> pipeline_layers;
  bool sequence_parallel = false;
  int zero_stage = 0;  ///< 0 none, 1 optimizer states, 2 + gradients, 3 + parameters (FSDP)
  /// ZeRO-3 / FSDP: free each layer's gathered weights after its forward and gather them again for
  /// its backward (FULL_SHARD, FSDP2's default); false keeps them from the forward to the end of the
  /// backward (SHARD_GRAD_OP, reshard_after_forward = False).
  bool reshard_after_forward = true;
  /// PyTorch FSDP2 (fully_shard): parameters are sharded one by one, so every gather is copied out
  /// of the all-gather's buffer into the layer's parameters, and every gradient reduction first
  /// copies the layer's gradients, cast to the reduce dtype, into the reduce-scatter's input
  /// (foreach_all_gather_copy_out, foreach_reduce's chunk_cat). FSDP1's flat parameters and
  /// DeepSpeed's and Megatron's buffers are views: no copies (false).
  bool fsdp_copies = false;
  /// ZeRO-3 / FSDP hybrid sharding (HSDP): the weights are sharded over groups of this many of the
  /// dp x cp ranks and replicated across the groups; 0 = one group of all of them.
  int shard_group = 0;
  /// ZeRO-3 / FSDP: layers whose weight all-gathers may run ahead of the layer computing (FSDP's
  /// forward/backward prefetch: 1; 0 gathers each layer only when the previous one is done).
  int prefetch_layers = 1;
  /// ZeRO-3: reduce-scatter the layers' gradients only in the last micro-batch's backward (FSDP2's
  /// set_requires_gradient_sync(False) on the others: NeMo AutoModel's defer_fsdp_grad_sync); the
  /// unsharded gradients accumulate meanwhile, in the parameters' dtype. false: after every
  /// micro-batch (FSDP's default).
  bool defer_grad_sync = false;
  /// The data-parallel gradient reduce-scatters divide by the group size inside the collective
  /// (ReduceOp.AVG), as FSDP2 does for fp32 and bf16 reduce dtypes and Megatron-Core with
  /// average_in_collective (set by NeMo's recipes); NCCL then runs them without PAT. false: a sum,
  /// scaled before or after (Megatron-LM's default, FSDP1, DeepSpeed).
  bool average_in_collective = false;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  /// Placement order, innermost (fastest-varying rank index) first: Megatron's tp, cp, ep, pp, dp.
  std::vector<ParallelDim> order{ParallelDim::tp, ParallelDim::cp, ParallelDim::pp, ParallelDim::dp};
  double dp_bucket_bytes = 40e6;  ///< gradient bucket size for overlapped DP reduction
  /// Reduce DP gradients in buckets while the last micro-batch's backward runs (PyTorch DDP, Megatron
  /// --overlap-grad-reduce); false reduces them after the backward pass (Megatron-LM 2021-2022).
  bool dp_overlap = true;
  /// ZeRO-1/2: the all-gather of the updated weights runs under the next step's forward, each layer's
  /// first forward waiting for its own weights (Megatron --overlap-param-gather); false gathers them
  /// after the optimizer, exposed.
  bool overlap_param_gather = false;
  TpCommOverlap tp_comm_overlap = TpCommOverlap::off;
  /// Userbuffers' pipelined GEMM+RS: chunks per GEMM (TE's num_splits, default 4).
  int tp_overlap_rs_splits = 4;
  /// Userbuffers' configuration per GEMM (parallelism.tp_overlap.<gemm>; TE's ub_cfgs).
  std::array<UbOverlap, kUbGemms> ub_overlap = default_ub_overlap(false);
  /// Expert-parallel all-to-all overlap across micro-batches (Megatron-Core's combined 1F1B,
  /// --overlap-moe-expert-parallel-comm; DeepSeek-V3's overlapped forward-backward chunk pairs): each
  /// steady-state backward runs with the next forward (of another micro-batch) as one pair whose
  /// halves take turns on the compute stream, so each one's all-to-alls hide under the other's compute.
  bool ep_overlap = false;
  /// Communication holds its SMs (the GPU's comm_sm_fraction) for the whole step and compute
  /// kernels run on the rest throughout (DeepSeek-V3's framework: DeepEP on 20 of the H800's 132
  /// SMs, its GEMMs launched on 112, as its profile shows); false: communication kernels take their
  /// SMs only while they run, as NCCL's do.
  bool reserve_comm_sms = false;
  P2pMode pp_p2p = P2pMode::overlapped;
  int world() const { return dp * tp * pp * cp; }
  /// Ranks that shard one copy of the dense weights' ZeRO state: dp x cp, or the HSDP shard group.
  int dense_shard_ranks() const { return zero_stage >= 3 && shard_group > 0 ? shard_group : dp * cp; }
  /// Copies of each shard (HSDP replicas; 1 otherwise).
  int shard_replicas() const { return dp * cp / dense_shard_ranks(); }
  /// Ranks of one pipeline stage that hold the same experts and reduce their gradients together:
  /// tp x cp x dp / (ep x expert_tp). Requires ep x expert_tp to divide tp x cp x dp.
  int expert_dp() const { return tp * cp * dp / (ep * expert_tp); }
  /// Transformer layers of model chunk `vstage` = chunk x pp + stage (0-based) of a model with
  /// `layers` layers, as Megatron-Core's get_num_layers_to_build splits them: uneven end stages or
  /// the embedding and loss counted as layers, then each stage's share split evenly over its
  /// virtual_stages chunks. Scenarios guarantee the split is whole.
  int chunk_layers(int vstage, int layers) const {
    if (!pipeline_layers.empty()) return pipeline_layers[static_cast<std::size_t>(vstage)];
    const int per_stage = stage_slots(vstage % pp, layers);
    int n = per_stage / virtual_stages;
    if (embedding_in_split && vstage == 0) --n;
    if (loss_in_split && vstage == pp * virtual_stages - 1) --n;
    return n;
  }
  /// Layer slots of pipeline stage `stage` before its split over model chunks: its layers, plus the
  /// embedding or loss where they count as layers.
  int stage_slots(int stage, int layers) const {
    if (first_stage_layers > 0 || last_stage_layers > 0) {
      if (stage == 0 && first_stage_layers > 0) return first_stage_layers;
      if (stage == pp - 1 && pp > 1 && last_stage_layers > 0) return last_stage_layers;
      const int fixed = (first_stage_layers > 0 ? 1 : 0) + (pp > 1 && last_stage_layers > 0 ? 1 : 0);
      return (layers - first_stage_layers - (pp > 1 ? last_stage_layers : 0)) / (pp - fixed);
    }
    return (layers + (embedding_in_split ? 1 : 0) + (loss_in_split ? 1 : 0)) / pp;
  }
  /// Transformer layers held by pipeline stage `stage` (all its chunks).
  int stage_layers(int stage, int layers) const {
    int n = 0;
    for (int c = 0; c < virtual_stages; ++c) n += chunk_layers(c * pp + stage, layers);
    return n;
  }
  /// The pipeline rank that holds the output head and the loss: the last, except in DualPipeV's V,
  /// whose last chunk comes back to rank 0.
  int loss_stage() const { return schedule == PipelineSchedule::dualpipev ? 0 : pp - 1; }
  /// Whether the schedule can pair a backward with a forward of another micro-batch (ep_overlap):
  /// without pipelining, in Megatron-Core's interleaved schedule (combined_1f1b_schedule_for_
  /// interleaved_pipelining; its TransformerConfig asserts virtual stages when pp > 1) and in DualPipe.
  bool schedule_pairs_microbatches() const {
    return pp == 1 || is_dualpipe(schedule) ||
           (schedule == PipelineSchedule::interleaved && virtual_stages > 1);
  }
  /// Whether chunks differ in size (uneven ends, the embedding/loss counted as layers, or a split
  /// given chunk by chunk).
  bool uneven_split() const {
    return first_stage_layers > 0 || last_stage_layers > 0 || embedding_in_split || loss_in_split ||
           !pipeline_layers.empty();
  }
};

/// How low-precision (FP8, FP4) linear GEMMs are scaled: Megatron-Core's --fp8-recipe, i.e.
/// Transformer Engine's recipe classes. Each costs different quantisation kernels (docs/model.md).
enum class LowPrecisionRecipe : std::uint8_t {
  delayed,     ///< per-tensor scales from an amax history (TE DelayedScaling; Hopper's default)
  tensorwise,  ///< per-tensor current scaling: an amax pass before each cast (Float8CurrentScaling)
  blockwise,   ///< 1x128 activation and 128x128 weight tiles, as DeepSeek-V3 (Float8BlockScaling)
  mxfp8,       ///< 32-element blocks with E8M0 scales, native on Blackwell (MXFP8BlockScaling)
  nvfp4,       ///< FP4 with 16-element blocks and FP8 scales (Blackwell; NVFP4BlockScaling)
};

/// Weight-only quantisation of the linear layers' weights, with 16-bit activations and math (w8a16,
/// w4a16: TensorRT-LLM's int8/int4 weight-only, AWQ, GPTQ); inference only.
enum class WeightQuant : std::uint8_t {
  none,
  int8,  ///< one byte per weight, one 16-bit scale per output channel
  int4,  ///< half a byte per weight, one 16-bit scale per group of 128 weights (AWQ/GPTQ)
};

struct PrecisionSpec {
  /// Linear-layer GEMMs (projections, MLPs, experts). fp8/fp4 runs them as Transformer Engine
  /// does: everything else (attention, embedding, LM head, router, norms, loss) stays 16-bit.
  topo::Precision compute = topo::Precision::bf16;
  LowPrecisionRecipe recipe = LowPrecisionRecipe::delayed;  ///< when compute is fp8 or fp4
  bool fp8_attention = false;                               ///< FP8 dot-product attention (TE's fp8_dpa)
  /// Weights kept in FP8 only and gathered in FP8 (--fp8-param-gather): no 16-bit working copy.
  bool fp8_params = false;
  double param_bytes = 2.0;                      ///< bytes per stored weight (working copy)
  WeightQuant weight_quant = WeightQuant::none;  ///< params = "int8" / "int4": weight-only GEMMs
  double grad_bytes = 2.0;                       ///< bytes per gradient element (also what DP reduces)
  double optimizer_bytes = 12.0;                 ///< per parameter: fp32 master + Adam m and v
  double activation_bytes = 2.0;                 ///< bytes per activation element
  /// The activation function (SwiGLU, GeLU) keeps its input for the backward in FP8, one byte per
  /// element (Megatron-Core's --activation-func-fp8-input-store; DeepSeek-V3 caches the SwiGLU
  /// inputs of its experts in FP8, report section 3.3.3): the forward writes that copy.
  bool activation_fp8_input_store = false;
  double kv_bytes = 2.0;  ///< bytes per KV-cache element (inference)

  /// Whether the linear layers run below 16 bits (and so quantise their operands).
  bool low_precision_linears() const {
    return compute == topo::Precision::fp8 || compute == topo::Precision::fp4;
  }
  /// The precision of everything that is not a linear-layer GEMM.
  topo::Precision other() const { return low_precision_linears() ? topo::Precision::bf16 : compute; }
};

/// Mixture-of-experts routing knobs (used when the model has experts).
enum class MoeDispatcher : std::uint8_t { normal, low_latency };
/// Which experts a balanced router (imbalance = 1) gives each token.
enum class MoeRouting : std::uint8_t {
  /// top_k experts at random (learned routers in expectation; Megatron-Core's
  /// --moe-router-force-load-balancing draws random logits)
  random,
  /// a rank's token t takes experts t k .. t k + k - 1 (mod E): consecutive experts, so one or two
  /// neighbouring ranks (NeMo AutoModel's FakeBalancedGate, indices = arange(T k) % E)
  round_robin
};
/// Where each routed copy is weighted by its routing probability.
enum class MoeProbs : std::uint8_t {
  /// In the experts' activation (Megatron-Core 0.12.1 on: the dispatcher sends permuted_probs and the
  /// experts run a weighted SwiGLU; frameworks on DeepEP, whose combine has no probability
  /// gradient): the combine only sums, and nothing h-wide is kept for the probabilities' gradient.
  activation,
  /// In the unpermute after the combine (Megatron-Core up to 0.12.0): its backward needs every
  /// returned copy for the probabilities' gradient, so the copies are kept.
  unpermute
};

struct MoeSpec {
  double capacity_factor = 0.0;  ///< 0 = no capacity limit (dropless)
  int max_nodes_per_token = 0;   ///< node-limited routing; 0 = unlimited
  double imbalance = 1.0;        ///< max/mean expert load; 1 = perfectly balanced
  MoeRouting routing = MoeRouting::random;  ///< which experts a balanced router picks together
  std::uint64_t seed = 1;        ///< seed of the routing model
  /// Shared experts run while the dispatch all-to-all is in flight (Megatron-Core's
  /// --moe-shared-expert-overlap, DeepSeek-V3); false runs them before it, Megatron-Core's default.
  bool shared_expert_overlap = false;
  /// Tokens travel to the experts in FP8 (1 x 128 blocks, one fp32 scale each): the forward's
  /// dispatch and the gradients the backward sends to the experts (DeepSeek-V3 report section 3.3.2,
  /// DeepEP); the combines stay in 16-bit. The tokens are quantised before they leave.
  bool fp8_dispatch = false;
  /// How tokens reach the experts: `normal` (an NCCL all-to-all or DeepEP's normal kernels: one
  /// copy per GPU, forwarded through the rail peer across nodes) or DeepEP's low-latency kernels
  /// (`low_latency`: every (token, expert) copy its own message, straight from the GPU's NIC).
  MoeDispatcher dispatcher = MoeDispatcher::normal;
  MoeProbs probs = MoeProbs::activation;
  /// SMs the expert-parallel dispatch and combine kernels hold while they run (DeepEP's num_sms,
  /// Megatron-Core's --moe-deepep-num-sms); 0 = as the job's other communication, the GPU's
  /// comm_sm_fraction. With reserve_comm_sms they are what the step reserves.
  int ep_comm_sms = 0;
  /// Take ep_comm_sms from DeepEP V2's own rule for this layout (ElasticBuffer.get_theoretical_num_sms
  /// with prefer_overlap_with_compute): work::deepep_v2_sms.
  bool ep_comm_sms_deepep_v2 = false;
};

/// The notebook's own closed-form inputs, used when `formulas = notebook` (seed parity).
struct NotebookInputs {
  double n_params = 0.0;         ///< N as the notebook takes it (not computed from dimensions)
  double kappa = 6.0;            ///< FLOPs per parameter per token (6 train, 2 forward)
  double gamma = 1.0;            ///< recompute multiplier
  double alpha_opt = 16.0;       ///< optimizer+gradient bytes per parameter per step
  double c_act = 5.0;            ///< hidden-vector activation reads/writes per token per layer
  double tokens_per_step = 0.0;  ///< B_g
  double grad_bytes = 2.0;
  int dp = 8;  ///< p
};

enum class EstimateFormulas : std::uint8_t { stepsim, notebook };

struct EstimateOptions {
  EstimateFormulas formulas = EstimateFormulas::stepsim;
  NotebookInputs notebook;
  std::optional<double> target_tokens_per_s;  ///< cluster-wide target rate for sizing
};

/// Megatron-Core's selective-recompute modules (`recompute_modules`), used when recompute is
/// selective: each drops some of a layer's stored activations and recomputes them in backward.
struct RecomputeModules {
  bool core_attn = true;     ///< attention scores, softmax and dropout (a no-op with FlashAttention)
  bool layernorm = false;    ///< the input and pre-MLP norms: their outputs are not kept
  bool mla_up_proj = false;  ///< MLA query and key/value up-projections: Q, K and V are not kept
  bool moe_act = false;      ///< the routed experts' activation function: its output is not kept
  /// torchtitan's per-op selective checkpointing (activation_checkpoint.selective_ac_option = "op"):
  /// the layer's matmul outputs are kept but every second one, and the attention kernel's output
  /// (SDPA's flash and efficient kernels); everything else is replayed in the backward. Alone: it
  /// is the whole policy (DenseLayer::op_sac_replay).
  bool alternate_mm = false;
};

struct JobSpec {
  ModelSpec model;
  topo::ClusterSpec cluster;
  WorkloadSpec workload;
  ParallelSpec parallel;
  PrecisionSpec precision;
  Recompute recompute = Recompute::none;
  RecomputeModules recompute_modules;  ///< what `selective` recomputes
  /// Full recomputation of some layers only (0: every layer): the first `recompute_layers` of each
  /// model chunk (Megatron-Core's --recompute-method block --recompute-num-layers), or every
  /// `recompute_every`-th layer of a pipeline rank counted from its first (torchtitan's layer-wise
  /// selective checkpointing, selective_ac_option = "<n>"); the others keep all their activations.
  int recompute_layers = 0;
  int recompute_every = 0;
  MoeSpec moe;
  EstimateOptions estimate;
  /// [collective]: the algorithm and protocol NCCL is forced to (NCCL_ALGO, NCCL_PROTO).
  topo::CommConfig collective;
  /// [variability]: slow GPUs, part-to-part spread, kernel jitter, host stalls.
  VariabilitySpec variability;
  /// Pipeline schedules per optimizer step (workload.local_batch): global_batch / (dp x
  /// local_batch), else 1. Scenarios guarantee it divides.
  int pipeline_flushes() const {
    const int per_schedule = workload.local_batch * parallel.dp;
    return workload.local_batch > 0 && per_schedule > 0 ? workload.global_batch / per_schedule : 1;
  }
  /// The recomputation transformer layer `layer` runs under: `recompute`, or under partial full
  /// recomputation (recompute_layers, recompute_every) full for the layers it covers and none for
  /// the rest. Multi-token-prediction layers (layer >= model.layers) take `recompute`.
  Recompute layer_recompute(int layer) const;
  /// The share of the model's layers that layer_recompute runs under full recomputation (0 unless
  /// recompute is full; 1 for every layer).
  double full_recompute_share() const;
  /// FP8 training under delayed scaling reduces each model chunk's amaxes over its pipeline stage's
  /// ranks (Transformer Engine's fp8_autocast exit and first module's backward; Megatron-Core's
  /// amax reduction group, tp x cp x dp): whether this job does, with more than one such rank.
  bool reduces_fp8_amax() const {
    return workload.kind == WorkloadKind::train && precision.low_precision_linears() &&
           precision.recipe == LowPrecisionRecipe::delayed && parallel.world() / parallel.pp > 1;
  }
};

}  // namespace stepsim::work
