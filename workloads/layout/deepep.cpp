#include "workloads/layout/deepep.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "workloads/layout/rank_layout.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

namespace {

/// Expected groups of `groups` equal expert blocks a token's top-k reaches:
/// groups x (1 - C(E - E/groups, k) / C(E, k)).
double expected_groups(int experts, int top_k, int groups) {
  const double E = experts, block = static_cast<double>(experts) / groups;
  double miss = 1.0;
  for (int i = 0; i < top_k; ++i) miss *= std::max(0.0, (E - block - i) / (E - i));
  return groups * (1.0 - miss);
}

}  // namespace

DeepEpLinkNeed deepep_link_need(const DeepEpV2Group& g) {
  const int ranks = g.scaleout * g.scaleup;
  double sm_read = 0.0, sm_write = 0.0, rdma = 0.0, nvlink = 0.0;
  // Per (token, rank) copy, as the rule counts: "1" is the scale-up volume.
  const double topk = expected_groups(g.experts, g.top_k, ranks);
  sm_read += 1.0 / topk;  // read the tokens
  if (g.scaleout > 1) {
    const double so_topk = expected_groups(g.experts, g.top_k, g.scaleout);
    sm_write += 1.0 / topk;                             // scale-up warps fill the send buffer
    sm_write += (1.0 / topk) * (so_topk / g.scaleout);  // the local bypass
    rdma += (1.0 / topk) * (so_topk * (1.0 - 1.0 / g.scaleout));
    sm_read += so_topk / topk;  // forward warps read what arrived
    sm_write += 1.0;            // and issue it over NVLink
    nvlink += 1.0 - 1.0 / g.scaleup;
  } else {
    sm_write += 1.0;  // one domain: every copy issued over NVLink
    nvlink += 1.0 - 1.0 / g.scaleup;
  }
  const bool rdma_bound = g.scaleout > 1 && rdma / g.rdma_GBps > nvlink / g.nvlink_GBps;
  const double traffic = rdma_bound ? rdma : nvlink;
  const double link = rdma_bound ? g.rdma_GBps : g.nvlink_GBps;
  if (!(traffic > 0.0)) return {static_cast<double>(g.device_sms), rdma_bound};  // no traffic (EP 1)
  return {std::max(link / traffic * sm_read / 200.0, link / traffic * sm_write / 50.0), rdma_bound};
}

int deepep_v2_sms(const DeepEpV2Group& g) {
  int n = std::max(4, static_cast<int>(std::ceil(deepep_link_need(g).sms * 1.25)));
  n += n % 2;
  if (!g.prefer_overlap) n = std::max(n, 64);
  return std::min(n, g.device_sms);
}

DeepEpV2Group deepep_v2_group(std::span<const int> domains, const topo::ClusterSpec& cluster, int experts,
                              int top_k) {
  DeepEpV2Group g;
  g.experts = experts;
  g.top_k = top_k;
  g.scaleout = static_cast<int>(std::set<int>(domains.begin(), domains.end()).size());
  g.scaleup =
      domains.empty() ? 1 : static_cast<int>(std::count(domains.begin(), domains.end(), domains.front()));
  g.rdma_GBps = cluster.nic_bw().value() / 1e9;
  // DeepEP sums nvidia-smi's link speeds x 0.9; the catalog's per-direction figure stands for them.
  g.nvlink_GBps = 0.9 * cluster.gpu.nvlink_bw.value() / 1e9;
  g.device_sms = cluster.gpu.sms;
  return g;
}

DeepEpV2Group deepep_v2_group(const JobSpec& job, const RankLayout& layout) {
  const int domain = std::max(1, job.cluster.nvlink_domain);
  std::vector<int> domains;
  for (int r : layout.ep_group(0)) domains.push_back(r / domain);
  return deepep_v2_group(domains, job.cluster, job.model.experts, job.model.top_k);
}

double deepep_rate_fraction(const DeepEpV2Group& g, int sms, const topo::GpuSpec& gpu) {
  const DeepEpLinkNeed need = deepep_link_need(g);
  const double link_eff =
      need.rdma_bound ? gpu.eff.nic : (gpu.eff.nvlink_p2p > 0.0 ? gpu.eff.nvlink_p2p : gpu.eff.nvlink);
  if (!(need.sms > 0.0) || !(link_eff > 0.0)) return 0.0;
  const double f = sms / (need.sms * link_eff);
  return f < 1.0 ? f : 0.0;
}

int ep_comm_sms(const JobSpec& job, const RankLayout& layout) {
  if (!job.moe.ep_comm_sms_deepep_v2) return job.moe.ep_comm_sms;
  return deepep_v2_sms(deepep_v2_group(job, layout));
}

}  // namespace stepsim::work
