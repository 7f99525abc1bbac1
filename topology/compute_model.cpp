#include "topology/compute_model.hpp"

#include <algorithm>
#include <cmath>

namespace stepsim::topo {

double gemm_efficiency(const GpuSpec& gpu, const KernelWork& w) {
  double eff = gpu.eff.gemm(w.precision).at(w.gemm_m, w.gemm_n, w.gemm_k);
  // A grouped kernel schedules each expert's rows as its own problem: small groups cost it more than
  // one batched GEMM of the same shapes (measured: time x (1 + m_half / rows)).
  if (w.grouped_rows > 0.0) eff /= 1.0 + gpu.eff.grouped_m_half / w.grouped_rows;
  if (w.precision != Precision::fp8 && w.precision != Precision::fp4) return eff;
  // Block-scaled kernels promote to FP32 in every GEMM (DeepGEMM), so they pay no split penalty.
  if (w.scaling == FP8Scaling::block)
    return eff * gpu.eff.fp8_blockwise * (w.weight_grad ? gpu.eff.fp8_blockwise_wgrad : 1.0);
  return w.accumulation == Accumulation::split ? eff * gpu.eff.fp8_split_accumulation : eff;
}

KernelTime kernel_time(const GpuSpec& gpu, const KernelWork& w) {
  double eff = gpu.eff.elementwise;
  double hbm_eff = gpu.eff.hbm;
  if (w.op_class == OpClass::gemm) {
    eff = gemm_efficiency(gpu, w);
    if (gpu.eff.gemm_hbm > 0.0) hbm_eff = gpu.eff.gemm_hbm;
  } else if (w.op_class == OpClass::attention) {
    eff = gpu.eff.attention_at(w.attention_kernel, w.attention_keys, w.attention_tiles, w.attention_width);
    if (gpu.eff.attention_hbm > 0.0) hbm_eff = gpu.eff.attention_hbm;
  } else {
    hbm_eff = gpu.eff.hbm_of(w.kind);
  }
  // Element-wise arithmetic runs on the vector units (fp32 FMA pipes), not the tensor cores.
  const bool vector = w.op_class == OpClass::elementwise && gpu.fp32_peak.value() > 0.0;
  const double peak = (vector ? gpu.fp32_peak : gpu.peak_flops(w.precision)).value() * gpu.sustained_clock;
  double compute_s = w.flops.value() > 0.0 ? w.flops.value() / (peak * eff) : 0.0;
  if (w.vector_ops > 0.0 && gpu.fp32_peak.value() > 0.0)
    compute_s += w.vector_ops / (gpu.fp32_peak.value() * gpu.sustained_clock * gpu.eff.elementwise);
  const double memory_s =
      w.hbm_bytes.value() > 0.0 ? w.hbm_bytes.value() / (gpu.hbm_bw.value() * hbm_eff) : 0.0;
  KernelTime t;
  t.bound = compute_s >= memory_s ? Resource::compute : Resource::hbm;
  const double fixed_s = w.op_class == OpClass::gemm        ? gpu.gemm_fixed_s
                         : w.op_class == OpClass::attention ? gpu.attention_fixed_s
                                                            : 0.0;
  t.duration = from_seconds(std::max(compute_s, memory_s) + w.launches * (gpu.kernel_gap_s + fixed_s));
  return t;
}

}  // namespace stepsim::topo
