#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "sim/engine.hpp"
#include "tests/sim/fake_network.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

TEST_CASE("ops on one stream run one at a time, in insertion order") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  const OpId a = b.add_op(compute(us(1)), g.compute);
  const OpId c = b.add_op(memory(us(2)), g.compute);
  const OpId d = b.add_op(delay(us(3)), g.compute);
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  // Back to back: a [0,1), c [1,3), d [3,6) us. None has dependencies, so all are ready at 0.
  CHECK(r.ops[a].start == us(0));
  CHECK(r.ops[a].end == us(1));
  CHECK(r.ops[c].start == us(1));
  CHECK(r.ops[c].end == us(3));
  CHECK(r.ops[d].start == us(3));
  CHECK(r.ops[d].end == us(6));
  CHECK(ready_time(graph, r, d) == us(0));
  CHECK(r.makespan == us(6));
  CHECK(r.stats.events == 3);
}

TEST_CASE("ops on different streams overlap") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(5)), g0.compute);
  const OpId c = b.add_op(delay(us(5)), g0.comm);
  const OpId d = b.add_op(compute(us(4)), g1.compute);
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  // Three streams, no dependencies: all start at 0; makespan is the longest, 5 us.
  CHECK(r.ops[a].start == us(0));
  CHECK(r.ops[c].start == us(0));
  CHECK(r.ops[d].start == us(0));
  CHECK(r.ops[d].end == us(4));
  CHECK(r.makespan == us(5));
}

TEST_CASE("dependencies chain across streams, ready and start differ when the stream is busy") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(2)), g0.compute);
  const OpId busy = b.add_op(compute(us(4)), g1.compute);
  const OpId c = b.add_op(compute(us(3)), g1.compute);
  const OpId d = b.add_op(compute(us(1)), g0.compute);
  b.add_dependency(a, c);
  b.add_dependency(c, d);
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  // a [0,2). c is ready at 2 (a done) but g1's stream is busy until 4: c [4,7).
  // d is behind a on g0 (free at 2) but waits for c: ready 7, d [7,8).
  CHECK(r.ops[busy].end == us(4));
  CHECK(ready_time(graph, r, c) == us(2));
  CHECK(r.ops[c].start == us(4));
  CHECK(r.ops[c].end == us(7));
  CHECK(ready_time(graph, r, d) == us(7));
  CHECK(r.ops[d].start == us(7));
  CHECK(r.makespan == us(8));
}

TEST_CASE("a multi-stream op waits for the slowest of its streams, delaying all peers") {
  StepGraphBuilder b;
  std::vector<Gpu> gpus;
  std::vector<OpId> before, after;
  std::vector<StreamId> comm;
  for (int i = 0; i < 3; ++i) gpus.push_back(add_gpu(b));
  for (int i = 0; i < 3; ++i) before.push_back(b.add_op(compute(us(i + 1)), gpus[i].compute));  // 1, 2, 3 us
  for (const Gpu& g : gpus) comm.push_back(g.comm);
  const OpId collective = b.add_op(delay(us(1)), comm);  // a 1 us barrier-like collective on 3 ranks
  b.add_dependencies(before, collective);
  for (const Gpu& g : gpus) {
    after.push_back(b.add_op(compute(us(2)), g.compute));
    b.add_dependency(collective, after.back());
  }
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  // The collective needs all three inputs: it starts when the slowest rank (3 us) is done, [3,4).
  // Every rank's next op then starts at 4 us, although ranks 0 and 1 were idle from 1 and 2 us.
  CHECK(ready_time(graph, r, collective) == us(3));
  CHECK(r.ops[collective].start == us(3));
  CHECK(r.ops[collective].end == us(4));
  for (const OpId id : after) {
    CHECK(r.ops[id].start == us(4));
    CHECK(r.ops[id].end == us(6));
  }

  SECTION("stream heads alone synchronise, without explicit dependencies") {
    StepGraphBuilder h;
    const Gpu x = add_gpu(h);
    const Gpu y = add_gpu(h);
    h.add_op(compute(us(1)), x.compute);
    h.add_op(compute(us(4)), y.compute);
    const StreamId both[] = {x.compute, y.compute};
    const OpId joint = h.add_op(compute(us(1)), both);
    const StepGraph hg = std::move(h).build();
    const RunResult hr = Engine(hg).run();
    // Head of x.compute at 1 us, of y.compute at 4 us: starts at 4. No dependencies: ready at 0.
    CHECK(ready_time(hg, hr, joint) == us(0));
    CHECK(hr.ops[joint].start == us(4));
    CHECK(hr.ops[joint].end == us(5));
  }
}

