#pragma once
// What eager PyTorch (workload.pointwise = "eager") costs beyond fused kernels, per element: the bytes
// its extra kernels move and the tensors its autograd keeps. Shared by the simulated layer
// (workloads/step/layer_ops.hpp) and the closed-form estimate's memory (workloads/estimate/memory.cpp).

#include "workloads/model/job.hpp"

namespace stepsim::work {

/// The loss kernels a training step runs: eager PyTorch (pointwise = "eager") runs PyTorch's
/// cross_entropy on fp32 logits (the scenario refuses another cross_entropy with it); otherwise
/// workload.cross_entropy.
inline CrossEntropy loss_kernels(const WorkloadSpec& w) {
  return w.pointwise == Pointwise::eager ? CrossEntropy::pytorch : w.cross_entropy;
}
/// Bytes per logit the loss keeps for the backward: the fp32 softmax (or log-softmax), or
/// pytorch_bf16's 16-bit log-softmax (E the logits' bytes).
inline double loss_kept_bytes(CrossEntropy c, double E) {
  return c == CrossEntropy::pytorch_bf16 ? E : 4.0;
}
/// Bytes per logit alive beside those only while the loss runs (`backward`: its backward). PyTorch's
/// cross_entropy(logits.float()): the 16-bit logits and their fp32 copy while log_softmax writes its
/// output (torchtitan deletes the logits before the backward); backward, nll_loss's dense fp32
/// gradient and log_softmax's at once. On 16-bit logits: the logits beside the output; backward, two
/// 16-bit gradients. The fused and Megatron's losses: 0.
inline double loss_transient_bytes(CrossEntropy c, double E, bool backward) {
  switch (c) {
    case CrossEntropy::pytorch: return backward ? 8.0 : E + 4.0;
    case CrossEntropy::pytorch_bf16: return (backward ? 2.0 : 1.0) * E;
    case CrossEntropy::fused:
    case CrossEntropy::megatron:
    case CrossEntropy::megatron_compiled: break;
  }
  return 0.0;
}

/// Eager PyTorch (workload.pointwise = "eager"), kernel by kernel, as torchtitan's Llama runs it
/// (torch.nn.RMSNorm's composite rms_norm, rotary in complex fp32, F.silu(w1 x) * w3 x, GQA keys and
/// values repeated, the attention output made contiguous, the loss on fp32 logits): the bytes its
/// extra kernels move per element beyond the fused kernel's, E the activations' bytes.
/// RMSNorm forward: x.float() (E in, 4 out), pow (4, 4), mean (4), x * rsqrt (4, 4), * weight (4, 4),
/// .type_as (4, E out): 2E + 36 against the fused kernel's 2E.
inline constexpr double kEagerNormForwardExtra = 36.0;
/// RMSNorm backward through autograd: dy.float() (E, 4), dy * weight (4, 4), the weight gradient's
/// product (8, 4) and sum (4), * rsqrt (4, 4), the rsqrt gradient's product (8, 4) and sum (4), the
/// square's gradient (2 x (4, 4)), the two input gradients added (8, 4), .to(bf16) (4, E): 2E + 84,
/// against the fused kernel's 3E (read x and dy, write dx).
inline constexpr double kEagerNormBackward = 84.0;
/// Rotary, per query or key element, forward and backward alike: .float() (E, 4), the complex product
/// (4, 4), .type_as (4, E): 2E + 16 against the fused kernel's 2E.
inline constexpr double kEagerRopeExtra = 16.0;

/// What eager autograd keeps of an RMSNorm beyond the fused kernel's input: the fp32 upcast input
/// (for the square's and the rsqrt product's gradients) and the fp32 normalised product (for the
/// weight's gradient), 4 B each per element.
inline constexpr double kEagerNormKept = 8.0;

}  // namespace stepsim::work
