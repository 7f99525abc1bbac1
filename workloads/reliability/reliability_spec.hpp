#pragma once
// What a training run's reliability depends on besides its step: how often each kind of component
// fails, how checkpoints are written and read, and what a restart costs. The scenario's
// [reliability] table fills it (docs/scenarios.md); every figure has a default with its source
// (docs/reliability.md).

#include <cstdint>

#include "sim/quantity.hpp"

namespace stepsim::work {

/// The Llama 3 report (Dubey et al. 2024, arXiv 2407.21783, section 3.3.4, Table 5): 419 unexpected
/// interruptions of the 405B pretraining run on 16,384 H100 (2,048 nodes of 8) over a 54-day
/// snapshot, by root cause. stepsim groups the rows by the component that fails:
///   GPU (268): faulty GPU 148, GPU HBM3 memory 72, GPU SRAM memory 19, GPU system processor 17,
///              silent data corruption 6, GPU thermal interface + sensor 6;
///   node (109): software bug 54, host maintenance 32, NCCL watchdog timeouts 7 (cause unknown,
///              counted per node), SSD 3, power supply 3, server chassis 2, IO expansion board 2,
///              dependency 2, CPU 2, system memory 2;
///   NIC (7); network switch/cable (35).
/// The counts sum to 419 (the table's first percentage, 30.1%, is not 148/419 = 35.3%: the counts
/// are used). The report's 47 planned interruptions are left out: they are scheduled, not failures.
namespace llama3_report {
inline constexpr double kSnapshotHours = 54.0 * 24.0;  // 1,296 h
inline constexpr double kGpus = 16384.0;
inline constexpr double kNodes = 2048.0;
/// One 400 Gb/s RoCE NIC per GPU (section 3.3.1), as the bundled 405B example models it.
inline constexpr double kNics = 16384.0;
/// Assumed: the report does not count its switches. stepsim's model of its fabric (the bundled
/// scenarios/examples/llama3.1-405b-16384xh100.toml: rail-optimised, 3 tiers, 32 hosts per leaf,
/// 16 leaves per pod) has 512 leaves + 1,024 spines + 512 cores = 2,048 switches; the default
/// per-switch rate is calibrated on that count, so the example's fabric fails as often as the
/// report's did. A test checks the count against the topology.
inline constexpr double kSwitches = 2048.0;
inline constexpr double kGpuFailures = 268.0;
inline constexpr double kNodeFailures = 109.0;
inline constexpr double kNicFailures = 7.0;
inline constexpr double kSwitchFailures = 35.0;
}  // namespace llama3_report

/// Mean time between failures of one component of each kind, in hours of operation; failures of
/// different components are independent Poisson processes. infinity = never fails.
struct FailureRates {
  /// 16,384 x 1,296 h / 268 = 79,230 h per GPU.
  double gpu_mtbf_hours = llama3_report::kGpus * llama3_report::kSnapshotHours / llama3_report::kGpuFailures;
  /// Host (CPU, memory, PSU, chassis, SSD, software): 2,048 x 1,296 h / 109 = 24,351 h per node.
  double node_mtbf_hours =
      llama3_report::kNodes * llama3_report::kSnapshotHours / llama3_report::kNodeFailures;
  /// 16,384 x 1,296 h / 7 = 3,033,381 h per NIC.
  double nic_mtbf_hours = llama3_report::kNics * llama3_report::kSnapshotHours / llama3_report::kNicFailures;
  /// Scale-out switch with its cables: 2,048 x 1,296 h / 35 = 75,834 h per switch (see kSwitches).
  double switch_mtbf_hours =
      llama3_report::kSwitches * llama3_report::kSnapshotHours / llama3_report::kSwitchFailures;
};

/// How a checkpoint stops training.
enum class CheckpointMode : std::uint8_t {
  sync,   ///< training waits while the whole checkpoint is written to storage
  async,  ///< training waits only for the copy to host memory; the write to storage runs behind
          ///< it, and the checkpoint can be restored only once that write has finished
};

struct CheckpointSpec {
  /// Aggregate storage bandwidth for writing and reading checkpoints (decimal GB/s). Default: the
  /// Llama 3 report's Tectonic file system, 2 TB/s sustained (section 3.3.1; 7 TB/s peak). Assumed:
  /// reads run at the same sustained rate.
  BytesPerSecond storage_write = units::tb_per_s(2.0);
  BytesPerSecond storage_read = units::tb_per_s(2.0);
  CheckpointMode mode = CheckpointMode::sync;
  /// Steps between checkpoints; 0 = the Young/Daly optimum for this job, rounded to whole steps.
  std::int64_t interval_steps = 0;
};

struct ReliabilitySpec {
  FailureRates failures;
  CheckpointSpec checkpoint;
  /// Seconds from a failure until the job runs again, before the checkpoint is read: detecting the
  /// failure, rescheduling on healthy nodes, process start and NCCL initialisation. Assumed (a
  /// guess, no verified source): 10 minutes.
  double restart_s = 600.0;
};

}  // namespace stepsim::work
