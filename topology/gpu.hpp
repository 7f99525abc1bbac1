#pragma once
// A GPU as the catalog describes it: peaks, memory, links, price and achievable efficiencies.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/quantity.hpp"

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

/// The GPU generation, as NCCL's tuning model tells them apart (its per-architecture constants:
/// LL and LL128 ceilings, per-channel tree limits, NVLS efficiency; topology/nccl_tuning.hpp).
/// `other` (AMD, or not stated) takes the Ampere row.
enum class GpuArch : std::uint8_t { other, volta, ampere, hopper, blackwell };

/// Operation classes with their own achievable fraction of peak.
enum class OpClass : std::uint8_t {
  gemm,         ///< tensor-core matrix products; efficiency follows the GPU's GemmCurve over M, N, K
  attention,    ///< fused attention kernels (FlashAttention, cuDNN)
  elementwise,  ///< norms, activations, residuals, casts, optimizer: bandwidth-bound
  count
};
inline constexpr std::size_t kOpClassCount = static_cast<std::size_t>(OpClass::count);

/// The fused attention kernel a framework runs for training and prefill attention. Each has its own
/// efficiency per GPU (Efficiency::attention_of); 0 there means the kernel has no figure on that GPU.
enum class AttentionKernel : std::uint8_t {
  cudnn,   ///< cuDNN's fused attention (Transformer Engine's FusedAttention, PyTorch's cuDNN SDPA)
  fa2,     ///< FlashAttention-2 (the flash-attn package, PyTorch SDPA's flash backend)
  fa3,     ///< FlashAttention-3 (flash-attn's Hopper kernels)
  flex,    ///< FlexAttention (PyTorch's flex_attention, its Triton kernels: masks and score mods as code)
  triton,  ///< Tri Dao's Triton FlashAttention (flash_attn_triton.py; LLM Foundry's attn_impl "triton")
};

/// The head width kernel `k` computes a head of width `head_dim` at: fused attention kernels are
/// compiled for a few head widths and pad a head up to the next (the padded columns cost what real ones
/// do). FlashAttention-2: multiples of 32 up to 256 (flash-attn csrc HEADDIM_SWITCH, after rounding to
/// 8); FlashAttention-3: 64, 96, 128, 192, 256 (hopper/flash_api.cpp round_up_headdim); FlexAttention:
/// the next power of two (Inductor's QK_HEAD_DIM_ROUNDED, V_HEAD_DIM_ROUNDED); Triton FlashAttention: the
/// next power of two from 16 (flash_attn_triton.py BLOCK_HEADDIM; it refuses heads over 128); cuDNN: as
/// given (no published rule). Beyond the largest width, as given.
double attention_head_tile(AttentionKernel k, double head_dim);

/// What a bandwidth-bound kernel does, where kernels of one kind reach their own share of HBM
/// bandwidth (a norm reduces before it writes, an FP8 cast-transpose reads rows and writes
/// columns, a permute gathers scattered rows). The kinds are the classes `stepsim profile` tells
/// apart in a trace (workloads/model/names.hpp `kernel_kind` names a simulated op's kind).
enum class KernelKind : std::uint8_t {
  other,       ///< residual adds, rotary, copies, reductions: the rest
  norm,        ///< LayerNorm / RMSNorm, with any fused residual add
  activation,  ///< GELU, SwiGLU, SiLU and their gradients
  quantize,    ///< FP8 casts, cast-transposes, amax and scale updates
  routing,     ///< MoE top-k, permute and unpermute
  optimizer,   ///< Adam and the gradient-norm kernels
  count
};
inline constexpr std::size_t kKernelKindCount = static_cast<std::size_t>(KernelKind::count);

/// A GEMM's achieved fraction of dense peak over its shape, for one precision class:
///
///   eff(M, N, K) = peak / (1 + mn_half x (1/M + 1/N) + k_half / K)
///
/// The 1/M and 1/N terms are costs per element of an input operand (streaming the other operand
/// once per output tile row or column), the 1/K term a cost per output element (pipeline fill and
/// the epilogue); `mn_half` is the M at which a GEMM with huge N and K runs at half of `peak`.
/// Fitted per GPU and precision by tools/calibration/fit_gemm.py (docs/simulation.md).
struct GemmCurve {
  double peak = 0.8;     ///< the limit for large M, N and K
  double mn_half = 240;  ///< elements
  double k_half = 600;   ///< elements
  /// Dimensions below this count as this: a tile is computed whole however little of it is used.
  static constexpr double kMinTile = 64.0;
  /// The fraction of peak for an [m x k] x [k x n] product (dimensions of 0 count as huge).
  double at(double m, double n, double k) const;
};

