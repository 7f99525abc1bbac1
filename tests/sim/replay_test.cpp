// sim::Replay: every copy of a graph's ops over one run of it. Without variation it reproduces the
// run; with a slow copy, groups that synchronise wait for their latest member and only those; the
// critical path follows the latest member across copies; the jitter table has the distribution asked
// for.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "sim/engine.hpp"
#include "sim/replay.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace replay_test_detail {

/// p0: A (compute 10 us) -> S (a 1 us delay on its comm stream that copies start together, in
/// groups {0, 1} and {2, 3}); p1: T (compute 3 us), then U (compute 4 us) after S.
struct TwoStage {
  StepGraph graph;
  OpId a, s, t, u;
  ReplayLayout layout;
};

TwoStage two_stage() {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(10)), g0.compute);
  const OpId s = b.add_op(delay(us(1)), g0.comm);
  b.add_dependency(a, s);
  const OpId t = b.add_op(compute(us(3)), g1.compute);
  const OpId u = b.add_op(compute(us(4)), g1.compute);
  b.add_dependency(s, u);
  TwoStage out{std::move(b).build(), a, s, t, u, {}};
  out.layout.width = 4;
  out.layout.op_partition.assign(out.graph.op_count(), ReplayLayout::kNoPartition);
  ReplayLayout::Partition pairs;
  pairs.members = {0, 1, 2, 3};
  pairs.offsets = {0, 2, 4};
  out.layout.partitions.push_back(pairs);
  out.layout.op_partition[s] = 0;
  return out;
}

}  // namespace replay_test_detail

TEST_CASE("a replay with nothing varying reproduces the run, copy by copy") {
  const auto g = replay_test_detail::two_stage();
  Engine e(g.graph);
  const RunResult run = e.run();
  Replay replay(g.graph, run, g.layout);
  const ReplayResult r = replay.run(nullptr, true);
  // Every copy runs as the one run: A 0-10, S 10-11, U 11-15 (T 0-3 before it on p1).
  CHECK(r.makespan == run.makespan);
  CHECK(r.makespan == us(15));
  CHECK(r.instances == 4u * 4u);
  REQUIRE(r.critical.size() == 3);
  for (const ReplayLink& l : r.critical) {
    CHECK(l.start == run.ops[l.op].start);
    CHECK(l.end == run.ops[l.op].end);
  }
}

TEST_CASE("a slow copy holds up its own group at the synchronising op, and the path follows it") {
  const auto g = replay_test_detail::two_stage();
  Engine e(g.graph);
  const RunResult run = e.run();
  Replay replay(g.graph, run, g.layout);
  // Rows are processor x width + copy: copy 1 of p0 runs its kernels 2x slower, copy 0 of p1 3x.
  Variation v;
  v.processor_factor.assign(8, 1.0);
  v.processor_factor[0 * 4 + 1] = 2.0;
  v.processor_factor[1 * 4 + 0] = 3.0;
  const ReplayResult r = replay.run(&v, true);
  // Copy 1: A 0-20. Group {0, 1} starts S at 20 (copy 1 is ready last), ends 21. U of copy 0:
  // 21 + 4 x 3 = 33; of copy 1: 21 + 4 = 25. Group {2, 3}: A 0-10, S 10-11, U 11-15.
  CHECK(r.makespan == us(33));
  // The path: U of copy 0 (21-33) <- S (20-21) <- A of copy 1 (0-20), the member S waited for.
  REQUIRE(r.critical.size() == 3);
  CHECK(r.critical[0].op == g.a);
  CHECK(r.critical[0].copy == 1);
  CHECK(r.critical[0].end == us(20));
  CHECK(r.critical[1].op == g.s);
  CHECK(r.critical[1].start == us(20));
  CHECK(r.critical[2].op == g.u);
  CHECK(r.critical[2].copy == 0);
  CHECK(r.critical[2].start == us(21));
  CHECK(r.critical[2].end == us(33));
  CHECK(r.critical[2].nominal == us(4));
  // Delays keep their durations; kernels scale.
  CHECK(replay.duration(g.s, 1, &v) == us(1));
  CHECK(replay.duration(g.a, 1, &v) == us(20));
  CHECK(replay.duration(g.t, 0, &v) == us(9));
}

