#pragma once
// How long one kernel takes on one GPU: a roofline with per-op-class efficiencies.
//
//   t = max(flops / (peak(precision) x sustained_clock x eff), bytes / (hbm_bw x eff_hbm))
//       + launches x (kernel_gap + fixed)
//
// where element-wise kernels use the GPU's vector (FP32) peak rather than its tensor-core peak, GEMMs
// take their efficiency from the GPU's GemmCurve for their precision at their M, N and K, and use
// the GPU's `gemm_hbm` bandwidth efficiency (weight streaming) where the catalog sets one, and
// bandwidth-bound kernels the efficiency of their kind (norm, quantize, ...) where it has one;
// attention reading a KV cache uses `attention_hbm`. GEMM and attention kernels also pay a fixed
// time each (gemm_fixed_us, attention_fixed_us: measured intercepts of decode-sized kernels).
// Efficiencies come from the GPU catalog, one set per GPU, never per case.

#include "sim/units.hpp"
#include "topology/gpu.hpp"
#include "topology/resource.hpp"

namespace stepsim::topo {

/// How a low-precision GEMM accumulates (Transformer Engine: fast in the forward, split, i.e.
/// periodically promoted to FP32, in the data and weight gradients).
enum class Accumulation : std::uint8_t { fast, split };
/// How FP8 GEMM operands are scaled.
enum class FP8Scaling : std::uint8_t { tensor, block };

/// The work of one kernel.
struct KernelWork {
  OpClass op_class = OpClass::elementwise;
  Precision precision = Precision::bf16;
  Flops flops;
  Bytes hbm_bytes;  ///< read and written in device memory
  /// GEMMs only: the product's [m x k] x [k x n] shape (0 = a huge dimension).
  double gemm_m = 0.0;
  double gemm_n = 0.0;
  double gemm_k = 0.0;
  /// FP8 GEMMs: the precise (split) accumulator of Hopper's data and weight gradients.
  Accumulation accumulation = Accumulation::fast;
  /// How FP8 operands are scaled: one factor per tensor, or per block (DeepSeek-V3's tiles).
  FP8Scaling scaling = FP8Scaling::tensor;
  /// A weight-gradient GEMM (dW = X^T dY, the token dimension is its K).
  bool weight_grad = false;
  /// A grouped GEMM over experts (one kernel, one group per expert): the rows (tokens) of each
  /// group, its M; 0 = not grouped. Its efficiency is divided by 1 + grouped_m_half / rows.
  double grouped_rows = 0.0;
  /// Kernel launches this work stands for (multi-tensor optimizer kernels launch several).
  double launches = 1.0;
  /// Launched by a loop inside one framework call (multi_tensor_apply's chunks, the splits of
  /// Transformer Engine's comm-GEMM overlap after the first): each launch costs the host a bare
  /// launch, not a training framework's per-kernel module, autograd and allocator work.
  bool inner_launch = false;
  /// Vector-unit (CUDA-core) operations beside the tensor-core math that feed it, such as a
  /// weight-only GEMM dequantising its int8/int4 weights in the main loop; they add to the compute
  /// term (the tensor cores wait for the converted tiles).
  double vector_ops = 0.0;
  /// Bandwidth-bound kernels: what they do, where the GPU has an HBM efficiency per kind (the op
  /// sinks set it from the op's name only then; `other` prices at the GPU's `hbm`).
  KernelKind kind = KernelKind::other;
  /// Attention kernels: which fused kernel runs it (its efficiency is the GPU's for that kernel).
  AttentionKernel attention_kernel = AttentionKernel::cudnn;
  /// Fused attention (training, prefill): the keys each query row spans (the sequence, or a local
  /// layer's window) and the kernel's 128-row query tiles (sequences x heads x query rows / 128),
  /// for the GPU's attention shape terms (Efficiency::attention_shape); 0 = not known, no term.
  double attention_keys = 0.0;
  double attention_tiles = 0.0;
  /// Fused attention: the share of the kernel's head-width tiles the heads fill, (d_qk + d_v) over
  /// the widths the kernel computes them at (attention_head_tile); 1 = no padding.
  double attention_width = 1.0;
  /// The share of the GPU's SMs the kernel leaves to the communication kernels beside it, [0, 1)
  /// (cuBLAS's SM count target under Transformer Engine's set_sm_margin). Its time here is the
  /// full GPU's; the step's engine runs it at most at 1 - sm_margin of that speed (sim::Op).
  double sm_margin = 0.0;
};

struct KernelTime {
  Time duration{};                     ///< including launch overhead
  Resource bound = Resource::compute;  ///< compute or hbm, whichever term is larger
};

/// Whether a kernel keeps the tensor cores busy for its duration (what a GPU's clock_duty counts):
/// a GEMM or attention kernel whose compute term binds; bandwidth-bound ones draw power as copies do.
inline bool tensor_bound(OpClass op_class, Resource bound) {
  return (op_class == OpClass::gemm || op_class == OpClass::attention) && bound == Resource::compute;
}

/// Achieved fraction of peak for a GEMM of `work`'s shape and precision on `gpu`.
double gemm_efficiency(const GpuSpec& gpu, const KernelWork& work);

/// The roofline time of one kernel on `gpu`.
KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& work);

}  // namespace stepsim::topo
