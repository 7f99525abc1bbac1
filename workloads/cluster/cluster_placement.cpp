#include <algorithm>
#include <numeric>
#include <string>

#include "sim/error.hpp"
#include "workloads/cluster/cluster_jobs.hpp"

namespace stepsim::work {
namespace {

std::string cluster_nodes_text(const std::vector<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return "[" + out + "]";
}

/// `free` reordered by each node's position among its leaf's free nodes, then by leaf: the first k
/// then take one node per leaf in turn.
std::vector<int> one_per_leaf_first(const topo::ClusterSpec& cluster, const std::vector<int>& free) {
  std::vector<int> rank_in_leaf(free.size());
  std::vector<int> seen;
  for (std::size_t k = 0; k < free.size(); ++k) {
    const auto leaf = static_cast<std::size_t>(leaf_group_of_node(cluster, free[k]));
    if (seen.size() <= leaf) seen.resize(leaf + 1, 0);
    rank_in_leaf[k] = seen[leaf]++;
  }
  std::vector<std::size_t> order(free.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank_in_leaf[a] < rank_in_leaf[b]; });
  std::vector<int> out;
  for (std::size_t k : order) out.push_back(free[k]);
  return out;
}

}  // namespace

int leaf_group_of_node(const topo::ClusterSpec& c, int node) {
  const topo::FabricSpec& f = c.fabric;
  if (f.kind == topo::FabricKind::custom || c.nodes <= 1 || f.hosts_per_leaf <= 0) return 0;
  // topology_fabric.cpp: a fat-tree leaf holds hosts_per_leaf NICs (one per GPU); a rail-optimised
  // group of hosts_per_leaf nodes shares one leaf per rail.
  if (f.kind == topo::FabricKind::rail_optimized) return node / f.hosts_per_leaf;
  return static_cast<int>(static_cast<long long>(node) * c.gpus_per_node / f.hosts_per_leaf);
}

std::vector<std::vector<int>> place_jobs(const ClusterJobs& jobs) {
  const int total = jobs.cluster.nodes;
  std::vector<int> owner(static_cast<std::size_t>(total), -1);
  std::vector<std::vector<int>> out(jobs.jobs.size());
  int wanted = 0;
  for (const ClusterJob& j : jobs.jobs) wanted += j.job.cluster.nodes;
  if (wanted > total)
    throw UserError("the jobs need " + std::to_string(wanted) + " nodes and the cluster has " +
                    std::to_string(total) + " (give the cluster more nodes, or the jobs fewer)");
  for (std::size_t i = 0; i < jobs.jobs.size(); ++i) {
    const ClusterJob& j = jobs.jobs[i];
    if (j.placement != NodePlacement::explicit_nodes) continue;
    if (static_cast<int>(j.nodes.size()) != j.job.cluster.nodes)
      throw UserError("job `" + j.name + "`: nodes " + cluster_nodes_text(j.nodes) + " lists " +
                      std::to_string(j.nodes.size()) + " nodes and its scenario has " +
                      std::to_string(j.job.cluster.nodes));
    for (int n : j.nodes) {
      if (n < 0 || n >= total)
        throw UserError("job `" + j.name + "`: node " + std::to_string(n) +
                        " is not a node of the cluster (0 to " + std::to_string(total - 1) + ")");
      int& o = owner[static_cast<std::size_t>(n)];
      if (o >= 0)
        throw UserError("job `" + j.name + "`: node " + std::to_string(n) + " is already taken by job `" +
                        jobs.jobs[static_cast<std::size_t>(o)].name + "`");
      o = static_cast<int>(i);
    }
    out[i] = j.nodes;
  }
  for (std::size_t i = 0; i < jobs.jobs.size(); ++i) {
    const ClusterJob& j = jobs.jobs[i];
    if (j.placement == NodePlacement::explicit_nodes) continue;
    std::vector<int> free;
    for (int n = 0; n < total; ++n)
      if (owner[static_cast<std::size_t>(n)] < 0) free.push_back(n);
    if (j.placement == NodePlacement::spread) free = one_per_leaf_first(jobs.cluster, free);
    free.resize(static_cast<std::size_t>(j.job.cluster.nodes));
    std::sort(free.begin(), free.end());
    for (int n : free) owner[static_cast<std::size_t>(n)] = static_cast<int>(i);
    out[i] = std::move(free);
  }
  return out;
}

void check_cluster_job(const topo::ClusterSpec& c, const ClusterJob& j) {
  const topo::ClusterSpec& own = j.job.cluster;
  const std::string who = "job `" + j.name + "`: ";
  if (own.gpu.id != c.gpu.id)
    throw UserError(who + "runs on " + own.gpu.id + " GPUs and the cluster has " + c.gpu.id);
  if (own.gpus_per_node != c.gpus_per_node || own.nvlink_domain != c.nvlink_domain)
    throw UserError(who + "has " + std::to_string(own.gpus_per_node) +
                    " GPUs per node in NVLink domains of " + std::to_string(own.nvlink_domain) +
                    ", the cluster " + std::to_string(c.gpus_per_node) + " in domains of " +
                    std::to_string(c.nvlink_domain));
  if (c.nvlink_domain > c.gpus_per_node)
    throw UserError(
        who + "NVLink domains span several nodes (" + std::to_string(c.nvlink_domain) +
        " GPUs): placing whole nodes could split them; cluster files place jobs on clusters whose "
        "domains fit in a node");
  if (j.job.variability.active())
    throw UserError(who +
                    "has [variability]: several jobs on one cluster are simulated at their nominal step");
  if (own.has_degradation() || c.has_degradation())
    throw UserError(who + "degraded links and switches are not simulated for several jobs on one cluster");
  if (j.job.workload.kind == WorkloadKind::generate || j.job.workload.kind == WorkloadKind::serve)
    throw UserError(who +
                    "is a whole generation or serving run; cluster files place training, prefill and "
                    "decode steps");
}

}  // namespace stepsim::work
