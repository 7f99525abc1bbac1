#pragma once
// Several jobs on one cluster: what each job is, how many of the cluster's nodes it gets and
// which ones (packed, spread over leaf switches, or a list the user wrote).
//
// A job is an ordinary JobSpec whose cluster is the part it sees: its own node count, and the
// cluster's GPU and node shape. Its rank r runs on GPU r of its own numbering; placement maps its
// node n to a cluster node, keeping each GPU's index inside the node, so NVLink domains (one per
// node or smaller) stay whole.

#include <string>
#include <vector>

#include "topology/cluster.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

enum class NodePlacement : std::uint8_t {
  packed,  ///< the lowest-numbered free nodes, filling one leaf switch before the next
  spread,  ///< free nodes taken one per leaf switch in turn, so the job spans as many leaves as it can
  explicit_nodes,  ///< the nodes ClusterJob::nodes lists, in order
};

struct ClusterJob {
  std::string name;
  JobSpec job;  ///< job.cluster.nodes is how many nodes it gets
  NodePlacement placement = NodePlacement::packed;
  std::vector<int> nodes;  ///< explicit_nodes: the cluster node of each of the job's nodes
  /// When its first step starts, seconds after time 0 (jobs out of phase with each other).
  double start_s = 0.0;
};

struct ClusterJobs {
  topo::ClusterSpec cluster;  ///< the whole machine: every job's nodes are among its nodes
  std::vector<ClusterJob> jobs;
  /// Steps each job runs at least; shorter jobs run more, until the longest has run this many.
  int steps = 4;
};

/// The leaf switch (rail-optimised: the group of leaves) that node `node`'s NICs hang off; 0 for
/// every node of a custom fabric or a cluster without one.
int leaf_group_of_node(const topo::ClusterSpec& cluster, int node);

/// The cluster node of each node of each job (indexed like `jobs.jobs`): explicit lists first, then
/// packed and spread jobs in file order from the nodes left. Throws UserError when a list names a
/// node twice or outside the cluster, two lists overlap, or the jobs need more nodes than it has.
std::vector<std::vector<int>> place_jobs(const ClusterJobs& jobs);

/// Throws UserError unless `job` can run on `cluster`'s nodes: the same GPU, GPUs per node and
/// NVLink domain (no larger than a node), and no [variability] (one nominal step per job).
void check_cluster_job(const topo::ClusterSpec& cluster, const ClusterJob& job);

}  // namespace stepsim::work
