// Collectives simulated on the flow network against closed forms.
//
// Test hardware (h100() in tests/support/fixtures.hpp): H100, NVLink 450 GB/s per direction at
// protocol efficiency 0.82 -> C_nv = 369 GB/s; NIC 400 Gb/s = 50 GB/s at 0.85 -> C_nic = 42.5 GB/s;
// kernel launch 4 us; one NVLink step (GPU -> NVSwitch -> GPU) 1 us; a scale-out path through leaf,
// spine, leaf 2 us of NICs + 3 x 0.5 us of switch hops = 3.5 us.
#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"
#include "topology/collectives.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace {
constexpr double kNic = 50e9 * 0.85;
constexpr double kLaunch = 4e-6;
// The closed forms below are the model's exact arithmetic; the simulation rounds each event time up to a
// whole picosecond, a few ps on these millisecond results (relative 1e-9), so 1e-6 is tight yet safe.
constexpr double kPsRounding = 1e-6;

CollectiveRequest request(CollectiveOp op, std::vector<std::vector<GpuId>> groups, double bytes,
                          CollectiveAlgorithm a = CollectiveAlgorithm::automatic) {
  CollectiveRequest r;
  r.op = op;
  r.groups = std::move(groups);
  r.bytes = bytes;
  r.algorithm = a;
  return r;
}
}  // namespace

TEST_CASE("ring all-reduce on one node matches 2(p-1)/p S/B + 2(p-1) steps", "[collectives]") {
  const auto spec = cluster(1);
  for (GpuId p : {8u, 4u}) {
    const auto out =
        simulate_one(spec, request(CollectiveOp::all_reduce, {iota(0, p)}, kGiB, CollectiveAlgorithm::ring));
    // Latency: NCCL's ring Simple latency, 8.4 us + 2(p-1) steps x 3.4 us / 2 (half of a step is
    // exposed; topology/nccl_tuning.hpp), above the route's 4 us launch + 2(p-1) x 1 us.
    // p = 8: 8.4 + 14 x 1.7 = 32.2 us, + 1.75 x 1 GiB / 369 GB/s = 5092.2 us.
    // p = 4: 8.4 + 6 x 1.7 = 18.6 us, + 1.5 x 1 GiB / 369 GB/s = 4364.7 us.
    const double expected = 8.4e-6 + 2.0 * (p - 1) * 1.7e-6 + 2.0 * (p - 1) / p * kGiB / kNv;
    INFO("p = " << p);
    CHECK(out.time_s == Approx(expected).epsilon(kPsRounding));
    CHECK(out.alone_s == Approx(out.time_s).epsilon(1e-6));  // the table's prediction is the run
  }
}

TEST_CASE("all-gather and reduce-scatter take (p-1)/p S/B + (p-1) steps", "[collectives]") {
  const auto spec = cluster(1);
  // NCCL's ring Simple latency 8.4 + 7 x 1.7 = 20.3 us (the route's: 4 + 7 x 1 = 11 us), then
  // 7/8 x 1 GiB / 369 GB/s = 2546.1 us.
  const double expected = 20.3e-6 + 7.0 / 8.0 * kGiB / kNv;
  for (auto op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    const auto out = simulate_one(spec, request(op, {iota(0, 8)}, kGiB));
    CHECK(out.algorithm == CollectiveAlgorithm::ring);
    CHECK(out.time_s == Approx(expected).epsilon(kPsRounding));
  }
}

