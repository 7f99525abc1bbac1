#include "topology/compute_model.hpp"

#include <algorithm>
#include <cmath>

namespace stepsim::topo {

double gemm_efficiency(const GpuSpec& gpu, double min_dim) {
  const double large = gpu.eff.compute[static_cast<std::size_t>(OpClass::large_gemm)];
  const double small = gpu.eff.compute[static_cast<std::size_t>(OpClass::small_gemm)];
  if (min_dim <= 0.0 || min_dim >= kLargeGemmDim) return large;
  if (min_dim <= kSmallGemmDim) return small;
  const double x = std::log2(min_dim / kSmallGemmDim) / std::log2(kLargeGemmDim / kSmallGemmDim);
  return small + (large - small) * x;
}

KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& w) {
  double eff = gpu.eff.compute[static_cast<std::size_t>(w.op_class)];
  double hbm_eff = gpu.eff.hbm;
  if (w.op_class == OpClass::large_gemm || w.op_class == OpClass::small_gemm) {
    if (w.gemm_min_dim > 0.0) eff = gemm_efficiency(gpu, w.gemm_min_dim);
    if (gpu.eff.gemm_hbm > 0.0) hbm_eff = gpu.eff.gemm_hbm;
  }
  // Element-wise arithmetic runs on the vector units (fp32 FMA pipes), not the tensor cores.
  const bool vector = w.op_class == OpClass::elementwise && gpu.fp32_flops_per_s > 0.0;
  const double peak = vector ? gpu.fp32_flops_per_s : gpu.peak_flops(w.precision);
  const double compute_s = w.flops > 0.0 ? w.flops / (peak * eff) : 0.0;
  const double memory_s = w.hbm_bytes > 0.0 ? w.hbm_bytes / (gpu.hbm_bw_Bps * hbm_eff) : 0.0;
  KernelTime t;
  t.bound = compute_s >= memory_s ? Resource::compute : Resource::hbm;
  t.duration = from_seconds(std::max(compute_s, memory_s) + gpu.kernel_launch_s);
  return t;
}

}  // namespace stepsim::topo
