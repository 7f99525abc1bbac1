// The flow network saturates its event times at the end of the simulator's range instead of
// wrapping them, and a transfer that would end past it is a UserError saying what it waits for.
#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "tests/topology/test_cluster.hpp"
#include "topology/flow_network.hpp"

using namespace stepsim;
using namespace stepsim::topo;

namespace flow_time_range {
/// A ring all-reduce of 1 GiB over every GPU of `spec`, run alone on a fresh network.
std::vector<Time> ring_all_reduce(const ClusterSpec& spec) {
  TransferTableBuilder tb(std::make_shared<const Topology>(spec));
  CollectiveRequest r;
  r.groups = {test::iota(0, spec.total_gpus())};
  r.bytes = test::kGiB;
  r.algorithm = CollectiveAlgorithm::ring;
  const std::uint32_t payload = tb.add(r);
  FlowNetwork net(std::make_shared<const TransferTable>(std::move(tb).build()));
  const std::uint32_t ids[] = {payload};
  return run_transfers(net, ids);
}
}  // namespace flow_time_range

TEST_CASE("a latency past the time range is an error, not a wrapped completion time", "[flow_network]") {
  auto spec = test::cluster(1);
  // 1e7 s per NVLink step = 1e19 ps, past 2^63 ps (9.2e18); it used to wrap to a negative time.
  spec.nvlink_latency_s = 1e7;
  try {
    (void)flow_time_range::ring_all_reduce(spec);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("the step exceeds the simulator's time range"));
    CHECK_THAT(what, Catch::Contains("a latency of more than 106 days"));
  }
}

TEST_CASE("a bandwidth so low a flow would end past the time range is an error", "[flow_network]") {
  auto spec = test::cluster(2, 1);
  // 1e-3 B/s per NIC: each ring step moves 0.5 GiB, 5e11 s = 5e23 ps, past the range.
  spec.gpu.nic_bw = units::bytes_per_s(1e-3);
  CHECK_THROWS_WITH(flow_time_range::ring_all_reduce(spec), Catch::Contains("limited by the nic links"));
}

TEST_CASE("a slow but in-range transfer still completes at its exact time", "[flow_network]") {
  auto spec = test::cluster(1);
  spec.nvlink_latency_s = 1e3;  // 1,000 s per step: 1e15 ps, far inside the range
  const auto done = flow_time_range::ring_all_reduce(spec);
  REQUIRE(done.size() == 1);
  // 7 reduce-scatter + 7 all-gather steps of 1,000 s each plus the 4 us launch (the route's latency,
  // above NCCL's 32.2 us), then 1.75 x 1 GiB at 369 GB/s = 5.092 ms: 14,000.005096 s. Times are whole
  // picoseconds, exact here to 1e-15 of the result; 1e-12 is 14 ns, far below the 5 ms transfer.
  CHECK(to_seconds(done[0]) == Approx(14e3 + 4e-6 + 1.75 * test::kGiB / test::kNv).epsilon(1e-12));
  CHECK(done[0] < kTimeRangeEnd);
}