TEST_CASE("scaled copies of an op take its run duration times their factor, the others keep it") {
  // A degraded link slows the group {2, 3} of S 5x: S takes 5 us for those copies and 1 us for
  // {0, 1}. Copies 2 and 3: A 0-10, S 10-15, U 15-19; copies 0 and 1 end at 15 as in the run.
  auto g = replay_test_detail::two_stage();
  Engine e(g.graph);
  const RunResult run = e.run();
  g.layout.scale_begin.assign(g.graph.op_count() + 1, 0);
  g.layout.scales = {{2, 5.0}, {3, 5.0}};
  for (OpId op = g.s + 1; op <= g.graph.op_count(); ++op) g.layout.scale_begin[op] = 2;
  Replay replay(g.graph, run, g.layout);
  const ReplayResult r = replay.run(nullptr, true);
  CHECK(r.makespan == us(19));
  REQUIRE(r.critical.size() == 3);
  CHECK(r.critical[1].op == g.s);
  CHECK(r.critical[1].start == us(10));
  CHECK(r.critical[1].end == us(15));
  CHECK(r.critical[2].op == g.u);
  CHECK(r.critical[2].copy >= 2);
  CHECK(replay.duration(g.s, 2, nullptr) == us(5));
  CHECK(replay.duration(g.s, 0, nullptr) == us(1));
  CHECK(replay.duration(g.a, 2, nullptr) == us(10));
  // With the slow copies of the test above: group {0, 1} ends U at 33, group {2, 3} at 19.
  Variation v;
  v.processor_factor.assign(8, 1.0);
  v.processor_factor[0 * 4 + 1] = 2.0;
  v.processor_factor[1 * 4 + 0] = 3.0;
  CHECK(replay.run(&v, true).makespan == us(33));
  // Copy 2's kernels 3x as well: U of copy 2 = 15 + 12 = 27 < 33.
  v.processor_factor[1 * 4 + 2] = 3.0;
  CHECK(replay.run(&v, false).makespan == us(33));
  v.processor_factor[0 * 4 + 2] = 3.0;  // A of copy 2: 0-30, S 30-35, U 35-47
  const ReplayResult slow = replay.run(&v, true);
  CHECK(slow.makespan == us(47));
  CHECK(slow.critical.front().copy == 2);
}

TEST_CASE("a replay refuses a layout that does not fit its graph") {
  const auto g = replay_test_detail::two_stage();
  Engine e(g.graph);
  const RunResult run = e.run();
  ReplayLayout bad = g.layout;
  bad.partitions[0].members[3] = 4;  // copy 4 of 4
  CHECK_THROWS_AS(Replay(g.graph, run, bad), std::invalid_argument);
  bad = g.layout;
  bad.op_partition.pop_back();
  CHECK_THROWS_AS(Replay(g.graph, run, bad), std::invalid_argument);
  bad = g.layout;
  bad.scale_begin.assign(g.graph.op_count() + 1, 0);
  bad.scales = {{4, 2.0}};  // copy 4 of 4
  bad.scale_begin.back() = 1;
  CHECK_THROWS_AS(Replay(g.graph, run, bad), std::invalid_argument);
  bad.scales = {{1, 0.0}};  // no duration at all
  CHECK_THROWS_AS(Replay(g.graph, run, bad), std::invalid_argument);
  bad.scales = {{1, 2.0}};
  bad.scale_begin.pop_back();  // offsets short of the ops
  CHECK_THROWS_AS(Replay(g.graph, run, bad), std::invalid_argument);
}

TEST_CASE("the normal quantile inverts the normal distribution") {
  // Phi(1.959963984540054) = 0.975; Phi(-3.090232306167813) = 0.001; Phi(0) = 0.5.
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(normal_quantile(0.001) == Approx(-3.090232306167813).epsilon(1e-12));
  CHECK(normal_quantile(0.5) == Approx(0.0).margin(1e-15));
  CHECK(normal_quantile(1e-9) == Approx(-5.997807015007686).epsilon(1e-10));
}

TEST_CASE("replay jitter: the table's factors have mean 1 and the cv asked for, and differ per copy") {
  // All 2^20 entries of one op's copies are the table itself: exact quantiles of the lognormal at
  // (i + 0.5) / 2^20, so the mean is 1 and the cv 0.2 to within the discretisation (< 1e-4).
  StepGraphBuilder b;
  b.add_op(compute(us(1)), add_gpu(b).compute);
  const StepGraph graph = std::move(b).build();
  Engine e(graph);
  const RunResult run = e.run();
  ReplayLayout layout;
  layout.op_partition.assign(1, ReplayLayout::kNoPartition);
  Replay replay(graph, run, layout);
  const double cv = 0.2, sigma = lognormal_sigma_for_cv(cv);
  double sum = 0.0, sq = 0.0;
  const std::uint32_t n = static_cast<std::uint32_t>(Replay::kJitterTable);
  for (std::uint32_t j = 0; j < n; ++j) {
    const double x = replay.jitter(0, j, 5, sigma);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  CHECK(mean == Approx(1.0).margin(1e-4));
  CHECK(sd / mean == Approx(cv).margin(1e-3));
  CHECK(replay.jitter(0, 0, 5, sigma) != replay.jitter(0, 1, 5, sigma));
  CHECK(replay.jitter(0, 0, 5, sigma) != replay.jitter(0, 0, 6, sigma));
  CHECK(replay.jitter(0, 3, 5, 0.0) == 1.0);
}
