// NCCL's PAT (reduce-scatter and all-gather at one rank per node, NCCL 2.23+) on the flow network,
// derived by hand from NCCL's tuning model (src/graph/tuning.cc) and its PAT algorithm
// (src/include/collectives.h). The cluster: 8 nodes of 8 test H100s (tests/support/fixtures.hpp),
// NIC 50 GB/s x 0.85 = 42.5 GB/s, rail-optimised; the group is rail 0, GPUs 0, 8, ..., 56: one rank
// per node, all on one leaf. Route latencies are small (fast_routes) so NCCL's terms are paid.
#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"
#include "topology/collective_plan.hpp"
#include "topology/collectives.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace {
constexpr double kPatMiB = 1048576.0;
constexpr double kPatNic = 42.5e9;  // 50 GB/s x 0.85

ClusterSpec pat_cluster() {
  ClusterSpec spec = cluster(8);
  spec.gpu.kernel_gap_s = 1.24e-6;
  spec.nvlink_latency_s = 0.2e-6;
  spec.fabric.nic_latency_s = 0.5e-6;
  spec.fabric.hop_latency_s = 0.1e-6;
  return spec;
}

/// One rank on each node: GPU 8 i of node i (rail 0).
std::vector<GpuId> pat_rail0(GpuId nodes) {
  std::vector<GpuId> g;
  for (GpuId i = 0; i < nodes; ++i) g.push_back(8 * i);
  return g;
}

CollectiveRequest pat_request(CollectiveOp op, std::vector<GpuId> group, double bytes,
                              CollectiveAlgorithm a = CollectiveAlgorithm::automatic) {
  CollectiveRequest r;
  r.op = op;
  r.groups = {std::move(group)};
  r.bytes = bytes;
  r.algorithm = a;
  return r;
}

// NCCL's terms for 8 ranks on 8 nodes (ppn = 1, so every step takes the tree's network latency):
//   PAT (Simple only): base 8.0 + log2(8) x 14 / 3.5 + 8 x 2.8 = 8.0 + 12.0 + 22.4 = 42.4 us, at
//     0.75 of the bandwidth;
//   ring Simple: base 8.4 + half of 7 network steps x 14 us (stepsim exposes half of Simple's step
//     latency) = 57.4 us;
//   ring LL: base 6.6 + 7 x 5.0 = 41.6 us, NCCL's LL ceiling beyond 2 nodes 20.4 GB/s of bus bandwidth.
// Each rank sends and receives 7/8 of S in either algorithm (nccl-tests' bus factor for 8 ranks).
constexpr double kPatLatency = 42.4e-6;
constexpr double kRingSimpleLatency = 57.4e-6;
constexpr double kRingLlLatency = 41.6e-6;
}  // namespace

TEST_CASE("PAT sends each rank's binomial-tree chunks over the dimensions 2^d apart", "[collectives][nccl]") {
  // Offsets s = 1 .. n-1 arrive over the dimension of their lowest set bit.
  // n = 8: s = 1,3,5,7 -> d 0; 2,6 -> d 1; 4 -> d 2.
  CHECK(pat_chunks_per_dimension(8) == std::vector<double>{4, 2, 1});
  // n = 6: s = 1,3,5 -> d 0; 2 -> d 1; 4 -> d 2.
  CHECK(pat_chunks_per_dimension(6) == std::vector<double>{3, 1, 1});
  CHECK(pat_chunks_per_dimension(2) == std::vector<double>{1});
  // n - 1 chunks in all: what a ring moves.
  const auto c = pat_chunks_per_dimension(37);
  double total = 0.0;
  for (double x : c) total += x;
  CHECK(total == 36.0);
}

TEST_CASE("PAT all-gather and reduce-scatter on 8 nodes, by hand", "[collectives][nccl]") {
  const auto spec = pat_cluster();
  // S = 1 MiB: 42.4 us + (7/8) S / (0.75 x 42.5 GB/s) = 42.4 + 28.79 = 71.19 us. The NIC carries
  // 7/8 of S each way, at 0.75 of its protocol rate (NCCL's PAT factor).
  const double expected = kPatLatency + 0.875 * kPatMiB / (0.75 * kPatNic);
  for (const CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    const auto out = simulate_one(spec, pat_request(op, pat_rail0(8), kPatMiB, CollectiveAlgorithm::pat));
    CHECK(out.algorithm == CollectiveAlgorithm::pat);
    CHECK(out.protocol == CollectiveProtocol::simple);
    CHECK(out.time_s == Approx(expected).epsilon(1e-4));
    CHECK(out.alone_s == Approx(out.time_s).epsilon(1e-6));
  }
}

