#pragma once
// Test-local hardware: an H100 SXM as the catalog describes it (reference.md sections 3-4), so the
// topology tests do not depend on the scenario catalog.
#include "sim/units.hpp"
#include "topology/cluster.hpp"

namespace stepsim::topo::test {

inline GpuSpec h100() {
  GpuSpec g;
  g.id = "h100-sxm";
  g.name = "NVIDIA H100 SXM5 80GB";
  g.bf16_flops_per_s = 989e12;
  g.hbm_bw_Bps = 3.35e12;
  g.nvlink_bw_Bps = 450e9;  // NVLink4: 900 GB/s bidirectional
  g.nvlink_domain = 8;
  g.pcie_bw_Bps = 64e9;
  g.nic_bw_Bps = units::gbps_to_Bps(400);  // NDR, 50 GB/s
  g.eff.nvlink = 0.82;
  g.eff.nic = 0.85;
  g.eff.nvls = 0.69;
  g.nvls_latency_s = 132e-6;
  return g;
}

/// `nodes` x `gpn` H100s, one NVLink domain per node, the given fabric kind.
inline ClusterSpec cluster(int nodes, int gpn = 8, FabricKind kind = FabricKind::rail_optimized) {
  ClusterSpec c;
  c.gpu = h100();
  c.nodes = nodes;
  c.gpus_per_node = gpn;
  c.nvlink_domain = gpn;
  c.fabric.kind = kind;
  return c;
}

}  // namespace stepsim::topo::test
