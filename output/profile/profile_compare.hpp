#pragma once
// A profiled run side by side with the simulation of the same scenario, class by class: the
// simulated ops of a window (one rank, some layers, some micro-batches) classed as the trace's
// kernels are (output/profile/profile_trace.hpp), their times against the measured ones, achieved TFLOP/s,
// and communication per group.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "output/profile/profile_trace.hpp"
#include "sim/run_result.hpp"
#include "topology/gpu.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::out {

/// The part of the simulated step a trace covers. -1 bounds mean "all".
struct ProfileWindow {
  int rank = 0;  ///< global rank; must be one of the simulated ranks
  int first_layer = -1, last_layer = -1;
  int first_microbatch = -1, last_microbatch = -1;
};

/// The kernel class (as kernel_class names them) of a simulated compute op, from its label (pass
/// prefix fwd./bwd./rc. ignored) and its op class.
std::string simulated_op_class(std::string label, topo::OpClass op_class);
/// The kernel class of bandwidth-bound kernels of a kind ("norm", "moe_routing", "elementwise"
/// for `other`, ...), and back (empty when the class is not one of a kind).
std::string kind_class(topo::KernelKind kind);
std::optional<topo::KernelKind> class_kind(std::string_view cls);

struct SimulatedClass {
  double time_s = 0.0;
  long count = 0;
  double flops = 0.0;      ///< the ops' FLOPs as the simulation counts them
  double hbm_bytes = 0.0;  ///< the ops' HBM bytes as the simulation counts them
};

/// The simulated window, by class; communication by group (tp, ep, dp, ...).
struct SimulatedProfile {
  std::map<std::string, SimulatedClass> classes;
  std::map<std::string, double> comm_busy_s;     ///< union of the group's comm ops of the window
  std::map<std::string, double> comm_exposed_s;  ///< the part no compute op of the rank hid
  long ops = 0;                                  ///< compute ops in the window
  double host_s = 0.0;  ///< the window's host ops (launches, syncs): the rank's host time for it
  long host_ops = 0;
};

/// The window's compute ops by class. With `run`, an op's time is its simulated duration (end -
/// start, slowdowns beside communication included) and communication is measured too; without,
/// it is the op's work alone times `alone_scale` (tests price kernels as run beside DeepEP so).
/// Throws UserError when the rank is not simulated or the window selects no compute op.
SimulatedProfile simulate_window(const work::StepPlan& plan, const ProfileWindow& window,
                                 const sim::RunResult* run, double alone_scale = 1.0);

/// One class of the comparison.
struct ProfileRow {
  std::string cls;
  double measured_s = 0.0;
  long kernels = 0;
  double simulated_s = 0.0;
  long simulated_ops = 0;
  double flops = 0.0;        ///< simulated FLOPs of the class (GEMM, attention); 0 when unknown
  double hbm_bytes = 0.0;    ///< simulated HBM bytes of the class
  double trace_flops = 0.0;  ///< FLOPs of the measured kernels whose shapes the trace recorded
  long shaped = 0;           ///< measured kernels with recorded shapes
  /// simulated / measured - 1; 0 when nothing was measured.
  double error() const { return measured_s > 0.0 ? simulated_s / measured_s - 1.0 : 0.0; }
  /// The measured kernels' rate at the simulation's FLOPs, TFLOP/s; 0 when unknown.
  double measured_tflops() const {
    return measured_s > 0.0 && flops > 0.0 ? flops / measured_s * 1e-12 : 0.0;
  }
  /// The measured kernels' HBM bandwidth at the simulation's bytes, GB/s; 0 when unknown.
  double measured_gb_s() const {
    return measured_s > 0.0 && hbm_bytes > 0.0 ? hbm_bytes / measured_s * 1e-9 : 0.0;
  }
};

/// Whole steps, where the trace covers them (`--steps N`): the figures a profiled run is checked by.
struct StepFigures {
  int steps = 0;                 ///< steps the trace covers; 0 = not whole steps
  double measured_step_s = 0.0;  ///< the trace's GPU span over `steps`
  double simulated_step_s = 0.0;
  double measured_compute_s = 0.0;  ///< per step: time some compute kernel ran
  double simulated_compute_s = 0.0;
  double measured_exposed_comm_s = 0.0;  ///< per step: communication no compute kernel hid
  double simulated_exposed_comm_s = 0.0;
  double mfu_measured = 0.0, mfu_simulated = 0.0;
  double tokens_per_s_per_gpu_measured = 0.0, tokens_per_s_per_gpu_simulated = 0.0;
};

struct ProfileComparison {
  std::string trace, scenario;
  ProfileWindow window;
  std::vector<int> ranks;  ///< every rank compared (several traces: their windows summed)
  StepFigures step;
  std::vector<ProfileRow> rows;       ///< compute classes, measured or simulated, by name
  std::vector<ProfileRow> comm_rows;  ///< measured communication classes (simulated: matched group)
  ProfileRow total;                   ///< compute classes summed
  MeasuredProfile measured;
  SimulatedProfile simulated;
};

/// The side-by-side comparison of a measured and a simulated profile.
ProfileComparison compare_profiles(MeasuredProfile measured, SimulatedProfile simulated);

/// Both GEMM classes summed (a per-expert GEMM under a dense kernel name is measured as gemm_dense).
ProfileRow gemm_row(const ProfileComparison& c);

std::string profile_table(const ProfileComparison& c);
nlohmann::json profile_json(const ProfileComparison& c);

}  // namespace stepsim::out