/// Achievable fractions of peak, set once per GPU (never per case); the catalog states the
/// reasoning or micro-benchmark behind each figure.
struct Efficiency {
  GemmCurve gemm16;          ///< BF16/FP16 GEMMs
  GemmCurve gemm8;           ///< FP8 GEMMs (and FP4 ones until measured)
  /// Fused attention (training and prefill), of the dense peak in its precision: the GPU's reference
  /// kernel, cuDNN's where it was measured (Hopper, Blackwell), FlashAttention-2's on Ampere.
  double attention = 0.6;
  /// The same for FlashAttention-2, FlashAttention-3, FlexAttention and Triton FlashAttention kernels;
  /// 0 = no figure on this GPU (FA3 runs on Hopper only), so a job that names the kernel is refused.
  double attention_fa2 = 0.0;
  double attention_fa3 = 0.0;
  double attention_flex = 0.0;
  double attention_triton = 0.0;
  /// The shape terms of those figures (each is the limit for long sequences and many query tiles):
  /// a kernel whose queries span `keys` keys over `tiles` 128-row query tiles runs at
  /// attention / (1 + attention_seq_half / keys + attention_tiles_half / tiles) (attention_shape);
  /// 0 = no such term. Per-tile fixed work (loading the query tile, the softmax rescale, the
  /// output's epilogue) weighs more on short rows; few tiles leave SMs idle.
  double attention_seq_half = 0.0;
  double attention_tiles_half = 0.0;
  double elementwise = 0.5;  ///< element-wise arithmetic, of the FP32 vector peak
  double hbm = 0.85;         ///< of HBM bandwidth, for streaming kernels
  /// Of HBM bandwidth, for a GEMM bound by reading its operands (weight streaming in decode and
  /// small batches); 0 = as `hbm`.
  double gemm_hbm = 0.0;
  /// Of HBM bandwidth, for attention bound by reading the KV cache (decode); 0 = as `hbm`.
  double attention_hbm = 0.0;
  /// Grouped expert GEMMs take 1 + grouped_m_half / rows times a batched GEMM's time of the same
  /// shapes (rows = tokens per expert); 0 = no grouping cost.
  double grouped_m_half = 0.0;
  /// Of HBM bandwidth, per kind of bandwidth-bound kernel (catalog keys `hbm_norm`, `hbm_quantize`,
  /// ...); 0 = as `hbm`. The built-in catalog sets `hbm_quantize` (FP8 cast-transpose kernels);
  /// `stepsim profile --write-calibration` measures them all from a trace.
  std::array<double, kKernelKindCount> hbm_kind{};
  double nvlink = 0.82;  ///< protocol efficiency on scale-up links (NCCL ring: ~370 of 450 GB/s)
  /// NCCL's all-to-all over scale-up links: grouped send/recv to every peer at once through NCCL's
  /// point-to-point transport, which moves less of the link than its rings; 0 = as `nvlink`.
  double nvlink_p2p = 0.0;
  double nic = 0.85;     ///< protocol efficiency on scale-out links
  /// NVLink SHARP (NVLS) all-reduce: achieved fraction of NVLink line rate for the in-switch
  /// reduction's traffic (S (1 + 1/p) per GPU per direction). 0 = the switches cannot reduce.
  double nvls = 0.0;
  // Single per-resource factors used by the closed-form estimate (the notebook uses 0.75 each).
  double estimate_compute = 0.75;
  double estimate_memory = 0.75;
  double estimate_network = 0.75;
  /// Hopper FP8: the data- and weight-gradient GEMMs run with a split (promoted, precise)
  /// accumulator (Transformer Engine's default), at this fraction of the forward's fast-accumulation
  /// curve. 1 where the tensor cores accumulate FP8 in FP32 anyway (Blackwell).
  double fp8_split_accumulation = 1.0;
  /// Block-scaled FP8 GEMMs (1x128 / 128x128 scales, DeepSeek-V3's recipe) over the fast curve.
  double fp8_blockwise = 1.0;
  /// Block-scaled FP8 weight-gradient GEMMs (both operands scaled per 1x128 along the token
  /// dimension, accumulated into the FP32 main gradient) over the block-scaled curve.
  double fp8_blockwise_wgrad = 1.0;