TEST_CASE("NCCL's choice between PAT and the ring at one rank per node falls where the terms cross",
          "[collectives][nccl]") {
  const auto spec = pat_cluster();
  // PAT against ring Simple: 57.4 - 42.4 = 15.0 us = (7/8) S (1 / 31.875e9 - 1 / 42.5e9),
  // S* = 15.0e-6 / (0.875 x 7.8431e-12) = 2,185,714 bytes. PAT against ring LL: 42.4 - 41.6 = 0.8 us
  // = (7/8) S (1 / 20.4e9 - 1 / 31.875e9), S = 0.8e-6 / (0.875 x 1.7647e-11) = 51,810 bytes.
  const double pat_rate = 0.75 * kPatNic;
  const double upper = (kRingSimpleLatency - kPatLatency) / (0.875 * (1.0 / pat_rate - 1.0 / kPatNic));
  const double lower = (kPatLatency - kRingLlLatency) / (0.875 * (1.0 / 20.4e9 - 1.0 / pat_rate));
  CHECK(upper == Approx(2185714.0).epsilon(1e-4));
  CHECK(lower == Approx(51810.0).epsilon(1e-3));
  const auto at = [&](double bytes) {
    return simulate_one(spec, pat_request(CollectiveOp::all_gather, pat_rail0(8), bytes));
  };
  const auto small = at(0.9 * lower), middle = at(4.0 * lower), big = at(1.05 * upper);
  CHECK(small.algorithm == CollectiveAlgorithm::ring);
  CHECK(small.protocol == CollectiveProtocol::ll);
  CHECK(small.time_s == Approx(kRingLlLatency + 0.875 * 0.9 * lower / 20.4e9).epsilon(1e-4));
  CHECK(middle.algorithm == CollectiveAlgorithm::pat);
  CHECK(middle.time_s == Approx(kPatLatency + 0.875 * 4.0 * lower / pat_rate).epsilon(1e-4));
  CHECK(big.algorithm == CollectiveAlgorithm::ring);
  CHECK(big.protocol == CollectiveProtocol::simple);
  CHECK(big.time_s == Approx(kRingSimpleLatency + 0.875 * 1.05 * upper / kPatNic).epsilon(1e-4));
}

TEST_CASE("PAT runs only where NCCL runs it", "[collectives][nccl]") {
  const auto spec = pat_cluster();
  const double bytes = 4 * 51810.0;  // PAT's own range on 8 nodes (above)
  SECTION("one rank per node: two ranks on a node rule it out") {
    std::vector<GpuId> two_per_node;
    for (GpuId i = 0; i < 4; ++i) two_per_node.insert(two_per_node.end(), {8 * i, 8 * i + 1});
    CHECK(simulate_one(spec, pat_request(CollectiveOp::all_gather, two_per_node, bytes)).algorithm ==
          CollectiveAlgorithm::ring);
    CHECK_THROWS_WITH(simulate_one(spec, pat_request(CollectiveOp::all_gather, two_per_node, bytes,
                                                     CollectiveAlgorithm::pat)),
                      Catch::Contains("one rank on each of two or more nodes"));
    // Nor inside one node.
    CHECK_THROWS_WITH(simulate_one(spec, pat_request(CollectiveOp::reduce_scatter, iota(0, 8), bytes,
                                                     CollectiveAlgorithm::pat)),
                      Catch::Contains("one rank on each"));
  }
  SECTION("a reduce-scatter that averages (ReduceOp.AVG) runs the ring; an all-gather is unaffected") {
    auto avg = pat_request(CollectiveOp::reduce_scatter, pat_rail0(8), bytes);
    avg.average = true;
    CHECK(simulate_one(spec, avg).algorithm == CollectiveAlgorithm::ring);
    avg.algorithm = CollectiveAlgorithm::pat;
    CHECK_THROWS_WITH(simulate_one(spec, avg), Catch::Contains("average_in_collective"));
    auto gather = pat_request(CollectiveOp::all_gather, pat_rail0(8), bytes);
    gather.average = true;  // meaningless for a gather
    CHECK(simulate_one(spec, gather).algorithm == CollectiveAlgorithm::pat);
  }
  SECTION("NCCL_PAT_ENABLE=0 (CommConfig::pat = false): never chosen, and forcing it is refused") {
    CommConfig off;
    off.pat = false;
    CHECK(simulate_one(spec, pat_request(CollectiveOp::all_gather, pat_rail0(8), bytes), off).algorithm ==
          CollectiveAlgorithm::ring);
    CHECK_THROWS_WITH(
        simulate_one(
            spec, pat_request(CollectiveOp::all_gather, pat_rail0(8), bytes, CollectiveAlgorithm::pat), off),
        Catch::Contains("collective.pat"));
  }
  SECTION("no PAT all-reduce") {
    CHECK_THROWS_WITH(simulate_one(spec, pat_request(CollectiveOp::all_reduce, pat_rail0(8), bytes,
                                                     CollectiveAlgorithm::pat)),
                      Catch::Contains("does not implement all-reduce"));
  }
}

