// Cross-field rule of a forced collective algorithm or protocol ([collective], NCCL_ALGO and
// NCCL_PROTO). Whether it can run depends on the shape of every group the step communicates in
// (hosts, NVLink domains: a tree needs two hosts, NVLS one domain), so the rule plans the step's
// collectives on the job's topology exactly as a run does, without simulating anything. It costs
// a step build, paid only when something is forced.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/cross_checks_rules.hpp"
#include "topology/collectives.hpp"
#include "topology/topology.hpp"
#include "workloads/step/inference_step.hpp"
#include "workloads/layout/topology_planner.hpp"
#include "workloads/step/train_step.hpp"

namespace stepsim::scen::detail {
namespace cross_checks_collective {

/// The steps a job runs: itself, or for a generation or a serving run a prefill and a decode step
/// (one token each: the groups, not the sizes, decide what an algorithm can run).
std::vector<work::JobSpec> steps_of(const work::JobSpec& job) {
  using K = work::WorkloadKind;
  const K kind = job.workload.kind;
  if (kind != K::generate && kind != K::serve) return {job};
  work::JobSpec prefill = job;
  prefill.workload.kind = K::prefill;
  prefill.workload.batch = 1;
  prefill.workload.seq_len = 1;
  prefill.workload.output_len = 0;
  work::JobSpec decode = prefill;
  decode.workload.kind = K::decode;
  decode.workload.context_len = 1;
  return {prefill, decode};
}

/// True for the transfer table's refusals of a forced algorithm or protocol (transfer_table.cpp).
bool forced_refusal(const UserError& e) {
  return e.key().empty() &&
         (e.problem().rfind("algorithm `", 0) == 0 || e.problem().rfind("protocol `", 0) == 0);
}

}  // namespace cross_checks_collective

void check_collective_rules(const work::JobSpec& job) {
  const topo::CommConfig& forced = job.collective;
  if (forced.algorithm == topo::CollectiveAlgorithm::automatic &&
      forced.protocol == topo::CollectiveProtocol::automatic)
    return;
  const auto topology = std::make_shared<const topo::Topology>(job.cluster);
  for (const work::JobSpec& step : cross_checks_collective::steps_of(job)) {
    work::TopologyPlanner planner(topology, forced);
    try {
      if (step.workload.kind == work::WorkloadKind::train)
        (void)work::build_train_step(step, planner);
      else
        (void)work::build_inference_step(step, planner);
    } catch (const UserError& e) {
      if (!cross_checks_collective::forced_refusal(e)) throw;
      const bool algorithm = forced.algorithm != topo::CollectiveAlgorithm::automatic;
      refuse(algorithm ? "collective.algorithm" : "collective.protocol",
             "cannot run every collective of this job: " + e.problem(),
             std::string(algorithm ? "NCCL_ALGO" : "NCCL_PROTO") +
                 " binds every collective; remove it to let stepsim choose for each one, as NCCL does by "
                 "default");
    }
  }
}

}  // namespace stepsim::scen::detail
