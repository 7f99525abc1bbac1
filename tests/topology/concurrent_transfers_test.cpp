// topo::concurrent_time_s: transfers started together on an idle network, phase by phase, sharing
// the links max-min fairly; against the flow network running the same transfers.
#include "topology/concurrent_transfers.hpp"

#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using Catch::Detail::Approx;

namespace concurrent_transfers_test_detail {

CollectiveRequest pair_send(GpuId from, GpuId to, double bytes) {
  CollectiveRequest r;
  r.op = CollectiveOp::send_recv;
  r.groups = {{from, to}};
  r.bytes = bytes;
  return r;
}

}  // namespace concurrent_transfers_test_detail

using concurrent_transfers_test_detail::pair_send;

TEST_CASE("transfers started together: alone as predicted, sharing a link twice as long on it") {
  auto topology = std::make_shared<const Topology>(test::cluster(2));
  TransferTableBuilder tb(topology);
  CollectiveRequest ring;
  ring.groups = {test::iota(0, 16)};
  ring.bytes = test::kGiB;
  ring.algorithm = CollectiveAlgorithm::ring;
  const std::uint32_t ar = tb.add(ring);
  const std::uint32_t a = tb.add(pair_send(0, 1, test::kGiB));
  const std::uint32_t b = tb.add(pair_send(0, 1, test::kGiB));  // the same route: GPU 0's and GPU 1's NVLink
  const std::uint32_t c = tb.add(pair_send(2, 3, test::kGiB));  // another pair of the node: no shared link
  const TransferTable table = std::move(tb).build();

  // Alone, a transfer takes its idle-network prediction.
  for (const std::uint32_t id : {ar, a, c})
    CHECK(concurrent_time_s(table, std::vector<std::uint32_t>{id})[0] ==
          Approx(table.info(id).time_alone_s).epsilon(1e-9));

  // a and b share every link of their route at the same weight: each gets half, so each moves its
  // bytes in twice the time alone, after the same latency L: t = L + 2 (t_alone - L). c shares
  // nothing with them and keeps its time.
  const double alone = table.info(a).time_alone_s;
  const double latency = to_seconds(table.phases(a)[0].latency);
  const std::vector<double> t = concurrent_time_s(table, std::vector<std::uint32_t>{a, b, c});
  CHECK(t[0] == Approx(latency + 2.0 * (alone - latency)).epsilon(1e-9));
  CHECK(t[1] == Approx(t[0]).epsilon(1e-12));
  CHECK(t[2] == Approx(table.info(c).time_alone_s).epsilon(1e-9));

  // The flow network, running the same three from time 0, agrees.
  FlowNetwork net(std::make_shared<const TransferTable>(table));
  const std::uint32_t ids[] = {a, b, c};
  const auto done = run_transfers(net, ids);
  for (std::size_t i = 0; i < 3; ++i) CHECK(to_seconds(done[i]) == Approx(t[i]).epsilon(1e-6));
}
