// NCCL's protocols and algorithms on the flow network, derived by hand from NCCL's tuning constants
// (topology/nccl_tuning.cpp, src/graph/tuning.cc) and the test H100 (tests/support/fixtures.hpp h100()):
//   NVLink 450 GB/s x 0.82 = 369 GB/s; NIC 50 GB/s x 0.85 = 42.5 GB/s, 8 per node = 340 GB/s.
// Route latencies are made small here (0.2 us per NVLink step, 0.5 us per NIC pair, 0.1 us per
// switch hop, 1.24 us launch) so that NCCL's latency terms, which are larger, are the ones paid.
#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"
#include "topology/collective_plan.hpp"
#include "topology/collectives.hpp"
#include "topology/nccl_tuning.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace {
ClusterSpec fast_routes(int nodes) {
  ClusterSpec spec = cluster(nodes);
  spec.gpu.kernel_gap_s = 1.24e-6;
  spec.nvlink_latency_s = 0.2e-6;
  spec.fabric.nic_latency_s = 0.5e-6;
  spec.fabric.hop_latency_s = 0.1e-6;
  return spec;
}

}  // namespace

TEST_CASE("2-node ring all-reduce under Simple and LL, by hand", "[collectives][nccl]") {
  const auto spec = fast_routes(2);  // 16 ranks, 8 per node, 16 ring channels
  SECTION("Simple: NCCL's latency, then the NICs") {
    // Latency: base 8.4 us + half of (28 NVLink steps x max(3.4, 3 x 1 us net overhead) + 2
    // network steps x 14 us) = 8.4 + (95.2 + 28) / 2 = 70.0 us.
    // Bandwidth: each of the 16 rings crosses each way between the nodes once, 2 rings per NIC,
    // each carrying 2 (p-1)/p S / 16: per NIC 1.875 S / 8 at 42.5 GB/s = 1.875 S / 340 GB/s.
    // S = 256 MiB: 70.0 us + 1.875 x 268,435,456 / 340e9 = 70.0 + 1480.4 = 1550.4 us.
    const auto out =
        simulate_one(spec, all_reduce(16, 256 * kMiB, CollectiveAlgorithm::ring, CollectiveProtocol::simple));
    CHECK(out.protocol == CollectiveProtocol::simple);
    CHECK(out.time_s == Approx(70.0e-6 + 1.875 * 256 * kMiB / 340e9).epsilon(1e-4));
    CHECK(out.alone_s == Approx(out.time_s).epsilon(1e-6));
  }
  SECTION("LL: NCCL's LL latency, then its 39 GB/s multi-node ceiling") {
    // Latency: base 6.6 us + 28 NVLink steps x max(0.6, 1 us net overhead) + 2 x 2.7 us = 40.0 us.
    // Bandwidth: LL carries 4 data bytes in 8, the NICs would give 1.875 S / 170 GB/s; NCCL's LL
    // ceiling on 2 nodes (Intel/Arm hosts) is 39 GB/s of bus bandwidth: 1.875 S / 39 GB/s binds.
    // S = 1 MiB: 40.0 + 1.875 x 1,048,576 / 39e9 = 40.0 + 50.41 = 90.41 us.
    const auto out =
        simulate_one(spec, all_reduce(16, kMiB, CollectiveAlgorithm::ring, CollectiveProtocol::ll));
    CHECK(out.protocol == CollectiveProtocol::ll);
    CHECK(out.time_s == Approx(40.0e-6 + 1.875 * kMiB / 39e9).epsilon(1e-4));
  }
}