TEST_CASE("zero-duration ops start and finish in the same instant, in order") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  const OpId a = b.add_op(compute(us(2)), g.compute);
  const OpId z1 = b.add_op(delay(Time::zero()), g.compute);
  const OpId z2 = b.add_op(compute(Time::zero()), g.comm);
  b.add_dependency(z1, z2);
  const OpId c = b.add_op(compute(us(1)), g.compute);
  b.add_dependency(z2, c);
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  // a [0,2); z1 and z2 take no time at 2 us; c [2,3).
  CHECK(r.ops[a].end == us(2));
  CHECK(r.ops[z1].start == us(2));
  CHECK(r.ops[z1].end == us(2));
  CHECK(r.ops[z2].start == us(2));
  CHECK(r.ops[z2].end == us(2));
  CHECK(r.ops[c].start == us(2));
  CHECK(r.makespan == us(3));

  SECTION("a graph of only zero-duration ops finishes at 0; an empty graph too") {
    StepGraphBuilder z;
    const Gpu zg = add_gpu(z);
    z.add_op(delay(Time::zero()), zg.compute);
    z.add_op(delay(Time::zero()), zg.compute);
    const StepGraph zgraph = std::move(z).build();
    const RunResult zr = Engine(zgraph).run();
    CHECK(zr.makespan == Time::zero());
    CHECK(zr.stats.events == 2);
    const StepGraph empty = StepGraphBuilder().build();
    CHECK(Engine(empty).run().makespan == Time::zero());
  }
}

TEST_CASE("transfers run on the injected network, their bound is the network's largest share") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(1), 2), g0.compute);
  const StreamId pair[] = {g0.comm, g1.comm};
  const OpId t = b.add_op(transfer(0), pair);
  b.add_dependency(a, t);
  const OpId c = b.add_op(compute(us(1), 2), g1.compute);
  b.add_dependency(t, c);
  const StepGraph graph = std::move(b).build();
  // Payload 0: 1 us latency + 3 us on the link.
  FakeNetwork net({{us(1), us(3)}});
  const RunResult r = Engine(graph, &net).run();
  // a [0,1); t [1,5) (1 + 3 us); c [5,6).
  CHECK(r.ops[t].start == us(1));
  CHECK(r.ops[t].end == us(5));
  CHECK(r.ops[t].bound == kTagLink);  // 3 us on the link beats 1 us of latency
  CHECK(r.ops[a].bound == 2);         // fixed ops keep the builder's tag
  CHECK(r.ops[c].end == us(6));
  CHECK(net.starts == 1);
}

TEST_CASE("deadlock: ops left with nothing scheduled is an error naming them") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  const OpId t = b.add_op(transfer(0), g.comm);
  const OpId after = b.add_op(compute(us(1)), g.compute);
  b.add_dependency(t, after);
  b.add_op(delay(us(1)), g.comm);
  const StepGraph graph = std::move(b).build();
  FakeNetwork lossy({{Time::zero(), kTimeNever}});  // the network loses the transfer
  Engine engine(graph, &lossy);
  CHECK_THROWS_WITH(
      engine.run(),
      Catch::Matchers::Contains("3 of 3 ops never finished") &&
          Catch::Matchers::Contains("op 0 \"\" on [gpu0.comm]: running since 0 ps (the network") &&
          Catch::Matchers::Contains("op 1 \"\" on [gpu0.compute]: waiting for 1 dependencies") &&
          Catch::Matchers::Contains("op 2 \"\" on [gpu0.comm]: behind op 0 on gpu0.comm"));
}

TEST_CASE("engine misuse is reported") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  b.add_op(transfer(0), g.comm);
  const StepGraph graph = std::move(b).build();
  CHECK_THROWS_AS(Engine(graph), std::logic_error);  // transfers need a network
  FakeNetwork net({{us(1), us(1)}});
  Engine engine(graph, &net);
  engine.run();
  CHECK_THROWS_AS(engine.run(), std::logic_error);  // one run per engine
}

TEST_CASE("ceil_to_time rounds up, but not for floating-point noise") {
  CHECK(ceil_to_time(0.0) == Time::zero());
  CHECK(ceil_to_time(-3.0) == Time::zero());
  CHECK(ceil_to_time(1.2) == Time{2});
  CHECK(ceil_to_time(1000.0 / 0.7) == Time{1429});  // 1428.57... ps
  CHECK(ceil_to_time(6e6 + 1e-9) == Time{6'000'000});
  CHECK(ceil_to_time(6e6 + 0.01) == Time{6'000'001});
}

TEST_CASE("an observer sees every start and end, in simulated-time order") {
  struct Log : RunObserver {
    std::vector<std::string> lines;
    void on_op_start(OpId op, Time now) override {
      lines.push_back("start " + std::to_string(op) + " @" + std::to_string(now.count() / 1'000'000));
    }
    void on_op_end(OpId op, const OpRecord& r) override {
      lines.push_back("end " + std::to_string(op) + " @" + std::to_string(r.end.count() / 1'000'000) +
                      " from " + std::to_string(r.start.count() / 1'000'000));
    }
  };
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  b.add_op(compute(us(2)), g0.compute);  // 0: [0,2)
  b.add_op(compute(us(1)), g1.compute);  // 1: [0,1)
  b.add_op(compute(us(1)), g0.compute);  // 2: [2,3), behind 0
  const StepGraph graph = std::move(b).build();
  Log log;
  Engine engine(graph);
  engine.set_observer(&log);
  engine.run();
  // Ops 0 and 1 start at 0 in id order; 1 ends first (1 us); 0 ends at 2 us and releases 2.
  CHECK(log.lines == std::vector<std::string>{"start 0 @0", "start 1 @0", "end 1 @1 from 0",
                                              "end 0 @2 from 0", "start 2 @2", "end 2 @3 from 2"});
}
