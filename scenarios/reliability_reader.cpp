// Reader of the [reliability] table: what `stepsim goodput` needs besides the step.
#include "scenarios/choices.hpp"
#include "scenarios/scenario_sections.hpp"

namespace stepsim::scen::detail {
namespace {

constexpr RealRange kMtbfHours{0.0, std::numeric_limits<double>::infinity(), true,
                               "hours between failures of one component, e.g. 80000 (1e30: never fails)"};
constexpr RealRange kStorageGbS{0.0, std::numeric_limits<double>::infinity(), true,
                                "aggregate storage bandwidth in GB/s (1e9 bytes/s), e.g. 2000 for 2 TB/s"};
constexpr RealRange kRestartS{
    0.0, std::numeric_limits<double>::infinity(), false,
    "seconds from a failure to running again, before the checkpoint is read, e.g. 600"};

void read_failure_rates(TableReader& r, work::FailureRates& f) {
  r.read("gpu_mtbf_hours", f.gpu_mtbf_hours, kMtbfHours);
  r.read("node_mtbf_hours", f.node_mtbf_hours, kMtbfHours);
  r.read("nic_mtbf_hours", f.nic_mtbf_hours, kMtbfHours);
  r.read("switch_mtbf_hours", f.switch_mtbf_hours, kMtbfHours);
}

}  // namespace

void read_reliability_section(TableReader r, Scenario& s) {
  work::ReliabilitySpec& rel = s.reliability;
  read_failure_rates(r, rel.failures);
  work::CheckpointSpec& c = rel.checkpoint;
  r.read("storage_write_gb_s", c.storage_write, kStorageGbS, &units::gb_per_s);
  r.read("storage_read_gb_s", c.storage_read, kStorageGbS, &units::gb_per_s);
  r.read("checkpoint_mode", c.mode, choices::kCheckpointMode);
  int interval = 0;
  if (r.read("checkpoint_interval_steps", interval, kPositiveInt)) c.interval_steps = interval;
  r.read("restart_s", rel.restart_s, kRestartS);
  r.finish();
  // [hardware] and [workload] are read before this table.
  if (s.job.workload.kind != work::WorkloadKind::train)
    r.fail("", "describes failures of a training run, and this scenario is not one",
           "remove [reliability], or set workload.kind = \"train\"");
  if (c.mode == work::CheckpointMode::async && !(s.job.cluster.gpu.pcie_bw.value() > 0.0))
    r.fail("checkpoint_mode",
           "an asynchronous checkpoint copies the model state to host memory over PCIe, and this GPU has no "
           "PCIe bandwidth",
           "set hardware.gpu.pcie_gb_s, or checkpoint_mode = \"sync\"");
}

}  // namespace stepsim::scen::detail
