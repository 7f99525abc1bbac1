// Cross-field rules of the parallel layout: the rank grid against the cluster, how the model's
// heads and layers split, pipeline schedules and ZeRO-3 / FSDP sharding. Messages show the
// arithmetic so the user sees why a layout does not fit.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "scenarios/cross_checks_rules.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::scen::detail {
namespace cross_checks_parallel {

using std::to_string;

/// Options of sharded weights, each with the value it has unless given.
bool sharding_options_set(const work::ParallelSpec& p) {
  return p.shard_group > 0 || !p.reshard_after_forward || p.prefetch_layers != 1 || p.defer_grad_sync;
}

/// HSDP's shard group divides the dp x cp ranks holding the same weights.
void check_shard_group(const work::ParallelSpec& p) {
  const int group = p.dp * p.cp;
  if (p.shard_group > 0 && group % p.shard_group != 0)
    refuse("parallelism.shard_group",
           "is " + to_string(p.shard_group) + ", which does not divide the dp x cp = " + to_string(group) +
               " ranks holding the same weights",
           "choose a divisor of " + to_string(group) + " (the ranks of one node, e.g.)");
}

void check_sharding(const work::ParallelSpec& p) {
  if (p.zero_stage != 3 && sharding_options_set(p))
    refuse(
        p.shard_group > 0 ? "parallelism.shard_group" : "parallelism.zero_stage",
        "sharded-weight options (shard_group, reshard_after_forward, prefetch_layers, defer_grad_sync) apply "
        "to ZeRO-3 / FSDP, but "
        "zero_stage = " +
            to_string(p.zero_stage),
        "set zero_stage = 3 or fsdp = \"full_shard\", or remove them");
  if (p.zero_stage == 3) check_shard_group(p);
}

void check_overlaps(const work::JobSpec& job) {
  const work::ParallelSpec& p = job.parallel;
  if (p.overlap_param_gather && (p.zero_stage < 1 || p.zero_stage > 2))
    refuse("parallelism.overlap_param_gather",
           "overlaps the distributed optimizer's weight all-gather, which ZeRO-" + to_string(p.zero_stage) +
               " does not have",
           p.zero_stage == 0 ? "set zero_stage = 1 (Megatron's distributed optimizer)"
                             : "ZeRO-3 gathers each layer before use already");
  // Megatron-Core asserts it: the overlapped TP collectives are the all-gather and reduce-scatter of
  // sequence parallelism (with TP 1 there is nothing to overlap and NeMo drops the flag).
  if (p.tp_comm_overlap != work::TpCommOverlap::off && p.tp > 1 && !p.sequence_parallel &&
      job.workload.kind == work::WorkloadKind::train)
    refuse("parallelism.tp_comm_overlap",
           "overlaps sequence parallelism's all-gathers and reduce-scatters, but sequence_parallel is off",
           "set sequence_parallel = true, or tp_comm_overlap = false");
}

/// Model chunks and their schedule: interleaving needs a pipeline, the interleaved schedule, and
/// (Megatron-Core asserts it) micro-batches per pipeline in multiples of pp; inference runs one
/// chunk per stage.
void check_schedule(const work::JobSpec& job) {
  const work::ParallelSpec& p = job.parallel;
  const work::WorkloadSpec& w = job.workload;
  if (p.virtual_stages > 1 && p.pp < 2)
    refuse("parallelism.virtual_stages", "is " + to_string(p.virtual_stages) + " but pp = " + to_string(p.pp),
           "interleaved model chunks need pipeline parallelism (pp > 1); set virtual_stages = 1");
  const bool interleaved = p.schedule == work::PipelineSchedule::interleaved;
  const bool vshape = p.schedule == work::PipelineSchedule::dualpipev;
  if (interleaved && p.virtual_stages < 2)
    refuse("parallelism.schedule", "\"interleaved\" needs virtual_stages > 1",
           "set virtual_stages (model chunks per pipeline rank), or schedule = \"1f1b\"");
  if (vshape && p.virtual_stages != 2)
    refuse(
        "parallelism.virtual_stages",
        "is " + to_string(p.virtual_stages) + ", but \"dualpipev\" runs the two halves of a V on each rank",
        "set virtual_stages = 2, or leave it out");
  if (!interleaved && !vshape && p.virtual_stages > 1)
    refuse("parallelism.schedule",
           "\"" + std::string(work::name(p.schedule)) +
               "\" cannot run virtual_stages = " + to_string(p.virtual_stages),
           "use schedule = \"interleaved\", or virtual_stages = 1");
  if (p.virtual_stages > 1 && w.kind != work::WorkloadKind::train)
    refuse("parallelism.virtual_stages",
           "is " + to_string(p.virtual_stages) + ", but inference runs one model chunk per pipeline stage",
           "set virtual_stages = 1 for kind = \"" + std::string(work::name(w.kind)) + "\"");
  const int per_step = w.micro_batch * p.dp;
  if (work::is_dualpipe(p.schedule)) {
    // deepseek-ai/DualPipe asserts at least 2 chunks per rank; DualPipe also an even number of
    // ranks and of chunks (half enter at each end).
    const std::string name = "\"" + std::string(work::name(p.schedule)) + "\"";
    if (w.kind != work::WorkloadKind::train)
      refuse("parallelism.schedule", name + " schedules training steps",
             "remove parallelism.schedule for kind = \"" + std::string(work::name(w.kind)) + "\"");
    if (p.pp < 2 || (!vshape && p.pp % 2 != 0))
      refuse("parallelism.schedule",
             name + " needs " + (vshape ? "pp of at least 2" : "an even pp of at least 2") +
                 ", and pp = " + to_string(p.pp),
             vshape ? "set pp >= 2" : "DualPipe pairs rank r with rank pp - 1 - r; set an even pp");
    if (p.zero_stage >= 3)
      refuse("parallelism.schedule", name + " with zero_stage = 3 is not modelled",
             "DeepSeek-V3 ran DualPipe with ZeRO-1; set zero_stage to 1 or 2");
    if (vshape &&
        (p.first_stage_layers > 0 || p.last_stage_layers > 0 || p.embedding_in_split || p.loss_in_split))
      refuse("parallelism.schedule", name + " with uneven stage sizes is not modelled",
             "the V splits the layers evenly over 2 x pp chunks; remove first_stage_layers, "
             "last_stage_layers and the account_for_* flags");
    if (per_step >= 1 && w.global_batch % per_step == 0) {
      const int micro_batches = w.global_batch / per_step;
      if ((!vshape && micro_batches % 2 != 0) || micro_batches < 2 * p.pp)
        refuse("parallelism.schedule",
               name + " needs " + (vshape ? "" : "an even number of ") +
                   "micro-batches per pipeline, at least 2 x pp = " + to_string(2 * p.pp) +
                   "; global_batch / (micro_batch x dp) = " + to_string(w.global_batch) + " / (" +
                   to_string(w.micro_batch) + " x " + to_string(p.dp) + ") = " + to_string(micro_batches),
               std::string(vshape ? "every micro-batch runs down the ranks and back"
                                  : "half the micro-batches enter at each end of the pipeline") +
                   "; change global_batch, micro_batch or dp");
    }
  }
  if (w.local_batch > 0 && w.kind != work::WorkloadKind::train)
    refuse("workload.local_batch", "applies to training steps",
           "remove local_batch for kind = \"" + std::string(work::name(w.kind)) + "\"");
  if (w.local_batch > 0 && work::is_dualpipe(p.schedule))
    refuse("workload.local_batch",
           "(separate pipeline schedules per step) is not modelled with the \"" +
               std::string(work::name(p.schedule)) + "\" schedule",
           "remove local_batch: DualPipe runs every micro-batch of the step in one schedule");
  // PipelineScheduleMulti's time-step table is what the lock-step runtime walks: the multi-chunk
  // schedules (Interleaved1F1B); Schedule1F1B and GPipe (one chunk per rank) run
  // PipelineScheduleSingle, whose sends are waited for only before the next send.
  if (p.pp_p2p == work::P2pMode::lockstep && (!interleaved || p.ep_overlap))
    refuse("parallelism.pp_p2p",
           "\"lockstep\" (torch.distributed.pipelining's PipelineScheduleMulti up to PyTorch 2.8) runs "
           "interleaved schedules" +
               std::string(p.ep_overlap ? " without overlapped forward-backward pairs (ep_overlap)" : "") +
               ", and this job runs \"" + std::string(work::name(p.schedule)) + "\"" +
               (p.ep_overlap ? " with ep_overlap" : ""),
           interleaved ? "remove ep_overlap, or set pp_p2p = \"overlapped\""
                       : "set virtual_stages > 1 (model chunks per rank), or pp_p2p = \"overlapped\" for "
                         "one chunk per rank");
  if (w.kind != work::WorkloadKind::train || per_step < 1 || w.global_batch % per_step != 0)
    return;  // an uneven batch is refused with the workload's rules
  if (w.local_batch > 0 &&
      (w.local_batch % w.micro_batch != 0 || w.global_batch % (w.local_batch * p.dp) != 0))
    refuse("workload.local_batch",
           "= " + to_string(w.local_batch) +
               " must be a multiple of micro_batch = " + to_string(w.micro_batch) +
               " and, times dp = " + to_string(p.dp) + ", divide global_batch = " + to_string(w.global_batch),
           "each pipeline schedule runs local_batch / micro_batch micro-batches on every data-parallel "
           "rank, and the step runs global_batch / (dp x local_batch) schedules");
  if (!interleaved || p.virtual_stages < 2) return;
  const int flushes = job.pipeline_flushes();
  const int micro_batches = w.global_batch / per_step / flushes;
  if (micro_batches % p.pp != 0)
    refuse(
        "parallelism.virtual_stages",
        flushes > 1
            ? "the interleaved schedule needs the micro-batches of each schedule, local_batch / "
              "micro_batch = " +
                  to_string(w.local_batch) + " / " + to_string(w.micro_batch) + " = " +
                  to_string(micro_batches) + ", to be a multiple of pp = " + to_string(p.pp)
            : "the interleaved schedule needs the micro-batches per pipeline, global_batch / "
              "(micro_batch x dp) = " +
                  to_string(w.global_batch) + " / (" + to_string(w.micro_batch) + " x " + to_string(p.dp) +
                  ") = " + to_string(micro_batches) + ", to be a multiple of pp = " + to_string(p.pp),
        "Megatron-Core and torch.distributed.pipelining require it; change global_batch, micro_batch or dp, "
        "or set virtual_stages = 1");
}

/// first_stage_layers / last_stage_layers: the ends take their counts, the other stages split the
/// remaining layers evenly; or the embedding and loss count as layers of an even split. Each
/// stage's share then splits evenly over its virtual_stages chunks (Megatron-Core's
/// get_num_layers_to_build), and every chunk keeps at least one transformer layer.
void check_uneven_ends(const work::ParallelSpec& p, int layers, std::string_view key) {
  const int rest = layers - p.first_stage_layers - p.last_stage_layers;
  const int others = p.pp - (p.first_stage_layers > 0 ? 1 : 0) - (p.last_stage_layers > 0 ? 1 : 0);
  const std::string arithmetic = "layers - first_stage_layers - last_stage_layers = " + to_string(layers) +
                                 " - " + to_string(p.first_stage_layers) + " - " +
                                 to_string(p.last_stage_layers) + " = " + to_string(rest);
  if (others == 0 ? rest != 0 : (rest < others || rest % others != 0))
    refuse(
        key,
        arithmetic + (others == 0 ? ", but no other stage is left to hold them"
                                  : ", which the other " + to_string(others) + " stages cannot share evenly"),
        "choose end-stage sizes that leave a whole number of layers per stage");
  for (int stage = 0; stage < p.pp; ++stage) {
    const int n = p.stage_slots(stage, layers);
    if (n % p.virtual_stages != 0)
      refuse(key,
             "stage " + to_string(stage) + " holds " + to_string(n) + " layers, which its virtual_stages = " +
                 to_string(p.virtual_stages) + " model chunks cannot share evenly",
             "choose stage sizes divisible by virtual_stages");
  }
}

void check_embedding_slots(const work::ParallelSpec& p, int layers, std::string_view key) {
  const int v = p.virtual_stages;
  const int units = layers + (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
  const std::string arithmetic = "layers" + std::string(p.embedding_in_split ? " + embedding" : "") +
                                 (p.loss_in_split ? " + loss" : "") + " = " + to_string(units);
  if (units % (p.pp * v) != 0)
    refuse(key,
           arithmetic + " does not divide over pp x virtual_stages = " + to_string(p.pp) + " x " +
               to_string(v) + " = " + to_string(p.pp * v) + " model chunks",
           "Megatron-Core splits layers, embedding and loss evenly over the chunks; choose pp and "
           "virtual_stages dividing " +
               to_string(units));
  if (units / (p.pp * v) < 2 && p.embedding_in_split)
    refuse(
        key,
        arithmetic + " over " + to_string(p.pp * v) + " chunks leaves the first chunk no transformer layer",
        "use fewer model chunks");
  if (units / (p.pp * v) < 2 && p.loss_in_split)
    refuse(key,
           arithmetic + " over " + to_string(p.pp * v) + " chunks leaves the last chunk no transformer layer",
           "use fewer model chunks");
}

/// pipeline_layers: one count per model chunk (pp x virtual_stages, virtual-stage order) summing to
/// the model's layers, alone (not with the other uneven-split keys) and not under DualPipe.
void check_chunk_layers(const work::ParallelSpec& p, int layers) {
  constexpr std::string_view key = "parallelism.pipeline_layers";
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0 || p.embedding_in_split || p.loss_in_split)
    refuse(key,
           "gives every model chunk's layers, so it cannot be combined with first_stage_layers, "
           "last_stage_layers or the account_for_*_in_pipeline_split flags",
           "keep pipeline_layers alone, or remove it");
  if (work::is_dualpipe(p.schedule))
    refuse(key, "is not modelled with the \"" + std::string(work::name(p.schedule)) + "\" schedule",
           "DualPipe splits the layers evenly; remove pipeline_layers");
  const int chunks = p.pp * p.virtual_stages;
  if (static_cast<int>(p.pipeline_layers.size()) != chunks)
    refuse(key,
           "lists " + to_string(static_cast<int>(p.pipeline_layers.size())) + " model chunks, but pp x " +
               "virtual_stages = " + to_string(p.pp) + " x " + to_string(p.virtual_stages) + " = " +
               to_string(chunks),
           "list one count per model chunk, in virtual-stage order (chunk x pp + pipeline rank)");
  int sum = 0;
  for (const int n : p.pipeline_layers) sum += n;
  if (sum != layers)
    refuse(key, "adds up to " + to_string(sum) + " layers, but the model has " + to_string(layers),
           "the chunks together hold every transformer layer once");
}

void check_uneven_stages(const work::ParallelSpec& p, int layers) {
  if (!p.pipeline_layers.empty()) {
    check_chunk_layers(p, layers);
    return;
  }
  const bool ends = p.first_stage_layers > 0 || p.last_stage_layers > 0;
  const std::string_view key = p.first_stage_layers > 0  ? "parallelism.first_stage_layers"
                               : p.last_stage_layers > 0 ? "parallelism.last_stage_layers"
                               : p.embedding_in_split ? "parallelism.account_for_embedding_in_pipeline_split"
                                                      : "parallelism.account_for_loss_in_pipeline_split";
  if (p.pp < 2) refuse(key, "needs pipeline parallelism (pp > 1), but pp = " + to_string(p.pp));
  if (ends && (p.embedding_in_split || p.loss_in_split))
    refuse(key, "cannot be combined with account_for_embedding/loss_in_pipeline_split",
           "Megatron-Core accepts one of the two: uneven end stages, or the embedding and loss counted as "
           "layers");
  if (ends)
    check_uneven_ends(p, layers, key);
  else
    check_embedding_slots(p, layers, key);
}

void check_model_split(const work::JobSpec& job) {
  const work::ModelSpec& m = job.model;
  const work::ParallelSpec& p = job.parallel;
  if (m.heads % p.tp != 0)
    refuse("parallelism.tp", "heads = " + to_string(m.heads) + " is not divisible by tp = " + to_string(p.tp),
           "tensor parallelism splits attention heads evenly; choose tp dividing " + to_string(m.heads));
  if (m.attention == work::AttentionKind::standard && m.kv_heads % p.tp != 0)
    refuse(
        "parallelism.tp",
        "kv_heads = " + to_string(m.kv_heads) + " is not divisible by tp = " + to_string(p.tp),
        "each tensor-parallel rank needs whole KV-head groups; choose tp dividing " + to_string(m.kv_heads));
  if (m.mamba_layers() > 0) {
    // Megatron-Core's MambaMixer splits heads and B/C groups over TP (asserts ngroups % tp == 0).
    if (m.mamba.heads % p.tp != 0 || m.mamba.groups % p.tp != 0)
      refuse("parallelism.tp",
             "the Mamba mixers' heads = " + to_string(m.mamba.heads) + " and groups = " +
                 to_string(m.mamba.groups) + " must both be divisible by tp = " + to_string(p.tp),
             "tensor parallelism gives each rank whole SSM heads and whole B/C groups; choose tp dividing " +
                 to_string(std::gcd(m.mamba.heads, m.mamba.groups)));
  }
  if (m.gated_delta_layers() > 0 &&
      (m.gated_delta.key_heads % p.tp != 0 || m.gated_delta.value_heads % p.tp != 0))
    refuse("parallelism.tp",
           "the Gated DeltaNet mixers' key_heads = " + to_string(m.gated_delta.key_heads) +
               " and value_heads = " + to_string(m.gated_delta.value_heads) +
               " must both be divisible by tp = " + to_string(p.tp),
           "tensor parallelism gives each rank whole key and value heads; choose tp dividing " +
               to_string(std::gcd(m.gated_delta.key_heads, m.gated_delta.value_heads)));
  if (m.state_layers() > 0 && p.cp > 1)
    refuse("parallelism.cp",
           "context parallelism is not modelled for Mamba or Gated DeltaNet layers (cp = " + to_string(p.cp) +
               ")",
           "their scans carry a state along the whole sequence; use cp = 1 for hybrid models");
  if (p.uneven_split()) {
    check_uneven_stages(p, m.layers);
    return;
  }
  const int chunks = p.pp * p.virtual_stages;
  if (m.layers % chunks != 0)
    refuse(
        "parallelism.pp",
        "layers = " + to_string(m.layers) + " is not divisible by pp x virtual_stages = " + to_string(p.pp) +
            " x " + to_string(p.virtual_stages) + " = " + to_string(chunks),
        "every pipeline chunk must hold the same number of layers, or set first_stage_layers / "
        "last_stage_layers, or account_for_embedding/loss_in_pipeline_split, or give every chunk's layers in "
        "pipeline_layers");
}

}  // namespace cross_checks_parallel

