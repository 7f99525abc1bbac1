// Degraded and failed switches ([variability] degraded_switches): a switch's ports below their line
// rate, a spine or core down and the routes that avoid it, a leaf down and its NICs' GPUs moved to
// another NIC of their node, and the fabrics where no route is left.
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "tests/topology/test_cluster.hpp"
#include "topology/collectives.hpp"
#include "topology/topology.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;
using Tier = SwitchDegradation::Tier;

namespace degraded_switches_test_detail {

/// 4 nodes of 8 GPUs on a plain two-tier fat-tree, one node per leaf (8 NICs), 2:1 oversubscribed:
/// P = 8 / 2 = 4 spines, each leaf-spine link as fast as a NIC (8 x 50 GB/s / (2 x 4)).
ClusterSpec fat_tree_4() {
  ClusterSpec c = cluster(4, 8, FabricKind::fat_tree);
  c.fabric.hosts_per_leaf = 8;
  c.fabric.oversubscription = {2.0, 1.0, 1.0};
  return c;
}

ClusterSpec with_switches(ClusterSpec c, std::vector<SwitchDegradation> d) {
  c.degraded_switches = std::move(d);
  return c;
}

/// The links of every route between two leaves' GPUs, over 16 channels.
std::vector<LinkId> routes(const Topology& t, GpuId from, GpuId to) {
  std::vector<LinkId> out, path;
  for (std::uint32_t ch = 0; ch < 16; ++ch) {
    path.clear();
    t.route(from, to, ch, path);
    out.insert(out.end(), path.begin(), path.end());
  }
  return out;
}

CollectiveRequest all_to_all(int ranks, double bytes) {
  CollectiveRequest r;
  r.op = CollectiveOp::all_to_all;
  r.groups = {iota(0, ranks)};
  r.bytes = bytes;
  return r;
}

}  // namespace degraded_switches_test_detail

using namespace degraded_switches_test_detail;

TEST_CASE("a spine down: routes between leaves use the other spines, and uplink-bound traffic slows",
          "[topology]") {
  const ClusterSpec base = fat_tree_4();
  const Topology healthy(base);
  const Topology t(with_switches(base, {{Tier::spine, 1, 0.0}}));
  // Spine 1's links are the ones healthy routes through it use and the degraded fabric's never do.
  std::vector<LinkId> through_1;
  for (GpuId dst = 8; dst < 32; ++dst)
    for (const LinkId l : routes(healthy, 0, dst))
      if (healthy.link(l).kind == LinkKind::leaf_spine) through_1.push_back(l);
  const std::vector<LinkId> now = routes(t, 0, 17);
  std::vector<std::uint32_t> spine_vertices;
  for (const LinkId l : now)
    if (t.link(l).kind == LinkKind::leaf_spine)
      spine_vertices.push_back(t.vertex_kind(t.link(l).to) == VertexKind::spine ? t.link(l).to
                                                                                : t.link(l).from);
  std::sort(spine_vertices.begin(), spine_vertices.end());
  spine_vertices.erase(std::unique(spine_vertices.begin(), spine_vertices.end()), spine_vertices.end());
  CHECK(spine_vertices.size() == 3);  // 16 channels spread over the 3 spines up
  // An all-to-all over the 32 GPUs is bound by the fabric (2:1): 24 of every 32 bytes a GPU sends
  // leave its leaf, 8 NICs' worth over 4 links of a NIC's speed. Healthy, d-mod-k sends the flows
  // to a leaf's 8 NICs down its 4 spine links 2 apiece. With spine 1 down the 8 NICs map onto the 3
  // spines up by d mod 3: 3, 3 and 2 of them, so the busiest link into each leaf carries 3/8 of its
  // off-leaf traffic instead of 2/8, and the bandwidth term grows by 1.5 (the uplinks, spread over
  // 24 destinations, 8 per spine: only 4/3).
  const double S = 8.0 * kGiB;
  const Outcome h = simulate_one(base, all_to_all(32, S));
  const Outcome d = simulate_one(with_switches(base, {{Tier::spine, 1, 0.0}}), all_to_all(32, S));
  INFO("healthy " << h.time_s << " s, spine 1 down " << d.time_s << " s");
  // Latencies (tens of microseconds) are under 0.1% of either time.
  CHECK(d.time_s / h.time_s == Approx(1.5).epsilon(2e-3));
}

