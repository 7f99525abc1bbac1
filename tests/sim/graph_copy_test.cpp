// Copies of a graph inside another: ops keep their order, streams and dependencies; a second copy on
// the same streams queues behind the first; final_ops are the ops nothing follows.
#include <catch2/catch.hpp>

#include "sim/engine.hpp"
#include "sim/graph_copy.hpp"

using namespace stepsim;
using namespace stepsim::sim;

namespace {

/// Two processors: a (10 us) -> b (5 us) on gpu0, c (7 us) on gpu1 depends on a.
StepGraph graph_copy_source() {
  StepGraphBuilder b;
  const StreamId s0 = b.add_stream(b.add_processor({}), StreamRole::compute, "gpu0.compute");
  const StreamId s1 = b.add_stream(b.add_processor({}), StreamRole::compute, "gpu1.compute");
  Op op;
  op.work = std::chrono::microseconds(10);
  op.label = b.intern("a");
  const OpId a = b.add_op(op, s0);
  op.work = std::chrono::microseconds(5);
  op.label = b.intern("b");
  b.add_op(op, s0);
  op.work = std::chrono::microseconds(7);
  op.label = b.intern("c");
  const OpId c = b.add_op(op, s1);
  b.add_dependency(a, c);
  return std::move(b).build();
}

}  // namespace

TEST_CASE("graph copies keep ops, labels, streams and dependencies, and queue behind each other") {
  const StepGraph g = graph_copy_source();
  CHECK(final_ops(g) == std::vector<OpId>{1, 2});  // b ends gpu0, c ends gpu1; a has a dependent

  StepGraphBuilder b;
  const std::vector<StreamId> streams = copy_streams(b, g, "job/");
  REQUIRE(streams.size() == 2);
  CHECK(append_ops(b, g, streams) == 0);
  CHECK(append_ops(b, g, streams) == 3);
  const StepGraph twice = std::move(b).build();
  CHECK(twice.op_count() == 6);
  CHECK(twice.label(4) == "b");
  CHECK(twice.label_text(twice.stream(streams[1]).label) == "job/gpu1.compute");
  CHECK(twice.dependency_count() == 2);
  // One copy ends at max(10 + 5, 10 + 7) = 17 us. The second copy's a waits for b on gpu0 (15 us),
  // runs to 25, then b to 30 and c (behind the first c, which ended at 17) from 25 to 32.
  Engine engine(twice);
  const RunResult run = engine.run();
  CHECK(run.ops[2].end == Time(std::chrono::microseconds(17)));
  CHECK(run.ops[3].start == Time(std::chrono::microseconds(15)));
  CHECK(run.ops[5].end == Time(std::chrono::microseconds(32)));
  CHECK(run.makespan == Time(std::chrono::microseconds(32)));
}