  /// The GEMM curve that math in `p` runs on.
  const GemmCurve& gemm(Precision p) const {
    return p == Precision::fp8 || p == Precision::fp4 ? gemm8 : gemm16;
  }
  /// A class's headline figure: attention and element-wise as set; GEMMs at 8192^3 in BF16.
  double headline(OpClass c) const;
  /// The fused-attention efficiency of kernel `k` (0 where the GPU has no figure for it).
  double attention_of(AttentionKernel k) const { return this->*attention_member(k); }
  /// The efficiency kernel `k` reaches at its shape: attention_of(k) x attention_shape(keys, tiles)
  /// x `width`, the share of the kernel's compiled head widths the heads fill (attention_head_tile).
  double attention_at(AttentionKernel k, double keys, double tiles, double width = 1.0) const {
    return attention_of(k) * attention_shape(keys, tiles) * width;
  }
  /// The fraction of attention_of(k) a kernel of `keys` keys per query row and `tiles` 128-row
  /// query tiles reaches (0 for either: that term left out).
  double attention_shape(double keys, double tiles) const {
    double d = 1.0;
    if (keys > 0.0) d += attention_seq_half / keys;
    if (tiles > 0.0) d += attention_tiles_half / tiles;
    return 1.0 / d;
  }
  /// The same figure, to set (a calibration fitting the kernel a job runs).
  double& attention_of(AttentionKernel k) { return this->*attention_member(k); }
  /// The HBM efficiency of a bandwidth-bound kernel of kind `k`.
  double hbm_of(KernelKind k) const {
    const double v = hbm_kind[static_cast<std::size_t>(k)];
    return v > 0.0 ? v : hbm;
  }
  /// True when some kind has its own HBM efficiency (kernels then need their kind to be priced).
  bool has_hbm_kinds() const {
    for (double v : hbm_kind)
      if (v > 0.0) return true;
    return false;
  }

 private:
  static double Efficiency::*attention_member(AttentionKernel k) {
    switch (k) {
      case AttentionKernel::cudnn: return &Efficiency::attention;
      case AttentionKernel::fa2: return &Efficiency::attention_fa2;
      case AttentionKernel::fa3: return &Efficiency::attention_fa3;
      case AttentionKernel::flex: return &Efficiency::attention_flex;
      case AttentionKernel::triton: return &Efficiency::attention_triton;
    }
    return &Efficiency::attention;
  }
};

/// Where a catalog figure comes from (`stepsim catalog gpus --provenance`).
enum class SourceKind : std::uint8_t {
  datasheet,  ///< the vendor's published specification
  measured,   ///< a micro-benchmark or a public measurement (the file or source is named)
  derived,    ///< a stated rule applied to stated inputs
  assumed,    ///< an assumption with its source, or a guess that says it is one
  user,       ///< set by a user's catalog or scenario without a stated source
};
struct FigureSource {
  std::string key;  ///< the catalog key, e.g. "hbm_tb_s" or "efficiency.gemm_bf16"
  SourceKind kind = SourceKind::assumed;
  std::string text;  ///< the source, the rule or the file
};

/// Points (duty, clock) of a measured power-limit curve, duties rising; linear between them and
/// flat beyond the ends. Empty: the GPU's clock is the fixed sustained_clock.
struct ClockCurve {
  std::vector<double> duty;
  std::vector<double> clock;
  bool empty() const { return duty.empty(); }
  /// The clock at tensor-core duty `d` (0..1).
  double at(double d) const;
  /// The highest clock on the curve (what no step exceeds).
  double highest() const;
};

