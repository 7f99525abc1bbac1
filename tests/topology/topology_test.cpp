#include "topology/topology.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "sim/error.hpp"
#include "tests/topology/test_cluster.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using Catch::Detail::Approx;
using stepsim::test::cluster;

namespace {
std::vector<LinkId> route(const Topology& t, GpuId a, GpuId b, std::uint32_t ch = 0) {
  std::vector<LinkId> out;
  t.route(a, b, ch, out);
  return out;
}
}  // namespace

TEST_CASE("one node: GPUs meet at the NVSwitch", "[topology]") {
  const Topology t(cluster(1));
  REQUIRE(t.gpu_count() == 8);
  const auto r = route(t, 0, 5);
  // GPU0 -> NVSwitch -> GPU5: two NVLink directions, one step latency in total.
  REQUIRE(r.size() == 2);
  CHECK(t.link(r[0]).kind == LinkKind::nvlink);
  CHECK(t.link(r[0]).from == 0);
  CHECK(t.link(r[1]).to == 5);
  CHECK(t.link(r[0]).bw.value() == 450e9);
  CHECK(t.latency_s(r) == Approx(1e-6));
  CHECK(t.shortest_hops(0, 5) == 2);
  // 8 GPUs x 2 directions, no fabric for a single domain.
  CHECK(t.links().size() == 16);
}

TEST_CASE("two-tier fat-tree routes and hop counts", "[topology]") {
  // 4 nodes x 8 GPUs, 16 NICs per leaf: nodes 0-1 on leaf 0, nodes 2-3 on leaf 1.
  auto spec = cluster(4, 8, FabricKind::fat_tree);
  spec.fabric.hosts_per_leaf = 16;
  const Topology t(spec);
  SECTION("same leaf, different node: NIC up, NIC down") {
    const auto r = route(t, 0, 8);
    REQUIRE(r.size() == 2);
    CHECK(t.link(r[0]).kind == LinkKind::nic);
    CHECK(t.shortest_hops(0, 8) == 2);
    // nic_latency/2 up, nic_latency/2 + one leaf hop down: 2 us + 0.5 us.
    CHECK(t.latency_s(r) == Approx(2.5e-6));
  }
  SECTION("across leaves: NIC, leaf-spine up, down, NIC") {
    const auto r = route(t, 0, 16);
    REQUIRE(r.size() == 4);
    CHECK(t.link(r[1]).kind == LinkKind::leaf_spine);
    CHECK(t.shortest_hops(0, 16) == 4);
    // 2 us of NICs + three switch hops (leaf, spine, leaf) x 0.5 us.
    CHECK(t.latency_s(r) == Approx(3.5e-6));
  }
  SECTION("non-blocking leaf: uplinks sum to the NICs below") {
    // 16 NICs x 50 GB/s = 800 GB/s over P = 16 spines -> 50 GB/s per leaf-spine link.
    const auto r = route(t, 0, 16);
    CHECK(t.link(r[1]).bw.value() == Approx(50e9));
  }
}

TEST_CASE("oversubscription divides leaf uplinks", "[topology]") {
  auto spec = cluster(4, 8, FabricKind::fat_tree);
  spec.fabric.hosts_per_leaf = 16;
  spec.fabric.oversubscription = {2.0, 1.0, 1.0};
  const Topology t(spec);
  double up = 0.0;
  int spines = 0;
  for (const Link& l : t.links())
    if (l.kind == LinkKind::leaf_spine && l.from == t.link(route(t, 0, 16)[1]).from)
      up += l.bw.value(), ++spines;
  // 16 x 50 GB/s / 2 = 400 GB/s of uplink per leaf, over round(16 / 2) = 8 spines.
  CHECK(up == Approx(400e9));
  CHECK(spines == 8);
}

TEST_CASE("three tiers: cross-pod routes climb to a core", "[topology]") {
  // 8 nodes x 8 GPUs, 8 NICs per leaf -> 8 leaves; 2 leaves per pod -> 4 pods.
  auto spec = cluster(8, 8, FabricKind::fat_tree);
  spec.fabric.tiers = 3;
  spec.fabric.hosts_per_leaf = 8;
  spec.fabric.leaves_per_pod = 2;
  const Topology t(spec);
  const auto same_pod = route(t, 0, 8);    // leaf 0 -> leaf 1, pod 0
  const auto cross_pod = route(t, 0, 63);  // leaf 0 -> leaf 7, pod 3
  CHECK(same_pod.size() == 4);
  REQUIRE(cross_pod.size() == 6);
  CHECK(t.link(cross_pod[2]).kind == LinkKind::spine_core);
  CHECK(t.shortest_hops(0, 63) == 6);
  CHECK(t.shortest_hops(0, 8) == 4);
}

