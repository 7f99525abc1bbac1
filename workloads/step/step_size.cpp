#include "workloads/step/step_size.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "sim/error.hpp"

namespace stepsim::work {
namespace {

// Ops per layer and micro-batch, forward and backward, on the GPU's streams (kernels and
// collectives), rounded up from what the builders emit (graph ops / (micro-batches x layers), so
// per-micro-batch and per-step ops included): a dense layer 25 without TP (Llama 3.1 70B on PP 4 x
// DP 128), 35 with TP 8 and sequence parallelism (43 with FP8 quantisation kernels); an MoE layer
// 40 (Mixtral 8x7B, EP 8) to 90 (DeepSeek-V3, EP 64: MLA, block-scaled FP8, shared experts).
constexpr double kDenseLayerOps = 35.0;
constexpr double kTpLayerOps = 15.0;   // added with tp > 1: the TP collectives and their casts
constexpr double kMoeExtraOps = 65.0;  // an MoE layer over a dense one: router, all-to-alls, experts
// Inference runs the forward alone: 13 ops per layer for a Llama 3.1 70B decode on TP 8, 18 for
// Mixtral on EP 8, so 0.4 of a training layer.
constexpr double kInferenceShare = 0.4;
// Sequence-parallel TP overlap splits each gathered or reduced GEMM into tp steps: 8 (userbuffers)
// to 10 (AsyncTP) more ops per tp rank and layer. Ring attention: about 5 per cp rank and layer
// (forward and backward steps and exchanges, the gradient merges; one output merge per layer).
constexpr double kTpOverlapOpsPerRank = 12.0;
constexpr double kRingAttentionOpsPerRank = 6.0;
// workload.attention_unpad: per layer, three unpads of five ops each (two kernels and two host
// syncs before the gather), the output's pad, and the backward's two.
constexpr double kUnpadLayerOps = 18.0;
// Attention sinks applied outside the kernel: the rescale forward, its replay, and backward.
constexpr double kSinkLayerOps = 3.0;
// workload.bias_grad = "separate": one reduction per biased linear in the backward (qkv, proj, up, down).
constexpr double kBiasGradLayerOps = 4.0;
// Per micro-batch and stage: embedding, loss, pipeline sends and receives. Per layer and stage
// once per step: gradient buckets, parameter gathers, the optimizer.
constexpr double kMicroBatchOps = 20.0;
constexpr double kStepOpsPerLayer = 10.0;
constexpr double kStepOpsPerStage = 100.0;
// The network's work grows with the cluster even when few ranks are simulated (a representative
// rank's collectives carry the flows of every group at its stage): a 32,768-GPU Llama 3.1 70B step
// of 44 k ops takes as long as 4.6 M ops do, 140 op-equivalents per GPU; 100 per GPU is the round
// figure (memory: about 2 kB per GPU).
constexpr double kNetworkOpsPerGpu = 100.0;
// Memory of a simulation per graph op: graph, run records, report, critical path (330 bytes
// measured on the DeepSeek-V3 and GPT-3 examples).
constexpr double kBytesPerOp = 350.0;
constexpr double kBytesPerGpu = 2e3;

/// 25,000,850: a count for messages, rounded up to a whole number, with thousands separators.
std::string count_text(double n) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.0f", std::ceil(n));
  const std::string_view all = digits;
  std::string out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0 && (all.size() - i) % 3 == 0) out += ',';
    out += all[i];
  }
  return out;
}

std::string short_bytes(double b) {
  char buf[32];
  if (b >= 1e12)
    std::snprintf(buf, sizeof buf, "%.1f TB", b / 1e12);
  else if (b >= 1e9)
    std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.0f MB", std::ceil(b / 1e6));
  return buf;
}

}  // namespace

double StepSize::bytes() const {
  return graph_ops * kBytesPerOp + gpus * kBytesPerGpu;
}

