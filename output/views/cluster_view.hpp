#pragma once
// Several jobs on one cluster (workloads/cluster/cluster_sim.hpp) as a terminal report and as JSON:
// each job's step alone and shared, and the links more than one job uses.

#include <nlohmann/json.hpp>
#include <string>

#include "workloads/cluster/cluster_sim.hpp"

namespace stepsim::out {

/// The cluster, one row per job (nodes, step alone, step shared, slowdown, steps in the window),
/// the contended links by tier and the busiest of them with each job's bytes per step.
std::string cluster_table(const std::string& name, const work::ClusterJobs& spec,
                          const work::ClusterSimulation& s);

/// The same as JSON, keys in a fixed order (docs/simulation.md lists them); every contended link.
nlohmann::ordered_json cluster_json(const std::string& name, const work::ClusterJobs& spec,
                                    const work::ClusterSimulation& s);

}  // namespace stepsim::out
