// The flow network's contract with the engine: event times, late starts, attribution, accounting.
#include "topology/flow_network.hpp"

#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace {

struct Fixture {
  std::shared_ptr<const TransferTable> table;
  std::uint32_t ring_ar = 0;  // ring all-reduce of 1 GiB on GPUs 0-7
  std::uint32_t a2a = 0;      // all-to-all of 1 GiB over 64 GPUs of a 2:1 fat-tree

  Fixture() {
    auto spec = test::cluster(8, 8, FabricKind::fat_tree);
    spec.fabric.hosts_per_leaf = 16;
    spec.fabric.oversubscription = {2.0, 1.0, 1.0};
    TransferTableBuilder tb(std::make_shared<const Topology>(spec));
    CollectiveRequest r;
    r.groups = {test::iota(0, 8)};
    r.bytes = kGiB;
    r.algorithm = CollectiveAlgorithm::ring;
    ring_ar = tb.add(r);
    r.op = CollectiveOp::all_to_all;
    r.groups = {test::iota(0, 64)};
    r.algorithm = CollectiveAlgorithm::automatic;
    a2a = tb.add(r);
    table = std::make_shared<const TransferTable>(std::move(tb).build());
  }
};

Time shares_sum(const std::vector<sim::BoundShare>& shares) {
  Time sum{};
  for (const auto& s : shares) sum += s.duration;
  return sum;
}
}  // namespace

TEST_CASE("attribution splits a transfer into latency and its bottleneck link kind", "[flow_network]") {
  const Fixture fx;
  FlowNetwork net(fx.table);
  const std::uint32_t ids[] = {fx.ring_ar, fx.a2a};
  const auto done = run_transfers(net, ids);
  std::vector<sim::BoundShare> ring, a2a;
  net.attribution(0, ring);
  net.attribution(1, a2a);
  // Shares sum to each duration exactly (integer picoseconds).
  CHECK(shares_sum(ring) == done[0]);
  CHECK(shares_sum(a2a) == done[1]);
  // Ring on one node (1 GiB: Simple): NCCL's latency, base 8.4 us + 14 steps x 3.4 us with half of
  // each step exposed = 32.2 us (above the route's 4 us launch + 14 x 1 us), then NVLink-bound.
  REQUIRE(ring.size() == 2);
  CHECK(ring[0].bound == tag(Resource::nvlink));
  CHECK(ring[1].bound == tag(Resource::latency));
  CHECK(to_seconds(ring[1].duration) == Approx(32.2e-6));
  // The oversubscribed all-to-all is bound by leaf-spine links: the fabric. (Ring and all-to-all
  // run together here but share no link: the ring stays on node 0's NVLink, the all-to-all's
  // intra-node share is too small to bind there.)
  bool fabric_bound = false;
  for (const auto& s : a2a) fabric_bound |= s.bound == tag(Resource::fabric) && s.duration > done[1] / 2;
  CHECK(fabric_bound);
}

TEST_CASE("attribution is kept per op id, with or without reserve()", "[flow_network]") {
  TransferTableBuilder tb(std::make_shared<const Topology>(test::cluster(8, 8, FabricKind::fat_tree)));
  CollectiveRequest r;
  r.groups = {test::iota(0, 8)};
  r.bytes = kGiB;
  r.algorithm = CollectiveAlgorithm::ring;
  const std::uint32_t ring = tb.add(r);
  r.bytes = 0.0;
  const std::uint32_t empty = tb.add(r);  // moves nothing: done as it starts, nothing to attribute
  const auto table = std::make_shared<const TransferTable>(std::move(tb).build());
  for (const bool reserved : {true, false}) {
    INFO("reserved " << reserved);
    FlowNetwork net(table);
    if (reserved) net.reserve(100, 2);
    // Sparse op ids; the empty transfer completes first, the ring after it.
    net.start(70, ring, Time::zero());
    net.start(3, empty, Time::zero());
    std::vector<Time> end(71, kTimeNever);
    std::vector<sim::OpId> completed;
    while (net.next_event_time() != kTimeNever) {
      const Time t = net.next_event_time();
      completed.clear();
      net.advance_to(t, completed);
      for (const sim::OpId op : completed) end[op] = t;
    }
    CHECK(end[3] == Time::zero());
    std::vector<sim::BoundShare> of_empty, of_ring, of_unknown;
    net.attribution(3, of_empty);
    net.attribution(70, of_ring);
    net.attribution(4, of_unknown);  // never started
    CHECK(of_empty.empty());
    CHECK(of_unknown.empty());
    // As the ring alone in the test above: NVLink-bound after 32.2 us of latency, summing to its time.
    REQUIRE(of_ring.size() == 2);
    CHECK(of_ring[0].bound == tag(Resource::nvlink));
    CHECK(of_ring[1].bound == tag(Resource::latency));
    CHECK(to_seconds(of_ring[1].duration) == Approx(32.2e-6));
    CHECK(shares_sum(of_ring) == end[70]);
  }
}