TEST_CASE("NVLS all-gather forwards at the NVLink's efficiency, the all-reduce at the switch's",
          "[collectives]") {
  auto spec = cluster(1);
  spec.nvls = true;
  const auto group = iota(0, 8);
  auto slope = [&](CollectiveOp op) {
    const double t1 = simulate_one(spec, request(op, {group}, kGiB, CollectiveAlgorithm::nvls)).time_s;
    const double t2 = simulate_one(spec, request(op, {group}, 2.0 * kGiB, CollectiveAlgorithm::nvls)).time_s;
    return t2 - t1;  // the fixed costs (launch, NVLS pipeline fill, NCCL's latency) cancel
  };
  // All-gather by multimem stores: every downlink receives 7/8 of each extra GiB, forwarded by the
  // switch at the NVLink's efficiency: 7/8 x 1 GiB / (450 GB/s x 0.82) = 2546.1 us.
  CHECK(slope(CollectiveOp::all_gather) == Approx(7.0 / 8.0 * kGiB / kNv).epsilon(kPsRounding));
  // All-reduce: S (1 + 1/8) each way through the switch's reduction at eff.nvls 0.689:
  // 9/8 x 1 GiB / (450 GB/s x 0.689) = 3895.6 us.
  CHECK(slope(CollectiveOp::all_reduce) == Approx(9.0 / 8.0 * kGiB / (450e9 * 0.689)).epsilon(kPsRounding));
}
TEST_CASE("chain broadcast streams the buffer once plus a pipeline fill", "[collectives]") {
  const auto spec = cluster(1);
  const auto out = simulate_one(spec, request(CollectiveOp::broadcast, {iota(0, 8)}, kGiB));
  // Every GPU but the last forwards S over its uplink: S / 369 GB/s = 2909.8 us; latency 4 us +
  // 7 steps; fill 6 hops of one 512 KiB chunk on each of 16 channels (8 MiB) at 369 GB/s = 136.4 us.
  const double expected = kLaunch + 7e-6 + (6.0 * 16 * 512 * 1024 + kGiB) / kNv;
  CHECK(out.time_s == Approx(expected).epsilon(kPsRounding));
}

TEST_CASE("all-to-all on a 2:1 oversubscribed two-tier fabric takes the bisection time", "[collectives]") {
  // 8 nodes x 8 GPUs, 16 NICs per leaf -> 4 leaves. Each GPU sends S/64 to each of 63 others.
  auto spec = cluster(8, 8, FabricKind::fat_tree);
  spec.fabric.hosts_per_leaf = 16;
  const auto r = request(CollectiveOp::all_to_all, {iota(0, 64)}, kGiB);
  // Latency (both cases): 4 us + 63 rounds x 3.5 us = 224.5 us.
  const double latency = kLaunch + 63 * 3.5e-6;
  SECTION("2:1 at the leaf: the uplinks bind") {
    spec.fabric.oversubscription = {2.0, 1.0, 1.0};
    // Leaving a leaf: 16 sources x 48 remote GPUs x S/64 = 12 S over 16 x 50 / 2 = 400 GB/s of
    // uplink at 0.85 -> 12 S / 340 GB/s = 1.5 S / 42.5 GB/s = 37.897 ms.
    const auto out = simulate_one(spec, r);
    CHECK(out.time_s == Approx(latency + 12.0 * kGiB / (400e9 * 0.85)).epsilon(kPsRounding));
  }
  SECTION("non-blocking: each NIC binds") {
    // A NIC sends to the 56 GPUs of other nodes: 56/64 S / 42.5 GB/s = 22.107 ms; uplinks carry
    // 12 S over 800 GB/s, less.
    const auto out = simulate_one(spec, r);
    CHECK(out.time_s == Approx(latency + 56.0 / 64.0 * kGiB / kNic).epsilon(kPsRounding));
  }
}

TEST_CASE("hierarchical all-reduce beats the flat ring across nodes for large messages", "[collectives]") {
  for (int nodes : {2, 4}) {
    const auto spec = cluster(nodes);
    const auto group = iota(0, 8 * nodes);
    const auto ring =
        simulate_one(spec, request(CollectiveOp::all_reduce, {group}, kGiB, CollectiveAlgorithm::ring));
    const auto hier = simulate_one(
        spec, request(CollectiveOp::all_reduce, {group}, kGiB, CollectiveAlgorithm::hierarchical));
    // Flat ring: each NIC carries about 2(p-1)/p S / 8 = 0.23-0.24 S -> ~5.6 us per MB.
    // Hierarchical: NVLink carries 2 x 7/8 S (-> 4.74 us per MB) and a NIC 2(n-1)/n S / 8 only.
    INFO(nodes << " nodes: ring " << ring.time_s << " s, hierarchical " << hier.time_s << " s");
    CHECK(hier.time_s < ring.time_s);
    // Its time: NVLink-bound 1.75 S / C_nv plus 4 us launch, 2 x 7 intra-node steps of 1 us,
    // 2(n-1) inter-node steps of 2.5 us (NIC pair + one leaf: same rail, same leaf) and a fill of
    // 2 chunks of 512 KiB x 16 channels at the NVLink rate.
    const double fill = 2.0 * 16 * 512 * 1024 * 1.75 / kNv;
    CHECK(hier.time_s ==
          Approx(kLaunch + 14e-6 + 2 * (nodes - 1) * 2.5e-6 + fill + 1.75 * kGiB / kNv).epsilon(kPsRounding));
  }
}

