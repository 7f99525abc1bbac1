// The kernel roofline: GEMM efficiency over the smallest dimension, the bound, HBM efficiency per
// class, launch overhead.
#include <catch2/catch.hpp>
#include <cmath>

#include "topology/compute_model.hpp"

using namespace stepsim;
using namespace stepsim::topo;

namespace {
GpuSpec gpu() {
  GpuSpec g;
  g.bf16_peak = units::flops_per_s(1000e12);
  g.fp8_peak = units::flops_per_s(2000e12);
  g.fp32_peak = units::flops_per_s(60e12);
  g.hbm_bw = units::bytes_per_s(4e12);
  g.eff.gemm16 = GemmCurve{0.8, 0.0, 0.0};  // flat: the roofline tests below need no shape terms
  g.eff.hbm = 0.9;
  g.kernel_gap_s = 4e-6;
  return g;
}
KernelWork gemm(double m, double n, double k) {
  KernelWork w;
  w.op_class = OpClass::gemm;
  w.flops = units::flops(2 * m * n * k);
  w.hbm_bytes = units::bytes(2 * (m * k + k * n + m * n));
  w.gemm_m = m;
  w.gemm_n = n;
  w.gemm_k = k;
  return w;
}
}  // namespace

TEST_CASE("the GEMM curve: peak / (1 + mn_half (1/M + 1/N) + k_half / K)") {
  const GemmCurve c{0.8, 200.0, 500.0};
  // 8192^3: 0.8 / (1 + 200 x 2/8192 + 500/8192) = 0.8 / 1.10986 = 0.72081.
  CHECK(c.at(8192, 8192, 8192) == Approx(0.8 / (1 + 400.0 / 8192 + 500.0 / 8192)));
  // M = 200 with huge N and K is at half the peak, by the definition of mn_half.
  CHECK(c.at(200, 0, 0) == Approx(0.4));
  CHECK(c.at(0, 0, 500) == Approx(0.4));
  // An m = 128 GEMM no longer clamps at a small-GEMM floor: 0.8 / (1 + 200/128 + 200/8192 + 500/8192).
  CHECK(c.at(128, 8192, 8192) == Approx(0.8 / (1 + 200.0 / 128 + 200.0 / 8192 + 500.0 / 8192)));
  CHECK(c.at(64, 8192, 8192) < c.at(128, 8192, 8192));
  // Below one 64-wide tile the curve stops falling: a GEMV computes whole tiles (its time is the
  // roofline's memory term).
  CHECK(c.at(1, 8192, 8192) == Approx(c.at(64, 8192, 8192)));
  CHECK(c.at(8192, 8192, 16) == Approx(c.at(8192, 8192, 64)));
  // Monotone in every dimension, symmetric in M and N.
  for (double d = 64; d < 65536; d *= 2) {  // from one tile up
    CHECK(c.at(d, 4096, 4096) < c.at(2 * d, 4096, 4096));
    CHECK(c.at(4096, 4096, d) < c.at(4096, 4096, 2 * d));
    CHECK(c.at(d, 4096, 1024) == Approx(c.at(4096, d, 1024)));
  }
}

TEST_CASE("FP8 GEMMs use their own curve, scaled for split accumulation and block scaling") {
  GpuSpec g = gpu();
  g.eff.gemm8 = GemmCurve{0.9, 0.0, 0.0};
  g.eff.fp8_split_accumulation = 0.88;
  g.eff.fp8_blockwise = 1.01;
  KernelWork w = gemm(8192, 8192, 8192);
  CHECK(gemm_efficiency(g, w) == Approx(0.8));
  w.precision = Precision::fp8;
  CHECK(gemm_efficiency(g, w) == Approx(0.9));
  w.accumulation = Accumulation::split;
  CHECK(gemm_efficiency(g, w) == Approx(0.9 * 0.88));
  w.scaling = FP8Scaling::block;  // block-scaled kernels promote in every GEMM: no split penalty
  CHECK(gemm_efficiency(g, w) == Approx(0.9 * 1.01));
  // 2 x 8192^3 FLOPs at 0.909 x 2,000 TFLOP/s, + 4 us.
  CHECK(to_seconds(kernel_time(g, w).duration) == Approx(2 * std::pow(8192.0, 3) / (2000e12 * 0.909) + 4e-6));
}

