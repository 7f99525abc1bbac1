// Cross-field rules of mixture-of-experts jobs: how experts spread over the ranks, the routing
// skew a token can produce, and the Megatron-Core features that need one another.
#include <cstdio>
#include <string>

#include "scenarios/cross_checks_rules.hpp"

namespace stepsim::scen::detail {
namespace cross_checks_moe {

using std::to_string;

/// 4, 1.5, 0.333333: a ratio as a user writes it.
std::string ratio_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

void check_dense(const work::JobSpec& job) {
  const work::ParallelSpec& p = job.parallel;
  const std::string problem =
      "applies to mixture-of-experts models, but `" + job.model.id + "` has no experts";
  const std::string hint = "remove it, or set experts in [model]";
  if (p.ep > 1) refuse("parallelism.ep", problem, hint);
  if (p.expert_tp > 1) refuse("parallelism.expert_tp", problem, hint);
  if (p.ep_overlap)
    refuse("parallelism.ep_overlap", "overlaps expert-parallel all-to-alls, but this job has none",
           "it needs an MoE model with parallelism.ep > 1; set ep_overlap = false");
}

void check_expert_layout(const work::JobSpec& job) {
  const work::ModelSpec& m = job.model;
  const work::ParallelSpec& p = job.parallel;
  if (m.experts % p.ep != 0)
    refuse("parallelism.ep",
           "experts = " + to_string(m.experts) + " is not divisible by ep = " + to_string(p.ep),
           "each expert-parallel rank holds experts / ep whole experts");
  const int dense_ranks = p.tp * p.dp * p.cp;
  if (dense_ranks % (p.ep * p.expert_tp) != 0)
    refuse(p.expert_tp > 1 ? "parallelism.expert_tp" : "parallelism.ep",
           "ep x expert_tp = " + to_string(p.ep) + " x " + to_string(p.expert_tp) +
               " does not divide tp x dp x cp = " + to_string(dense_ranks),
           "Megatron-Core divides each pipeline stage's tp x cp x dp ranks into expert_tp x ep x expert_dp");
  // Megatron-Core asserts it: with TP, each rank routes its own shard of the sequence.
  if (job.workload.kind == work::WorkloadKind::train && p.tp > 1 && !p.sequence_parallel)
    refuse("parallelism.tp",
           "MoE training with tp = " + to_string(p.tp) +
               " needs sequence parallelism (Megatron-Core requires it: each TP rank routes its own sequence "
               "shard)",
           "set parallelism.sequence_parallel = true, or tp = 1");
}

/// The busiest expert receives `imbalance` times the mean load, and a token reaches an expert at
/// most once: one expert can take every token, experts / top_k times the mean.
void check_imbalance(const work::JobSpec& job) {
  const work::ModelSpec& m = job.model;
  const double most = double(m.experts) / m.top_k;
  if (job.moe.imbalance > most * (1.0 + 1e-9))
    refuse("moe.imbalance",
           "is " + ratio_text(job.moe.imbalance) + ", above experts / top_k = " + to_string(m.experts) +
               " / " + to_string(m.top_k) + " = " + ratio_text(most) +
               ": a token reaches an expert at most once, so the busiest expert takes at most every token",
           "the max / mean expert load lies between 1 (balanced) and experts / top_k");
}

/// round_robin routing is a balanced gate's fixed pattern: it has no hot experts.
void check_routing(const work::JobSpec& job) {
  if (job.moe.routing == work::MoeRouting::round_robin && job.moe.imbalance != 1.0)
    refuse("moe.routing",
           "\"round_robin\" is a balanced gate (every expert gets T k / E copies), but moe.imbalance = " +
               ratio_text(job.moe.imbalance),
           "set imbalance = 1, or routing = \"random\" for an imbalanced router");
  if (job.moe.routing == work::MoeRouting::round_robin && job.moe.capacity_factor > 0.0 &&
      job.moe.capacity_factor < 1.0)
    refuse("moe.routing",
           "\"round_robin\" gives every expert exactly its balanced share, which capacity_factor = " +
               ratio_text(job.moe.capacity_factor) + " would cut",
           "set capacity_factor to 0 (dropless) or at least 1 with round_robin routing");
}

/// Megatron-Core's combined 1F1B refuses these (moe_a2a_overlap.html): there must be all-to-alls
/// to hide, full recomputation re-runs the forward inside the backward, and the shared-expert
/// overlap uses the streams the pair needs.
void check_overlaps(const work::JobSpec& job) {
  const work::ParallelSpec& p = job.parallel;
  if (job.moe.fp8_dispatch && !job.precision.low_precision_linears())
    refuse("moe.fp8_dispatch", "sends the experts' FP8 inputs, but the linear layers are not FP8",
           "set precision.compute = \"fp8\", or fp8_dispatch = false");
  if (!p.ep_overlap) return;
  if (p.ep < 2)
    refuse("parallelism.ep_overlap", "overlaps expert-parallel all-to-alls, but this job has none",
           "it needs an MoE model with parallelism.ep > 1; set ep_overlap = false");
  // Inference: the two-micro-batch overlap of serving engines (SGLang's two-batch overlap,
  // DeepSeek's inference system), one stage only.
  if (job.workload.kind != work::WorkloadKind::train) {
    if (p.pp > 1)
      refuse("parallelism.ep_overlap",
             "splits an inference batch in two halves that overlap each other's all-to-alls, which stepsim "
             "simulates on one pipeline stage only (pp = " +
                 std::to_string(p.pp) + ")",
             "set pp = 1, or ep_overlap = false");
    return;
  }
  if (!p.schedule_pairs_microbatches())
    refuse("parallelism.ep_overlap",
           "pairs a backward with a forward, which with pp = " + std::to_string(p.pp) +
               " only the interleaved schedule (Megatron-Core needs virtual pipeline stages for it) and "
               "DualPipe do",
           "set schedule = \"interleaved\" with virtual_stages >= 2, or schedule = \"dualpipe\", or "
           "ep_overlap = false");
  if (job.recompute == work::Recompute::full)
    refuse("parallelism.ep_overlap", "cannot run with full recomputation (Megatron-Core refuses it)",
           "use workload.recompute = \"selective\", or ep_overlap = false");
  if (job.moe.shared_expert_overlap)
    refuse("parallelism.ep_overlap", "and moe.shared_expert_overlap cannot both be on (Megatron-Core)",
           "set moe.shared_expert_overlap = false: the pair overlaps the shared experts too");
}

}  // namespace cross_checks_moe

/// An [moe] table on a dense model.
void check_moe_keys(const Scenario& s) {
  if (!s.job.model.is_moe() && given(s, "moe"))
    refuse("moe", "applies to mixture-of-experts models, but `" + s.job.model.id + "` has no experts",
           "remove it, or set experts in [model]");
}

void check_moe_rules(const work::JobSpec& job) {
  if (!job.model.is_moe()) {
    cross_checks_moe::check_dense(job);
    return;
  }
  cross_checks_moe::check_overlaps(job);
  cross_checks_moe::check_expert_layout(job);
  cross_checks_moe::check_imbalance(job);
  cross_checks_moe::check_routing(job);
}

}  // namespace stepsim::scen::detail