namespace {
std::uint32_t kernel_ctas_of(const ClusterSpec& spec, const CollectiveRequest& r) {
  auto topology = std::make_shared<const Topology>(spec);
  TransferTableBuilder tb(topology, CommConfig{});
  const std::uint32_t id = tb.add(r);
  return std::move(tb).build().info(id).ctas;
}
}  // namespace

TEST_CASE("a collective's kernel holds one CTA per NCCL channel, fewer for small messages",
          "[collectives][nccl]") {
  auto spec = pat_cluster();
  // NCCL's channels on Hopper nodes with NVLink (nccl_comm_channels): 2 per local rank, doubled
  // while under 16: 8 ranks of a node 16, 4 ranks 8 -> 16, one rank per node 2 -> 4.
  auto ring = [](std::vector<GpuId> g, double bytes) {
    CollectiveRequest r =
        pat_request(CollectiveOp::all_reduce, std::move(g), bytes, CollectiveAlgorithm::ring);
    r.protocol = CollectiveProtocol::simple;
    return r;
  };
  CHECK(kernel_ctas_of(spec, ring(iota(0, 8), 256 * kPatMiB)) == 16);
  CHECK(kernel_ctas_of(spec, ring(iota(0, 4), 256 * kPatMiB)) == 16);
  // A small message: NCCL sheds channels while bytes < channels x 512 threads x 64 (Simple):
  // 100,000 B / 32,768 = 3.05 -> 3 CTAs.
  CHECK(kernel_ctas_of(spec, ring(iota(0, 8), 100000.0)) == 3);
  CHECK(kernel_ctas_of(spec, ring(iota(0, 8), 1000.0)) == 1);
  // PAT at one rank per node: 4 channels.
  CHECK(kernel_ctas_of(spec, pat_request(CollectiveOp::all_gather, pat_rail0(8), 64 * kPatMiB,
                                         CollectiveAlgorithm::pat)) == 4);
  // NVLS on Hopper: its own 16 channels (src/transport/nvls.cc).
  spec.nvls = true;
  CHECK(kernel_ctas_of(spec, pat_request(CollectiveOp::all_reduce, iota(0, 8), 256 * kPatMiB,
                                         CollectiveAlgorithm::nvls)) == 16);
  // An all-to-all runs NCCL's point-to-point kernel on its p2p channels: the 16 collective channels
  // rounded up to a power of two (src/graph/paths.cc), 16; for 6 ranks of a node 2 x 6 = 12, doubled
  // under 16 to 24, rounded up to 32.
  CHECK(kernel_ctas_of(spec, pat_request(CollectiveOp::all_to_all, iota(0, 8), 256 * kPatMiB)) == 16);
  CHECK(kernel_ctas_of(spec, pat_request(CollectiveOp::all_to_all, iota(0, 6), 256 * kPatMiB)) == 32);
  // A send/recv across nodes: its channels for the network peer at its size (P2pChannels): a
  // 50 GB/s NIC gets ceil(50 / 14) = 4 -> 4 channels per peer, which a large message uses.
  CHECK(kernel_ctas_of(spec, send(0, 8, 256 * kPatMiB)) == 4);
  // A library that fixes its kernels' CTAs (Transformer Engine userbuffers' num_sm) keeps them,
  // whatever NCCL's channels would be: 24 for a reduce-scatter NCCL would run on 16.
  CollectiveRequest ub = ring(iota(0, 8), 256 * kPatMiB);
  ub.op = CollectiveOp::reduce_scatter;
  ub.kernel_ctas = 24;
  CHECK(kernel_ctas_of(spec, ub) == 24);
}

TEST_CASE("the flow network reports a transfer's SM share as its CTAs over the GPU's SMs",
          "[collectives][nccl]") {
  auto spec = pat_cluster();
  CollectiveRequest r =
      pat_request(CollectiveOp::all_reduce, iota(0, 8), 256 * kPatMiB, CollectiveAlgorithm::ring);
  for (const int sms : {132, 0}) {
    spec.gpu.sms = sms;
    auto topology = std::make_shared<const Topology>(spec);
    TransferTableBuilder tb(topology, CommConfig{});
    const std::uint32_t id = tb.add(r);
    FlowNetwork net(std::make_shared<const TransferTable>(std::move(tb).build()));
    // 16 channels on 132 SMs; an unknown SM count leaves the share unknown (negative).
    CHECK(net.sm_share(id) == (sms > 0 ? Approx(16.0 / 132.0) : Approx(-1.0)));
  }
}
