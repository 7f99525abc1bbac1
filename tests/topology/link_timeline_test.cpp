// LinkAccounting::timeline: how link loads change over a run, per watched link and per tier,
// and each link's peak and busy time.
#include <catch2/catch.hpp>

#include "tests/topology/test_cluster.hpp"
#include "topology/flow_network.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;
using Catch::Detail::Approx;

namespace {
// NCCL's ring Simple latency on NVLink: base 8.4 us + 14 steps x 3.4 us, half of each step exposed
// (topology/nccl_tuning.hpp): 8.4 + 23.8 = 32.2 us, above the 4 us launch + 14 x 1 us route latency.
constexpr double kL = 32.2e-6;
constexpr double kT = 1.75 * kGiB / kNv;  // the ring's bandwidth time alone

struct Run {
  std::shared_ptr<const TransferTable> table;
  std::vector<Time> finish = std::vector<Time>(2);
  LinkTimeline timeline;
};

/// Two 1 GiB ring all-reduces on node 0 of a 64-GPU cluster, the second started halfway through
/// the first (as in flow_network_test): NVLink is saturated from the first's flow start until
/// the second ends.
Run run_two_rings(LinkAccounting accounting, std::span<const LinkId> watched) {
  Run r;
  auto topo = std::make_shared<const Topology>(test::cluster(8));
  TransferTableBuilder tb(topo);
  CollectiveRequest req;
  req.groups = {test::iota(0, 8)};
  req.bytes = kGiB;
  req.algorithm = CollectiveAlgorithm::ring;
  const auto ring = tb.add(req);
  r.table = std::make_shared<const TransferTable>(std::move(tb).build());
  FlowNetwork net(r.table, {accounting});
  net.watch(watched);
  std::vector<sim::OpId> done;
  net.start(0, ring, Time::zero());
  const Time mid = from_seconds(kL + kT / 2);
  net.advance_to(net.next_event_time(), done);
  net.advance_to(mid, done);
  net.start(1, ring, mid);
  while (net.next_event_time() != kTimeNever) {
    const Time t = net.next_event_time();
    done.clear();
    net.advance_to(t, done);
    for (auto op : done) r.finish[op] = t;
  }
  r.timeline = net.take_timeline();
  return r;
}
}  // namespace

TEST_CASE("timeline: a watched link's history, peak and busy time", "[flow_network]") {
  const Topology topo(test::cluster(8));
  const LinkId up0 = topo.scaleup_up(0);
  const LinkId watched[] = {up0};
  const Run r = run_two_rings(LinkAccounting::timeline, watched);
  const auto& w = r.timeline.watched;
  REQUIRE(w.size() >= 2);
  for (const auto& c : w) CHECK(c.link == up0);  // only the watched link
  // GPU 0's NVLink uplink is saturated (load = line rate: the coefficient carries the protocol
  // overhead) from the first flow's start at L ...
  CHECK(to_seconds(w.front().time) == Approx(kL).epsilon(1e-7));  // within a picosecond
  CHECK(w.front().load_Bps == Approx(kNvLine).epsilon(1e-9));
  // ... through the shared middle (two flows of half the rate each: still the line rate) ...
  for (std::size_t i = 0; i + 1 < w.size(); ++i) CHECK(w[i].load_Bps == Approx(kNvLine).epsilon(1e-9));
  // ... until the second ring ends at 2T + L.
  CHECK(w.back().time == r.finish[1]);
  CHECK(w.back().load_Bps == 0.0);
  for (std::size_t i = 1; i < w.size(); ++i) CHECK(w[i - 1].time < w[i].time);
  // Stats: busy for 2T + L - L = 2T; peak at the line rate.
  const LinkStats& st = r.timeline.stats.at(up0);
  CHECK(to_seconds(st.busy) == Approx(2.0 * kT).epsilon(1e-6));
  CHECK(st.peak_load_Bps == Approx(kNvLine).epsilon(1e-9));
  // A link no ring touches (GPU 8's uplink, node 1) stayed idle.
  CHECK(r.timeline.stats.at(topo.scaleup_up(8)).busy == Time::zero());
}

TEST_CASE("timeline: tiers sum their links' loads", "[flow_network]") {
  const Run r = run_two_rings(LinkAccounting::timeline, {});
  CHECK(r.timeline.watched.empty());  // nothing watched
  std::vector<TierLoadChange> nv;
  for (const auto& c : r.timeline.tiers) {
    CHECK(c.tier == LinkKind::nvlink);  // the rings never leave node 0's NVSwitch
    nv.push_back(c);
  }
  REQUIRE(nv.size() >= 2);
  // 8 GPUs x (up + down) = 16 saturated NVLink directions: load 16 x 450 GB/s on 16 busy links.
  CHECK(nv.front().load_Bps == Approx(16 * kNvLine).epsilon(1e-9));
  CHECK(nv.front().busy_capacity_Bps == Approx(16 * kNvLine).epsilon(1e-12));
  // When the last flow ends the tier reads exactly zero, whatever rounding the sums collected.
  CHECK(nv.back().time == r.finish[1]);
  CHECK(nv.back().load_Bps == 0.0);
  CHECK(nv.back().busy_capacity_Bps == 0.0);
}

TEST_CASE("timeline: off and totals record no history", "[flow_network]") {
  for (const auto a : {LinkAccounting::off, LinkAccounting::totals}) {
    const Run r = run_two_rings(a, {});
    CHECK(r.timeline.tiers.empty());
    CHECK(r.timeline.watched.empty());
    CHECK(r.timeline.stats.empty());
  }
}
