#pragma once
// The calibration a profiled run implies (`stepsim profile --write-calibration`): the GPU's
// efficiencies that make the simulated window take the trace's time, class by class, found by
// re-simulating with each figure scaled by simulated / measured time until the classes agree; the
// catalog overlay that holds them with their provenance; and what the trace contradicts.
//
// Fitted figures, one per class group of the comparison (output/profile/profile_compare.hpp):
//   gemm_dense + gemm_expert -> efficiency.gemm_bf16 (or gemm_fp8 when the linears run in FP8) peak
//   attention               -> efficiency.attention (attention_fa2 / attention_fa3 / attention_flex where the
//                              job runs FlashAttention-2 / -3 / FlexAttention: the figure its kernels are
//                              priced at)
//   norm, activation, quantize, moe_routing, optimizer, elementwise
//                           -> efficiency.hbm_<kind> (the kind's share of HBM bandwidth)
// Communication is not fitted: a communication kernel's duration includes its wait for peers.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/profile/profile_compare.hpp"
#include "topology/gpu.hpp"

namespace stepsim::out {

/// One catalog figure the calibration sets.
struct CalibratedFigure {
  std::string key;      ///< under [gpu.<id>.efficiency]: "attention", "gemm_fp8", "hbm_norm"
  std::string classes;  ///< the trace classes it reproduces, "gemm_dense + gemm_expert"
  double before = 0.0;  ///< the figure the catalog had (a curve's peak; a kind's: the GPU's hbm)
  double after = 0.0;
  std::string before_source;  ///< the provenance of the figure it replaces
  double measured_s = 0.0;    ///< the classes' measured time
  double simulated_before_s = 0.0, simulated_after_s = 0.0;
  bool at_limit = false;  ///< the figure reached 1 and the simulation is still slower
};

/// The host's figure: host_framework_us, scaled so that the window's simulated host time (its
/// launches; host time is linear in it) is the trace's launching time. Fitted only where both exist.
struct HostFigure {
  bool fitted = false;
  double before_us = 0.0, after_us = 0.0;
  std::string before_source;
  double measured_s = 0.0;  ///< the trace's launching time (HostLaunches::busy_s)
  double simulated_before_s = 0.0, simulated_after_s = 0.0;
};

struct Calibration {
  std::string gpu_id, gpu_name;
  topo::GpuSpec calibrated;  ///< the GPU with the fitted figures
  std::vector<CalibratedFigure> figures;
  HostFigure host;
  std::vector<std::string> findings;  ///< what the trace contradicts; what was not calibrated and why
  ProfileComparison before, after;    ///< after: simulated with `calibrated`
  int simulations = 0;                ///< simulations the fit took
  double tolerance = 0.0;             ///< the fit stops when every fitted class is this close
};

/// Which of the GPU's figures the job's kernels run at, so which ones the calibration fits.
struct FittedKernels {
  bool fp8_linears = false;  ///< the linears run in FP8: gemm_fp8, else gemm_bf16
  topo::AttentionKernel attention = topo::AttentionKernel::cudnn;  ///< the job's workload.attention_kernel
};

/// Simulates the window with a GPU and compares it with the trace(s).
using CompareWithGpu = std::function<ProfileComparison(const topo::GpuSpec&)>;

/// Fits the figures above for `gpu`, those `kernels` says the job runs at. Re-simulates at most
/// `max_simulations` times.
Calibration calibrate(const topo::GpuSpec& gpu, const FittedKernels& kernels, const CompareWithGpu& compare,
                      double tolerance = 0.01, int max_simulations = 8);

/// The catalog overlay (`--catalog FILE`): `[gpu.<id>.efficiency]` with the fitted figures,
/// `[gpu.<id>.source]` saying each was measured from the trace, and the comparison before and
/// after with the findings as comments. `origin` names the traces, scenario and window.
std::string calibration_toml(const Calibration& c, const std::string& origin);
/// The figures, before and after, and the findings, for the terminal.
std::string calibration_text(const Calibration& c);
nlohmann::json calibration_json(const Calibration& c);

}  // namespace stepsim::out
