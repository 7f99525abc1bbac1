#pragma once
// Test-local hardware: an H100 SXM as the catalog describes it (reference.md sections 3-4), so the
// topology tests do not depend on the scenario catalog.
#include "sim/units.hpp"
#include "topology/cluster.hpp"

namespace stepsim::topo::test {

inline constexpr double kGiB = 1073741824.0;
inline constexpr double kNvLine = 450e9;       ///< H100 NVLink line rate per direction, B/s
inline constexpr double kNv = kNvLine * 0.82;  ///< at protocol efficiency

inline GpuSpec h100() {
  GpuSpec g;
  g.id = "h100-sxm";
  g.name = "NVIDIA H100 SXM5 80GB";
  g.arch = GpuArch::hopper;
  g.bf16_peak = units::flops_per_s(989e12);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  g.nvlink_bw = units::bytes_per_s(450e9);  // NVLink4: 900 GB/s bidirectional
  g.nvlink_domain = 8;
  g.pcie_bw = units::bytes_per_s(64e9);
  g.nic_bw = units::bytes_per_s(units::gbps_to_Bps(400));  // NDR, 50 GB/s
  g.eff.nvlink = 0.82;
  g.eff.nic = 0.85;
  g.eff.nvls = 0.689;
  g.nvls_latency_s = 126.6e-6;
  g.kernel_gap_s = 4e-6;
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

#include <memory>

#include "topology/flow_network.hpp"

namespace stepsim::topo::test {

/// What one collective did when simulated alone.
struct Outcome {
  double time_s = 0.0;
  double alone_s = 0.0;  ///< the table's idle-network prediction
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  CollectiveProtocol protocol = CollectiveProtocol::automatic;
};

/// Simulates `requests` started together on `spec`; one outcome per request.
inline std::vector<Outcome> simulate(const ClusterSpec& spec, const std::vector<CollectiveRequest>& requests,
                                     CommConfig config = {}) {
  auto topo = std::make_shared<const Topology>(spec);
  TransferTableBuilder tb(topo, config);
  std::vector<std::uint32_t> ids;
  for (const auto& r : requests) ids.push_back(tb.add(r));
  auto table = std::make_shared<const TransferTable>(std::move(tb).build());
  FlowNetwork net(table);
  const auto done = run_transfers(net, ids);
  std::vector<Outcome> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out.push_back({to_seconds(done[i]), table->info(ids[i]).time_alone_s, table->info(ids[i]).algorithm,
                   table->info(ids[i]).protocol});
  return out;
}

inline Outcome simulate_one(const ClusterSpec& spec, const CollectiveRequest& r, CommConfig config = {}) {
  return simulate(spec, {r}, config).front();
}

/// GPUs first, first+1, ..., first+n-1.
inline std::vector<GpuId> iota(GpuId first, GpuId n) {
  std::vector<GpuId> v(n);
  for (GpuId i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

}  // namespace stepsim::topo::test
