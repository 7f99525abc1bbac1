#pragma once
// The topology tests' harness: collectives simulated alone on a flow network. The hardware they run
// on (h100(), cluster(), kGiB, kNv) is in tests/support/fixtures.hpp.
#include <memory>

#include "tests/support/fixtures.hpp"
#include "topology/flow_network.hpp"

namespace stepsim::test {

/// What one collective did when simulated alone.
struct Outcome {
  double time_s = 0.0;
  double alone_s = 0.0;  ///< the table's idle-network prediction
  topo::CollectiveAlgorithm algorithm = topo::CollectiveAlgorithm::automatic;
  topo::CollectiveProtocol protocol = topo::CollectiveProtocol::automatic;
};

/// Simulates `requests` started together on `spec`; one outcome per request.
inline std::vector<Outcome> simulate(const topo::ClusterSpec& spec,
                                     const std::vector<topo::CollectiveRequest>& requests,
                                     topo::CommConfig config = {}) {
  auto topology = std::make_shared<const topo::Topology>(spec);
  topo::TransferTableBuilder tb(topology, config);
  std::vector<std::uint32_t> ids;
  for (const auto& r : requests) ids.push_back(tb.add(r));
  auto table = std::make_shared<const topo::TransferTable>(std::move(tb).build());
  topo::FlowNetwork net(table);
  const auto done = topo::run_transfers(net, ids);
  std::vector<Outcome> out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out.push_back({to_seconds(done[i]), table->info(ids[i]).time_alone_s, table->info(ids[i]).algorithm,
                   table->info(ids[i]).protocol});
  return out;
}

inline Outcome simulate_one(const topo::ClusterSpec& spec, const topo::CollectiveRequest& r,
                            topo::CommConfig config = {}) {
  return simulate(spec, {r}, config).front();
}

/// GPUs first, first+1, ..., first+n-1.
inline std::vector<topo::GpuId> iota(topo::GpuId first, topo::GpuId n) {
  std::vector<topo::GpuId> v(n);
  for (topo::GpuId i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

/// An all-reduce of `bytes` over GPUs 0..ranks-1 with the algorithm and protocol forced (or automatic).
inline topo::CollectiveRequest all_reduce(topo::GpuId ranks, double bytes, topo::CollectiveAlgorithm a,
                                          topo::CollectiveProtocol p = topo::CollectiveProtocol::automatic) {
  topo::CollectiveRequest r;
  r.groups = {iota(0, ranks)};
  r.bytes = bytes;
  r.algorithm = a;
  r.protocol = p;
  return r;
}

/// What one collective left on the links when run alone: wire bytes per link (protocol overhead
/// included), and the algorithm and protocol it ran.
struct WireBytes {
  std::shared_ptr<const topo::Topology> topo;
  std::vector<double> bytes;  ///< per LinkId
  topo::CollectiveAlgorithm algorithm = topo::CollectiveAlgorithm::automatic;
  topo::CollectiveProtocol protocol = topo::CollectiveProtocol::automatic;
};

inline WireBytes wire_bytes(const topo::ClusterSpec& spec, const topo::CollectiveRequest& r) {
  WireBytes out;
  out.topo = std::make_shared<const topo::Topology>(spec);
  topo::TransferTableBuilder tb(out.topo);
  const std::uint32_t ids[] = {tb.add(r)};
  out.algorithm = tb.table().info(ids[0]).algorithm;
  out.protocol = tb.table().info(ids[0]).protocol;
  auto table = std::make_shared<const topo::TransferTable>(std::move(tb).build());
  topo::FlowNetwork net(table, {topo::LinkAccounting::totals});
  topo::run_transfers(net, ids);
  out.bytes.assign(net.link_bytes().begin(), net.link_bytes().end());
  return out;
}

/// One send of `bytes` from `from` to `to` (a send_recv group of two).
inline topo::CollectiveRequest send(topo::GpuId from, topo::GpuId to, double bytes) {
  topo::CollectiveRequest r;
  r.op = topo::CollectiveOp::send_recv;
  r.groups = {{from, to}};
  r.bytes = bytes;
  return r;
}

}  // namespace stepsim::test