TEST_CASE("a sustained clock below the benchmark's slows compute, not HBM") {
  GpuSpec g = gpu();
  g.sustained_clock = 0.9;
  CHECK(to_seconds(kernel_time(g, gemm(8192, 8192, 8192)).duration) ==
        Approx(2 * std::pow(8192.0, 3) / (800e12 * 0.9) + 4e-6));
  KernelWork copy;
  copy.hbm_bytes = units::bytes(1e9);
  CHECK(to_seconds(kernel_time(g, copy).duration) == Approx(1e9 / (4e12 * 0.9) + 4e-6));
}

TEST_CASE("a kernel standing for several launches pays the GPU-side gap for each") {
  KernelWork copy;
  copy.hbm_bytes = units::bytes(1e9);
  copy.launches = 10;
  CHECK(to_seconds(kernel_time(gpu(), copy).duration) == Approx(1e9 / (4e12 * 0.9) + 10 * 4e-6));
}

TEST_CASE("a large GEMM is compute-bound: FLOPs over the efficient peak, plus the launch") {
  const KernelTime t = kernel_time(gpu(), gemm(8192, 8192, 8192));
  // 2 x 8192^3 = 1.0995e12 FLOPs at 0.8 x 1,000 TFLOP/s = 1.3744 ms, + 4 us.
  CHECK(t.bound == Resource::compute);
  CHECK(to_seconds(t.duration) == Approx(2 * std::pow(8192.0, 3) / 800e12 + 4e-6));
}

TEST_CASE("a decode GEMV streams its weights at gemm_hbm, element-wise kernels at hbm") {
  GpuSpec g = gpu();
  const KernelWork gemv = gemm(1, 28672, 8192);
  const double bytes = gemv.hbm_bytes.value();  // 2 B x (8192 + 8192 x 28672 + 28672)
  SECTION("without a gemm_hbm figure, GEMMs use hbm") {
    const KernelTime t = kernel_time(g, gemv);
    CHECK(t.bound == Resource::hbm);
    CHECK(to_seconds(t.duration) == Approx(bytes / (4e12 * 0.9) + 4e-6));
  }
  SECTION("with gemm_hbm = 0.74 the weights stream slower; a copy keeps hbm") {
    g.eff.gemm_hbm = 0.74;
    CHECK(to_seconds(kernel_time(g, gemv).duration) == Approx(bytes / (4e12 * 0.74) + 4e-6));
    KernelWork copy;
    copy.hbm_bytes = units::bytes(bytes);
    CHECK(to_seconds(kernel_time(g, copy).duration) == Approx(bytes / (4e12 * 0.9) + 4e-6));
  }
}

TEST_CASE(
    "GEMM and attention kernels pay their fixed time per launch, and decode attention streams at "
    "attention_hbm") {
  GpuSpec g = gpu();
  g.gemm_fixed_s = 2.5e-6;
  g.attention_fixed_s = 6e-6;
  g.eff.attention = 0.5;
  g.eff.attention_hbm = 0.95;
  // A decode GEMV: bytes / (4 TB/s x 0.9) + (gap 4 us + fixed 2.5 us).
  const KernelWork gemv = gemm(1, 28672, 8192);
  CHECK(to_seconds(kernel_time(g, gemv).duration) == Approx(gemv.hbm_bytes.value() / (4e12 * 0.9) + 6.5e-6));
  // Decode attention reading 64 MB of KV cache: 64e6 / (4e12 x 0.95) + 4 + 6 us; two launches pay twice.
  KernelWork attn;
  attn.op_class = OpClass::attention;
  attn.flops = units::flops(1e9);  // 1e9 / (1000e12 x 0.5) = 2 us < the 16.8 us of streaming
  attn.hbm_bytes = units::bytes(64e6);
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(64e6 / (4e12 * 0.95) + 10e-6));
  attn.launches = 2;
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(64e6 / (4e12 * 0.95) + 20e-6));
  // Element-wise kernels pay the gap alone.
  KernelWork copy;
  copy.hbm_bytes = units::bytes(64e6);
  CHECK(to_seconds(kernel_time(g, copy).duration) == Approx(64e6 / (4e12 * 0.9) + 4e-6));
}