StepSize step_size(const JobSpec& job, RankMode ranks) {
  const ParallelSpec& par = job.parallel;
  const bool training = job.workload.kind == WorkloadKind::train;
  StepSize s;
  s.gpus = job.cluster.total_gpus();
  s.layers = std::int64_t{job.model.layers} + (training ? job.model.mtp_layers : 0);
  s.micro_batches =
      training
          ? std::max(1.0, double(job.workload.global_batch) / (double(job.workload.micro_batch) * par.dp))
          : 1.0;
  // Representative mode simulates one rank per pipeline stage: together they hold every layer
  // once. Every rank: each of the tp x cp x dp pipelines does the same.
  const double pipelines = ranks == RankMode::all ? double(par.tp) * par.cp * par.dp : 1.0;
  s.simulated_ranks = static_cast<int>(std::min(2e9, pipelines * par.pp));

  const double moe = job.model.is_moe() ? job.model.moe_layers() : 0.0;
  double per_layer = kDenseLayerOps + (par.tp > 1 ? kTpLayerOps : 0.0);
  if (par.tp_comm_overlap != TpCommOverlap::off) per_layer += kTpOverlapOpsPerRank * par.tp;
  if (par.cp > 1) per_layer += kRingAttentionOpsPerRank * par.cp;
  if (job.workload.attention_unpad) per_layer += kUnpadLayerOps;
  if (job.model.attention_sinks) per_layer += kSinkLayerOps;
  if (job.model.linear_bias && job.workload.bias_grad == BiasGrad::separate) per_layer += kBiasGradLayerOps;
  if (job.workload.qkv_grad_concat) per_layer += 1.0;  // the query, key and value gradients' copy
  double passes = training ? 1.0 : kInferenceShare;  // the constants count forward and backward
  if (training) passes *= 1.0 + 0.5 * job.full_recompute_share();
  const double layer_ops = (double(s.layers) * per_layer + moe * kMoeExtraOps) * passes;
  double per_micro_batch = layer_ops + kMicroBatchOps * par.pp;
  // workload.cross_entropy = "megatron": six loss kernels, a third all-reduce and a cast back.
  if (training && job.workload.cross_entropy == CrossEntropy::megatron) per_micro_batch += 6.0 * par.pp;
  // FP8 delayed scaling: each chunk's forward and backward end in an amax all-reduce and an update.
  if (job.reduces_fp8_amax()) per_micro_batch += 4.0 * par.pp * std::max(1, par.virtual_stages);
  const double per_step = training ? kStepOpsPerLayer * double(s.layers) + kStepOpsPerStage * par.pp : 0.0;
  // Eager launches add a host op per GPU op (the host timeline); CUDA graphs replay without one.
  const double host = job.workload.cuda_graphs ? 1.0 : 2.0;
  s.graph_ops = pipelines * (s.micro_batches * per_micro_batch + per_step) * host;
  s.network_ops = kNetworkOpsPerGpu * s.gpus;
  return s;
}

void check_step_size(const JobSpec& job, RankMode ranks, std::uint64_t max_ops) {
  const StepSize s = step_size(job, ranks);
  if (s.ops() <= static_cast<double>(max_ops)) return;
  char needed[32];
  std::snprintf(needed, sizeof needed, "%.0f", std::ceil(s.ops() / 1e6) * 1e6);
  const auto plural = [](double n, const char* one, const char* many) {
    return count_text(n) + " " + (n == 1.0 ? one : many);
  };
  throw UserError({}, "",
                  "the step is too large to simulate: about " + count_text(s.ops()) +
                      " ops (an upper estimate: " + count_text(s.graph_ops) + " step-graph ops for " +
                      plural(double(s.layers), "layer", "layers") + " x " +
                      plural(s.micro_batches, "micro-batch", "micro-batches") + " on " +
                      plural(s.simulated_ranks, "simulated rank", "simulated ranks") + ", plus " +
                      count_text(s.network_ops) + " for the network of " + plural(s.gpus, "GPU", "GPUs") +
                      ") and about " + short_bytes(s.bytes()) + " of memory, above the limit of " +
                      count_text(static_cast<double>(max_ops)) + " ops",
                  "raise the limit with --max-ops " + std::string(needed) +
                      " if the machine has the memory and time, or get the closed-form answer without "
                      "simulating from `stepsim estimate`");
}

}  // namespace stepsim::work
