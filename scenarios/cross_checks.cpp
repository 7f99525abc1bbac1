// Values derived from several tables, and the checks that span tables. Messages show the
// arithmetic so the user sees why a layout does not fit.
#include <algorithm>
#include <cmath>
#include <set>

#include "scenarios/scenario_sections.hpp"
#include "scenarios/suggest.hpp"
#include "workloads/names.hpp"
#include "workloads/params.hpp"

namespace stepsim::scen::detail {
namespace {

using std::to_string;

[[noreturn]] void fail(const Scenario& s, std::string_view key, const std::string& problem,
                       const std::string& hint = {}) {
  throw UserError(s.where(key), std::string(key), problem, hint);
}

bool given(const Scenario& s, std::string_view key) {
  return s.locations.contains(key);
}

/// The low-precision recipe: Transformer Engine's default where unset (MXFP8 on Blackwell, whose
/// FP4 tensor cores mark it here, delayed scaling before it; NVFP4 for FP4), and the combinations
/// that exist.
void resolve_recipe(Scenario& s) {
  work::PrecisionSpec& p = s.job.precision;
  using R = work::LowPrecisionRecipe;
  const bool blackwell = s.job.cluster.gpu.fp4_flops_per_s > 0.0;
  const bool set = given(s, "precision.recipe");
  if (!p.low_precision_linears()) {
    if (set) fail(s, "precision.recipe", "is a recipe for FP8 or FP4 linear layers", "set compute = \"fp8\"");
    if (p.fp8_params) fail(s, "precision.fp8_params", "needs FP8 linear layers", "set compute = \"fp8\"");
    if (p.fp8_attention && !(s.job.cluster.gpu.fp8_flops_per_s > 0.0))
      fail(s, "precision.fp8_attention", "GPU `" + s.job.cluster.gpu.id + "` has no FP8 tensor cores");
    return;
  }
  if (p.compute == topo::Precision::fp4) {
    if (!set) p.recipe = R::nvfp4;
    if (p.recipe != R::nvfp4)
      fail(s, "precision.recipe", "FP4 linear layers run the nvfp4 recipe", "set recipe = \"nvfp4\"");
    return;
  }
  if (!set) p.recipe = blackwell ? R::mxfp8 : R::delayed;
  if (p.recipe == R::nvfp4) fail(s, "precision.recipe", "nvfp4 is an FP4 recipe", "set compute = \"fp4\"");
  if (p.recipe == R::mxfp8 && !blackwell)
    fail(s, "precision.recipe",
         "MXFP8 needs Blackwell tensor cores; GPU `" + s.job.cluster.gpu.id + "` has none",
         "use delayed, tensorwise or blockwise");
  // FP8 parameters replace the 16-bit working weights (Megatron's --fp8-param-gather).
  if (p.fp8_params && !given(s, "precision.params")) p.param_bytes = 1.0;
}

void check_weight_quant(const Scenario& s) {
  const work::PrecisionSpec& p = s.job.precision;
  if (p.weight_quant == work::WeightQuant::none) return;
  if (s.job.workload.kind == work::WorkloadKind::train)
    fail(s, "precision.params", "int8/int4 weights are weight-only quantisation for inference",
         "use kind = \"prefill\", \"decode\", \"generate\" or \"serve\", or params = \"bf16\"");
  if (p.compute != topo::Precision::bf16 && p.compute != topo::Precision::fp16)
    fail(s, "precision.params",
         "weight-only int8/int4 GEMMs run 16-bit math (w8a16, w4a16), but compute = \"" +
             std::string(topo::name(p.compute)) + "\"",
         "set compute = \"bf16\"; W4A8 and W8A8 are not modelled");
}

void resolve_precision(Scenario& s) {
  check_weight_quant(s);
  work::PrecisionSpec& p = s.job.precision;
  const double natural = p.compute == topo::Precision::fp32 ? 4.0 : 2.0;  // fp8/fp4 math keeps bf16 copies
  if (!given(s, "precision.params")) p.param_bytes = natural;
  if (!given(s, "precision.grads")) p.grad_bytes = natural;
  if (!given(s, "precision.activations")) p.activation_bytes = natural;
  if (!given(s, "precision.kv_cache")) p.kv_bytes = natural;
  const topo::GpuSpec& gpu = s.job.cluster.gpu;
  const topo::Precision c = p.compute;
  const double peak = c == topo::Precision::fp8    ? gpu.fp8_flops_per_s
                      : c == topo::Precision::fp4  ? gpu.fp4_flops_per_s
                      : c == topo::Precision::fp32 ? gpu.fp32_flops_per_s
                                                   : gpu.bf16_flops_per_s;
  if (!(peak > 0.0))
    fail(
        s, "precision.compute",
        "GPU `" + gpu.id + "` has no " + std::string(topo::name(c)) + " tensor throughput in the catalog",
        "choose a precision it supports, or set " + std::string(topo::name(c)) + "_tflops in [hardware.gpu]");
}

/// Largest d <= cap with pred(d), scanning down from cap (cap >= 1).
template <class Pred>
int largest(int cap, Pred pred) {
  for (int d = cap; d > 1; --d)
    if (pred(d)) return d;
  return 1;
}

/// The job's share of each physical NVLink domain when it does not fill them: the largest multiple
/// of gpus_per_node, at most the domain, that tiles the job (128 GPUs on NVL72 racks: 64 of each).
int domain_share(int domain, int gpn, int total) {
  return largest(std::min(domain, total), [&](int d) { return d % gpn == 0 && total % d == 0; });
}

/// hardware.nvlink_domain is the physical scale-up domain (an NVL72 rack); the job uses
/// gpus_per_domain of each (given, or the largest share that tiles it). Inside the job the
/// scale-up domain is its share: the NVSwitch is non-blocking, so GPUs of another job in the same
/// rack take none of this job's NVLink bandwidth. ClusterSpec keeps the share as nvlink_domain
/// (what the topology builds) and the rack as rack_gpus.
void resolve_nvlink_domain(Scenario& s) {
  topo::ClusterSpec& c = s.job.cluster;
  const int gpn = c.gpus_per_node;
  const int total = c.total_gpus();
  const int share = c.rack_gpus;  // as read: gpus_per_domain (0 = not given)
  c.rack_gpus = 0;
  const bool stated = c.nvlink_domain > 0;
  int d = c.nvlink_domain;
  if (!stated) {
    d = c.gpu.nvlink_bw_Bps > 0.0 ? c.gpu.nvlink_domain : 1;  // the catalog's domain
    if (d <= gpn)
      d = largest(d, [&](int x) { return gpn % x == 0; });
    else
      d = largest(d, [&](int x) { return x % gpn == 0; });  // whole nodes of a multi-node domain
  }
  if (gpn % d != 0 && d % gpn != 0)
    fail(s, "hardware.nvlink_domain",
         "is " + to_string(d) + ", neither a divisor nor a multiple of gpus_per_node = " + to_string(gpn),
         "a scale-up domain is part of a node, one node, or several whole nodes");
  if (d > 1 && !(c.gpu.nvlink_bw_Bps > 0.0))
    fail(s, "hardware.nvlink_domain",
         "is " + to_string(d) + " but GPU `" + c.gpu.id + "` has no NVLink bandwidth",
         "set nvlink_gb_s in [hardware.gpu], or nvlink_domain = 1");
  if (d <= gpn) {  // domains inside a node
    if (share > 0)
      fail(s, "hardware.gpus_per_domain", "applies to scale-up domains of several nodes (NVL72 racks)",
           "remove it; this domain is " + to_string(d) + " GPUs of one node");
    c.nvlink_domain = d;
    return;
  }
  if (share > 0) {
    if (share > d || share % gpn != 0 || total % share != 0)
      fail(s, "hardware.gpus_per_domain",
           "is " + to_string(share) + ", but the job's GPUs in each NVLink domain of " + to_string(d) +
               " must be whole nodes of " + to_string(gpn) + ", at most the domain, and tile its " +
               to_string(total) + " GPUs",
           "e.g. gpus_per_domain = " + to_string(domain_share(d, gpn, total)));
    c.nvlink_domain = share;
  } else {
    c.nvlink_domain = total % d == 0 ? d : domain_share(d, gpn, total);
  }
  if (c.nvlink_domain < d) c.rack_gpus = d;
}

/// ZeRO-3 / FSDP options: only with zero_stage = 3; HSDP's shard group (FSDP1's HYBRID_SHARD
/// shards inside a node by default); DeepSpeed's prefetch bucket and live-parameter limit as whole
/// layers of prefetch (its per-rank layer size counted with the model's parameters).
void resolve_sharding(Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  const char* keys[] = {"parallelism.reshard_after_forward", "parallelism.shard_group",
                        "parallelism.prefetch_layers", "parallelism.prefetch_bucket_mparams",
                        "parallelism.max_live_mparams"};
  if (p.zero_stage != 3) {
    for (const char* k : keys)
      if (given(s, k))
        fail(s, k, "applies to sharded weights (ZeRO-3 / FSDP), but zero_stage = " + to_string(p.zero_stage),
             "set zero_stage = 3 or fsdp = \"full_shard\", or remove it");
    return;
  }
  const int group = p.dp * p.cp;
  if (s.fsdp_hybrid && p.shard_group == 0) {
    const int per_node = p.tp < s.job.cluster.gpus_per_node ? s.job.cluster.gpus_per_node / p.tp : 1;
    if (group % per_node != 0 || per_node < 1)
      fail(s, "parallelism.fsdp",
           "hybrid sharding shards inside a node by default, but a node's " + to_string(per_node) +
               " data-parallel ranks do not divide dp x cp = " + to_string(group),
           "set shard_group to a divisor of " + to_string(group));
    p.shard_group = per_node;
  }
  if (p.shard_group > 0 && group % p.shard_group != 0)
    fail(s, "parallelism.shard_group",
         "is " + to_string(p.shard_group) + ", which does not divide the dp x cp = " + to_string(group) +
             " ranks holding the same weights",
         "choose a divisor of " + to_string(group) + " (the ranks of one node, e.g.)");
  if (p.shard_group >= group) p.shard_group = 0;  // one group of all: plain FULL_SHARD
  if (s.prefetch_bucket_params > 0.0 || s.max_live_params > 0.0) {
    if (given(s, "parallelism.prefetch_layers"))
      fail(s, "parallelism.prefetch_layers",
           "cannot be combined with prefetch_bucket_mparams / max_live_mparams",
           "give the prefetch in layers, or DeepSpeed's limits, not both");
    const work::ParamBreakdown b = work::count_params(s.job.model);
    const double layer = (b.total - b.embedding - b.lm_head - b.position - b.mtp) / s.job.model.layers / p.tp;
    double depth = s.prefetch_bucket_params > 0.0 ? std::floor(s.prefetch_bucket_params / layer) : 1.0;
    if (s.max_live_params > 0.0) depth = std::min(depth, std::floor(s.max_live_params / layer) - 1.0);
    p.prefetch_layers = static_cast<int>(std::clamp(depth, 0.0, 16.0));
  }
}

void resolve_schedule(Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  if (p.overlap_param_gather && (p.zero_stage < 1 || p.zero_stage > 2))
    fail(s, "parallelism.overlap_param_gather",
         "overlaps the distributed optimizer's weight all-gather, which ZeRO-" + to_string(p.zero_stage) +
             " does not have",
         p.zero_stage == 0 ? "set zero_stage = 1 (Megatron's distributed optimizer)"
                           : "ZeRO-3 gathers each layer before use already");
  // Megatron-Core asserts it: the overlapped TP collectives are the all-gather and reduce-scatter of
  // sequence parallelism (with TP 1 there is nothing to overlap and NeMo drops the flag).
  if (p.tp_comm_overlap != work::TpCommOverlap::off && p.tp > 1 && !p.sequence_parallel &&
      s.job.workload.kind == work::WorkloadKind::train)
    fail(s, "parallelism.tp_comm_overlap",
         "overlaps sequence parallelism's all-gathers and reduce-scatters, but sequence_parallel is off",
         "set sequence_parallel = true, or tp_comm_overlap = false");
  // Megatron-Core's combined 1F1B refuses these (moe_a2a_overlap.html): there must be all-to-alls to
  // hide, full recomputation re-runs the forward inside the backward, and the shared-expert overlap
  // uses the streams the pair needs.
  if (s.job.moe.fp8_dispatch && !s.job.precision.low_precision_linears())
    fail(s, "moe.fp8_dispatch", "sends the experts' FP8 inputs, but the linear layers are not FP8",
         "set precision.compute = \"fp8\", or fp8_dispatch = false");
  if (p.ep_overlap) {
    if (!s.job.model.is_moe() || p.ep < 2)
      fail(s, "parallelism.ep_overlap", "overlaps expert-parallel all-to-alls, but this job has none",
           "it needs an MoE model with parallelism.ep > 1; set ep_overlap = false");
    if (s.job.workload.kind != work::WorkloadKind::train)
      fail(s, "parallelism.ep_overlap", "pairs a forward with a backward, which only training has",
           "set ep_overlap = false");
    if (s.job.recompute == work::Recompute::full)
      fail(s, "parallelism.ep_overlap", "cannot run with full recomputation (Megatron-Core refuses it)",
           "use workload.recompute = \"selective\", or ep_overlap = false");
    if (s.job.moe.shared_expert_overlap)
      fail(s, "parallelism.ep_overlap", "and moe.shared_expert_overlap cannot both be on (Megatron-Core)",
           "set moe.shared_expert_overlap = false: the pair overlaps the shared experts too");
  }
  if (p.virtual_stages > 1 && p.pp < 2)
    fail(s, "parallelism.virtual_stages",
         "is " + to_string(p.virtual_stages) + " but pp = " + to_string(p.pp),
         "interleaved model chunks need pipeline parallelism (pp > 1); set virtual_stages = 1");
  const bool interleaved = p.schedule == work::PipelineSchedule::interleaved;
  if (!given(s, "parallelism.schedule")) {
    p.schedule =
        p.virtual_stages > 1 ? work::PipelineSchedule::interleaved : work::PipelineSchedule::one_f_one_b;
  } else if (interleaved && p.virtual_stages < 2) {
    fail(s, "parallelism.schedule", "\"interleaved\" needs virtual_stages > 1",
         "set virtual_stages (model chunks per pipeline rank), or schedule = \"1f1b\"");
  } else if (!interleaved && p.virtual_stages > 1) {
    fail(s, "parallelism.schedule",
         "\"" + std::string(work::name(p.schedule)) +
             "\" cannot run virtual_stages = " + to_string(p.virtual_stages),
         "use schedule = \"interleaved\", or virtual_stages = 1");
  }
}

void resolve_dp(Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  const topo::ClusterSpec& c = s.job.cluster;
  const int world = c.total_gpus();
  const std::string cluster =
      to_string(c.nodes) + " nodes x " + to_string(c.gpus_per_node) + " = " + to_string(world) + " GPUs";
  const int tpc = p.tp * p.pp * p.cp;
  if (!given(s, "parallelism.dp")) {
    if (world % tpc != 0)
      fail(s, "parallelism",
           "tp x pp x cp = " + to_string(p.tp) + " x " + to_string(p.pp) + " x " + to_string(p.cp) + " = " +
               to_string(tpc) + " does not divide the cluster's " + cluster,
           "dp is derived as GPUs / (tp x pp x cp); choose sizes whose product divides " + to_string(world));
    p.dp = world / tpc;
    s.dp_derived = true;
    return;
  }
  if (p.world() == world) return;
  const std::string hint = world % tpc == 0
                               ? "set dp = " + to_string(world / tpc) + ", or omit dp to derive it"
                               : "change the layout or the cluster size so that the products agree";
  fail(s, "parallelism.dp",
       "tp x pp x dp x cp = " + to_string(p.tp) + " x " + to_string(p.pp) + " x " + to_string(p.dp) + " x " +
           to_string(p.cp) + " = " + to_string(p.world()) + ", but the cluster has " + cluster,
       hint);
}

/// first_stage_layers / last_stage_layers: the ends take their counts, the other stages split the
/// remaining layers evenly; or the embedding and loss count as layers of an even split. Each
/// stage's share then splits evenly over its virtual_stages chunks (Megatron-Core's
/// get_num_layers_to_build), and every chunk keeps at least one transformer layer.
void check_uneven_stages(const Scenario& s) {
  const work::ParallelSpec& p = s.job.parallel;
  const int layers = s.job.model.layers;
  const bool ends = p.first_stage_layers > 0 || p.last_stage_layers > 0;
  const std::string_view key = p.first_stage_layers > 0  ? "parallelism.first_stage_layers"
                               : p.last_stage_layers > 0 ? "parallelism.last_stage_layers"
                               : p.embedding_in_split ? "parallelism.account_for_embedding_in_pipeline_split"
                                                      : "parallelism.account_for_loss_in_pipeline_split";
  if (p.pp < 2) fail(s, key, "needs pipeline parallelism (pp > 1), but pp = " + to_string(p.pp));
  if (ends && (p.embedding_in_split || p.loss_in_split))
    fail(s, key, "cannot be combined with account_for_embedding/loss_in_pipeline_split",
         "Megatron-Core accepts one of the two: uneven end stages, or the embedding and loss counted as "
         "layers");
  const int v = p.virtual_stages;
  if (ends) {
    const int rest = layers - p.first_stage_layers - p.last_stage_layers;
    const int others = p.pp - (p.first_stage_layers > 0 ? 1 : 0) - (p.last_stage_layers > 0 ? 1 : 0);
    const std::string arithmetic = "layers - first_stage_layers - last_stage_layers = " + to_string(layers) +
                                   " - " + to_string(p.first_stage_layers) + " - " +
                                   to_string(p.last_stage_layers) + " = " + to_string(rest);
    if (others == 0 ? rest != 0 : (rest < others || rest % others != 0))
      fail(s, key,
           arithmetic + (others == 0
                             ? ", but no other stage is left to hold them"
                             : ", which the other " + to_string(others) + " stages cannot share evenly"),
           "choose end-stage sizes that leave a whole number of layers per stage");
    for (int stage = 0; stage < p.pp; ++stage) {
      const int n = p.stage_slots(stage, layers);
      if (n % v != 0)
        fail(s, key,
             "stage " + to_string(stage) + " holds " + to_string(n) +
                 " layers, which its virtual_stages = " + to_string(v) + " model chunks cannot share evenly",
             "choose stage sizes divisible by virtual_stages");
    }
    return;
  }
  const int units = layers + (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
  const std::string arithmetic = "layers" + std::string(p.embedding_in_split ? " + embedding" : "") +
                                 (p.loss_in_split ? " + loss" : "") + " = " + to_string(units);
  if (units % (p.pp * v) != 0)
    fail(s, key,
         arithmetic + " does not divide over pp x virtual_stages = " + to_string(p.pp) + " x " +
             to_string(v) + " = " + to_string(p.pp * v) + " model chunks",
         "Megatron-Core splits layers, embedding and loss evenly over the chunks; choose pp and "
         "virtual_stages dividing " +
             to_string(units));
  if (units / (p.pp * v) < 2 && p.embedding_in_split)
    fail(s, key,
         arithmetic + " over " + to_string(p.pp * v) + " chunks leaves the first chunk no transformer layer",
         "use fewer model chunks");
  if (units / (p.pp * v) < 2 && p.loss_in_split)
    fail(s, key,
         arithmetic + " over " + to_string(p.pp * v) + " chunks leaves the last chunk no transformer layer",
         "use fewer model chunks");
}

void check_model_split(const Scenario& s) {
  const work::ModelSpec& m = s.job.model;
  const work::ParallelSpec& p = s.job.parallel;
  if (m.heads % p.tp != 0)
    fail(s, "parallelism.tp",
         "heads = " + to_string(m.heads) + " is not divisible by tp = " + to_string(p.tp),
         "tensor parallelism splits attention heads evenly; choose tp dividing " + to_string(m.heads));
  if (m.attention == work::AttentionKind::standard && m.kv_heads % p.tp != 0)
    fail(s, "parallelism.tp",
         "kv_heads = " + to_string(m.kv_heads) + " is not divisible by tp = " + to_string(p.tp),
         "each tensor-parallel rank needs whole KV-head groups; choose tp dividing " + to_string(m.kv_heads));
  if (p.uneven_split()) {
    check_uneven_stages(s);
    return;
  }
  const int chunks = p.pp * p.virtual_stages;
  if (m.layers % chunks != 0)
    fail(s, "parallelism.pp",
         "layers = " + to_string(m.layers) + " is not divisible by pp x virtual_stages = " + to_string(p.pp) +
             " x " + to_string(p.virtual_stages) + " = " + to_string(chunks),
         "every pipeline chunk must hold the same number of layers, or set first_stage_layers / "
         "last_stage_layers, or account_for_embedding/loss_in_pipeline_split");
}

void check_moe_layout(const Scenario& s) {
  const work::ModelSpec& m = s.job.model;
  const work::ParallelSpec& p = s.job.parallel;
  if (!m.is_moe()) {
    const std::string problem = "applies to mixture-of-experts models, but `" + m.id + "` has no experts";
    const std::string hint = "remove it, or set experts in [model]";
    if (given(s, "moe")) fail(s, "moe", problem, hint);
    if (p.ep > 1) fail(s, "parallelism.ep", problem, hint);
    if (p.expert_tp > 1) fail(s, "parallelism.expert_tp", problem, hint);
    return;
  }
  if (m.experts % p.ep != 0)
    fail(s, "parallelism.ep",
         "experts = " + to_string(m.experts) + " is not divisible by ep = " + to_string(p.ep),
         "each expert-parallel rank holds experts / ep whole experts");
  const int dense_ranks = p.tp * p.dp * p.cp;
  if (dense_ranks % (p.ep * p.expert_tp) != 0)
    fail(s, given(s, "parallelism.expert_tp") ? "parallelism.expert_tp" : "parallelism.ep",
         "ep x expert_tp = " + to_string(p.ep) + " x " + to_string(p.expert_tp) +
             " does not divide tp x dp x cp = " + to_string(dense_ranks),
         "Megatron-Core divides each pipeline stage's tp x cp x dp ranks into expert_tp x ep x expert_dp");
}

void check_workload_keys(const Scenario& s) {
  using K = work::WorkloadKind;
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
      {"workload.batch", kind != K::train && kind != K::serve,
       kind == K::serve ? "serving takes its requests and max_batch from [serving]"
                        : "training uses global_batch and micro_batch"},
      {"workload.context", kind == K::decode, "context is the KV-cache length of decode"},
      {"workload.seq_len", kind == K::train || kind == K::prefill,
       kind == K::generate ? "generate uses `input_len` (each prompt's tokens)"
                           : "decode uses `context` (tokens already cached)"},
      {"workload.input_len", kind == K::generate, "input_len is a generation's prompt length; use seq_len"},
      {"workload.output_len", kind == K::generate, "output_len belongs to kind = \"generate\""},
      {"workload.decode_attention", kind == K::decode || kind == K::generate || kind == K::serve,
       "decode_attention is the decode attention kernel's cache access"},
  };
  for (const Rule& r : rules)
    if (!r.allowed && given(s, r.key))
      fail(s, r.key, "does not apply to kind = \"" + kind_name + "\"", std::string(r.use));
  if (kind == K::train && given(s, "workload.recompute_modules") &&
      s.job.recompute != work::Recompute::selective)
    fail(s, "workload.recompute_modules",
         "applies only with recompute = \"selective\" (recompute is \"" +
             std::string(work::name(s.job.recompute)) + "\")",
         "set recompute = \"selective\", or remove recompute_modules");
  const auto& rc = s.job.recompute_modules;
  if (rc.mla_up_proj && s.job.model.attention != work::AttentionKind::mla)
    fail(s, "workload.recompute_modules", "lists mla_up_proj, but the model's attention is not MLA",
         "mla_up_proj applies to DeepSeek-style latent attention");
  if (rc.moe_act && !s.job.model.is_moe())
    fail(s, "workload.recompute_modules", "lists moe_act, but the model has no experts",
         "moe_act applies to MoE layers");
  if (kind == K::train && !given(s, "workload.global_batch"))
    fail(s, "workload", "kind = \"train\" needs `global_batch` (sequences per optimizer step)",
         "e.g. global_batch = 1024");
  if (s.job.model.parallel_block) {
    if (kind == K::train)
      fail(s, "model.parallel_block", "parallel attention and MLP blocks are simulated for inference only",
           "use kind = \"prefill\", \"decode\", \"generate\" or \"serve\", or parallel_block = false");
    if (s.job.model.is_moe() || s.job.model.attention == work::AttentionKind::mla)
      fail(s, "model.parallel_block", "applies to dense models with standard attention (GPT-J, Falcon)",
           "set parallel_block = false");
  }
  if (kind == K::serve && !s.serve)
    fail(s, "workload", "kind = \"serve\" needs a [serving] table (the requests and the engine's limits)",
         "e.g. [serving] rate_per_s = 10, input_len = 2048, output_len = 256, max_batch = 128");
  if (kind != K::serve && s.serve)
    fail(s, "serving", "describes a serving run, but workload.kind = \"" + kind_name + "\"",
         "set workload.kind = \"serve\", or remove [serving]");
  if (s.serve && s.serve->config.max_num_tokens < s.serve->config.max_batch)
    fail(s, given(s, "serving.max_num_tokens") ? "serving.max_num_tokens" : "serving.max_batch",
         "max_num_tokens = " + to_string(s.serve->config.max_num_tokens) +
             " is below max_batch = " + to_string(s.serve->config.max_batch),
         "an iteration must fit one decode token for every request in the batch (vLLM's own rule)");
  if (s.serve && s.serve->prefill_replicas >= s.job.parallel.dp)
    fail(s, "serving.prefill_replicas",
         "leaves no decode replica: " + to_string(s.serve->prefill_replicas) +
             " of dp = " + to_string(s.job.parallel.dp) + " replicas would prefill",
         "use at most dp - 1 prefill replicas, or more GPUs");
  if (kind == K::serve && s.job.parallel.cp > 1)
    fail(s, "parallelism.cp", "serving's decode steps do not run with context parallelism", "set cp = 1");
  if (kind == K::generate) {
    for (const char* key : {"input_len", "output_len"})
      if (!given(s, std::string("workload.") + key))
        fail(s, "workload",
             std::string("kind = \"generate\" needs `") + key +
                 "` (each prompt's tokens, and the tokens each sequence generates)",
             "e.g. input_len = 2048 and output_len = 128");
    if (s.job.parallel.cp > 1)
      fail(s, "parallelism.cp", "a generation's decode steps do not run with context parallelism",
           "set cp = 1");
  }
  if ((kind == K::train || kind == K::prefill) && !given(s, "workload.seq_len"))
    fail(s, "workload", "kind = \"" + kind_name + "\" needs `seq_len` (tokens per sequence)",
         "e.g. seq_len = 4096");
  if (kind == K::decode && !given(s, "workload.context"))
    fail(s, "workload", "kind = \"decode\" needs `context` (tokens already in each sequence's KV cache)",
         "e.g. context = 4096");
}

void check_workload_split(const Scenario& s) {
  const work::WorkloadSpec& w = s.job.workload;
  const work::ParallelSpec& p = s.job.parallel;
  const work::ModelSpec& m = s.job.model;
  if (w.kind == work::WorkloadKind::train && w.global_batch % (w.micro_batch * p.dp) != 0)
    fail(s, "workload.global_batch",
         "global_batch = " + to_string(w.global_batch) + " is not divisible by micro_batch x dp = " +
             to_string(w.micro_batch) + " x " + to_string(p.dp) + " = " + to_string(w.micro_batch * p.dp),
         "every data-parallel rank runs a whole number of micro-batches");
  // The longest sequence the step sees: a generation's last decode step attends to its prompt and
  // every token but the last it generates.
  int tokens = w.kind == work::WorkloadKind::decode     ? w.context_len + 1
               : w.kind == work::WorkloadKind::generate ? w.seq_len + w.output_len - 1
                                                        : w.seq_len;
  std::string_view key = w.kind == work::WorkloadKind::decode     ? "workload.context"
                         : w.kind == work::WorkloadKind::generate ? "workload.output_len"
                                                                  : "workload.seq_len";
  if (w.kind == work::WorkloadKind::serve) {
    tokens = 0;
    for (const work::Request& r : s.serve->requests)
      tokens = std::max(tokens, r.input_len + r.output_len - 1);
    key = "serving";
  }
  const bool prompts = w.kind == work::WorkloadKind::train || w.kind == work::WorkloadKind::prefill;
  if (prompts && w.seq_len % p.cp != 0)
    fail(s, key, "seq_len = " + to_string(w.seq_len) + " is not divisible by cp = " + to_string(p.cp),
         "context parallelism splits each sequence evenly");
  if (p.cp > 1 && w.attention_impl != work::AttentionImpl::flash)
    fail(s, "workload.attention_impl",
         "context parallelism (cp = " + to_string(p.cp) + ") needs attention_impl = \"flash\"",
         "ring attention exchanges key/value blocks between fused attention kernels");
  if (prompts && p.sequence_parallel && w.seq_len % p.tp != 0)
    fail(s, key, "seq_len = " + to_string(w.seq_len) + " is not divisible by tp = " + to_string(p.tp),
         "sequence parallelism splits each sequence across the tensor-parallel ranks");
  if (m.position == work::PositionEmbedding::learned && tokens > m.max_positions)
    fail(
        s, key,
        to_string(tokens) + " tokens exceed the model's " + to_string(m.max_positions) + " learned positions",
        "raise max_positions in [model] or shorten the sequence");
}

/// Custom fabrics: every endpoint is gpuN (N < GPUs) or a listed switch, and every GPU has a link.
void check_custom_fabric(const Scenario& s) {
  const topo::FabricSpec& f = s.job.cluster.fabric;
  if (f.kind != topo::FabricKind::custom) return;
  const int total = s.job.cluster.total_gpus();
  std::set<int> connected;
  for (std::size_t i = 0; i < f.custom_links.size(); ++i) {
    for (const std::string* end : {&f.custom_links[i].a, &f.custom_links[i].b}) {
      const std::string key =
          "fabric.link[" + to_string(i) + "]." + (end == &f.custom_links[i].a ? "a" : "b");
      if (end->rfind("gpu", 0) == 0 && end->size() > 3 &&
          end->find_first_not_of("0123456789", 3) == std::string::npos) {
        const int g = std::stoi(end->substr(3));
        if (g >= total)
          fail(s, key, "`" + *end + "` is beyond the cluster's " + to_string(total) + " GPUs",
               "GPUs are gpu0 .. gpu" + to_string(total - 1));
        connected.insert(g);
      } else if (std::find(f.custom_switches.begin(), f.custom_switches.end(), *end) ==
                 f.custom_switches.end()) {
        const std::string hint = did_you_mean(*end, f.custom_switches);
        fail(s, key, "`" + *end + "` is neither gpuN nor a switch listed in `switches`",
             hint.empty() ? "add it to fabric.switches" : hint);
      }
    }
  }
  for (int g = 0; g < total; ++g)
    if (connected.count(g) == 0)
      fail(s, "fabric.link", "gpu" + to_string(g) + " has no link",
           "every GPU needs at least one [[fabric.link]]");
}

}  // namespace

void resolve_and_check(Scenario& s) {
  resolve_precision(s);
  resolve_recipe(s);
  resolve_nvlink_domain(s);
  resolve_schedule(s);
  resolve_dp(s);
  resolve_sharding(s);
  check_model_split(s);
  check_moe_layout(s);
  check_workload_keys(s);
  check_workload_split(s);
  check_custom_fabric(s);
}

}  // namespace stepsim::scen::detail