TEST_CASE("a spine at half rate: its links run at half the line rate, both ways", "[topology]") {
  const ClusterSpec base = fat_tree_4();
  const Topology healthy(base);
  const Topology t(with_switches(base, {{Tier::spine, 2, 0.5}}));
  int halved = 0;
  for (LinkId l = 0; l < t.links().size(); ++l) {
    const double ratio = t.link(l).bw.value() / healthy.link(l).bw.value();
    if (ratio != 1.0) {
      CHECK(ratio == Approx(0.5));
      CHECK(t.link(l).kind == LinkKind::leaf_spine);
      ++halved;
    }
  }
  CHECK(halved == 4 * 2);  // its link to each of the 4 leaves, up and down
}

TEST_CASE("a leaf down: on a rail-optimised fabric its rail's GPUs use their partners' NICs", "[topology]") {
  // Two nodes, rail-optimised: leaf 2 is rail 2 of the one group of nodes, holding GPU 2's and
  // GPU 10's NICs. Down, GPU 2 sends through GPU 3's NIC (its PCIe partner), as for a NIC down.
  const ClusterSpec base = cluster(2);
  const Topology t(with_switches(base, {{Tier::leaf, 2, 0.0}}));
  CHECK(t.nic_up(2) == t.nic_up(3));
  CHECK(t.nic_up(10) == t.nic_up(11));
  CHECK(t.nic_up(4) != t.nic_up(5));
}

TEST_CASE("switches down where no route is left stop the job with the reason", "[topology]") {
  // A plain fat-tree holds all of a node's NICs on one leaf: that leaf down cuts the node off.
  const ClusterSpec base = fat_tree_4();
  CHECK_THROWS_WITH(Topology(with_switches(base, {{Tier::leaf, 1, 0.0}})),
                    Catch::Contains("every NIC of node 1 is down"));
  // Every spine down: leaves cannot reach each other.
  CHECK_THROWS_WITH(
      Topology(with_switches(
          base,
          {{Tier::spine, 0, 0.0}, {Tier::spine, 1, 0.0}, {Tier::spine, 2, 0.0}, {Tier::spine, 3, 0.0}})),
      Catch::Contains("every spine of pod 0 is down"));
  // No core tier on two tiers, and indices past the fabric's switches.
  CHECK_THROWS_WITH(Topology(with_switches(base, {{Tier::core, 0, 0.0}})),
                    Catch::Contains("no core switches"));
  CHECK_THROWS_WITH(Topology(with_switches(base, {{Tier::spine, 4, 0.0}})),
                    Catch::Contains("switch 4 is not in the fabric (4 at that tier"));
  // One NVLink domain, no fabric: nothing to degrade.
  CHECK_THROWS_AS(Topology(with_switches(cluster(1), {{Tier::leaf, 0, 0.0}})), UserError);
}

TEST_CASE("a core down on three tiers: routes between pods use the other cores of the group", "[topology]") {
  // 4 leaves (one node each) in pods of 2, 1:1: P = 8 spines per pod, C = 2 cores per group.
  ClusterSpec c = fat_tree_4();
  c.fabric.oversubscription = {1.0, 1.0, 1.0};
  c.fabric.tiers = 3;
  c.fabric.leaves_per_pod = 2;
  const Topology healthy(c);
  const Topology t(with_switches(c, {{Tier::core, 0, 0.0}}));  // core 0 of group 0
  // Between pods (GPU 0 on leaf 0, GPU 16 on leaf 2) no route crosses a link of core 0.
  const VertexId core0 = [&] {
    for (VertexId v = 0; v < t.vertex_count(); ++v)
      if (t.vertex_kind(v) == VertexKind::core) return v;
    return VertexId{0};
  }();
  for (const LinkId l : routes(t, 0, 16)) {
    CHECK(t.link(l).from != core0);
    CHECK(t.link(l).to != core0);
  }
  bool healthy_used_it = false;
  for (const LinkId l : routes(healthy, 0, 16))
    healthy_used_it = healthy_used_it || healthy.link(l).to == core0;
  CHECK(healthy_used_it);
}
