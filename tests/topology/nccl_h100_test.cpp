// The network model against real hardware: nccl-tests all_reduce_perf on 8 x H100 SXM
// (reference.md section 4).
//
// Calibration is global, per GPU and link type, never per size (h100() in tests/support/fixtures.hpp
// mirrors the catalog's H100 entry):
//  - NVLink protocol efficiency 0.82: NCCL rings reach ~370 of 450 GB/s (reference.md).
//  - Latency: the larger of the route's (a 1.24 us launch plus 1 us per NVLink step) and NCCL's
//    for the algorithm and protocol (the 8-byte all-reduce, 14 ring steps, takes 13.67 us).
//  - NVLS: t = a + S (1 + 1/8) / (450 GB/s x e) fitted to the two largest sizes (1 GiB and 8 GiB:
//    algbw 275.5 GB/s, intercept 132.6 us) -> e = 0.689, and a = 4 us launch + 2 NVLink steps +
//    the NVLS fixed cost 126.6 us = the pipeline fill, 2 loops x 8 heads x 128 KiB x 16 channels
//    / 275.5 GB/s = 121.8 us, + nvls_latency_s 4.8 us.
//  - Protocols and their latencies are NCCL's (topology/nccl_tuning.hpp): 1 MB runs LL (15 us +
//    S x 1.75 / 141 GB/s), 16 and 64 MB Simple rings, 128 MB up NVLS.
// Targets: within 10% from 1 MB up, the small-message latency floor within 2x.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "tests/topology/test_cluster.hpp"
#include "topology/collective_sweep.hpp"
#include "topology/nccl_reference.hpp"

using namespace stepsim;
using namespace stepsim::topo;

TEST_CASE("8 x H100 all-reduce follows the nccl-tests curve", "[collectives][nccl]") {
  auto spec = test::cluster(1);
  spec.nvls = true;
  spec.gpu.kernel_gap_s = 1.24e-6;  // the catalog's H100 (measured on the H200)
  SweepRequest req;
  req.groups = {test::iota(0, 8)};
  for (const NcclPoint& p : nccl_h100_all_reduce()) req.sizes_bytes.push_back(p.bytes);
  const auto samples = sweep_collective(std::make_shared<const Topology>(spec), req);
  const auto ref = nccl_h100_all_reduce();
  REQUIRE(samples.size() == ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double ratio = samples[i].time_s / ref[i].time_s;
    std::printf("  all-reduce %12.0f B: measured %9.2f us, simulated %9.2f us (%-5s) error %+6.1f%%\n",
                ref[i].bytes, ref[i].time_s * 1e6, samples[i].time_s * 1e6,
                std::string(name(samples[i].algorithm)).c_str(), (ratio - 1.0) * 100.0);
    INFO("bytes " << ref[i].bytes << " simulated/measured " << ratio);
    if (ref[i].bytes >= 1e6) CHECK(std::abs(ratio - 1.0) <= 0.10);  // 1 MB up: LL, Simple, NVLS
    if (ref[i].bytes <= 8) CHECK((ratio >= 0.5 && ratio <= 2.0));
  }
}
