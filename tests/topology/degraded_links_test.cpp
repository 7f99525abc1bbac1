// Degraded and failed links ([variability] degraded_links): a NIC or NVLink below its line rate,
// a NIC down and its GPU's traffic moved to a working NIC of the node, and a node with no NIC left.
#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "tests/topology/test_cluster.hpp"
#include "topology/collectives.hpp"
#include "topology/topology.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace degraded_test_detail {

ClusterSpec with_degraded(ClusterSpec c, std::vector<LinkDegradation> d) {
  c.degraded = std::move(d);
  return c;
}

}  // namespace degraded_test_detail

using namespace degraded_test_detail;
using Part = LinkDegradation::Part;

TEST_CASE("a degraded NIC or NVLink runs at its fraction of the line rate, both ways", "[topology]") {
  const ClusterSpec base = cluster(2);
  const Topology healthy(base);
  const Topology t(with_degraded(base, {{3, Part::nic, 0.5}, {5, Part::nvlink, 0.25}}));
  CHECK(t.link(t.nic_up(3)).bw.value() == Approx(0.5 * healthy.link(healthy.nic_up(3)).bw.value()));
  CHECK(t.link(t.nic_down(3)).bw.value() == Approx(0.5 * healthy.link(healthy.nic_down(3)).bw.value()));
  CHECK(t.link(t.scaleup_up(5)).bw.value() == Approx(0.25 * healthy.link(healthy.scaleup_up(5)).bw.value()));
  CHECK(t.link(t.scaleup_down(5)).bw.value() ==
        Approx(0.25 * healthy.link(healthy.scaleup_down(5)).bw.value()));
  CHECK(t.link(t.nic_up(4)).bw.value() == healthy.link(healthy.nic_up(4)).bw.value());
}

TEST_CASE("a send through a half-rate NIC takes twice as long", "[topology]") {
  // GPU 0 (node 0) to GPU 8 (node 1), same rail: NIC up, leaf, NIC down. 1 GiB at 42.5 GB/s (50 GB/s
  // at the NIC efficiency 0.85) is 25.3 ms; with GPU 0's NIC at half rate the transfer is bound by
  // 21.25 GB/s: twice the bandwidth term, the same latency, so the time grows by exactly the
  // bandwidth term of the healthy send.
  const ClusterSpec base = cluster(2);
  const double S = kGiB;
  const Outcome healthy = simulate_one(base, send(0, 8, S));
  const Outcome slow = simulate_one(with_degraded(base, {{0, Part::nic, 0.5}}), send(0, 8, S));
  CHECK(slow.time_s - healthy.time_s == Approx(S / (50e9 * 0.85)).epsilon(1e-3));
}

TEST_CASE("a NIC down: its GPU uses its PCIe partner's NIC, which both then share", "[topology]") {
  const ClusterSpec base = cluster(2);
  const Topology t(with_degraded(base, {{2, Part::nic, 0.0}}));
  // GPU 2's partner is GPU 3 (local index 2 xor 1).
  CHECK(t.nic_up(2) == t.nic_up(3));
  CHECK(t.nic_down(2) == t.nic_down(3));
  // Its partner down too: the next working NIC by local index (1, then 4...).
  const Topology t2(with_degraded(base, {{2, Part::nic, 0.0}, {3, Part::nic, 0.0}}));
  CHECK(t2.nic_up(2) == t2.nic_up(1));
  CHECK(t2.nic_up(3) == t2.nic_up(4));
  // Two sends leaving node 0 from GPUs 2 and 3 at once now share one NIC: each takes twice as long
  // as alone on its own NIC (the bandwidth term doubles; 1 GiB at 42.5 GB/s = 25.3 ms).
  const double S = kGiB;
  const auto healthy = simulate(base, {send(2, 10, S), send(3, 11, S)});
  const auto down = simulate(with_degraded(base, {{2, Part::nic, 0.0}}), {send(2, 10, S), send(3, 11, S)});
  CHECK(down[0].time_s - healthy[0].time_s == Approx(S / (50e9 * 0.85)).epsilon(0.02));
  CHECK(down[1].time_s - healthy[1].time_s == Approx(S / (50e9 * 0.85)).epsilon(0.02));
}

TEST_CASE("a node whose NICs are all down cannot reach the others", "[topology]") {
  std::vector<LinkDegradation> all;
  for (int g = 8; g < 16; ++g) all.push_back({g, Part::nic, 0.0});
  CHECK_THROWS_AS(Topology(with_degraded(cluster(2), all)), UserError);
  CHECK_THROWS_AS(Topology(with_degraded(cluster(2), {{0, Part::nvlink, 0.0}})), UserError);
  CHECK_THROWS_AS(Topology(with_degraded(cluster(2), {{16, Part::nic, 0.5}})), UserError);
}
