// NCCL's CollNet Chain (topology/collective_collnet.cpp), derived by hand. The test H100
// (tests/support/fixtures.hpp h100()): NVLink 450 GB/s x 0.82 = 369 GB/s; NIC 50 GB/s x 0.85 =
// 42.5 GB/s, one per GPU; 8 GPUs a host, 16 channels (two per local rank).
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
ClusterSpec sharp_hosts(int nodes) {
  ClusterSpec spec = cluster(nodes);
  spec.fabric.sharp = true;
  return spec;
}
}  // namespace

TEST_CASE("CollNet Chain: NCCL's latency terms", "[collectives][nccl]") {
  NcclShape s;
  s.algorithm = CollectiveAlgorithm::collnet_chain;
  s.ranks = 32;
  s.nodes = 4;  // 8 ranks a node
  // tuning.cc: no base latency; 2 x (ppn - 1) chain steps x 2.8 us (NVLink and PCIe alike) + the
  // network's 30 us: 2 x 7 x 2.8 + 30 = 69.2 us. Simple only.
  CHECK(nccl_protocol_terms(s, CollectiveProtocol::simple).latency_s == Approx(69.2e-6));
  CHECK(protocol_applies(s, CollectiveProtocol::simple));
  CHECK_FALSE(protocol_applies(s, CollectiveProtocol::ll));
  // One rank per node: no chain, and NCCL takes the tree's network latency (14 us) for it.
  s.ranks = 4;
  CHECK(nccl_protocol_terms(s, CollectiveProtocol::simple).latency_s == Approx(14.0e-6));
  // All-reduce only: NCCL's tuning has no chain for the other operations.
  s.op = CollectiveOp::all_gather;
  CHECK_FALSE(nccl_tuned(s.op, s.algorithm));
  CHECK_FALSE(implements(CollectiveOp::all_gather, CollectiveAlgorithm::collnet_chain));
  CHECK(parse_collective_algorithm("collnet-chain") == CollectiveAlgorithm::collnet_chain);
}

TEST_CASE("CollNet Chain puts S/m on each NIC and a ring's volume on each GPU's NVLink",
          "[collectives][nccl]") {
  const auto spec = sharp_hosts(4);  // 32 H100, 4 hosts of 8
  const auto w = wire_bytes(spec, all_reduce(32, kGiB, CollectiveAlgorithm::collnet_chain));
  REQUIRE(w.algorithm == CollectiveAlgorithm::collnet_chain);
  REQUIRE(w.protocol == CollectiveProtocol::simple);
  // Channels 2r and 2r+1 have local rank r as head: each NIC carries its two channels' 2 x S/16 =
  // S/8 each way. Wire bytes: S / 0.85 (the CollNet network factor, Hopper) x 1/8 / 0.85 (NIC).
  const double per_nic = kGiB / 0.85 / 8.0 / 0.85;
  // Each rank heads 2 channels (sends down only), is the tail of 2 (sends up only) and in the
  // middle of 12 (both): (2 + 2 + 24) x S/16 = 1.75 S = 2 (m-1)/m S up its NVLink, and as much
  // down. Wire bytes: S / 0.85 x 1.75 / 0.82 (NVLink).
  const double per_nvlink = kGiB / 0.85 * 1.75 / 0.82;
  for (GpuId g = 0; g < 32; ++g) {
    CHECK(w.bytes[w.topo->nic_up(g)] == Approx(per_nic).epsilon(1e-9));
    CHECK(w.bytes[w.topo->nic_down(g)] == Approx(per_nic).epsilon(1e-9));
    CHECK(w.bytes[w.topo->scaleup_up(g)] == Approx(per_nvlink).epsilon(1e-9));
    CHECK(w.bytes[w.topo->scaleup_down(g)] == Approx(per_nvlink).epsilon(1e-9));
  }
}