TEST_CASE("a grouped expert GEMM costs 1 + grouped_m_half / rows times the batched one") {
  GpuSpec g = gpu();
  g.eff.grouped_m_half = 20.0;
  // 8 experts of 80 rows, [80 x 7168] x [7168 x 4096] each, compute-bound at the flat 0.8:
  // batched 2 x 8 x 80 x 4096 x 7168 / 800e12; grouped x (1 + 20 / 80) = x 1.25.
  KernelWork w = gemm(80, 4096, 7168);
  w.flops = units::flops(2.0 * 8 * 80 * 4096 * 7168);
  w.hbm_bytes = units::bytes(1e6);  // keep it compute-bound
  const double batched = w.flops.value() / 800e12;
  CHECK(to_seconds(kernel_time(g, w).duration) == Approx(batched + 4e-6));
  w.grouped_rows = 80;
  CHECK(to_seconds(kernel_time(g, w).duration) == Approx(1.25 * batched + 4e-6));
  g.eff.grouped_m_half = 0.0;  // no grouping cost set
  CHECK(to_seconds(kernel_time(g, w).duration) == Approx(batched + 4e-6));
}

TEST_CASE(
    "fused attention runs at its figure over 1 + seq_half / keys + tiles_half / tiles, flat where unknown") {
  GpuSpec g = gpu();
  g.eff.attention = 0.6;
  g.eff.attention_seq_half = 400;
  g.eff.attention_tiles_half = 200;
  KernelWork attn;
  attn.op_class = OpClass::attention;
  attn.flops = units::flops(1e12);
  // No shape given: the figure alone, 1e12 / (1000e12 x 0.6) + the 4 us gap.
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(1e12 / (1000e12 * 0.6) + 4e-6));
  // 2,048 keys a row over 1,024 query tiles: 0.6 / (1 + 400 / 2048 + 200 / 1024) = 0.6 / 1.390625.
  attn.attention_keys = 2048;
  attn.attention_tiles = 1024;
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(1e12 / (1000e12 * 0.6 / 1.390625) + 4e-6));
  // Long rows and many tiles approach the figure: 0.6 / (1 + 400 / 65536 + 200 / 65536) = 0.6 / 1.00916.
  attn.attention_keys = 65536;
  attn.attention_tiles = 65536;
  CHECK(to_seconds(kernel_time(g, attn).duration) ==
        Approx(1e12 / (1000e12 * 0.6 / (1 + 600.0 / 65536)) + 4e-6));
  // A GPU without shape terms prices every shape at its figure.
  g.eff.attention_seq_half = g.eff.attention_tiles_half = 0;
  attn.attention_keys = 512;
  attn.attention_tiles = 16;
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(1e12 / (1000e12 * 0.6) + 4e-6));
}

TEST_CASE("fused attention kernels pad a head to the widths they are compiled for") {
  // FlashAttention-2: multiples of 32 up to 256 (80 -> 96, 112 -> 128); FlashAttention-3: 64, 96, 128,
  // 192, 256 (80 -> 96, 160 -> 192); FlexAttention: the next power of two (96 -> 128); cuDNN as given.
  CHECK(attention_head_tile(AttentionKernel::fa2, 80) == 96);
  CHECK(attention_head_tile(AttentionKernel::fa2, 112) == 128);
  CHECK(attention_head_tile(AttentionKernel::fa2, 128) == 128);
  CHECK(attention_head_tile(AttentionKernel::fa2, 160) == 160);
  CHECK(attention_head_tile(AttentionKernel::fa3, 80) == 96);
  CHECK(attention_head_tile(AttentionKernel::fa3, 160) == 192);
  CHECK(attention_head_tile(AttentionKernel::fa3, 192) == 192);
  CHECK(attention_head_tile(AttentionKernel::flex, 64) == 64);
  CHECK(attention_head_tile(AttentionKernel::flex, 96) == 128);
  // Triton FlashAttention: the next power of two from 16 (MPT-30B's heads of 112 -> 128; 8 -> 16).
  CHECK(attention_head_tile(AttentionKernel::triton, 112) == 128);
  CHECK(attention_head_tile(AttentionKernel::triton, 64) == 64);
  CHECK(attention_head_tile(AttentionKernel::triton, 8) == 16);
  CHECK(attention_head_tile(AttentionKernel::cudnn, 112) == 112);
  // The kernel's time grows by the padded share: heads of 112 in 128-wide tiles take 128 / 112 of it.
  GpuSpec g;
  g.bf16_peak = units::flops_per_s(1000e12);
  g.eff.attention = 0.6;
  g.kernel_gap_s = 0.0;
  g.attention_fixed_s = 0.0;
  KernelWork attn;
  attn.op_class = OpClass::attention;
  attn.flops = units::flops(1e12);
  attn.attention_width = (112.0 + 112.0) / (128.0 + 128.0);
  CHECK(to_seconds(kernel_time(g, attn).duration) == Approx(1e12 / (1000e12 * 0.6) * 128.0 / 112.0));
}
