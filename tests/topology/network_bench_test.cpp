// Driver for the network benchmark workloads: they run and simulate plausible times. Their wall
// time is reported by `stepsim bench` and never asserted here.
#include "topology/network_bench.hpp"

#include <catch2/catch.hpp>

using namespace stepsim::topo;

TEST_CASE("the 1,024-GPU benchmark collectives run", "[bench]") {
  const auto a2a = bench_collective_1024(CollectiveOp::all_to_all, CollectiveAlgorithm::automatic);
  // Each NIC carries its host's traffic to its rail on 127 other hosts: 8 x 127 / 1024 x 1 GiB at
  // 400 Gb/s x 0.85 = 42.5 GB/s -> 25.06 ms at least.
  CHECK(a2a.simulated_time_s > 0.02506);
  CHECK(a2a.pattern_link_uses > 1024);
  const auto ring = bench_collective_1024(CollectiveOp::all_reduce, CollectiveAlgorithm::ring);
  // A NIC carries 2 (p-1)/p x 1 GiB / 8 = 0.2498 GiB at 42.5 GB/s -> 6.31 ms at least.
  CHECK(ring.simulated_time_s > 0.00631);
}