TEST_CASE("contention: collectives sharing links split them max-min fairly", "[collectives]") {
  const auto spec = cluster(1);
  // A: ring all-reduce of S on GPUs 0-3 (1.5 unit flows per uplink of 0-3).
  // B: ring all-reduce of 2S on GPUs 0-7 (1.75 per uplink). On the links of GPUs 0-3 both run at
  // one rate t: (1.5 + 1.75) t = C_nv -> t = C_nv / 3.25. A finishes after S at 3.25 S / C_nv;
  // B has then moved S and runs alone at C_nv / 1.75 for its last S: 3.25 S + 1.75 S = 5 S / C_nv.
  // Each phase's latency comes first (NCCL ring Simple: A 8.4 + 6 x 1.7 = 18.6 us, B 8.4 + 14 x 1.7
  // = 32.2 us), so A runs alone at C_nv / 1.5 for 13.6 us before B starts:
  //  A = 32.2 us + 3.25 (S / C_nv - 13.6 us / 1.5) = 3.25 S / C_nv + 2.733 us;
  //  B then has 2S - S + 3.25 x 9.067 us x C_nv / 3.25 left at C_nv / 1.75:
  //  B = A + 1.75 S / C_nv + 1.75 x 9.067 us = 5 S / C_nv + 18.6 us.
  const double S = kGiB;
  const auto out =
      simulate(spec, {request(CollectiveOp::all_reduce, {iota(0, 4)}, S, CollectiveAlgorithm::ring),
                      request(CollectiveOp::all_reduce, {iota(0, 8)}, 2 * S, CollectiveAlgorithm::ring)});
  const double alone_us = 32.2 - 18.6;  // A's head start
  CHECK(out[0].time_s == Approx(32.2e-6 + 3.25 * (S / kNv - alone_us * 1e-6 / 1.5)).epsilon(kPsRounding));
  CHECK(out[1].time_s == Approx(18.6e-6 + 5.0 * S / kNv).epsilon(kPsRounding));
}

TEST_CASE("images load the fabric with every replica's traffic", "[collectives]") {
  // 2 nodes on different leaves (8 NICs per leaf, 2:1 -> 4 uplinks of 50 GB/s per leaf).
  auto spec = cluster(2, 8, FabricKind::fat_tree);
  spec.fabric.hosts_per_leaf = 8;
  spec.fabric.oversubscription = {2.0, 1.0, 1.0};
  auto dp = [](GpuId g) { return std::vector<GpuId>{g, 8 + g}; };
  const auto alone = simulate_one(spec, request(CollectiveOp::all_reduce, {dp(0)}, kGiB));
  std::vector<std::vector<GpuId>> groups;
  for (GpuId g = 0; g < 8; ++g) groups.push_back(dp(g));
  const auto all = simulate_one(spec, request(CollectiveOp::all_reduce, groups, kGiB));
  // Alone: p = 2 ring moves S each way through one NIC: S / 42.5 GB/s = 25.26 ms.
  // With its 7 images: 8 groups x 2 channels of weight 1/2 over 4 uplinks (d-mod-k spreads them
  // 2 per uplink... 4 flows of 1/2) -> 2 unit flows per uplink: twice the time.
  // Latency first, the same for every group: NCCL's ring Simple with one rank per node, 8.4 us + 1/2
  // x 2 network steps x 14 us (the tree's network latency) = 22.4 us (the route's: 4 + 2 x 3.5 = 11).
  CHECK(alone.time_s == Approx(22.4e-6 + kGiB / kNic).epsilon(kPsRounding));
  CHECK(all.time_s == Approx(22.4e-6 + 2.0 * kGiB / kNic).epsilon(kPsRounding));
}

