#pragma once
// A PyTorch profiler (Kineto) Chrome trace's GPU work, and the kernel classes `stepsim profile`
// compares with the simulation: each kernel name is matched against one table of rules (GEMM
// libraries, attention, norms, casts, MoE routing, optimizer, NCCL and DeepEP communication,
// copies, element-wise work). A kernel no rule matches is unclassified and listed, never dropped.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stepsim::out {

/// One GPU activity of the trace: a kernel, a memcpy or a memset.
struct TraceKernel {
  std::string name;
  std::string category;  ///< "kernel", "gpu_memcpy" or "gpu_memset" (the event's "cat")
  double ts_us = 0.0;    ///< start, microseconds (the trace's clock)
  double dur_us = 0.0;   ///< duration, microseconds
  int device = 0;        ///< args.device (the event's pid when absent)
  int stream = 0;        ///< args.stream (the event's tid when absent)
  /// A GEMM kernel whose launching op's input dims the trace recorded (record_shapes=True).
  bool shaped = false;
  /// FLOPs of the launching GEMM op (2 m n k, times the batch), on the op's first GEMM kernel
  /// only (a split-K reduction of the same op gets 0); 0 when the shapes are unknown.
  double flops = 0.0;
};

/// The GPU activities of one trace (a Kineto Chrome trace or an Nsight Systems export), in trace order.
struct GpuTrace {
  std::filesystem::path path;
  std::vector<TraceKernel> kernels;
  /// Start of each host launch call (cudaLaunchKernel[ExC], cuLaunchKernel[Ex], cudaMemsetAsync,
  /// cudaMemcpyAsync, cudaGraphLaunch), microseconds; empty when the trace has no runtime events.
  std::vector<double> launches_us;
};

/// Reads a Kineto Chrome trace (a JSON object with "traceEvents", or a bare event array). Throws
/// UserError when the file cannot be read or parsed, or holds no GPU kernel events.
GpuTrace read_kineto_trace(const std::filesystem::path& path);
/// As above from the trace's text; `source` names it in messages.
/// GEMM kernels get the FLOPs of the CPU op that launched them (aten::mm, addmm, bmm, baddbmm,
/// matmul, linear, _scaled_mm with "Input Dims"), linked by the kernel's "External id" or, without
/// one, through the launch event ("cuda_runtime"/"cuda_driver") of the same "correlation".
GpuTrace parse_kineto_trace(std::string_view text, const std::filesystem::path& source);

/// The class of a GPU activity by its name and category (the rule table in profile_trace.cpp);
/// empty when no rule matches.
std::string kernel_class(std::string_view name, std::string_view category = "kernel");
/// True for the classes of communication kernels (NCCL, DeepEP).
bool is_comm_class(std::string_view cls);

/// Measured time of one class.
struct MeasuredClass {
  double time_s = 0.0;  ///< sum of kernel durations
  long count = 0;       ///< kernels
  double flops = 0.0;   ///< FLOPs of the kernels with known shapes (TraceKernel::flops summed)
  long shaped = 0;      ///< kernels whose launching op's shapes are known
};

/// Kernels no rule matched, grouped by name.
struct UnclassifiedKernel {
  std::string name;
  long count = 0;
  double time_s = 0.0;
};

/// The host side of a trace: how long the host took per launch while it was launching. The host
/// launches in program order (the autograd thread's launches interleave with the main thread's
/// waits), so launches of all threads are merged in time; a gap of `kHostWaitS` or more between two
/// launches is a wait (a synchronisation, a host polling for the GPU, a blocked pipeline receive).
struct HostLaunches {
  static constexpr double kHostWaitS = 1e-3;
  long launches = 0;
  long gaps = 0;        ///< gaps between consecutive launches shorter than kHostWaitS
  double busy_s = 0.0;  ///< their sum: the host's launching time
  long waits = 0;       ///< gaps of kHostWaitS or more
  double wait_s = 0.0;  ///< their sum
  /// Mean host time per launch; 0 without gaps.
  double per_launch_s() const { return gaps > 0 ? busy_s / static_cast<double>(gaps) : 0.0; }
  /// Adds another trace's launches (several profiled ranks).
  HostLaunches& operator+=(const HostLaunches& o) {
    launches += o.launches;
    gaps += o.gaps;
    busy_s += o.busy_s;
    waits += o.waits;
    wait_s += o.wait_s;
    return *this;
  }
};

/// The host launches of `trace` (HostLaunches).
HostLaunches measure_host(const GpuTrace& trace);

/// A trace's GPU time by class. Every kernel lands in exactly one of `classes` or `unclassified`.
struct MeasuredProfile {
  std::map<std::string, MeasuredClass> classes;
  std::vector<UnclassifiedKernel> unclassified;  ///< by total time, longest first
  /// Per communication class: time its kernels ran while no other kernel of the device ran (the
  /// part no compute hid), seconds.
  std::map<std::string, double> exposed_comm_s;
  long kernels = 0;  ///< all GPU activities counted
  HostLaunches host;
};

/// Classifies every activity of `trace` (all devices together).
MeasuredProfile measure_profile(const GpuTrace& trace);

/// A closed interval of time, in seconds.
struct Interval {
  double begin = 0.0, end = 0.0;
};
/// Length of the union of `covered` minus the union of `hiding` (both lists in any order).
double uncovered_time(std::vector<Interval> covered, std::vector<Interval> hiding);

}  // namespace stepsim::out
