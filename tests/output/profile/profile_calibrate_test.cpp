// The calibration a profile implies (output/profile/profile_calibrate.hpp), against a window whose simulated
// times follow formulas written here, so the fitted figures can be derived by hand; and the catalog
// file it writes, read back through the catalog reader.
#include <catch2/catch.hpp>

#include "output/profile/profile_calibrate.hpp"
#include "scenarios/catalog.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace profile_calibrate_rows {

/// The measured window: GEMMs 13 ms, norms 2.8 ms, activations 1.5 ms, attention 4 ms, element-wise
/// kernels the simulation has none of 0.7 ms, and an NCCL all-reduce.
MeasuredProfile measured() {
  MeasuredProfile m;
  m.classes["gemm_dense"] = {13e-3, 40};
  m.classes["norm"] = {2.8e-3, 8};
  m.classes["activation"] = {1.5e-3, 4};
  m.classes["attention"] = {4e-3, 4};
  m.classes["elementwise"] = {0.7e-3, 30};
  m.classes["nccl_all_reduce"] = {3e-3, 2};
  m.exposed_comm_s["nccl_all_reduce"] = 1e-3;
  m.kernels = 88;
  return m;
}

/// Simulated times as the figures set them:
///   GEMMs       8 ms x 0.8 / peak + 0.5 ms (launch gaps, which no efficiency scales)
///   norms       2 ms x 0.84 / hbm_norm
///   activations 1 ms x 0.84 / hbm_activation + 1 ms (a floor: vector FLOPs)
///   attention   4 ms x 0.5 / attention
ProfileComparison simulate(const topo::GpuSpec& g, int& calls) {
  ++calls;
  SimulatedProfile s;
  s.classes["gemm_dense"] = {8e-3 * 0.8 / g.eff.gemm16.peak + 0.5e-3, 40, 1e12, 0.0};
  s.classes["norm"] = {2e-3 * 0.84 / g.eff.hbm_of(topo::KernelKind::norm), 8, 0.0, 1e9};
  s.classes["activation"] = {1e-3 * 0.84 / g.eff.hbm_of(topo::KernelKind::activation) + 1e-3, 4, 0.0, 1e9};
  s.classes["attention"] = {4e-3 * 0.5 / g.eff.attention, 4, 1e11, 0.0};
  s.ops = 56;
  return compare_profiles(measured(), s);
}

}  // namespace profile_calibrate_rows

