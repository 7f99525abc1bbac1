// Cross-field rules of the workload: the keys each kind takes, how sequences and batches split
// over the layout, and what a serving run's engine can admit.
#include <algorithm>
#include <string>

#include "scenarios/cross_checks_rules.hpp"
#include "workloads/model/attention_backend.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::detail {
namespace cross_checks_workload {

using std::to_string;
using K = work::WorkloadKind;

/// Keys that do not apply to the scenario's kind.
void check_kind_keys(const Scenario& s) {
  const K kind = s.job.workload.kind;
  const std::string kind_name(work::name(kind));
  struct Rule {
    std::string_view key;
    bool allowed;
    std::string_view use;
  };
  const Rule rules[] = {
      {"workload.global_batch", kind == K::train, "prefill and decode use `batch`"},
      {"workload.micro_batch", kind == K::train, "prefill and decode use `batch`"},
      {"workload.recompute", kind == K::train, "recomputation applies to training"},
      {"workload.recompute_modules", kind == K::train, "recomputation applies to training"},
      {"workload.recompute_layers", kind == K::train, "recomputation applies to training"},
      {"workload.recompute_every", kind == K::train, "recomputation applies to training"},
      {"workload.batch", kind != K::train && kind != K::serve,
       kind == K::serve ? "serving takes its requests and max_batch from [serving]"
                        : "training uses global_batch and micro_batch"},
      {"workload.context", kind == K::decode, "context is the KV-cache length of decode"},
      {"workload.seq_len", kind == K::train || kind == K::prefill,
       kind == K::generate ? "generate uses `input_len` (each prompt's tokens)"
                           : "decode uses `context` (tokens already cached)"},
      {"workload.input_len", kind == K::generate, "input_len is a generation's prompt length; use seq_len"},
      {"workload.output_len", kind == K::generate, "output_len belongs to kind = \"generate\""},
      {"workload.cross_entropy", kind == K::train, "the cross-entropy is the training loss's"},
      {"workload.decode_attention", kind == K::decode || kind == K::generate || kind == K::serve,
       "decode_attention is the decode attention kernel's cache access"},
  };
  for (const Rule& r : rules)
    if (!r.allowed && given(s, r.key))
      refuse(r.key, "does not apply to kind = \"" + kind_name + "\"", std::string(r.use));
  if (kind == K::train && s.job.workload.pointwise == work::Pointwise::eager &&
      s.job.workload.cross_entropy != work::CrossEntropy::fused &&
      s.job.workload.cross_entropy != work::CrossEntropy::pytorch)
    refuse("workload.cross_entropy",
           "is \"" + std::string(work::name(s.job.workload.cross_entropy)) +
               "\", but pointwise = \"eager\" runs PyTorch's cross_entropy on fp32 logits (\"pytorch\")",
           "remove cross_entropy, or set pointwise = \"fused\" to run this loss with fused layers");
  if (kind == K::train && given(s, "workload.recompute_modules") &&
      s.job.recompute != work::Recompute::selective)
    refuse("workload.recompute_modules",
           "applies only with recompute = \"selective\" (recompute is \"" +
               std::string(work::name(s.job.recompute)) + "\")",
           "set recompute = \"selective\", or remove recompute_modules");
}

/// Keys each kind needs.
void check_required_keys(const Scenario& s) {
  const K kind = s.job.workload.kind;
  const std::string kind_name(work::name(kind));
  if (kind == K::train && !given(s, "workload.global_batch"))
    refuse("workload", "kind = \"train\" needs `global_batch` (sequences per optimizer step)",
           "e.g. global_batch = 1024");
  if (kind == K::serve && !s.serve)
    refuse("workload", "kind = \"serve\" needs a [serving] table (the requests and the engine's limits)",
           "e.g. [serving] rate_per_s = 10, input_len = 2048, output_len = 256, max_batch = 128");
  if (kind != K::serve && s.serve)
    refuse("serving", "describes a serving run, but workload.kind = \"" + kind_name + "\"",
           "set workload.kind = \"serve\", or remove [serving]");
  if (kind == K::generate)
    for (const char* key : {"input_len", "output_len"})
      if (!given(s, std::string("workload.") + key))
        refuse("workload",
               std::string("kind = \"generate\" needs `") + key +
                   "` (each prompt's tokens, and the tokens each sequence generates)",
               "e.g. input_len = 2048 and output_len = 128");
  if ((kind == K::train || kind == K::prefill) && !given(s, "workload.seq_len"))
    refuse("workload", "kind = \"" + kind_name + "\" needs `seq_len` (tokens per sequence)",
           "e.g. seq_len = 4096");
  if (kind == K::decode && !given(s, "workload.context"))
    refuse("workload", "kind = \"decode\" needs `context` (tokens already in each sequence's KV cache)",
           "e.g. context = 4096");
}

/// torchtitan's per-op policy (alternate_mm) as modelled: a Llama-style dense block whose seven
/// matmuls are the policy's count (layer_op_sac.cpp), without the collectives it would replay.
void check_op_sac(const work::JobSpec& job) {
  const work::ModelSpec& m = job.model;
  const std::string hint =
      "alternate_mm models torchtitan's Llama blocks; use core_attn and layernorm instead";
  if (m.is_moe() || m.is_hybrid() || m.attention == work::AttentionKind::mla)
    refuse("workload.recompute_modules",
           "alternate_mm is modelled for dense transformer blocks with standard attention (the model has " +
               std::string(m.is_moe()      ? "experts"
                           : m.is_hybrid() ? "recurrent layers"
                                           : "MLA") +
               ")",
           hint);
  if (m.qk_norm || m.sandwich_norms || m.attention_output_gate || m.dropout || m.linear_bias)
    refuse("workload.recompute_modules",
           "alternate_mm counts a Llama block's seven matmuls around two norms; the model adds " +
               std::string(m.qk_norm                 ? "query and key norms"
                           : m.sandwich_norms        ? "norms of the branch outputs"
                           : m.attention_output_gate ? "an output gate"
                           : m.dropout               ? "dropout"
                                                     : "biases"),
           hint);
  if (job.workload.attention_impl != work::AttentionImpl::flash)
    refuse("workload.recompute_modules", "alternate_mm keeps a fused attention kernel's output",
           "set attention_impl = \"flash\"");
  if (job.workload.attention_unpad)
    refuse("workload.attention_unpad", "is not modelled with alternate_mm", "set attention_unpad = false");
  if (job.parallel.tp > 1 && !job.parallel.sequence_parallel)
    refuse("workload.recompute_modules",
           "alternate_mm with tensor parallelism is modelled as torchtitan's plan runs it, with "
           "sequence-parallel norms",
           "set sequence_parallel = true");
  if (job.parallel.tp_comm_overlap == work::TpCommOverlap::userbuffers)
    refuse("workload.recompute_modules", "alternate_mm is not modelled with userbuffers' TP overlap",
           "torchtitan overlaps TP with tp_comm_overlap = \"async_tp\"");
  if (job.parallel.cp > 1)
    refuse("workload.recompute_modules",
           "alternate_mm is modelled without context parallelism (the policy would replay its key and "
           "value exchanges too, which stepsim does not model)",
           "set cp = 1, or use core_attn and layernorm");
}

/// Full recomputation of some layers (recompute_layers, recompute_every).
void check_partial_recompute(const work::JobSpec& job) {
  const bool layers = job.recompute_layers > 0, every = job.recompute_every > 0;
  if (!layers && !every) return;
  const char* key = layers ? "workload.recompute_layers" : "workload.recompute_every";
  if (layers && every)
    refuse("workload.recompute_every",
           "is given with recompute_layers; they choose the recomputed layers two ways",
           "keep one: recompute_layers (Megatron's block method) or recompute_every (torchtitan's)");
  if (job.recompute != work::Recompute::full)
    refuse(key,
           "chooses which layers full recomputation covers, but recompute is \"" +
               std::string(work::name(job.recompute)) + "\"",
           "set recompute = \"full\", or remove it");
  const auto schedule = job.parallel.schedule;
  if (schedule == work::PipelineSchedule::dualpipe || schedule == work::PipelineSchedule::dualpipev)
    refuse(key, "is not modelled with DualPipe's schedules",
           "remove it, or use schedule = \"1f1b\" or \"interleaved\"");
}

/// Model features the workload cannot run.
void check_model_features(const work::JobSpec& job) {
  const K kind = job.workload.kind;
  const auto& rc = job.recompute_modules;
  // What selective recomputation recomputes; its own default is {core_attn}.
  if (kind == K::train && job.recompute != work::Recompute::selective &&
      (!rc.core_attn || rc.layernorm || rc.mla_up_proj || rc.moe_act || rc.alternate_mm))
    refuse("workload.recompute_modules",
           "applies only with recompute = \"selective\" (recompute is \"" +
               std::string(work::name(job.recompute)) + "\")",
           "set recompute = \"selective\", or remove recompute_modules");
  if (rc.mla_up_proj && job.model.attention != work::AttentionKind::mla)
    refuse("workload.recompute_modules", "lists mla_up_proj, but the model's attention is not MLA",
           "mla_up_proj applies to DeepSeek-style latent attention");
  if (rc.moe_act && !job.model.is_moe())
    refuse("workload.recompute_modules", "lists moe_act, but the model has no experts",
           "moe_act applies to MoE layers");
  if (rc.alternate_mm) check_op_sac(job);
  if (kind == K::train) check_partial_recompute(job);
  if (!job.model.parallel_block) return;
  if (kind == K::train)
    refuse("model.parallel_block", "parallel attention and MLP blocks are simulated for inference only",
           "use kind = \"prefill\", \"decode\", \"generate\" or \"serve\", or parallel_block = false");
  if (job.model.is_moe() || job.model.attention == work::AttentionKind::mla)
    refuse("model.parallel_block", "applies to dense models with standard attention (GPT-J, Falcon)",
           "set parallel_block = false");
}

/// Context parallelism splits prompts; decode steps (decode, generate, serve) do not run with it.
void check_context_parallel(const work::JobSpec& job) {
  if (job.parallel.cp <= 1) return;
  switch (job.workload.kind) {
    case K::serve:
      refuse("parallelism.cp", "serving's decode steps do not run with context parallelism", "set cp = 1");
    case K::generate:
      refuse("parallelism.cp", "a generation's decode steps do not run with context parallelism",
             "set cp = 1");
    case K::decode:
      refuse("parallelism.cp",
             "decode steps do not run with context parallelism (cp = " + to_string(job.parallel.cp) + ")",
             "set cp = 1");
    case K::train:
    case K::prefill: break;
  }
  if (job.workload.attention_impl != work::AttentionImpl::flash)
    refuse("workload.attention_impl",
           "context parallelism (cp = " + to_string(job.parallel.cp) + ") needs attention_impl = \"flash\"",
           "ring attention exchanges key/value blocks between fused attention kernels");
  if (job.parallel.cp_comm == work::CpComm::a2a) {
    // Each rank attends the whole sequence on heads / cp of its TP rank's heads: both the query
    // heads and the key/value heads must split (Transformer Engine asserts it).
    const int t = job.parallel.tp, c = job.parallel.cp;
    const work::ModelSpec& m = job.model;
    if (!m.splits_heads(t * c))
      refuse("parallelism.cp_comm",
             "\"a2a\" splits each TP rank's heads over the cp = " + to_string(c) + " ranks, but " +
                 to_string(m.heads) + " query and " + to_string(m.key_value_heads()) +
                 " key/value heads do not divide by tp x cp = " + to_string(t * c),
             "use cp_comm = \"all_gather\" or \"p2p\", or a cp that divides the heads per TP rank");
  }
}

/// What an engine must be able to admit, and what disaggregated serving needs.
void check_serving(const work::JobSpec& job, const work::ServeSpec& serve) {
  const work::ServingConfig& c = serve.config;
  if (c.max_num_tokens < c.max_batch)
    refuse(
        "serving.max_num_tokens",
        "max_num_tokens = " + to_string(c.max_num_tokens) + " is below max_batch = " + to_string(c.max_batch),
        "an iteration must fit one decode token for every request in the batch (vLLM's own rule)");
  if (serve.prefill_replicas >= job.parallel.dp)
    refuse("serving.prefill_replicas",
           "leaves no decode replica: " + to_string(serve.prefill_replicas) +
               " of dp = " + to_string(job.parallel.dp) + " replicas would prefill",
           "use at most dp - 1 prefill replicas, or more GPUs");
  if (serve.prefill_replicas > 0 && !(job.cluster.gpu.nic_bw.value() * job.cluster.gpu.eff.nic > 0.0))
    refuse("serving.prefill_replicas",
           "disaggregated serving moves KV caches over the GPUs' NICs, but GPU `" + job.cluster.gpu.id +
               "` has no NIC bandwidth",
           "set nic_gbps in [hardware.gpu], or remove prefill_replicas");
  if (c.chunked_prefill) return;
  for (std::size_t i = 0; i < serve.requests.size(); ++i)
    if (serve.requests[i].input_len > c.max_num_tokens)
      refuse("serving.chunked_prefill",
             "is false, but request " + to_string(i) + " has a " + to_string(serve.requests[i].input_len) +
                 "-token prompt, more than max_num_tokens = " + to_string(c.max_num_tokens) +
                 ": without chunking a prompt must fit one iteration",
             "set chunked_prefill = true, raise max_num_tokens, or shorten the prompts");
}

/// How the batch and the sequences split over the layout.
void check_split(const work::JobSpec& job, const work::ServeSpec* serve) {
  const work::WorkloadSpec& w = job.workload;
  const work::ParallelSpec& p = job.parallel;
  const work::ModelSpec& m = job.model;
  if (w.kind == K::train && w.global_batch % (w.micro_batch * p.dp) != 0)
    refuse("workload.global_batch",
           "global_batch = " + to_string(w.global_batch) + " is not divisible by micro_batch x dp = " +
               to_string(w.micro_batch) + " x " + to_string(p.dp) + " = " + to_string(w.micro_batch * p.dp),
           "every data-parallel rank runs a whole number of micro-batches");
  // The longest sequence the step sees: a generation's last decode step attends to its prompt and
  // every token but the last it generates.
  int tokens = w.kind == K::decode     ? w.context_len + 1
               : w.kind == K::generate ? w.seq_len + w.output_len - 1
                                       : w.seq_len;
  std::string_view key = w.kind == K::decode     ? "workload.context"
                         : w.kind == K::generate ? "workload.output_len"
                                                 : "workload.seq_len";
  if (w.kind == K::serve) {
    tokens = 0;
    if (serve != nullptr)
      for (const work::Request& r : serve->requests)
        tokens = std::max(tokens, r.input_len + r.output_len - 1);
    key = "serving";
  }
  const bool prompts = w.kind == K::train || w.kind == K::prefill;
  if (prompts && w.seq_len % p.cp != 0)
    refuse(key, "seq_len = " + to_string(w.seq_len) + " is not divisible by cp = " + to_string(p.cp),
           "context parallelism splits each sequence evenly");
  if (prompts && p.sequence_parallel && w.seq_len % p.tp != 0)
    refuse(key, "seq_len = " + to_string(w.seq_len) + " is not divisible by tp = " + to_string(p.tp),
           "sequence parallelism splits each sequence across the tensor-parallel ranks");
  if (m.position == work::PositionEmbedding::learned && tokens > m.max_positions)
    refuse(
        key,
        to_string(tokens) + " tokens exceed the model's " + to_string(m.max_positions) + " learned positions",
        "raise max_positions in [model] or shorten the sequence");
}

/// Refuses `key` (a setting of the fused attention path) when attention runs unfused, saying why it
/// does: the scenario asked for it, or the stated software decided it.
void require_fused_attention(const work::WorkloadSpec& w, const std::string& key, const std::string& what) {
  if (w.attention_impl == work::AttentionImpl::flash) return;
  refuse("workload." + key,
         what + ", but attention runs unfused" +
             (w.attention_note.empty() ? std::string(" (attention_impl = \"unfused\")")
                                       : ": " + w.attention_note),
         "remove " + key + ", or set attention_impl = \"flash\"");
}

/// The fused attention kernel the scenario names: it needs the fused path, a figure on the GPU,
/// and head widths the kernel takes.
void check_attention_kernel(const Scenario& s) {
  const work::WorkloadSpec& w = s.job.workload;
  if (!given(s, "workload.attention_kernel")) return;
  const std::string kernel(topo::name(w.attention_kernel));
  require_fused_attention(w, "attention_kernel", "names a fused attention kernel");
  const topo::GpuSpec& gpu = s.job.cluster.gpu;
  if (gpu.eff.attention_of(w.attention_kernel) <= 0.0) {
    const bool fa3 = w.attention_kernel == topo::AttentionKernel::fa3;
    const bool flex = w.attention_kernel == topo::AttentionKernel::flex;
    refuse("workload.attention_kernel",
           "\"" + kernel + "\" has no efficiency on " + gpu.name +
               (fa3 && gpu.arch != topo::GpuArch::hopper ? " (FlashAttention-3's kernels run on Hopper only)"
                : flex ? " (no published rate for FlexAttention's kernels on this GPU)"
                       : " (no measurement of that kernel on this GPU)"),
           "use \"cudnn\" (the GPU's reference fused attention), or give the GPU an efficiency.attention_" +
               kernel + " in a catalog file (--catalog)");
  }
  const work::HeadDims dims = work::attention_head_dims(s.job.model);
  if ((w.attention_kernel == topo::AttentionKernel::fa2 ||
       w.attention_kernel == topo::AttentionKernel::triton) &&
      dims.qk != dims.v)
    refuse("workload.attention_kernel",
           std::string(topo::published_name(w.attention_kernel)) +
               " needs equal query/key and value head widths; this model's are " + to_string(dims.qk) +
               " and " + to_string(dims.v) + " (MLA)",
           "use \"cudnn\" or \"fa3\" (both take MLA's widths)");
  // flash_attn_triton.py asserts d <= 128 (its BLOCK_HEADDIM is the next power of two).
  if (w.attention_kernel == topo::AttentionKernel::triton && std::max(dims.qk, dims.v) > 128)
    refuse("workload.attention_kernel",
           "Triton FlashAttention takes heads of at most 128; this model's are " +
               to_string(std::max(dims.qk, dims.v)),
           "use \"fa2\" or \"cudnn\"");
}

/// Unpadded variable-length attention is a property of the fused kernels' call in training and
/// prefill; a decode step reads its cache through the serving engine's own paged kernel.
void check_attention_unpad(const Scenario& s) {
  const work::WorkloadSpec& w = s.job.workload;
  if (!w.attention_unpad) return;
  require_fused_attention(w, "attention_unpad", "unpadding feeds FlashAttention's variable-length kernel");
  if (w.kind == work::WorkloadKind::decode || w.kind == work::WorkloadKind::generate ||
      w.kind == work::WorkloadKind::serve)
    refuse("workload.attention_unpad",
           "applies to training and prefill steps; decode attention reads the KV cache through the "
           "engine's own kernel",
           "remove attention_unpad, or simulate kind = \"train\" or \"prefill\"");
  if (s.job.parallel.cp > 1)
    refuse("workload.attention_unpad", "is not modelled with context parallelism (cp > 1)",
           "remove attention_unpad, or set parallelism.cp = 1");
}

/// Packed documents are a property of a training or prefill batch's sequences, which fused kernels
/// skip across; they must be shorter than the sequence they are packed into.
void check_document_tokens(const Scenario& s) {
  const work::WorkloadSpec& w = s.job.workload;
  if (!given(s, "workload.document_tokens")) return;
  require_fused_attention(w, "document_tokens",
                          "document masking saves work only in fused kernels that skip masked blocks");
  if (w.kind != work::WorkloadKind::train && w.kind != work::WorkloadKind::prefill)
    refuse("workload.document_tokens",
           "applies to training and prefill steps, whose sequences are packed from documents; a decode "
           "step's sequences are requests of their own",
           "remove document_tokens, or simulate kind = \"train\" or \"prefill\"");
  if (s.job.parallel.cp > 1)
    refuse("workload.document_tokens", "is not modelled with context parallelism (cp > 1)",
           "remove document_tokens, or set parallelism.cp = 1");
  if (w.seq_len > 0 && w.document_tokens >= w.seq_len)
    refuse("workload.document_tokens",
           "is " + to_string(w.document_tokens) + ", not shorter than the sequence (seq_len = " +
               std::to_string(w.seq_len) + "): one document per sequence is the default",
           "remove document_tokens, or give the mean length of a token's document below seq_len");
}

}  // namespace cross_checks_workload

