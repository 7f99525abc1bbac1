// Driver for the network benchmark workloads: they run and simulate plausible times. Their wall
// time is reported by `stepsim bench` and never asserted here.
#include "topology/network_bench.hpp"

#include <catch2/catch.hpp>

using namespace stepsim::topo;

TEST_CASE("the 1,024-GPU benchmark collectives run", "[bench]") {
  // 128 rail-optimised nodes of 8 (32 hosts per rail leaf: 4 leaves per rail, joined by spines).
  // Event times are whole picoseconds: 1e-9 of these results at most, so 1e-6 is tight yet safe.
  const double kGiB = 1073741824.0, kNic = 50e9 * 0.85;
  const auto a2a = bench_collective_1024(CollectiveOp::all_to_all, CollectiveAlgorithm::automatic);
  // Each NIC carries its host's traffic to its rail on 127 other hosts: 8 x 127 / 1024 x 1 GiB at
  // 400 Gb/s x 0.85 = 42.5 GB/s -> 25.067 ms. Latency: launch 4 us + 1,023 rounds x the longest route,
  // a PXN relay (NVLink step 1 us + NIC pair 2 us + leaf, spine, leaf 1.5 us = 4.5 us) = 4,607.5 us.
  CHECK(a2a.simulated_time_s == Approx(4e-6 + 1023 * 4.5e-6 + 8.0 * 127 / 1024 * kGiB / kNic).epsilon(1e-6));
  CHECK(a2a.pattern_link_uses > 1024);
  const auto ring = bench_collective_1024(CollectiveOp::all_reduce, CollectiveAlgorithm::ring);
  // A NIC carries 2 (p-1)/p x 1 GiB / 8 = 0.2498 GiB at 42.5 GB/s -> 6.310 ms. Latency: NCCL's ring
  // Simple across nodes, 8.4 us + 1/2 x (1,792 NVLink steps x max(3.4, 3 x 1 us net overhead) + 254
  // network steps x 14 us) = 4,832.8 us (the route's, 4 us + 2,046 steps of 1-2.5 us, is less).
  CHECK(ring.simulated_time_s ==
        Approx(8.4e-6 + 0.5 * (1792 * 3.4e-6 + 254 * 14e-6) + 2.0 * 1023 / 1024 * kGiB / 8 / kNic)
            .epsilon(1e-6));
}