TEST_CASE("calibration: the figures that reproduce a window, derived by hand", "[profile]") {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  topo::GpuSpec gpu = *catalog.find_gpu("h100-sxm");
  gpu.eff.gemm16.peak = 0.8;
  gpu.eff.hbm = 0.84;
  gpu.eff.attention = 0.5;
  int calls = 0;
  const Calibration c = calibrate(gpu, {false, topo::AttentionKernel::cudnn}, [&](const topo::GpuSpec& g) {
    return profile_calibrate_rows::simulate(g, calls);
  });
  CHECK(c.simulations == calls);
  CHECK(calls <= 8);
  std::map<std::string, CalibratedFigure> f;
  for (const auto& x : c.figures) f[x.key] = x;
  REQUIRE(f.size() == 4);  // GEMM (BF16: the linears are not FP8), attention, norm, activation

  // GEMMs: 6.4 ms / peak + 0.5 ms = 13 ms at peak = 6.4 / 12.5 = 0.512 (within the 1% tolerance).
  CHECK(f["gemm_bf16"].before == 0.8);
  CHECK(f["gemm_bf16"].after == Approx(0.512).epsilon(0.011));
  CHECK(f["gemm_bf16"].simulated_after_s == Approx(13e-3).epsilon(0.011));
  CHECK(c.calibrated.eff.gemm16.peak == f["gemm_bf16"].after);
  CHECK(c.calibrated.eff.gemm8.peak == gpu.eff.gemm8.peak);  // the FP8 curve is not this trace's
  // Norms: 1.68 ms / e = 2.8 ms at e = 0.6; the GPU's hbm (0.84) is the figure it replaces.
  CHECK(f["hbm_norm"].before == 0.84);
  CHECK(f["hbm_norm"].after == Approx(0.6).epsilon(0.011));
  CHECK(c.calibrated.eff.hbm == 0.84);  // other kernels keep the GPU's figure
  // Attention: 2 ms / e = 4 ms at e = 0.5: already right, kept.
  CHECK(f["attention"].after == 0.5);
  // Activations: 0.84 ms / e + 1 ms = 1.5 ms needs e = 1.68, beyond 1: held at 1 (1.84 ms), said.
  CHECK(f["hbm_activation"].after == 1.0);
  CHECK(f["hbm_activation"].at_limit);
  CHECK(f["hbm_activation"].simulated_after_s == Approx(1.84e-3));
  CHECK_FALSE(f["hbm_norm"].at_limit);

  const auto said = [&](const std::string& text) {
    for (const std::string& s : c.findings)
      if (s.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(said("the trace contradicts efficiency.gemm_bf16 = 0.800"));
  CHECK(said("efficiency.attention = 0.500"));
  CHECK(said("agrees with the trace within 10%"));
  CHECK(said("efficiency.hbm_activation reached 1"));
  CHECK(said("0.700 ms of elementwise kernels"));  // measured, nothing simulated: not calibrated
  CHECK(said("nccl_all_reduce: 3.000 ms of kernels, 1.000 ms exposed"));
  CHECK(said("communication is not calibrated"));
}

TEST_CASE("calibration: a job on FlashAttention-3 fits attention_fa3, the figure its kernels run at",
          "[profile]") {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  topo::GpuSpec gpu = *catalog.find_gpu("h100-sxm");
  gpu.eff.attention = 0.5;
  gpu.eff.attention_fa3 = 0.25;
  int calls = 0;
  // The window's attention as the job prices it: 4 ms x 0.5 / attention_fa3 (8 ms at 0.25).
  const Calibration c = calibrate(gpu, {false, topo::AttentionKernel::fa3}, [&](const topo::GpuSpec& g) {
    topo::GpuSpec as_fa3 = g;
    as_fa3.eff.attention = g.eff.attention_fa3;
    return profile_calibrate_rows::simulate(as_fa3, calls);
  });
  std::map<std::string, CalibratedFigure> f;
  for (const auto& x : c.figures) f[x.key] = x;
  REQUIRE(f.count("attention_fa3") == 1);
  CHECK(f.count("attention") == 0);
  // 2 ms / e = the measured 4 ms at e = 0.5 (the cuDNN figure is not this trace's and stays).
  CHECK(f["attention_fa3"].before == 0.25);
  CHECK(f["attention_fa3"].after == Approx(0.5).epsilon(0.011));
  CHECK(c.calibrated.eff.attention_fa3 == f["attention_fa3"].after);
  CHECK(c.calibrated.eff.attention == 0.5);
  const scen::Catalog applied =
      catalog.with_text(calibration_toml(c, "t.json against s.toml"), "calibration.toml");
  CHECK(applied.find_gpu("h100-sxm")->eff.attention_fa3 == Approx(f["attention_fa3"].after).margin(5e-5));
}

TEST_CASE("calibration: the catalog file reads back as the fitted figures, measured from the trace",
          "[profile]") {
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  topo::GpuSpec gpu = *catalog.find_gpu("h100-sxm");
  gpu.eff.gemm16.peak = 0.8;
  gpu.eff.hbm = 0.84;
  gpu.eff.attention = 0.5;
  int calls = 0;
  const Calibration c = calibrate(gpu, {false, topo::AttentionKernel::cudnn}, [&](const topo::GpuSpec& g) {
    return profile_calibrate_rows::simulate(g, calls);
  });
  const std::string toml = calibration_toml(c, "t.json (rank 0) against s.toml");
  const scen::Catalog applied = catalog.with_text(toml, "calibration.toml");
  const topo::GpuSpec& g = *applied.find_gpu("h100-sxm");
  // Written to 4 decimals.
  CHECK(g.eff.gemm16.peak == Approx(c.calibrated.eff.gemm16.peak).margin(5e-5));
  CHECK(g.eff.gemm16.mn_half == gpu.eff.gemm16.mn_half);  // the curve's shape is kept
  CHECK(g.eff.hbm_of(topo::KernelKind::norm) == Approx(c.calibrated.eff.hbm_kind[1]).margin(5e-5));
  CHECK(g.eff.hbm_of(topo::KernelKind::activation) == 1.0);
  // Not in the file: the built-in catalog's figure stays (the H100's measured cast-transpose).
  CHECK(g.eff.hbm_of(topo::KernelKind::quantize) ==
        catalog.find_gpu("h100-sxm")->eff.hbm_of(topo::KernelKind::quantize));
  bool measured = false;
  for (const topo::FigureSource& s : g.sources)
    if (s.key == "efficiency.hbm_norm")
      measured = s.kind == topo::SourceKind::measured && s.text.find("t.json (rank 0)") != std::string::npos;
  CHECK(measured);
  // The comments carry the comparison and the findings.
  CHECK(toml.find("# What the trace says") != std::string::npos);
  CHECK(toml.find("norm: measured 2.800 ms, simulated 2.000 ms") != std::string::npos);
}
