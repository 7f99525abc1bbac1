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
  g.bf16_flops_per_s = 1000e12;
  g.fp32_flops_per_s = 60e12;
  g.hbm_bw_Bps = 4e12;
  g.eff.compute[static_cast<std::size_t>(OpClass::large_gemm)] = 0.8;
  g.eff.compute[static_cast<std::size_t>(OpClass::small_gemm)] = 0.5;
  g.eff.hbm = 0.9;
  g.kernel_launch_s = 4e-6;
  return g;
}
KernelWork gemm(double m, double n, double k) {
  KernelWork w;
  w.op_class = OpClass::large_gemm;
  w.flops = 2 * m * n * k;
  w.hbm_bytes = 2 * (m * k + k * n + m * n);
  w.gemm_min_dim = std::min({m, n, k});
  return w;
}
}  // namespace

TEST_CASE("GEMM efficiency runs from small_gemm at 256 to large_gemm at 4,096, linear in log2") {
  const GpuSpec g = gpu();
  CHECK(gemm_efficiency(g, 64) == Approx(0.5));
  CHECK(gemm_efficiency(g, 256) == Approx(0.5));
  // 1,024 is two of the four doublings from 256 to 4,096: 0.5 + 0.3 x 2/4.
  CHECK(gemm_efficiency(g, 1024) == Approx(0.65));
  CHECK(gemm_efficiency(g, 4096) == Approx(0.8));
  CHECK(gemm_efficiency(g, 16384) == Approx(0.8));
  for (double d = 256; d < 4096; d *= 1.5) CHECK(gemm_efficiency(g, d) <= gemm_efficiency(g, d * 1.5));
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
  const double bytes = gemv.hbm_bytes;  // 2 B x (8192 + 8192 x 28672 + 28672)
  SECTION("without a gemm_hbm figure, GEMMs use hbm") {
    const KernelTime t = kernel_time(g, gemv);
    CHECK(t.bound == Resource::hbm);
    CHECK(to_seconds(t.duration) == Approx(bytes / (4e12 * 0.9) + 4e-6));
  }
  SECTION("with gemm_hbm = 0.74 the weights stream slower; a copy keeps hbm") {
    g.eff.gemm_hbm = 0.74;
    CHECK(to_seconds(kernel_time(g, gemv).duration) == Approx(bytes / (4e12 * 0.74) + 4e-6));
    KernelWork copy;
    copy.hbm_bytes = bytes;
    CHECK(to_seconds(kernel_time(g, copy).duration) == Approx(bytes / (4e12 * 0.9) + 4e-6));
  }
}