TEST_CASE("rail-optimised: same rail stays on its leaf, other rails relay over NVLink", "[topology]") {
  const Topology t(cluster(4));  // 4 nodes on one rail group (32 hosts per leaf)
  REQUIRE(t.relays_across_rails());
  const auto same_rail = route(t, 3, 8 + 3);
  REQUIRE(same_rail.size() == 2);  // NIC up to rail-3 leaf, down to node 1's GPU 3
  CHECK(t.shortest_hops(3, 11) == 2);
  const auto cross = route(t, 3, 8 + 5);
  // PXN: GPU3 -> NVSwitch -> GPU5 (same node), then GPU5's NIC -> rail-5 leaf -> node 1 GPU 5.
  REQUIRE(cross.size() == 4);
  CHECK(t.link(cross[0]).kind == LinkKind::nvlink);
  CHECK(t.link(cross[1]).to == 5);
  CHECK(t.link(cross[2]).kind == LinkKind::nic);
  CHECK(t.link(cross[3]).to == 13);
}

TEST_CASE("ECMP spreads an all-to-all evenly over equal-cost uplinks", "[topology]") {
  auto spec = cluster(8, 8, FabricKind::fat_tree);  // 64 GPUs, 16 per leaf -> 4 leaves, 16 spines
  spec.fabric.hosts_per_leaf = 16;
  const Topology t(spec);
  std::map<LinkId, int> uses;
  std::vector<LinkId> r;
  for (GpuId a = 0; a < 16; ++a)  // every source on leaf 0
    for (GpuId b = 16; b < 64; ++b) {
      r.clear();
      t.route(a, b, 0, r);
      ++uses[r[1]];
    }
  // 16 sources x 48 remote destinations = 768 flows over 16 uplinks: 48 each.
  REQUIRE(uses.size() == 16);
  for (const auto& [link, n] : uses) CHECK(n == 48);
}

TEST_CASE("routes are deterministic and channels pick different spines", "[topology]") {
  auto spec = cluster(4, 8, FabricKind::fat_tree);
  spec.fabric.hosts_per_leaf = 16;
  const Topology a(spec), b(spec);
  CHECK(route(a, 1, 20, 3) == route(b, 1, 20, 3));
  CHECK(route(a, 1, 20, 0)[1] != route(a, 1, 20, 1)[1]);
}

TEST_CASE("GB200 NVL72: one scale-up domain of 72 GPUs across 18 nodes", "[topology]") {
  auto spec = cluster(36, 4);
  spec.nvlink_domain = 72;
  const Topology t(spec);
  CHECK(t.domain_size() == 72);
  CHECK(route(t, 0, 71).size() == 2);  // NVLink through the rack's switch
  CHECK(t.link(route(t, 0, 71)[0]).kind == LinkKind::nvlink);
  CHECK(t.domain_of(72) == 1);
  const auto out = route(t, 0, 72);  // other rack: scale-out on rail 0
  CHECK(t.link(out[0]).kind == LinkKind::nic);
}

TEST_CASE("custom fabric from an edge list", "[topology]") {
  auto spec = cluster(2, 4);
  spec.fabric.kind = FabricKind::custom;
  spec.fabric.custom_switches = {"sw0", "sw1"};
  for (int g = 0; g < 8; ++g)
    spec.fabric.custom_links.push_back(
        {"gpu" + std::to_string(g), g < 4 ? "sw0" : "sw1", units::gb_per_s(25), 1e-6});
  spec.fabric.custom_links.push_back({"sw0", "sw1", units::gb_per_s(100), 1e-6});
  SECTION("routes follow shortest paths") {
    const Topology t(spec);
    const auto r = route(t, 1, 6);
    // gpu1 -> sw0 -> sw1 -> gpu6: three links of 1 us.
    REQUIRE(r.size() == 3);
    CHECK(t.link(r[1]).kind == LinkKind::leaf_spine);
    CHECK(t.link(r[1]).bw.value() == 100e9);
    CHECK(t.latency_s(r) == Approx(3e-6));
    CHECK(route(t, 1, 2).size() == 2);  // same NVLink domain: NVSwitch
  }
  SECTION("unknown endpoints are user errors with a hint") {
    spec.fabric.custom_links.push_back({"sw0", "sw2", units::gb_per_s(1), 0});
    CHECK_THROWS_WITH(Topology(spec), Catch::Contains("fabric.link[9].b") && Catch::Contains("`sw0`"));
  }
  SECTION("disconnected GPUs are user errors") {
    spec.fabric.custom_links.pop_back();
    CHECK_THROWS_WITH(Topology(spec), Catch::Contains("cannot reach"));
  }
}