struct GpuSpec {
  std::string id;                 ///< catalog key, e.g. "h100-sxm"
  std::string name;               ///< display name, e.g. "NVIDIA H100 SXM5 80GB"
  GpuArch arch = GpuArch::other;  ///< generation (catalog key `architecture`)
  FlopsPerSecond bf16_peak;       ///< dense BF16/FP16 tensor FLOP/s (no sparsity)
  FlopsPerSecond fp8_peak;        ///< dense FP8; 0 = unsupported
  FlopsPerSecond fp4_peak;        ///< dense FP4; 0 = unsupported
  FlopsPerSecond fp32_peak;       ///< non-tensor FP32; 0 = unknown
  /// Device memory as the datasheet means it (80 GB parts have 80 GiB; see the catalog).
  Bytes hbm_capacity;
  /// Held before any tensor: the CUDA context, cuBLAS/cuDNN workspaces and NCCL buffers.
  Bytes hbm_reserved;
  /// Share of the rest lost to the caching allocator's fragmentation.
  double hbm_fragmentation = 0.0;
  BytesPerSecond hbm_bw;
  BytesPerSecond nvlink_bw;     ///< scale-up bandwidth per GPU per direction; 0 = no NVLink
  int nvlink_domain = 1;        ///< GPUs in one scale-up domain (8 for HGX, 72 for NVL72, 1 = none)
  BytesPerSecond pcie_bw;       ///< host link per direction
  BytesPerSecond nic_bw;        ///< default scale-out bandwidth per GPU per direction
  double price_per_hour = 0.0;  ///< USD per GPU-hour, representative (see price_note)
  std::string price_note;       ///< where the price comes from ("article, mid-2026 on-demand")
  Efficiency eff;
  std::vector<FigureSource> sources;  ///< per figure, in catalog order
  /// The catalog entries this one was started from with `preset`, nearest first (h100-nvl:
  /// {"h100-pcie", "h100-sxm"}); empty for a part of its own.
  std::vector<std::string> preset_lineage;
  /// "kind: text" of the figure `key` (e.g. "efficiency.nic"), or "not stated".
  std::string source_of(std::string_view key) const;
  double comm_sm_fraction = 0.0;      ///< share of compute lost while communication kernels run
  int sms = 0;                        ///< streaming multiprocessors (compute units); 0 = unknown
  /// Compute slowdown beyond that share while communication runs beside it (HBM and L2 traffic, the
  /// power it draws, a GEMM's waves on fewer SMs): compute runs at (1 - comm_sm_fraction) /
  /// comm_interference then; 1 = the SM share alone.
  double comm_interference = 1.0;
  /// Fixed GPU time of each GEMM and attention kernel beyond its rate terms and the launch gap
  /// (prologue, epilogue, tail: what a decode-sized kernel pays whatever its bytes).
  double gemm_fixed_s = 0.0;
  double attention_fixed_s = 0.0;
  /// SM clock held over a long step at the power limit over the clock the efficiencies were
  /// measured at (short micro-benchmarks): scales every compute rate, not HBM or links. With a
  /// clock_duty curve it is the curve's highest point until a step's own duty sets it
  /// (work::step_clock).
  double sustained_clock = 1.0;
  /// The held clock by tensor-core duty (the share of the step the tensor cores are busy), where
  /// it was measured: a GPU at its power limit slows its clock more the longer its GEMMs run.
  ClockCurve clock_duty;
  /// GPU-side cost of each kernel when the host is ahead of it: launch latency and the gap to the
  /// previous kernel on the stream (what a kernel replayed from a CUDA graph costs).
  double kernel_gap_s = 0.0;
  /// Host CPU time to launch one kernel from eager PyTorch; the GPU waits for it when the host falls
  /// behind (small kernels). CUDA graphs replay without it.
  double host_launch_s = 0.0;
  /// Host CPU time a PyTorch training framework spends per kernel it launches: the Python module
  /// code, autograd, allocator calls and the launch (a host-CPU figure: Grace is slower than x86).
  double host_framework_s = 0.0;
  /// Fixed cost of one NVLS collective (multicast setup and switch synchronisation), seconds.
  double nvls_latency_s = 0.0;

  /// Dense peak FLOP/s for math in `p` (the datasheet's); throws UserError if the GPU lacks it.
  FlopsPerSecond peak_flops(Precision p) const;
  /// What a tensor can use: capacity less the reserve, less fragmentation of the rest.
  Bytes usable_hbm() const { return (hbm_capacity - hbm_reserved) * (1.0 - hbm_fragmentation); }
};

/// Lower-case name of a precision ("bf16").
std::string_view name(Precision p);
std::string_view name(OpClass c);
std::string_view name(AttentionKernel k);
/// The kernel's name as its authors publish it ("FlashAttention-2"), for prose in reports and errors.
std::string_view published_name(AttentionKernel k);
/// "norm", "quantize", ...; the catalog key of its HBM efficiency is "hbm_" + name.
std::string_view name(KernelKind k);
std::string_view name(SourceKind k);

}  // namespace stepsim::topo
