#pragma once
// What eager PyTorch (workload.pointwise = "eager") costs beyond fused kernels, per element: the bytes
// its extra kernels move and the tensors its autograd keeps. Shared by the simulated layer
// (workloads/step/layer_ops.hpp) and the closed-form estimate's memory (workloads/estimate/memory.cpp).

namespace stepsim::work {

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
