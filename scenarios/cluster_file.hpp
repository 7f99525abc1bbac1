#pragma once
// A cluster file: several scenarios placed on one cluster and simulated together (`stepsim
// cluster`). [cluster] gives the machine (the hardware and fabric of a scenario, with its total node
// count) and each [[job]] a scenario and where its nodes go. docs/scenarios.md is the format.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/catalog.hpp"
#include "workloads/cluster/cluster_jobs.hpp"

namespace stepsim::scen {

struct ClusterFile {
  work::ClusterJobs jobs;  ///< validated: placements fit, every job runs on the cluster's GPUs and fabric
  std::string name;        ///< [cluster] name, else the file's stem
  std::vector<std::filesystem::path> scenarios;  ///< each job's scenario file, as resolved
  std::filesystem::path base;                    ///< the scenario the hardware came from
  std::string display_name;                      ///< how messages name the file
};

/// Reads a cluster file and the scenarios it names (relative to it) against `catalog`. Throws
/// UserError with the file, line, column and key of any problem.
ClusterFile load_cluster_file(const std::filesystem::path& path, const Catalog& catalog);
/// As load_cluster_file, from text; `name` stands in for the file name, scenarios resolve against
/// `base_dir`.
ClusterFile load_cluster_string(std::string_view text, const std::string& name, const Catalog& catalog,
                                const std::filesystem::path& base_dir);

}  // namespace stepsim::scen
