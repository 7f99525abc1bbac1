// The simulated clock never wraps: conversions and sums saturate at kTimeRangeEnd, and an engine
// that reaches it stops with a UserError naming the op instead of reporting a negative time.
#include <catch2/catch.hpp>
#include <limits>

#include "sim/engine.hpp"
#include "sim/error.hpp"
#include "tests/sim/fake_network.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace time_range_tests {
constexpr Time::rep kMax = std::numeric_limits<Time::rep>::max();
Op named(StepGraphBuilder& b, Op op, std::string_view label) {
  op.label = b.intern(label);
  return op;
}
}  // namespace time_range_tests
using time_range_tests::kMax;
using time_range_tests::named;

TEST_CASE("time conversions and sums saturate at the end of the range instead of wrapping") {
  CHECK(kTimeRangeEnd.count() == kMax - 1);
  CHECK(kTimeRangeEnd < kTimeNever);
  // 1e12 us = 1e6 s = 1e18 ps: in range, exact.
  CHECK(from_us(1e12) == Time{1'000'000'000'000'000'000});
  // 1e13 s = 1e25 ps is past 2^63 ps (9.2e18): saturates, it used to come back as kTimeNever.
  CHECK(from_seconds(1e13) == kTimeRangeEnd);
  CHECK(from_seconds(std::numeric_limits<double>::infinity()) == kTimeRangeEnd);
  CHECK(ps_to_time_saturating(9.3e18) == kTimeRangeEnd);
  CHECK(ceil_to_time(1e30) == kTimeRangeEnd);
  CHECK(ceil_to_time(std::numeric_limits<double>::infinity()) == kTimeRangeEnd);
  CHECK(ceil_to_time(2.5) == Time{3});
  // Sums: in range exact; past it (the plain sum would wrap to a negative count) saturated.
  CHECK(saturating_add(Time{5}, Time{7}) == Time{12});
  CHECK(saturating_add(Time{kMax / 2 + 1}, Time{kMax / 2 + 1}) == kTimeRangeEnd);
  CHECK(saturating_add(kTimeRangeEnd, kTimeRangeEnd) == kTimeRangeEnd);
  CHECK(saturating_add(Time{kMax - 2}, Time{1}) == Time{kMax - 1});
}

TEST_CASE("an op that would end past the time range stops the run with a UserError naming it") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  b.add_op(compute(us(1)), g.compute);
  b.add_op(named(b, compute(Time{kMax / 2 + 1}), "slow"), g.compute);
  // Starts at 1 us + (2^62 ps) and lasts 2^62 ps more: 1e6 + 2^63 ps, past the range (it used to
  // end at a negative time).
  b.add_op(named(b, compute(Time{kMax / 2 + 1}), "slower"), g.compute);
  const StepGraph graph = std::move(b).build();
  try {
    (void)Engine(graph).run();
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("the step exceeds the simulator's time range (about 106 days"));
    CHECK_THAT(what, Catch::Contains("\"slower\""));
    CHECK_THAT(what, Catch::Contains("would end past it"));
  }
}

TEST_CASE("a compute op slowed by communication past the range is an error too") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b, 0.5);
  // 2^62 ps of work at half speed (a transfer runs on the comm stream all along) needs 2^63 ps.
  b.add_op(named(b, compute(Time{kMax / 2 + 1}), "halved"), g.compute);
  b.add_op(transfer(0), g.comm);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time{0}, kTimeNever}});  // the transfer never ends: the slowdown lasts
  CHECK_THROWS_WITH(Engine(graph, &net).run(), Catch::Contains("\"halved\""));
}

TEST_CASE("a transfer that would end past the range names the transfer") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  b.add_op(named(b, transfer(0), "endless"), g.comm);
  const StepGraph graph = std::move(b).build();
  // A network reporting its next event at kTimeRangeEnd: a transfer ending there is out of range.
  FakeNetwork net({{Time{0}, kTimeRangeEnd}});
  try {
    (void)Engine(graph, &net).run();
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("\"endless\""));
  }
}

TEST_CASE("a cancelled end at the range end does not stop a run that finishes in range") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b, 0.999999);
  // While the transfer runs (1 us), the compute op progresses at 1e-6 of its speed, so its end is
  // first scheduled at about 1e6 x 1e18 ps: past the range, queued at kTimeRangeEnd. When the
  // transfer ends it is re-timed to about 1 us + 1e18 ps, in range; the stale event is dropped.
  // (1e18 ps has a 128 ps ulp, so the 1 ps of work done while slowed may round away.)
  const OpId c = b.add_op(compute(Time{1'000'000'000'000'000'000}), g.compute);
  b.add_op(transfer(0), g.comm);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time{0}, us(1)}});
  const RunResult r = Engine(graph, &net).run();
  CHECK(r.ops[c].end > Time{1'000'000'000'000'000'000});
  CHECK(r.ops[c].end <= Time{1'000'000'000'001'000'000});
  CHECK(r.makespan == r.ops[c].end);
}