TEST_CASE("CollNet Chain's time grows at its NVLink bound, like Direct's", "[collectives][nccl]") {
  const auto spec = sharp_hosts(4);
  // NVLink binds: 1.75 S / 0.85 at 369 GB/s (5.58 ps a byte) against the NIC's 0.125 S / 0.85 at
  // 42.5 GB/s (3.46 ps). The latency and the pipeline fill (its chunk is NCCL's 256 KiB at both
  // sizes, below) cancel in the difference of two large sizes.
  const auto chain = [&](double bytes) {
    return simulate_one(spec, all_reduce(32, bytes, CollectiveAlgorithm::collnet_chain)).time_s;
  };
  const double per_byte = 1.75 / (0.85 * 369e9);
  CHECK(chain(8 * kGiB) - chain(4 * kGiB) == Approx(4 * kGiB * per_byte).epsilon(1e-6));
  // Direct moves the same volumes with fewer latency terms (2 x (3.7 + 7 x 0.4) + 31 = 44 us
  // against 69.2) and a shorter fill: where both run, Direct is the faster.
  CommConfig collnet;
  collnet.collnet = true;
  const auto big = all_reduce(32, 64 * kMiB, CollectiveAlgorithm::automatic);
  const auto chosen = simulate_one(spec, big, collnet);
  CHECK(chosen.algorithm != CollectiveAlgorithm::collnet_chain);
  CHECK(simulate_one(spec, all_reduce(32, 64 * kMiB, CollectiveAlgorithm::collnet_direct)).time_s <
        simulate_one(spec, all_reduce(32, 64 * kMiB, CollectiveAlgorithm::collnet_chain)).time_s);
}

TEST_CASE("CollNet Chain's chunk follows NCCL's halving by message size", "[collectives][nccl]") {
  // 16 channels, chains of 8 (src/enqueue.cc): start at 256 KiB; halve (not below 128 KiB) while a
  // channel's share holds fewer than 8 x 64 = 512 chunks, then (not below 64 KiB) fewer than 64,
  // then (not below 32 KiB) fewer than 8.
  // 16 GiB: 1 GiB a channel = 4,096 chunks of 256 KiB >= 512: 256 KiB.
  CHECK(collnet_chain_chunk_bytes(16 * kGiB, 16, 8) == 262144.0);
  // 1 GiB: 64 MiB a channel = 256 chunks < 512: 128 KiB (the first loop's floor); 512 >= 64.
  CHECK(collnet_chain_chunk_bytes(kGiB, 16, 8) == 131072.0);
  // 64 MiB: 4 MiB a channel: 128 KiB (32 chunks), then 32 < 64: 64 KiB (64 chunks, >= 8).
  CHECK(collnet_chain_chunk_bytes(64 * kMiB, 16, 8) == 65536.0);
  // 1 MiB: 64 KiB a channel: 128 KiB, 64 KiB, then 1 chunk < 8: 32 KiB.
  CHECK(collnet_chain_chunk_bytes(kMiB, 16, 8) == 32768.0);
}

TEST_CASE("CollNet Chain runs where Direct may not: hosts without an NVLink switch", "[collectives][nccl]") {
  CommConfig collnet;
  collnet.collnet = true;
  SECTION("PCIe hosts: Chain runs, Direct is refused as NCCL refuses it (no NVSwitch)") {
    auto spec = sharp_hosts(2);
    spec.gpu.nvlink_bw = units::bytes_per_s(0.0);
    spec.nvlink_domain = 1;
    const auto chain =
        simulate_one(spec, all_reduce(16, 16 * kMiB, CollectiveAlgorithm::collnet_chain), collnet);
    CHECK(chain.algorithm == CollectiveAlgorithm::collnet_chain);
    CHECK(chain.time_s > 0.0);
    CHECK_THROWS_WITH(
        simulate_one(spec, all_reduce(16, 16 * kMiB, CollectiveAlgorithm::collnet_direct), collnet),
        Catch::Contains("NVLink switch"));
  }
  SECTION("NVLink pairs inside a host (H100 NVL): neither, stepsim's nodes are not NCCL's there") {
    auto spec = sharp_hosts(2);
    spec.nvlink_domain = 2;
    CHECK_THROWS_WITH(
        simulate_one(spec, all_reduce(16, 16 * kMiB, CollectiveAlgorithm::collnet_chain), collnet),
        Catch::Contains("not NVLink pairs"));
    CHECK_THROWS_WITH(
        simulate_one(spec, all_reduce(16, 16 * kMiB, CollectiveAlgorithm::collnet_direct), collnet),
        Catch::Contains("NVLink switch"));
  }
  SECTION("without CollNet enabled the automatic choice never takes it; forcing it enables it") {
    const auto spec = sharp_hosts(2);
    for (double bytes : {64.0 * 1024, 16 * kMiB, kGiB})
      CHECK(simulate_one(spec, all_reduce(16, bytes, CollectiveAlgorithm::automatic)).algorithm !=
            CollectiveAlgorithm::collnet_chain);
    CHECK(simulate_one(spec, all_reduce(16, kMiB, CollectiveAlgorithm::collnet_chain)).algorithm ==
          CollectiveAlgorithm::collnet_chain);
  }
}
