#pragma once
// How long one kernel takes on one GPU: a roofline with per-op-class efficiencies.
//
//   t = max(flops / (peak(precision) x eff_compute(class)), bytes / (hbm_bw x eff_hbm)) + launch
//
// where element-wise kernels use the GPU's vector (FP32) peak rather than its tensor-core peak, and
// GEMMs use the GPU's `gemm_hbm` bandwidth efficiency (weight streaming) where the catalog sets one.
// Efficiencies come from the GPU catalog, one set per GPU, never per case. A GEMM's class is not a
// binary choice: its efficiency blends from the catalog's small-GEMM figure to its large-GEMM figure
// as the GEMM's smallest dimension grows (see gemm_efficiency), because tile quantisation and wave
// tails fade smoothly with size.

#include "sim/units.hpp"
#include "topology/gpu.hpp"
#include "topology/resource.hpp"

namespace stepsim::topo {

/// The work of one kernel.
struct KernelWork {
  OpClass op_class = OpClass::elementwise;
  Precision precision = Precision::bf16;
  double flops = 0.0;
  double hbm_bytes = 0.0;
  /// GEMMs only: the smallest of M, N and K (0 = use the class's figure as is).
  double gemm_min_dim = 0.0;
};

struct KernelTime {
  Time duration{};                     ///< including launch overhead
  Resource bound = Resource::compute;  ///< compute or hbm, whichever term is larger
};

/// Smallest GEMM dimension at and above which a GEMM runs at the large-GEMM efficiency, and at and
/// below which it runs at the small-GEMM efficiency; in between, efficiency is interpolated in log2.
/// From the H200 micro-benchmark (tools/calibration/hopper_op_classes.py, docs/simulation.md): bf16
/// [m x 8192] x [8192 x 8192] reaches, of the 8192^3 rate, 0.60-0.64 at m = 256, 0.71-0.76 at 512,
/// 0.84-0.87 at 1024, 0.92-0.94 at 2048 and 0.94-0.95 at 3072-4096; log2 interpolation between 256
/// and 4096 follows those points within 0.03.
inline constexpr double kLargeGemmDim = 4096.0;
inline constexpr double kSmallGemmDim = 256.0;

/// Achieved fraction of peak for a GEMM whose smallest dimension is `min_dim`.
double gemm_efficiency(const GpuSpec& gpu, double min_dim);

/// The roofline time of one kernel on `gpu`.
KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& work);

}  // namespace stepsim::topo
