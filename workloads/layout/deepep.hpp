#pragma once
// The SMs DeepEP's expert-parallel kernels hold, by DeepEP V2's own rule, and what holding fewer
// than its traffic model needs does to the all-to-all's rate.

#include <span>

#include "topology/cluster.hpp"

namespace stepsim::work {

struct JobSpec;
class RankLayout;

/// An expert-parallel group as DeepEP V2's ElasticBuffer sees it (hybrid mode): `scaleout` NVLink
/// domains of `scaleup` ranks each.
struct DeepEpV2Group {
  int experts = 0;
  int top_k = 0;
  int scaleout = 1;            ///< NVLink domains the group spans (RDMA peers of a rank)
  int scaleup = 1;             ///< group ranks per domain
  double rdma_GBps = 0.0;      ///< the NIC's line rate (DeepEP reads ibstat's rate / 8)
  double nvlink_GBps = 0.0;    ///< NVLink per GPU, DeepEP's 0.9 of the links' speed included
  int device_sms = 0;          ///< the GPU's SMs
  bool prefer_overlap = true;  ///< prefer_overlap_with_compute: the fewest SMs that keep the bound busy
};

/// What DeepEP's traffic model says the kernels need to keep the binding link at its line rate.
struct DeepEpLinkNeed {
  double sms = 0.0;         ///< before the rule's x 1.25 margin and rounding
  bool rdma_bound = false;  ///< the binding link: the NIC (RDMA), else NVLink
};

/// ElasticBuffer.get_theoretical_num_sms (deepseek-ai/DeepEP deep_ep/buffers/elastic.py @ dd758caf):
/// per token copy the kernel's SM reads and writes and the RDMA and NVLink bytes of a balanced
/// gate; the SMs that move the binding link's line rate at 200 GB/s of reads and 50 GB/s of writes
/// per SM, x 1.25, even, at least 4 (at least 64 without prefer_overlap), at most the GPU's.
/// README figures it reproduces: 12 at EP 8 x 2 and 6 at EP 8 x 4 (400 Gb/s NICs), 24 at EP 8 on
/// B200 NVLink.
int deepep_v2_sms(const DeepEpV2Group& g);

/// The SMs the traffic model needs before the margin, and which link binds: below them the
/// kernels, not the link, pace the all-to-all.
DeepEpLinkNeed deepep_link_need(const DeepEpV2Group& g);

/// The group of `domains` (each member's NVLink domain, the first the group's own rank) on
/// `cluster`'s NIC, NVLink and SMs, prefer_overlap set.
DeepEpV2Group deepep_v2_group(std::span<const int> domains, const topo::ClusterSpec& cluster, int experts,
                              int top_k);

/// The EP group of rank 0 of `job` as DeepEP V2 sees it (ranks placed on GPUs in order).
DeepEpV2Group deepep_v2_group(const JobSpec& job, const RankLayout& layout);

/// The fraction of the rate its links allow that an all-to-all run by kernels holding `sms` SMs
/// keeps: sms / (need x the binding link's efficiency), since DeepEP's need is for the line rate
/// and the links run at their efficiency; 0 when that is 1 or more (the links bind).
double deepep_rate_fraction(const DeepEpV2Group& g, int sms, const topo::GpuSpec& gpu);

/// The SMs the job's expert-parallel dispatch and combine hold: moe.ep_comm_sms, or DeepEP V2's
/// count for the EP group of rank 0 when moe.ep_comm_sms = "deepep-v2"; 0 when neither is set.
int ep_comm_sms(const JobSpec& job, const RankLayout& layout);

}  // namespace stepsim::work