/// The schedule, where not given: interleaved with virtual stages, else 1F1B.
void resolve_schedule(Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  if (!given(s, "parallelism.schedule"))
    p.schedule =
        p.virtual_stages > 1 ? work::PipelineSchedule::interleaved : work::PipelineSchedule::one_f_one_b;
  // DualPipeV's V: two model chunks per rank.
  if (p.schedule == work::PipelineSchedule::dualpipev && !given(s, "parallelism.virtual_stages"))
    p.virtual_stages = 2;
}

void resolve_dp(Scenario& s) {
  using std::to_string;
  work::ParallelSpec& p = s.job.parallel;
  const topo::ClusterSpec& c = s.job.cluster;
  const int world = c.total_gpus();
  const std::string cluster =
      to_string(c.nodes) + " nodes x " + to_string(c.gpus_per_node) + " = " + to_string(world) + " GPUs";
  const int tpc = p.tp * p.pp * p.cp;
  if (!given(s, "parallelism.dp")) {
    if (world % tpc != 0)
      refuse(
          "parallelism",
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
  refuse("parallelism.dp",
         "tp x pp x dp x cp = " + to_string(p.tp) + " x " + to_string(p.pp) + " x " + to_string(p.dp) +
             " x " + to_string(p.cp) + " = " + to_string(p.world()) + ", but the cluster has " + cluster,
         hint);
}

/// ZeRO-3 / FSDP options: only with zero_stage = 3; HSDP's shard group (FSDP1's HYBRID_SHARD
/// shards inside a node by default); DeepSpeed's prefetch bucket and live-parameter limit as whole
/// layers of prefetch (its per-rank layer size counted with the model's parameters).
void resolve_sharding(Scenario& s) {
  using std::to_string;
  work::ParallelSpec& p = s.job.parallel;
  const char* keys[] = {"parallelism.reshard_after_forward", "parallelism.shard_group",
                        "parallelism.prefetch_layers", "parallelism.prefetch_bucket_mparams",
                        "parallelism.max_live_mparams"};
  if (p.zero_stage != 3) {
    for (const char* k : keys)
      if (given(s, k))
        refuse(k, "applies to sharded weights (ZeRO-3 / FSDP), but zero_stage = " + to_string(p.zero_stage),
               "set zero_stage = 3 or fsdp = \"full_shard\", or remove it");
    return;
  }
  const int group = p.dp * p.cp;
  if (s.fsdp_hybrid && p.shard_group == 0) {
    const int per_node = p.tp < s.job.cluster.gpus_per_node ? s.job.cluster.gpus_per_node / p.tp : 1;
    if (group % per_node != 0 || per_node < 1)
      refuse("parallelism.fsdp",
             "hybrid sharding shards inside a node by default, but a node's " + to_string(per_node) +
                 " data-parallel ranks do not divide dp x cp = " + to_string(group),
             "set shard_group to a divisor of " + to_string(group));
    p.shard_group = per_node;
  }
  cross_checks_parallel::check_shard_group(p);
  if (p.shard_group >= group) p.shard_group = 0;  // one group of all: plain FULL_SHARD
  if (s.prefetch_bucket_params > 0.0 || s.max_live_params > 0.0) {
    if (given(s, "parallelism.prefetch_layers"))
      refuse("parallelism.prefetch_layers",
             "cannot be combined with prefetch_bucket_mparams / max_live_mparams",
             "give the prefetch in layers, or DeepSpeed's limits, not both");
    const work::ParamBreakdown b = work::count_params(s.job.model);
    const double layer = (b.total - b.embedding - b.lm_head - b.position - b.mtp) / s.job.model.layers / p.tp;
    double depth = s.prefetch_bucket_params > 0.0 ? std::floor(s.prefetch_bucket_params / layer) : 1.0;
    if (s.max_live_params > 0.0) depth = std::min(depth, std::floor(s.max_live_params / layer) - 1.0);
    p.prefetch_layers = static_cast<int>(std::clamp(depth, 0.0, 16.0));
  }
}

void check_parallel_rules(const work::JobSpec& job) {
  cross_checks_parallel::check_overlaps(job);
  cross_checks_parallel::check_schedule(job);
  cross_checks_parallel::check_sharding(job.parallel);
  cross_checks_parallel::check_model_split(job);
}

}  // namespace stepsim::scen::detail
