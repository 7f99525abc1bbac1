// Properties over pseudo-random graphs: determinism, thread independence, and the timing rules.
#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <tuple>
#include <vector>

#include "sim/critical_path.hpp"
#include "sim/engine.hpp"
#include "tests/sim/fake_network.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace {

/// A portable generator (std distributions differ between standard libraries).
struct Lcg {
  std::uint64_t state;
  std::uint32_t next(std::uint32_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((state >> 33) % bound);
  }
};

const std::vector<FakeTransfer> kTransfers = {
    {Time::zero(), Time::zero()}, {us(1), us(2)}, {Time{1500}, Time{2700}}, {Time{333}, us(7)}};

/// Ops on 6 GPUs (half with comm slowdown), mixed kinds, multi-stream transfers, random
/// dependencies on earlier ops (so the graph is acyclic), random durations including zero.
StepGraph random_graph(std::uint64_t seed, int ops) {
  Lcg rng{seed};
  StepGraphBuilder b;
  std::vector<Gpu> gpus;
  for (int i = 0; i < 6; ++i) gpus.push_back(add_gpu(b, i % 2 == 0 ? 0.25 : 0.0));
  for (int i = 0; i < ops; ++i) {
    const Gpu& g = gpus[rng.next(6)];
    const Time work{static_cast<std::int64_t>(rng.next(4) == 0 ? 0 : rng.next(5'000'000))};
    const std::uint32_t kind = rng.next(10);
    OpId id;
    if (kind < 5)
      id = b.add_op(compute(work, 2), g.compute);
    else if (kind == 5)
      id = b.add_op(memory(work, 3), g.compute);
    else if (kind == 6)
      id = b.add_op(delay(work, 4), g.comm);
    else {
      std::vector<StreamId> streams{g.comm};
      const Gpu& peer = gpus[rng.next(6)];
      if (peer.comm != g.comm) streams.push_back(peer.comm);
      id = b.add_op(transfer(rng.next(static_cast<std::uint32_t>(kTransfers.size()))), streams);
    }
    for (std::uint32_t d = rng.next(3); d > 0 && id > 0; --d) b.add_dependency(rng.next(id), id);
  }
  return std::move(b).build();
}

struct Recorder : RunObserver {
  std::vector<std::tuple<char, OpId, std::int64_t>> log;
  void on_op_start(OpId op, Time now) override { log.emplace_back('s', op, now.count()); }
  void on_op_end(OpId op, const OpRecord& r) override { log.emplace_back('e', op, r.end.count()); }
};

struct Outcome {
  RunResult run;
  std::vector<std::tuple<char, OpId, std::int64_t>> log;
};

Outcome execute(const StepGraph& graph) {
  FakeNetwork net(kTransfers);
  Recorder recorder;
  Engine engine(graph, &net);
  engine.set_observer(&recorder);
  Outcome out{engine.run(), std::move(recorder.log)};
  return out;
}

bool same_records(const RunResult& a, const RunResult& b) {
  if (a.ops.size() != b.ops.size() || a.makespan != b.makespan) return false;
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const OpRecord& x = a.ops[i];
    const OpRecord& y = b.ops[i];
    if (x.start != y.start || x.end != y.end || x.bound != y.bound) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the same graph runs to identical records and observer streams") {
  const StepGraph graph = random_graph(GENERATE(1u, 2u, 3u), 3000);
  const Outcome first = execute(graph);
  const Outcome second = execute(graph);
  CHECK(same_records(first.run, second.run));
  CHECK(first.log == second.log);
  CHECK(first.log.size() == 2 * graph.op_count());  // one start and one end per op
  CHECK(first.run.stats.events == graph.op_count());
  CHECK(first.run.stats.retimings > 0);  // the graph does exercise comm slowdown
}

TEST_CASE("two engines on two threads share one graph and agree with a sequential run") {
  const StepGraph graph = random_graph(7, 20000);
  const Outcome reference = execute(graph);
  Outcome on_a, on_b;
  std::thread ta([&] { on_a = execute(graph); });
  std::thread tb([&] { on_b = execute(graph); });
  ta.join();
  tb.join();
  CHECK(same_records(on_a.run, reference.run));
  CHECK(same_records(on_b.run, reference.run));
}

TEST_CASE("every op starts exactly when its last dependency and stream predecessor end") {
  const StepGraph graph = random_graph(GENERATE(11u, 12u), 3000);
  FakeNetwork net(kTransfers);
  const RunResult run = Engine(graph, &net).run();
  Time latest{};
  const StreamPredecessors before(graph);
  for (OpId id = 0; id < graph.op_count(); ++id) {
    const OpRecord& r = run.ops[id];
    Time ready{};
    graph.for_each_dependency(id, [&](OpId d) { ready = std::max(ready, run.ops[d].end); });
    Time heads{};
    for (const OpId p : before.of(id))
      if (p != StepGraph::kNoOp) heads = std::max(heads, run.ops[p].end);
    REQUIRE(ready_time(graph, run, id) == ready);
    REQUIRE(r.start == std::max(ready, heads));
    const Op op = graph.op(id);
    const bool may_slow =
        op.kind == OpKind::compute && graph.processor(graph.processor_of(id)).comm_slowdown > 0;
    if (op.kind != OpKind::transfer && !may_slow) REQUIRE(r.end - r.start == op.work);
    if (may_slow) {
      // Never faster than full speed, never slower than the slowed speed 0.75 (+1 ps rounding).
      REQUIRE(r.end - r.start >= op.work);
      REQUIRE(r.end - r.start <= ceil_to_time(static_cast<double>(op.work.count()) / 0.75) + Time{1});
    }
    latest = std::max(latest, r.end);
  }
  CHECK(run.makespan == latest);
  // The critical path accounts for every picosecond of the step.
  const CriticalPath path = critical_path(graph, run, &net);
  CHECK(path.makespan == run.makespan);
  CHECK(run.ops[path.ops.back()].end == run.makespan);
}
