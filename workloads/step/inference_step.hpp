#pragma once
// Builds the step graph of one inference step on every model replica:
//
//  - prefill: `batch` prompts of seq_len tokens go through every layer once (causal FlashAttention,
//    the GEMMs at full token count), each layer writes the prompts' keys and values to the KV cache,
//    and the last stage turns each prompt's last position into logits and a sampled token. Its step
//    time is the time to first token.
//  - decode: one new token for each of `batch` sequences whose caches hold `context` tokens. Every
//    weight shard is streamed once per step (dense layers, and the experts the batch touches), every
//    sequence's cache is read by attention, the new keys and values are appended.
//
// Both use the same layer emitters as training (dense, MoE with its all-to-alls, MLA), tensor-
// parallel all-reduces inside layers and pipeline sends between stages; the whole batch travels the
// pipeline as one micro-batch, so a step is one token's latency (decode) or the prompt's (prefill).

#include "workloads/layout/comm_planner.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

struct InferenceStepOptions {
  RankMode ranks = RankMode::representative;
};

/// Builds the prefill or decode step of `job` (kind prefill or decode). Throws UserError for layouts
/// it cannot build.
StepPlan build_inference_step(const JobSpec& job, CommPlanner& planner,
                              const InferenceStepOptions& options = {});

}  // namespace stepsim::work
