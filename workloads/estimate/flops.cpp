// The shape of one step and the FLOPs each token costs.
#include <algorithm>
#include <cmath>
#include <string>

#include "sim/error.hpp"
#include "workloads/estimate/estimate_parts.hpp"
#include "workloads/model/attention_backend.hpp"
#include "workloads/model/attention_window.hpp"

namespace stepsim::work {

namespace {

void require_positive(int value, const char* key) {
  if (value < 1) throw UserError(std::string(key) + " must be at least 1, got " + std::to_string(value));
}

}  // namespace

StepShape step_shape(const JobSpec& job) {
  const WorkloadSpec& w = job.workload;
  const ParallelSpec& par = job.parallel;
  for (auto [v, key] : {std::pair{par.dp, "parallelism.dp"},
                        {par.tp, "parallelism.tp"},
                        {par.pp, "parallelism.pp"},
                        {par.cp, "parallelism.cp"},
                        {par.virtual_stages, "parallelism.virtual_stages"}})
    require_positive(v, key);
  require_positive(job.model.layers, "model.layers");
  StepShape s;
  s.kind = w.kind;
  s.world = par.world();
  int fullest = 0;
  for (int stage = 0; stage < par.pp; ++stage)
    fullest = std::max(fullest, par.stage_layers(stage, job.model.layers));
  s.layers_per_stage = fullest;
  s.moe_layers_per_stage = double(fullest) * job.model.moe_layers() / job.model.layers;
  s.stage_imbalance = double(fullest) * par.pp / job.model.layers;
  switch (w.kind) {
    case WorkloadKind::train:
      require_positive(w.seq_len, "workload.seq_len");
      require_positive(w.micro_batch, "workload.micro_batch");
      if (w.global_batch < par.dp * w.micro_batch)
        throw UserError("workload.global_batch = " + std::to_string(w.global_batch) +
                        " gives some data-parallel rank no micro-batch: it must be at least dp x "
                        "micro_batch = " +
                        std::to_string(par.dp * w.micro_batch));
      s.seq_len = w.seq_len;
      s.sequences_per_micro_batch = w.micro_batch;
      s.micro_batches = double(w.global_batch) / (double(par.dp) * w.micro_batch);
      s.tokens_per_step = double(w.global_batch) * w.seq_len;
      // Causal: query i sees i keys, s/2 on average; a local layer's window fewer (mean over layers).
      s.attended_keys = mean_causal_keys(job.model, w.seq_len, w.document_tokens);
      break;
    case WorkloadKind::prefill:
      require_positive(w.seq_len, "workload.seq_len");
      require_positive(w.batch, "workload.batch");
      s.seq_len = w.seq_len;
      s.sequences_per_micro_batch = w.batch;
      s.tokens_per_step = double(par.dp) * w.batch * w.seq_len;
      s.attended_keys = mean_causal_keys(job.model, w.seq_len, w.document_tokens);
      break;
    case WorkloadKind::serve:
      throw UserError("workload.kind = \"serve\": the closed-form estimate covers one step; estimate a decode "
                      "step (kind = \"decode\") at the batch and context you expect, or simulate the serving "
                      "run with `stepsim run`");
    case WorkloadKind::generate:
      throw UserError(
          "workload.kind = \"generate\": the closed-form estimate covers one step, not a whole generation; "
          "estimate its prefill (kind = \"prefill\") or a decode step (kind = \"decode\"), or simulate it "
          "with `stepsim run`");
    case WorkloadKind::decode:
      require_positive(w.batch, "workload.batch");
      require_positive(w.context_len, "workload.context");
      s.seq_len = 1.0;  // one new token per sequence per step
      s.sequences_per_micro_batch = w.batch;
      s.tokens_per_step = double(par.dp) * w.batch;
      s.attended_keys = mean_attended_keys_at(job.model, w.context_len);
      break;
  }
  s.tokens_per_micro_batch = s.sequences_per_micro_batch * s.seq_len;
  s.tokens_per_gpu = s.tokens_per_step / s.world;
  return s;
}

FlopsPerToken flops_per_token(const JobSpec& job, const ParamShares& params, const StepShape& shape) {
  const ModelSpec& m = job.model;
  const HeadDims d = attention_head_dims(m);
  FlopsPerToken f;
  f.matmul_forward = 2.0 * params.active_matmul(shape.training());
  // Inference turns only each sequence's last position into logits (the inference builder's
  // `sample`): the output head runs once per sequence of seq_len tokens, not once per token. A
  // decode step's one token is its sequence's last (seq_len 1: nothing removed).
  if (!shape.training()) {
    const double head = params.lm_head > 0.0 ? params.lm_head : params.embedding;
    f.matmul_forward -= 2.0 * head * (1.0 - 1.0 / shape.seq_len);
  }
  // QK^T and (softmax)V: 2 FLOPs per multiply-add, per head, per key attended.
  f.attention_forward = 2.0 * m.layers * double(m.heads) * (d.qk + d.v) * shape.attended_keys;
  // The recurrent mixers' own kernels per token (ModelSpec's MambaDims and GatedDeltaDims derive
  // them): the Mamba-2 scan and the Gated DeltaNet rule, or a decode step's state updates.
  const bool decode = shape.kind == WorkloadKind::decode;
  f.scan_forward = m.mamba_layers() * (decode ? m.mamba.update_flops_per_token()
                                              : m.mamba.scan_flops_per_token(shape.seq_len)) +
                   m.gated_delta_layers() * (decode ? m.gated_delta.update_flops_per_token()
                                                    : m.gated_delta.rule_flops_per_token(shape.seq_len));
  const double forward = f.matmul_forward + f.attention_forward + f.scan_forward;
  // Backward costs two forwards: the gradient with respect to inputs and to weights.
  f.model = shape.training() ? 3.0 * forward : forward;
  if (shape.training()) {
    if (job.recompute == Recompute::full) f.recompute = forward * job.full_recompute_share();
    if (job.recompute == Recompute::selective) f.recompute = f.attention_forward;
    // torchtitan's per-op policy replays wk, wo and w3 (layer_op_sac.cpp), and the attention
    // kernel too when cuDNN's runs it; a compiled block under TP not wo.
    if (job.recompute == Recompute::selective && job.recompute_modules.alternate_mm) {
      const double w3 = m.activation == Activation::swiglu ? double(m.hidden) * m.ffn : 0.0;
      const double kv = double(m.key_value_heads()) * d.qk;
      // wo only where its output is not kept behind TP's reduce-scatter, or eager replays it anyway.
      const bool wo = job.parallel.tp <= 1 || job.workload.pointwise == Pointwise::eager;
      const double o = wo ? double(m.heads) * d.v * m.hidden : 0.0;
      f.recompute = 2.0 * m.layers * (double(m.hidden) * kv + o + w3);
      if (job.workload.attention_kernel == topo::AttentionKernel::cudnn) f.recompute += f.attention_forward;
    }
  }
  f.hardware = f.model + f.recompute;
  // The rank with the most-loaded experts sets the pace: its routed-expert work is `imbalance`
  // times the mean.
  const double routed_passes = shape.training() ? 3.0 + job.full_recompute_share() : 1.0;
  const double routed = 2.0 * params.routed_active() * routed_passes;
  // The pipeline runs at the pace of its fullest stage.
  f.busiest_gpu = (f.hardware + (job.moe.imbalance - 1.0) * routed) * shape.stage_imbalance;
  return f;
}

int ceil_count(double x) {
  if (!(x > 0.0)) return 0;
  return static_cast<int>(std::ceil(x * (1.0 - 1e-9)));
}

}  // namespace stepsim::work