TEST_CASE("NCCL's all-to-all runs its NVLink hops at the point-to-point figure", "[collectives]") {
  auto spec = cluster(1);
  const auto r = request(CollectiveOp::all_to_all, {iota(0, 8)}, kGiB);
  // Without nvlink_p2p the all-to-all runs at the ring's 0.82: every uplink carries 7/8 of the GiB,
  // 7/8 x 1 GiB / 369 GB/s = 2546.1 us, after the launch and 7 rounds of one NVLink step (11 us).
  CHECK(simulate_one(spec, r).time_s == Approx(kLaunch + 7e-6 + 7.0 / 8.0 * kGiB / kNv).epsilon(kPsRounding));
  // With the catalog's H100 figure, 0.77: 7/8 x 1 GiB / (450 GB/s x 0.77) = 2711.5 us, same latency.
  spec.gpu.eff.nvlink_p2p = 0.77;
  CHECK(simulate_one(spec, r).time_s ==
        Approx(kLaunch + 7e-6 + 7.0 / 8.0 * kGiB / (450e9 * 0.77)).epsilon(kPsRounding));
  // Collectives on the same links keep the ring's figure (the ring all-gather test above).
  const auto ag = simulate_one(spec, request(CollectiveOp::all_gather, {iota(0, 8)}, kGiB));
  CHECK(ag.time_s == Approx(20.3e-6 + 7.0 / 8.0 * kGiB / kNv).epsilon(kPsRounding));
}

TEST_CASE("per-pair byte matrices: the heaviest sender finishes last", "[collectives]") {
  const auto spec = cluster(1);
  const double b = 256e6;
  CollectiveRequest r = request(CollectiveOp::all_to_all, {iota(0, 4)}, 0.0);
  // Rank 0 sends b to each peer (3b); ranks 1-3 send b/2 to each peer (1.5b).
  r.pair_bytes = {0, b, b, b, b / 2, 0, b / 2, b / 2, b / 2, b / 2, 0, b / 2, b / 2, b / 2, b / 2, 0};
  const auto out = simulate_one(spec, r);
  // Every uplink carries one sender at rate t; downlink j gets t/3 from rank 0 and 2 x t/3 from the
  // others: t = C_nv until ranks 1-3 finish (1.5b), then rank 0 alone still at C_nv (its uplink):
  // 3b / C_nv = 2081.3 us, plus 4 us + 3 rounds x 1 us.
  CHECK(out.time_s == Approx(kLaunch + 3e-6 + 3.0 * b / kNv).epsilon(kPsRounding));
}

TEST_CASE("automatic algorithm choice follows size and topology", "[collectives]") {
  auto spec = cluster(1);
  spec.nvls = true;
  const auto group = iota(0, 8);
  // Ring (Simple) at 64 MiB: 32.2 us + 318.3 us beats NVLS's 132.6 us + 243.5 us; NVLS wins at 1 GiB.
  CHECK(simulate_one(spec, request(CollectiveOp::all_reduce, {group}, 64 * 1048576.0)).algorithm ==
        CollectiveAlgorithm::ring);
  CHECK(simulate_one(spec, request(CollectiveOp::all_reduce, {group}, kGiB)).algorithm ==
        CollectiveAlgorithm::nvls);
  // 16 nodes, 1 MB: a 128-rank ring pays 254 steps of NCCL's per-step latency; the tree pays
  // 2 (7 chain steps + log2(16) = 4 network steps).
  const auto many = cluster(16);
  CHECK(simulate_one(many, request(CollectiveOp::all_reduce, {iota(0, 128)}, 1e6)).algorithm ==
        CollectiveAlgorithm::tree);
  // Forcing an algorithm that cannot run is a user error.
  CHECK_THROWS_WITH(
      simulate_one(cluster(1), request(CollectiveOp::all_reduce, {group}, 1e6, CollectiveAlgorithm::nvls)),
      Catch::Contains("nvls"));
}

TEST_CASE("degenerate requests complete at once", "[collectives]") {
  const auto spec = cluster(1);
  CHECK(simulate_one(spec, request(CollectiveOp::all_reduce, {{3}}, kGiB)).time_s == 0.0);
  CHECK(simulate_one(spec, request(CollectiveOp::all_reduce, {iota(0, 8)}, 0.0)).time_s == 0.0);
}