void resolve_attention(Scenario& s) {
  work::WorkloadSpec& w = s.job.workload;
  // The ring is the default whatever cp is (layout searches write it); another method needs cp > 1.
  if (given(s, "parallelism.cp_comm") && s.job.parallel.cp <= 1 &&
      s.job.parallel.cp_comm != work::CpComm::p2p)
    refuse("parallelism.cp_comm", "applies to context parallelism, but cp = 1",
           "set cp > 1, or remove cp_comm");
  // Transformer Engine refuses sliding windows with its ring (p2p) context parallelism
  // (context_parallel.py: "a2a" or "all_gather" only).
  if (s.job.parallel.cp > 1 && s.job.parallel.cp_comm == work::CpComm::p2p &&
      s.job.model.has_local_attention() && w.kind != work::WorkloadKind::decode)
    s.notes.push_back(
        "local attention with ring (p2p) context parallelism (cp = " + std::to_string(s.job.parallel.cp) +
        "): Transformer Engine runs windows only with cp_comm = \"all_gather\" or \"a2a\"; "
        "stepsim prices the ring as asked (the window's FLOPs are counted)");
  if (!w.transformer_engine.stated() || w.kind != work::WorkloadKind::train) return;
  const auto unfused = work::te_training_attention_unfused(w.transformer_engine, s.job.cluster.gpu.arch,
                                                           work::attention_head_dims(s.job.model));
  if (!unfused) return;
  if (given(s, "workload.attention_impl") && w.attention_impl == work::AttentionImpl::flash)
    refuse("workload.attention_impl", "is \"flash\", but " + unfused->why,
           "remove attention_impl (stepsim then runs the unfused path), or state the release the run "
           "used (fused MLA attention on Blackwell needs Transformer Engine 2.5 or later)");
  w.attention_impl = work::AttentionImpl::unfused;
  w.attention_note = unfused->why;
}

void check_workload_keys(const Scenario& s) {
  cross_checks_workload::check_kind_keys(s);
  cross_checks_workload::check_required_keys(s);
  cross_checks_workload::check_attention_kernel(s);
  cross_checks_workload::check_attention_unpad(s);
  cross_checks_workload::check_document_tokens(s);
}

void check_workload_rules(const work::JobSpec& job, const work::ServeSpec* serve) {
  cross_checks_workload::check_model_features(job);
  cross_checks_workload::check_context_parallel(job);
  if (job.workload.kind == work::WorkloadKind::serve && serve != nullptr)
    cross_checks_workload::check_serving(job, *serve);
  cross_checks_workload::check_split(job, serve);
}

}  // namespace stepsim::scen::detail