TEST_CASE("2-node tree all-reduce under Simple and LL, by hand", "[collectives][nccl]") {
  const auto spec = fast_routes(2);
  SECTION("Simple: NCCL's per-channel tree ceiling binds") {
    // Latency: base 8.4 + 2 x (7 chain steps x 4.0 us + log2(2) x 14 us) = 8.4 + 84 = 92.4 us.
    // Bandwidth: the NICs give each tree channel's representative S/8 each way (two channels per
    // rank) at 42.5 GB/s x 0.92 (NCCL's tree factor); NCCL caps Hopper trees on 2 nodes at 41.4
    // GB/s per channel, 8 tree channels (one per NIC): 331.2 GB/s of bus bandwidth, so the
    // variable runs at 331.2 / 1.875 / 0.92 = 192.0 GB/s of wire bytes (S / 0.92).
    // Fill: 2 x (depth 1 + chain 7) = 16 chunks of 512 KiB per channel, 16 channels, at 192.0 GB/s.
    // S = 1 GiB: 92.4 us + 16 x 16 x 524,288 / 192.0e9 + 1.875 x 2^30 / 331.2e9
    //          = 92.4 + 699.1 + 6078.9 = 6870.4 us.
    const double rate = 331.2e9 / 1.875 / 0.92;
    const double expected = 92.4e-6 + 16.0 * 16.0 * 524288.0 / rate + 1.875 * kGiB / 331.2e9;
    const auto out =
        simulate_one(spec, all_reduce(16, kGiB, CollectiveAlgorithm::tree, CollectiveProtocol::simple));
    CHECK(out.time_s == Approx(expected).epsilon(1e-4));
  }
  SECTION("Simple keeps NCCL's 512 KiB chunk for a small message") {
    // NCCL's tree under Simple streams one 512 KiB step per chunk whatever the size (src/enqueue.cc
    // calcCollChunking shrinks only LL128's, CollNet's and NVLS's chunks), so the fill of 16 chunk
    // times does not shrink with the message until a channel's share is under one chunk.
    // S = 16 MiB: 1 MiB per channel, chunk 512 KiB: 92.4 + 699.1 + 1.875 x 16 MiB / 331.2e9
    // (95.0) = 886.5 us. S = 1 MiB: S / 0.92 = 1,139,757 wire bytes, 71,235 per channel, one chunk:
    // fill 16 x 16 x 71,235 / 192.0e9 = 95.0 us.
    const double rate = 331.2e9 / 1.875 / 0.92;
    for (const double bytes : {16 * kMiB, kMiB}) {
      const double chunk = std::min(524288.0, bytes / 0.92 / 16.0);
      const double expected = 92.4e-6 + 16.0 * 16.0 * chunk / rate + 1.875 * bytes / 331.2e9;
      const auto out =
          simulate_one(spec, all_reduce(16, bytes, CollectiveAlgorithm::tree, CollectiveProtocol::simple));
      CHECK(out.time_s == Approx(expected).epsilon(1e-4));
    }
  }
  SECTION("LL: a tenth of the time is latency at 64 KiB") {
    // Latency: base 6.8 + 2 x (7 x 0.6 + 14... no: LL's network step is 5.0 us) = 6.8 + 2 x (4.2 + 5.0)
    // = 25.2 us. Bandwidth: LL's 39 GB/s ceiling (2 nodes) binds before 340 x 0.92 / 3.8.
    // Fill: 16 chunks of min(512 KiB, S / 0.92 / 3.8 / 16 / 16) per channel, at that ceiling.
    // S = 64 KiB: wire bytes S / (0.92 / 3.8) = 270,690; chunk = 270,690 / 16 / 16 = 1,057.4 B;
    // fill = 16 x 16 x 1,057.4 / (39e9 / 1.875 / 0.2421) = 3.13 us; transfer 1.875 x 65,536 / 39e9
    // = 3.15 us: 25.2 + 3.13 + 3.15 = 31.5 us.
    const double f = 0.92 / 3.8;
    const double rate = 39e9 / 1.875 / f;
    const double wire = 65536.0 / f;
    const double expected = 25.2e-6 + wire / rate + 1.875 * 65536.0 / 39e9;
    const auto out =
        simulate_one(spec, all_reduce(16, 65536.0, CollectiveAlgorithm::tree, CollectiveProtocol::ll));
    CHECK(out.protocol == CollectiveProtocol::ll);
    // Exact but for event times rounded up to whole picoseconds (relative 1e-7 of 31.5 us at most).
    CHECK(out.time_s == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("the LL to Simple crossover of an 8-GPU ring falls where the terms cross", "[collectives][nccl]") {
  // One node, ring only (NVLS off). LL: 6.6 + 14 x 0.6 = 15.0 us, then NCCL's Hopper one-node LL
  // ceiling 141 GB/s of bus bandwidth (the links would give 369 x 0.5 = 184.5). Simple: 8.4 + 14 x
  // 3.4 / 2 = 32.2 us at 369 GB/s. LL128: 14 + 14 x 1.9 = 40.6 us at 369 x 0.92 = 339.5 GB/s,
  // slower than Simple at every size. Equal times: 1.75 S (1/141e9 - 1/369e9) = 17.2 us,
  // S* = 17.2e-6 / 7.6688e-12 = 2,242,858 bytes.
  const auto spec = fast_routes(1);
  const double crossover = 17.2e-6 / (1.75 * (1.0 / 141e9 - 1.0 / 369e9));
  CHECK(crossover == Approx(2242858.0).epsilon(1e-4));
  const auto below = simulate_one(
      spec, all_reduce(8, 0.97 * crossover, CollectiveAlgorithm::ring, CollectiveProtocol::automatic));
  const auto above = simulate_one(
      spec, all_reduce(8, 1.03 * crossover, CollectiveAlgorithm::ring, CollectiveProtocol::automatic));
  CHECK(below.protocol == CollectiveProtocol::ll);
  CHECK(above.protocol == CollectiveProtocol::simple);
  // At the crossover both cost 15.0 + 1.75 S* / 141e9 = 42.84 us.
  CHECK(below.time_s == Approx(15.0e-6 + 1.75 * 0.97 * crossover / 141e9).epsilon(1e-4));
  CHECK(above.time_s == Approx(32.2e-6 + 1.75 * 1.03 * crossover / 369e9).epsilon(1e-4));
}

TEST_CASE("NVLS, NVLS-tree and CollNet put the data volumes of their schemes on each link",
          "[collectives][nccl]") {
  SECTION("NVLS on one node: S (1 + 1/p) up and down every NVLink") {
    auto spec = fast_routes(1);
    spec.nvls = true;
    const auto w = wire_bytes(spec, all_reduce(8, kGiB, CollectiveAlgorithm::nvls));
    // Wire bytes = request bytes x 1.125 / 0.689 (the NVLS efficiency) on each up- and downlink.
    for (GpuId g = 0; g < 8; ++g) {
      CHECK(w.bytes[w.topo->scaleup_up(g)] == Approx(kGiB * 1.125 / 0.689).epsilon(1e-9));
      CHECK(w.bytes[w.topo->scaleup_down(g)] == Approx(kGiB * 1.125 / 0.689).epsilon(1e-9));
    }
  }
  SECTION("CollNet Direct across 4 hosts: S/m per NIC each way, one stream per switch link") {
    auto spec = fast_routes(4);
    spec.fabric.sharp = true;
    spec.fabric.hosts_per_leaf = 2;  // two leaves per rail: the aggregation tree crosses a spine
    const auto w = wire_bytes(spec, all_reduce(32, kGiB, CollectiveAlgorithm::collnet_direct));
    REQUIRE(w.protocol == CollectiveProtocol::simple);
    const auto& topo = w.topo;
    // Wire bytes = (S / 0.85, NCCL's CollNet factor on Hopper) x (1/8) / 0.85 (NIC efficiency).
    const double per_nic = kGiB / 0.85 / 8.0 / 0.85;
    for (GpuId g = 0; g < 32; ++g) {
      CHECK(w.bytes[topo->nic_up(g)] == Approx(per_nic).epsilon(1e-9));
      CHECK(w.bytes[topo->nic_down(g)] == Approx(per_nic).epsilon(1e-9));
    }
    // Every leaf-spine link the rails' trees use carries exactly one stream (the same as a NIC):
    // the switches reduce, so no link sees more as hosts are added.
    int used = 0;
    for (const Link& l : topo->links())
      if (l.kind == LinkKind::leaf_spine) {
        const double b = w.bytes[static_cast<LinkId>(&l - topo->links().data())];
        if (b > 0.0) {
          ++used;
          CHECK(b == Approx(per_nic).epsilon(1e-9));
        }
      }
    // Per rail: hosts 2 and 3 share a leaf, which joins host 0's leaf through one spine: the
    // tree's two leaf-spine cables, both directions: 8 rails x 4 links.
    CHECK(used == 8 * 4);
  }
  SECTION("NVLS-tree on 2 nodes moves S/m per NIC each way, half a ring's") {
    auto spec = fast_routes(2);
    spec.nvls = true;
    const auto w = wire_bytes(spec, all_reduce(16, kGiB, CollectiveAlgorithm::nvls_tree));
    // Each head's slice S/8 goes to the other node over one tree and comes back over the other:
    // S/8 / 0.85 wire bytes each way per NIC (a ring moves 2 x 15/16 S/8).
    for (GpuId g = 0; g < 16; ++g) {
      CHECK(w.bytes[w.topo->nic_up(g)] == Approx(kGiB / 8.0 / 0.85).epsilon(1e-9));
      CHECK(w.bytes[w.topo->nic_down(g)] == Approx(kGiB / 8.0 / 0.85).epsilon(1e-9));
    }
  }
}

TEST_CASE("forced protocols and algorithms that NCCL would not run are refused", "[collectives][nccl]") {
  auto spec = fast_routes(1);
  spec.nvls = true;
  CHECK_THROWS_WITH(
      simulate_one(spec, all_reduce(8, kMiB, CollectiveAlgorithm::nvls, CollectiveProtocol::ll)),
      Catch::Contains("protocol `ll` cannot run algorithm `nvls`"));
  CHECK_THROWS_WITH(simulate_one(spec, all_reduce(8, kMiB, CollectiveAlgorithm::collnet_direct,
                                                  CollectiveProtocol::automatic)),
                    Catch::Contains("fabric.sharp"));
  // A job-wide protocol (NCCL_PROTO) leaves the operations NCCL does not tune alone.
  CollectiveRequest a2a;
  a2a.op = CollectiveOp::all_to_all;
  a2a.groups = {iota(0, 8)};
  a2a.bytes = kMiB;
  CommConfig forced;
  forced.protocol = CollectiveProtocol::ll;
  CHECK(simulate_one(spec, a2a, forced).protocol == CollectiveProtocol::simple);
  CHECK(simulate_one(spec, all_reduce(8, kGiB, CollectiveAlgorithm::automatic, CollectiveProtocol::automatic),
                     forced)
            .protocol == CollectiveProtocol::ll);
}

// NCCL runs CollNet Direct, and NVLS across nodes (as NVLS + CollNet), only with CollNet enabled
// (NCCL_COLLNET_ENABLE; src/graph/tuning.cc disables them otherwise, and its default is off).
// SHARP switches alone leave NCCL's choice to the ring, tree and NVLS-tree.
TEST_CASE("CollNet and NVLS across nodes run only with NCCL's CollNet enabled", "[collectives][nccl]") {
  auto spec = fast_routes(2);  // 2 nodes x 8 H100, one NVLink domain per node
  spec.nvls = true;
  spec.fabric.sharp = true;
  const auto big = all_reduce(16, 1024 * kMiB, CollectiveAlgorithm::automatic, CollectiveProtocol::automatic);
  // Without CollNet: NVLS inside each node and the heads' trees between them (NVLS-tree), as NCCL
  // chose on the 2-node B200 cluster (scenarios/validation/collectives-multinode.csv row 77).
  const auto off = simulate_one(spec, big);
  CHECK(off.algorithm == CollectiveAlgorithm::nvls_tree);
  CommConfig enabled;
  enabled.collnet = true;
  const auto on = simulate_one(spec, big, enabled);
  // With CollNet on, NVLS + SHARP is a candidate and wins: on two nodes each head NIC carries its
  // slice S/8 each way in both, but NCCL caps NVLS-tree at its per-channel figure on each of the
  // NVLS graph's channels, one per head: 8 x 57.7 GB/s (Hopper, 2 nodes) = 461.6 GB/s of bus
  // bandwidth, which binds here (the NICs would allow more); NVLS + SHARP has no such cap. The
  // NVLS-tree's time grows by 1.875 S / 461.6 GB/s (its fixed costs do not depend on S).
  CHECK(on.algorithm == CollectiveAlgorithm::nvls);
  CHECK(on.time_s < off.time_s);
  auto bigger = big;
  bigger.bytes = 2 * big.bytes;
  CHECK(simulate_one(spec, bigger).time_s - off.time_s == Approx(1.875 * big.bytes / 461.6e9).epsilon(1e-6));
  // Forcing NVLS across the two domains without CollNet is what NCCL refuses ("No algorithm/protocol
  // available"); with CollNet it runs. Forcing CollNet Direct implies enabling it.
  const auto nvls = all_reduce(16, 1024 * kMiB, CollectiveAlgorithm::nvls, CollectiveProtocol::automatic);
  CHECK_THROWS_WITH(simulate_one(spec, nvls), Catch::Contains("collective.collnet = true"));
  CHECK(simulate_one(spec, nvls, enabled).algorithm == CollectiveAlgorithm::nvls);
  CHECK(simulate_one(spec, all_reduce(16, 1024 * kMiB, CollectiveAlgorithm::collnet_direct,
                                      CollectiveProtocol::automatic))
            .algorithm == CollectiveAlgorithm::collnet_direct);
}

TEST_CASE("NVLS all-reduce: bus bandwidth independent of the rank count, fixed cost the pipeline fill",
          "[collectives][nccl]") {
  // One 72-GPU NVLink domain (NVL72: 18 nodes of 4) of the test H100's links, Blackwell's NVLS
  // channels (24 in one domain): NVLink 450 GB/s x eff.nvls 0.689 = 310.05 GB/s per direction.
  auto spec = fast_routes(18);
  spec.gpus_per_node = 4;
  spec.nvlink_domain = 72;
  spec.nvls = true;
  spec.gpu.arch = GpuArch::blackwell;
  const double rate = 450e9 * 0.689;
  // Per-direction traffic per request byte, NCCL's form scaled to S (1 + 1/8) at 8 ranks:
  //   t(p) = 1.125 x ((p - 1) / p) / (7 / 8): t(8) = 1.125, t(72) = 1.125 x 0.98611 / 0.875 = 1.26786.
  const double t8 = 1.125, t72 = 1.125 * (71.0 / 72.0) / 0.875;
  CHECK(t72 == Approx(1.267857).epsilon(1e-6));
  const auto time = [&](GpuId p, double bytes) {
    return simulate_one(spec, all_reduce(p, bytes, CollectiveAlgorithm::nvls, CollectiveProtocol::simple))
        .time_s;
  };
  // Bandwidth: the slope between 1 and 8 GiB is traffic / rate per byte.
  const double slope8 = (time(8, 8 * kGiB) - time(8, kGiB)) / (7 * kGiB);
  const double slope72 = (time(72, 8 * kGiB) - time(72, kGiB)) / (7 * kGiB);
  CHECK(slope8 == Approx(t8 / rate).epsilon(1e-6));
  CHECK(slope72 == Approx(t72 / rate).epsilon(1e-6));
  // So the bus bandwidth, 2 (p - 1) / p per slope, is the same at 8 and 72 ranks:
  //   1.75 / (1.125 / 310.05) = 1.97222 / (1.26786 / 310.05) = 482.3 GB/s.
  CHECK(1.75 / slope8 == Approx(482.3e9).epsilon(1e-3));
  CHECK((142.0 / 72.0) / slope72 == Approx(1.75 / slope8).epsilon(1e-9));
  // Fixed cost: 2 loops x heads x 128 KiB x 24 channels at the NVLink rate. 72 ranks have 32 heads
  // (NCCL_MAX_NVLS_ARITY), 8 ranks 8; every other latency term is the same for both groups:
  //   72: 2 x 32 x 131072 x 24 x 1.26786 / 310.05e9 = 823.3 us; 8: 2 x 8 x 131072 x 24 x 1.125 /
  //   310.05e9 = 182.6 us; the intercepts differ by 640.7 us.
  const double fill72 = 2.0 * 32 * 131072 * 24 * t72 / rate, fill8 = 2.0 * 8 * 131072 * 24 * t8 / rate;
  CHECK(fill72 - fill8 == Approx(640.7e-6).epsilon(1e-3));
  const double intercept8 = time(8, kGiB) - kGiB * slope8, intercept72 = time(72, kGiB) - kGiB * slope72;
  CHECK(intercept72 - intercept8 == Approx(fill72 - fill8).epsilon(1e-6));
}

TEST_CASE("a ring across NVLink domains of several nodes spreads its channels over the domain's NICs",
          "[collectives][nccl]") {
  // Two NVLink domains of 8 GPUs, each spanning two nodes of 4 (as NVL72 racks span their trays).
  // Under multi-node NVLink NCCL fuses a domain's topologies into one node (src/graph/topo.cc), so a
  // 16-rank ring has 8 local ranks per node and 16 channels, each leaving a domain at a different GPU:
  // as between two 8-GPU hosts, 2 rings per NIC, each carrying 2 (p-1)/p S / 16, so per NIC
  // 1.875 S / 8 at 42.5 GB/s: the bandwidth term is 1.875 S / 340 GB/s. Laid out by node (4 local
  // ranks, 8 channels leaving through 4 of the 8 NICs) it would be 1.875 S / 170 GB/s.
  auto spec = fast_routes(4);
  spec.gpus_per_node = 4;
  spec.nvlink_domain = 8;
  const auto time = [&](double bytes) {
    return simulate_one(spec, all_reduce(16, bytes, CollectiveAlgorithm::ring, CollectiveProtocol::simple))
        .time_s;
  };
  const double slope = (time(8 * kGiB) - time(kGiB)) / (7 * kGiB);
  CHECK(slope == Approx(1.875 / 340e9).epsilon(1e-6));
}

TEST_CASE("NCCL's channels over a multi-node NVLink domain follow its graph search", "[collectives][nccl]") {
  // nccl_mnnvl_comm_channels: speeds from 48 GB/s down, each channel one NIC's (50 GB/s: one
  // channel a NIC above 25 GB/s, two at 24 and below) and every GPU's NVLink (NCCL's figure), at
  // most 32; the speed carrying the most wins, the search stops once the NVLink figure is carried;
  // the channels double.
  // GB200 NVL72 (72 GPUs, NVLink 900 GB/s x 0.8 = 720): 48 GB/s fits floor(720 / 48) = 15 on the
  // NVLink, 72 on the NICs: 15 x 48 = 720 carries it all: 30 channels.
  CHECK(nccl_mnnvl_comm_channels(72, 900.0, 50.0, GpuArch::blackwell) == 30);
  // As many GPUs as an HGX host: the NICs bind and the host rule's 16 comes back.
  // Hopper (450 x 20.6 / 25 = 370.8): 48 -> min(8 NICs, 7) = 7 (336); 45 -> 8 (360), best; no later
  // speed carries more than 360 (24 -> 15 x 24 = 360, 22 -> 16 x 22 = 352, 15 -> 24 x 15 = 360).
  CHECK(nccl_mnnvl_comm_channels(8, 450.0, 50.0, GpuArch::hopper) == 16);
  CHECK(nccl_comm_channels(8, GpuArch::hopper, true) == 16);
  // Blackwell (720): 48 -> 8 NICs (384); 24 -> 16 x 24 = 384, not more: 8, so 16.
  CHECK(nccl_mnnvl_comm_channels(8, 900.0, 50.0, GpuArch::blackwell) == 16);
  // 36 GPUs of a rack on 200 Gb/s NICs (25 GB/s): 48 to 30 GB/s fit no channel on a NIC; 24 ->
  // min(32, 36, 30) = 30 x 24 = 720 carries it: 60 channels.
  CHECK(nccl_mnnvl_comm_channels(36, 900.0, 25.0, GpuArch::blackwell) == 60);
}

TEST_CASE("NCCL's point-to-point channels per network peer, by hand", "[collectives][nccl]") {
  // NCCL 2.29 (src/graph/paths.cc): a 400 Gb/s NIC (50 GB/s) gets max(1, ceil(50 / 14)) = 4
  // channels per peer; the communicator's p2p channels are its 16 collective channels (8 GPUs with
  // a NIC each: 2 x 8); 4 is halved while 4 x ceil(ranks / 8) > 16.
  NcclP2pComm comm;
  comm.comm_channels = nccl_comm_channels(8, GpuArch::blackwell, true);
  CHECK(comm.comm_channels == 16);
  comm.ranks = 32;  // 4 batches of 8 peers: 4 x 4 = 16, fits
  CHECK(nccl_p2p_net_channels_per_peer(comm) == 4);
  comm.ranks = 64;  // 8 batches: 4 x 8 = 32 > 16, 2 x 8 = 16 fits
  CHECK(nccl_p2p_net_channels_per_peer(comm) == 2);
  comm.ranks = 128;  // 16 batches: only 1 channel fits, and NCCL keeps at least one
  CHECK(nccl_p2p_net_channels_per_peer(comm) == 1);
  comm.ranks = 368;
  CHECK(nccl_p2p_net_channels_per_peer(comm) == 1);
  // 800 Gb/s (100 GB/s): ceil(100 / 14) = 8 channels, a power of two already, for a pipeline group of 16.
  comm.nic_GBps = 100.0, comm.ranks = 16;
  CHECK(nccl_p2p_net_channels_per_peer(comm) == 8);
  // Four GPUs a node on Hopper: 2 x 4 = 8 channels, doubled to 16 under NVLink (connect.cc).
  CHECK(nccl_comm_channels(4, GpuArch::hopper, true) == 16);
  CHECK(nccl_comm_channels(4, GpuArch::ampere, true) == 8);
}

TEST_CASE("A cross-node send/recv in a large communicator runs at its channels' rate",
          "[collectives][nccl]") {
  // 16 nodes of the test H100 (NIC 50 GB/s x 0.85 = 42.5 GB/s). GPU 7 sends 1 GiB to GPU 8.
  // In a communicator of the pair, 4 channels x 14 = 56 GB/s: the NIC's 42.5 GB/s binds.
  // In one of all 128 ranks (nccl-tests' sendrecv), 1 channel: 14 GB/s binds.
  const auto spec = fast_routes(16);
  CollectiveRequest r;
  r.op = CollectiveOp::send_recv;
  r.groups = {{7, 8}};
  r.bytes = kGiB;
  const auto alone = simulate_one(spec, r);
  CHECK(kGiB / alone.time_s == Approx(42.5e9).epsilon(0.01));
  r.communicator_ranks = 128;
  const auto world = simulate_one(spec, r);
  CHECK(kGiB / world.time_s == Approx(14e9).epsilon(0.01));
  // Inside a node the network rule does not apply: GPU 0 to GPU 1 at NVLink speed either way.
  r.groups = {{0, 1}};
  CHECK(kGiB / simulate_one(spec, r).time_s > 100e9);
}

TEST_CASE("A small send/recv across nodes: NCCL's fixed cost, and channels by size", "[collectives][nccl]") {
  // 2 nodes of the test H100, GPU 7 sends to GPU 8, in a communicator of all 16 ranks (as nccl-tests).
  // Channels: 4 per peer (ceil(50 / 14)); one send starts on 1 (4 x 16 ranks > 16 p2p channels,
  // halved twice) and doubles while its parts exceed 128 KiB, up to 4. Fixed cost: 33 us in all,
  // launch included (kNcclP2pNetFixedUs; the route's latencies are below it here).
  //   64 KiB: 1 channel, 14 GB/s: 33 + 65,536 / 14e9 = 33 + 4.681 = 37.681 us
  //  256 KiB: 2 channels of 128 KiB, 28 GB/s: 33 + 262,144 / 28e9 = 33 + 9.362 = 42.362 us
  //    1 MiB: 4 channels, 56 GB/s, above the NIC's 42.5: 33 + 1,048,576 / 42.5e9 = 57.672 us
  const auto spec = fast_routes(2);
  CollectiveRequest r;
  r.op = CollectiveOp::send_recv;
  r.groups = {{7, 8}};
  r.communicator_ranks = 16;
  r.bytes = 65536;
  CHECK(simulate_one(spec, r).time_s == Approx(37.681e-6).epsilon(1e-3));
  r.bytes = 262144;
  CHECK(simulate_one(spec, r).time_s == Approx(42.362e-6).epsilon(1e-3));
  r.bytes = kMiB;
  CHECK(simulate_one(spec, r).time_s == Approx(57.672e-6).epsilon(1e-3));
  // Inside a node neither applies: 64 KiB from GPU 0 to GPU 1 costs the NVLink route and the launch.
  r.groups = {{0, 1}};
  r.bytes = 65536;
  CHECK(simulate_one(spec, r).time_s < 5e-6);
}

TEST_CASE("NCCL's channels for one send/recv by its size", "[collectives][nccl]") {
  // One channel to start (16 ranks or more), doubled while the parts exceed 128 KiB, at most 4:
  // 64 KiB one part; 256 KiB two of 128 KiB; 1 MiB four of 256 KiB (the cap stops the doubling);
  // an absurd 1e18 bytes still four (the part count never overflows).
  P2pChannels rule;
  rule.channel_Bps = 14e9, rule.min_channels = 1, rule.max_channels = 4;
  CHECK(rule.channels_for(65536) == 1);
  CHECK(rule.channels_for(131072) == 1);
  CHECK(rule.channels_for(262144) == 2);
  CHECK(rule.channels_for(1048576) == 4);
  CHECK(rule.channels_for(1e18) == 4);
  CHECK(rule.ceiling_Bps(262144) == Approx(28e9));
  CHECK(P2pChannels{}.ceiling_Bps(1e9) == 0.0);  // no rule: no ceiling
}
