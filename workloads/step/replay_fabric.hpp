#pragma once
// Degraded links and switches in a replay of every GPU (stepsim run --ranks replay): which groups'
// collectives they reach, and how much longer each of their copies takes.
//
// The representative step runs on the healthy fabric: its simulated groups and their images give
// every copy of a collective the same duration. A degraded part makes the groups whose routes cross
// it slower than the others. A degraded NIC or NVLink reaches the groups with a member in its
// scale-up domain: the degraded GPU's own traffic, a NIC-down GPU's traffic moved onto its
// neighbour's NIC, and PXN's relays, which stay inside the sender's domain, never leave it. A
// degraded or failed switch reaches every group that spans domains (its traffic leaves them through
// the switches). For each collective those groups are planned alone on both fabrics (each choosing
// its algorithm and protocol afresh, as a new plan on that fabric would), started together on the
// flow network the step runs on (topo::run_transfers: two groups sharing a NIC share it), and each
// group's copies take the run's duration x (degraded time / healthy time). The rest of the job keeps its
// representative durations, and other collectives that share the slow part at the same time in the real
// schedule are not re-timed (docs/simulation.md, "Every GPU replayed").

#include <memory>

#include "sim/replay.hpp"
#include "topology/collectives.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/model/job.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

/// What the degraded links did to the replay's collectives.
struct FabricScaling {
  std::size_t ops = 0;      ///< transfer ops with at least one scaled copy
  std::size_t copies = 0;   ///< op copies scaled
  double max_factor = 1.0;  ///< the largest time factor of a copy
};

/// Fills layout.scale_begin / layout.scales for job.cluster's degraded links and switches over
/// `plan`, a representative step whose collectives `healthy` planned on the fabric without them with
/// `config`; `degraded` is the job's topology, built from job.cluster with them. Copy j of an op is
/// the GPU RankLayout::stage_rank(stage, j) (layout.width copies). Nothing is scaled without
/// degraded parts.
FabricScaling scale_degraded_transfers(const JobSpec& job, const StepPlan& plan,
                                       const topo::TransferTable& healthy,
                                       std::shared_ptr<const topo::Topology> degraded,
                                       const topo::CommConfig& config, sim::ReplayLayout& layout);

}  // namespace stepsim::work
