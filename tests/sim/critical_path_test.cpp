#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/critical_path.hpp"
#include "sim/engine.hpp"
#include "tests/sim/fake_network.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace {
constexpr BoundTag kCompute = 2;
constexpr BoundTag kHbm = 3;
constexpr BoundTag kHost = 4;
}  // namespace

TEST_CASE("critical path of a hand-drawn DAG and its attribution") {
  //   gpu0.compute:  A (4 us, compute) -> C (2 us, compute) -> E (2 us delay, host; after C)
  //   gpu1.compute:  B (6 us, hbm)     -> D (1 us memory, hbm; needs T)
  //   comm pair:     T (transfer, needs A and B; 1 us latency + 2 us link)
  // Times: A [0,4), B [0,6), C [4,6), E [6,8), T [6,9) (gated by B), D [9,10).
  // D ends last. D's gate is T (9 us) rather than B, its stream predecessor (6 us); T's gate is B
  // (6 us) rather than A (4 us). Path: B, T, D.
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(4), kCompute), g0.compute);
  const OpId bb = b.add_op(memory(us(6), kHbm), g1.compute);
  const StreamId pair[] = {g0.comm, g1.comm};
  const OpId t = b.add_op(transfer(0), pair);
  b.add_dependency(a, t);
  b.add_dependency(bb, t);
  const OpId c = b.add_op(compute(us(2), kCompute), g0.compute);
  const OpId d = b.add_op(memory(us(1), kHbm), g1.compute);
  b.add_dependency(t, d);
  const OpId e = b.add_op(delay(us(2), kHost), g0.compute);
  b.add_dependency(c, e);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{us(1), us(2)}});
  const RunResult run = Engine(graph, &net).run();
  REQUIRE(run.ops[e].end == us(8));
  REQUIRE(run.makespan == us(10));

  const CriticalPath path = critical_path(graph, run, &net);
  CHECK(path.ops == std::vector<OpId>{bb, t, d});
  // hbm: B 6 + D 1 = 7 us; latency 1 us and link 2 us from T's attribution; total 10 us.
  CHECK(path.time_of(kHbm) == us(7));
  CHECK(path.time_of(kTagLatency) == us(1));
  CHECK(path.time_of(kTagLink) == us(2));
  CHECK(path.time_of(kCompute) == Time::zero());
  CHECK(path.time_of(kBoundDependency) == Time::zero());  // no idle gap on this path
  CHECK(path.by_bound.size() == 3);
  CHECK(path.makespan == run.makespan);

  SECTION("transfers on the path need the network") {
    CHECK_THROWS_AS(critical_path(graph, run), std::logic_error);
  }
}

TEST_CASE("critical path ties go to the lowest op id, at the end and at each gate") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const Gpu g2 = add_gpu(b);
  const OpId x = b.add_op(compute(us(3), kCompute), g0.compute);
  const OpId y = b.add_op(memory(us(3), kHbm), g1.compute);
  const OpId z = b.add_op(delay(us(1), kHost), g2.compute);
  b.add_dependency(y, z);
  b.add_dependency(x, z);
  const OpId w = b.add_op(compute(us(4), kCompute), g0.compute);  // ends at 3 + 4 = 7 us
  const OpId v = b.add_op(compute(us(3), kCompute), g2.compute);  // after z: 4 + 3 = 7 us
  const StepGraph graph = std::move(b).build();
  const RunResult run = Engine(graph).run();
  REQUIRE(run.ops[w].end == us(7));
  REQUIRE(run.ops[v].end == us(7));
  const CriticalPath path = critical_path(graph, run);
  // w (id 3) and v (id 4) both end at 7 us: the walk starts from w, whose gate is x. Path x, w.
  CHECK(path.ops == std::vector<OpId>{x, w});
  CHECK(path.time_of(kCompute) == us(7));

  // v's gate: z (stream predecessor, 4 us). z's gate: x and y both end at 3 us; x has the lower id.
  RunResult only_v = run;
  only_v.ops[w].end = us(6);  // make v the unique last op (w's end edited: a hand-made run)
  only_v.ops[w].start = us(3);
  const CriticalPath via_z = critical_path(graph, only_v);
  CHECK(via_z.ops == std::vector<OpId>{x, z, v});
  // compute: x 3 + v 3 = 6 us; host: z 1 us.
  CHECK(via_z.time_of(kCompute) == us(6));
  CHECK(via_z.time_of(kHost) == us(1));
}

TEST_CASE("idle gaps before an op on the path are charged to kBoundDependency") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  const OpId first = b.add_op(compute(us(2), kCompute), g.compute);
  const OpId second = b.add_op(compute(us(1), kCompute), g.compute);
  const StepGraph graph = std::move(b).build();
  // A hand-written run (e.g. replayed from a trace) where `first` started at 1 us and `second`
  // waited 2 us after it: gaps of 1 us (from time 0) and 2 us, work 2 + 1 us; makespan 6 us.
  RunResult run;
  run.ops = {{us(1), us(3), kCompute}, {us(5), us(6), kCompute}};
  run.makespan = us(6);
  const CriticalPath path = critical_path(graph, run);
  CHECK(path.ops == std::vector<OpId>{first, second});
  CHECK(path.time_of(kBoundDependency) == us(3));
  CHECK(path.time_of(kCompute) == us(3));
  CHECK(path.makespan == us(6));
}

TEST_CASE("a network attribution that does not add up is an internal error") {
  class BadNetwork : public FakeNetwork {
   public:
    using FakeNetwork::FakeNetwork;
    void attribution(OpId, std::vector<BoundShare>& out) const override { out.push_back({kTagLink, us(1)}); }
  };
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  b.add_op(transfer(0), g.comm);
  const StepGraph graph = std::move(b).build();
  BadNetwork net({{Time::zero(), us(2)}});
  const RunResult run = Engine(graph, &net).run();
  CHECK_THROWS_WITH(critical_path(graph, run, &net), Catch::Matchers::Contains("attributes 1000000 ps"));
}
