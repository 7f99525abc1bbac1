// DeepEP's low-latency kernels (CollectiveAlgorithm::deepep_ll) against DeepEP's published H800
// figures: deepseek-ai/DeepEP docs/legacy.md @ dd758caf451848bd150e1046af3d0a73e5fff38d, "Low-latency
// kernels with pure RDMA" (rows 231-242 of scenarios/validation/collectives-multinode.csv, copied here
// so the test reads nothing outside the repository): 128 tokens per rank, hidden 7168, top-8 of 256
// experts, FP8 dispatch, BF16 combine, one CX7 400 Gb/s NIC per GPU, EP/8 nodes of 8.
//
// DeepEP's test (tests/legacy/test_low_latency.py) counts per rank 128 tokens x 8 selections x
// (7168 + 7168 / 128 x 4 + 16) = 7,585,792 bytes for the dispatch and x 7168 x 2 = 14,680,064 for the
// combine, each copy a message to the rank holding the expert; routing is random, so every rank
// receives as much as it sends and each destination gets 1/EP of the copies (its own share stays on
// the GPU). stepsim simulates that as a balanced all-to-all of those bytes on the catalog's H800
// (NVLink 200 GB/s x 0.67, NIC 50 GB/s x 0.85). This file checks the transfer by hand; every
// published row is compared with DeepEP's latency column in tests/workloads/step/deepep_h800_test.cpp,
// with the local kernels (permute, FP8 cast, unpermute) the MoE layer prices beside the transfer.
#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"
#include "topology/collectives.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using Catch::Detail::Approx;

namespace {
constexpr double kDispatchBytes = 128.0 * 8 * (7168 + 7168.0 / 128 * 4 + 16);  // 7,585,792

ClusterSpec h800(int nodes) {
  ClusterSpec spec = test::cluster(nodes);  // rail-optimised, 8 per node
  spec.gpu.nvlink_bw = units::bytes_per_s(200e9);  // H800: 400 GB/s bidirectional
  spec.gpu.eff.nvlink = 0.67;               // the catalog's H800 (derived from DeepEP's row 223)
  spec.gpu.kernel_gap_s = 1.24e-6;
  return spec;
}

double simulate(int ep, double bytes) {
  CollectiveRequest r;
  r.op = CollectiveOp::all_to_all;
  r.algorithm = CollectiveAlgorithm::deepep_ll;
  r.groups = {test::iota(0, static_cast<GpuId>(ep))};
  r.bytes = bytes;
  return test::simulate_one(h800(ep / 8), r).time_s;
}
}  // namespace

TEST_CASE("DeepEP's low-latency dispatch and combine on H800", "[deepep]") {
  SECTION("EP256 dispatch by hand: the NIC, one round of data and one of counts") {
    // 248 of 256 destinations are on other nodes: 7,585,792 x 248/256 = 7,348,736 bytes leave
    // through the GPU's own NIC at 42.5 GB/s = 172.91 us. Latency: launch 1.24 us + 2 x (NIC pair
    // 2 us + leaf, spine, leaf 3 x 0.5 us: the route between rails, no PXN relay) = 8.24 us.
    CHECK(simulate(256, kDispatchBytes) ==
          Approx(8.24e-6 + kDispatchBytes * 248.0 / 256.0 / 42.5e9).epsilon(1e-4));
  }
}