TEST_CASE("inconsistent specs are user errors", "[topology]") {
  auto spec = cluster(2, 8);
  SECTION("NVLink domain not a multiple of the node") {
    spec.nvlink_domain = 12;
    CHECK_THROWS_AS(Topology(spec), stepsim::UserError);
  }
  SECTION("NVLS without switch reduction") {
    spec.nvls = true;
    spec.gpu.eff.nvls = 0.0;
    CHECK_THROWS_WITH(Topology(spec), Catch::Contains("hardware.nvls"));
  }
  SECTION("bad tier count") {
    spec.fabric.tiers = 4;
    CHECK_THROWS_WITH(Topology(spec), Catch::Contains("fabric.tiers"));
  }
}

TEST_CASE("16,384 GPUs on a three-tier rail-optimised fabric", "[topology]") {
  auto spec = cluster(2048, 8);
  spec.fabric.tiers = 3;
  const Topology t(spec);
  CHECK(t.gpu_count() == 16384);
  // 2048 nodes / 32 per leaf = 64 groups x 8 rails = 512 leaves; 16 per pod -> 32 pods.
  // GPU 0 (group 0, pod 0) to GPU 16383 (node 2047 = group 63, rail 7 -> leaf 511, pod 31): PXN
  // hop to rail 7 over NVLink, then NIC, leaf-spine, spine-core, core-spine, spine-leaf, NIC.
  const auto r = route(t, 0, 16383);
  CHECK(r.size() == 8);
  CHECK(t.link(r[4]).kind == LinkKind::spine_core);
}

TEST_CASE("spine oversubscription divides spine-core uplinks", "[topology]") {
  // 8 nodes x 8 GPUs, 8 NICs per leaf -> 8 leaves, 4 per pod; leaf 1:1 -> P = 8 spines per pod with
  // 8 x 50 / 8 = 50 GB/s links; spine 2:1 -> C = round(4 / 2) = 2 cores per group, each link
  // 4 x 50 / (2 x 2) = 50 GB/s: a spine has 200 GB/s down and 100 GB/s up.
  auto spec = cluster(8, 8, FabricKind::fat_tree);
  spec.fabric.tiers = 3;
  spec.fabric.hosts_per_leaf = 8;
  spec.fabric.leaves_per_pod = 4;
  spec.fabric.oversubscription = {1.0, 2.0, 1.0};
  const Topology t(spec);
  const auto r = route(t, 0, 63);  // pod 0 -> pod 1
  REQUIRE(r.size() == 6);
  const VertexId spine = t.link(r[2]).from;
  double up = 0.0, down = 0.0;
  for (const Link& l : t.links()) {
    if (l.from == spine && l.kind == LinkKind::spine_core) up += l.bw.value();
    if (l.from == spine && l.kind == LinkKind::leaf_spine) down += l.bw.value();
  }
  CHECK(down == Approx(200e9));
  CHECK(up == Approx(100e9));
}

TEST_CASE("GPUs without NVLink meet at a PCIe switch", "[topology]") {
  auto spec = cluster(2, 4);
  spec.gpu.nvlink_bw = units::bytes_per_s(0.0);
  spec.nvlink_domain = 1;
  const Topology t(spec);
  CHECK(t.domain_size() == 4);  // the host
  const auto local = route(t, 0, 3);
  REQUIRE(local.size() == 2);
  CHECK(t.link(local[0]).kind == LinkKind::pcie);
  CHECK(t.link(local[0]).bw.value() == 64e9);
  CHECK_FALSE(t.relays_across_rails());  // no NVLink to relay over
  CHECK(t.link(route(t, 0, 5)[0]).kind == LinkKind::nic);
}
