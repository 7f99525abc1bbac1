#pragma once
// A GPU as the catalog describes it: peaks, memory, links, price and achievable efficiencies.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace stepsim::topo {

/// Numeric formats of tensor-core math and of stored tensors.
enum class Precision : std::uint8_t { fp32, bf16, fp16, fp8, fp4 };

/// Bytes per element of a precision (fp4 = 0.5).
constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32: return 4.0;
    case Precision::bf16: return 2.0;
    case Precision::fp16: return 2.0;
    case Precision::fp8: return 1.0;
    case Precision::fp4: return 0.5;
  }
  return 2.0;
}

/// Operation classes with their own achievable fraction of peak.
enum class OpClass : std::uint8_t {
  large_gemm,   ///< GEMMs whose every dimension is large (>= ~1024): near the tensor-core ceiling
  small_gemm,   ///< skinny or small GEMMs (expert GEMMs, decode): tile quantisation and wave tails
  attention,    ///< fused attention kernels (FlashAttention)
  elementwise,  ///< norms, activations, residuals, optimizer: bandwidth-bound
  count
};
inline constexpr std::size_t kOpClassCount = static_cast<std::size_t>(OpClass::count);

/// Achievable fractions of peak, set once per GPU (never per case); the catalog states the
/// reasoning or micro-benchmark behind each figure.
struct Efficiency {
  std::array<double, kOpClassCount> compute{0.75, 0.6, 0.6, 0.5};  ///< of dense peak, by OpClass
  double hbm = 0.85;  ///< of HBM bandwidth, for streaming kernels
  /// Of HBM bandwidth, for a GEMM bound by reading its operands (weight streaming in decode and
  /// small batches); 0 = as `hbm`.
  double gemm_hbm = 0.0;
  double nvlink = 0.82;  ///< protocol efficiency on scale-up links (NCCL ring: ~370 of 450 GB/s)
  double nic = 0.85;     ///< protocol efficiency on scale-out links
  /// NVLink SHARP (NVLS) all-reduce: achieved fraction of NVLink line rate for the in-switch
  /// reduction's traffic (S (1 + 1/p) per GPU per direction). 0 = the switches cannot reduce.
  double nvls = 0.0;
  // Single per-resource factors used by the closed-form estimate (the notebook uses 0.75 each).
  double estimate_compute = 0.75;
  double estimate_memory = 0.75;
  double estimate_network = 0.75;
};

struct GpuSpec {
  std::string id;                 ///< catalog key, e.g. "h100-sxm"
  std::string name;               ///< display name, e.g. "NVIDIA H100 SXM5 80GB"
  double bf16_flops_per_s = 0.0;  ///< dense BF16/FP16 tensor FLOP/s (no sparsity)
  double fp8_flops_per_s = 0.0;   ///< dense FP8; 0 = unsupported
  double fp4_flops_per_s = 0.0;   ///< dense FP4; 0 = unsupported
  double fp32_flops_per_s = 0.0;  ///< non-tensor FP32; 0 = unknown
  double hbm_capacity_bytes = 0.0;
  double hbm_bw_Bps = 0.0;
  double nvlink_bw_Bps = 0.0;   ///< scale-up bandwidth per GPU per direction; 0 = no NVLink
  int nvlink_domain = 1;        ///< GPUs in one scale-up domain (8 for HGX, 72 for NVL72, 1 = none)
  double pcie_bw_Bps = 0.0;     ///< host link per direction
  double nic_bw_Bps = 0.0;      ///< default scale-out bandwidth per GPU per direction
  double price_per_hour = 0.0;  ///< USD per GPU-hour, representative (see price_note)
  std::string price_note;       ///< where the price comes from ("article, mid-2026 on-demand")
  Efficiency eff;
  double comm_sm_fraction = 0.0;  ///< share of compute lost while communication kernels run
  double kernel_launch_s = 0.0;   ///< fixed overhead added to every kernel
  double graph_launch_s = 0.0;    ///< the same for a kernel replayed from a CUDA graph (0: unknown)
  /// Fixed cost of one NVLS collective (multicast setup and switch synchronisation), seconds.
  double nvls_latency_s = 0.0;

  /// Dense peak FLOP/s for math in `p`; throws UserError if the GPU lacks that precision.
  double peak_flops(Precision p) const;
};

/// Lower-case name of a precision ("bf16").
std::string_view name(Precision p);
std::string_view name(OpClass c);

}  // namespace stepsim::topo