TEST_CASE("a transfer started mid-flight re-shares the links", "[flow_network]") {
  const Fixture fx;
  FlowNetwork net(fx.table);
  const double L = 32.2e-6;            // NCCL's ring Simple latency: 8.4 + 14 x 3.4 / 2 us
  const double T = 1.75 * kGiB / kNv;  // bandwidth time alone
  std::vector<sim::OpId> done;
  net.start(0, fx.ring_ar, Time::zero());
  const Time mid = from_seconds(L + T / 2);
  net.advance_to(net.next_event_time(), done);  // A's latency timer: its flow starts at L
  REQUIRE(net.next_event_time() > mid);
  net.advance_to(mid, done);  // the engine may advance to any time before the next event
  CHECK(done.empty());
  net.start(1, fx.ring_ar, mid);
  std::vector<Time> finish(2);
  while (net.next_event_time() != kTimeNever) {
    const Time t = net.next_event_time();
    done.clear();
    net.advance_to(t, done);
    for (auto op : done) finish[op] = t;
  }
  // B's latency ends at 2L + T/2, when A has T/2 - L of alone-time left; sharing halves A's rate,
  // so A needs T - 2L more and ends at 1.5 T. B has then done (T - 2L)/2 and finishes its
  // remaining T/2 + L alone: 2 T + L.
  CHECK(to_seconds(finish[0]) == Approx(1.5 * T).epsilon(1e-6));
  CHECK(to_seconds(finish[1]) == Approx(2.0 * T + L).epsilon(1e-6));
  CHECK(net.active_transfers() == 0);
}

TEST_CASE("link accounting: bytes sent equal bytes received", "[flow_network]") {
  const Fixture fx;
  FlowNetwork net(fx.table, {LinkAccounting::totals});
  const std::uint32_t ids[] = {fx.ring_ar};
  run_transfers(net, ids);
  const Topology& topo = fx.table->topology();
  double up = 0.0, down = 0.0;
  for (GpuId g = 0; g < 8; ++g) {
    up += net.link_bytes()[topo.scaleup_up(g)];
    down += net.link_bytes()[topo.scaleup_down(g)];
  }
  // Each of 8 GPUs sends 2 (p-1)/p S = 1.75 GiB, on the wire / 0.82 protocol efficiency.
  CHECK(up == Approx(8 * 1.75 * kGiB / 0.82).epsilon(1e-9));
  CHECK(down == Approx(up).epsilon(1e-12));
}

TEST_CASE("runs are bit-for-bit repeatable", "[flow_network]") {
  const Fixture fx;
  const std::uint32_t ids[] = {fx.a2a, fx.ring_ar, fx.a2a};
  FlowNetwork a(fx.table, {LinkAccounting::totals}), b(fx.table, {LinkAccounting::totals});
  CHECK(run_transfers(a, ids) == run_transfers(b, ids));
  const auto la = a.link_bytes(), lb = b.link_bytes();
  CHECK(std::equal(la.begin(), la.end(), lb.begin(), lb.end()));
}

TEST_CASE("transfers started together: alone as predicted, sharing a link twice as long on it",
          "[flow_network]") {
  // What a replay of every GPU times the groups a degraded part reaches with (run_transfers over a
  // table of those groups alone).
  auto topology = std::make_shared<const Topology>(test::cluster(2));
  TransferTableBuilder tb(topology);
  CollectiveRequest ring;
  ring.groups = {test::iota(0, 16)};
  ring.bytes = kGiB;
  ring.algorithm = CollectiveAlgorithm::ring;
  const std::uint32_t ar = tb.add(ring);
  const std::uint32_t a = tb.add(test::send(0, 1, kGiB));
  const std::uint32_t b = tb.add(test::send(0, 1, kGiB));  // the same route: GPU 0's and GPU 1's NVLink
  const std::uint32_t c = tb.add(test::send(2, 3, kGiB));  // another pair of the node: no shared link
  const auto table = std::make_shared<const TransferTable>(std::move(tb).build());

  // Alone, a transfer takes its idle-network prediction (to the picosecond's rounding).
  for (const std::uint32_t id : {ar, a, c}) {
    FlowNetwork net(table);
    const std::uint32_t one[] = {id};
    CHECK(to_seconds(run_transfers(net, one)[0]) == Approx(table->info(id).time_alone_s).epsilon(1e-6));
  }

  // a and b share every link of their route at the same weight: each gets half, so each moves its
  // bytes in twice the time alone, after the same latency L: t = L + 2 (t_alone - L). c shares
  // nothing with them and keeps its time.
  const double alone = table->info(a).time_alone_s;
  const double latency = to_seconds(table->phases(a)[0].latency);
  FlowNetwork net(table);
  const std::uint32_t ids[] = {a, b, c};
  const auto t = run_transfers(net, ids);
  CHECK(to_seconds(t[0]) == Approx(latency + 2.0 * (alone - latency)).epsilon(1e-6));
  CHECK(t[1] == t[0]);
  CHECK(to_seconds(t[2]) == Approx(table->info(c).time_alone_s).epsilon(1e-6));
}
