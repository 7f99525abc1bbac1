#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "sim/graph.hpp"

using namespace stepsim;
using namespace stepsim::sim;

namespace {
Op labelled_compute(Time work, LabelId label = 0) {
  Op op;
  op.kind = OpKind::compute;
  op.work = work;
  op.label = label;
  return op;
}
std::vector<OpId> to_vector(std::span<const OpId> s) {
  return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("graph keeps ops, streams and labels as added") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({});
  const StreamId s0 = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId s1 = b.add_stream(p, StreamRole::comm, "gpu0.comm");
  const LabelId up = b.intern("L0.fwd.mlp_up mb0");
  CHECK(b.intern("L0.fwd.mlp_up mb0") == up);  // interned: same text, same id
  CHECK(b.intern("") == 0);                    // label 0 is the empty string
  const OpId a = b.add_op(labelled_compute(Time{5}, up), s0);
  const StreamId both[] = {s1, s0};
  const OpId c = b.add_op(labelled_compute(Time{7}), both);
  const OpId d = b.add_op(labelled_compute(Time{1}), s1);
  CHECK(a == 0);
  CHECK(c == 1);
  CHECK(d == 2);
  const StepGraph g = std::move(b).build();

  CHECK(g.op_count() == 3);
  CHECK(g.op(c).work == Time{7});
  CHECK(g.label(a) == "L0.fwd.mlp_up mb0");
  CHECK(g.label(c).empty());
  CHECK(to_vector(g.streams_of(c)) == std::vector<StreamId>{s1, s0});  // order as given
  CHECK(g.ops_on(s0) == std::vector<OpId>{a, c});
  CHECK(g.ops_on(s1) == std::vector<OpId>{c, d});
  CHECK(g.first_on(s1) == c);
  CHECK(to_vector(g.next_on_streams(c)) == std::vector<OpId>{d, StepGraph::kNoOp});  // parallel to {s1, s0}
  CHECK(g.next_on(a, s0) == c);
  const StreamPredecessors before(g);
  CHECK(to_vector(before.of(c)) == std::vector<OpId>{StepGraph::kNoOp, a});  // nothing before c on s1
  CHECK(to_vector(before.of(d)) == std::vector<OpId>{c});
  CHECK(g.processor_of(c) == p);
  CHECK_FALSE(g.has_transfers());
  CHECK(g.describe(a) == "op 0 \"L0.fwd.mlp_up mb0\" on [gpu0.compute]");
  CHECK(g.describe(c) == "op 1 \"\" on [gpu0.comm, gpu0.compute]");
  CHECK(g.memory_bytes() > 0);
}

TEST_CASE("dependencies are deduplicated, self-edges dropped, neighbours listed in id order") {
  StepGraphBuilder b;
  const StreamId s = b.add_stream(b.add_processor({}), StreamRole::compute, "s");
  for (int i = 0; i < 5; ++i) b.add_op(labelled_compute(Time{1}), s);
  b.add_dependency(3, 4);
  b.add_dependency(0, 4);
  b.add_dependency(3, 4);  // duplicate
  b.add_dependency(2, 2);  // self-edge
  const OpId befores[] = {1, 0};
  b.add_dependencies(befores, 3);
  const StepGraph g = std::move(b).build();

  CHECK(g.dependency_count() == 4);  // 3->4, 0->4, 1->3, 0->3
  CHECK(to_vector(g.successors(0)) == std::vector<OpId>{3, 4});
  CHECK(to_vector(g.successors(3)) == std::vector<OpId>{4});
  CHECK(g.dependency_in_degree(4) == 2);
  CHECK(g.dependency_in_degree(2) == 0);
  std::vector<OpId> preds;
  g.for_each_dependency(4, [&](OpId p) { preds.push_back(p); });
  CHECK(preds == std::vector<OpId>{0, 3});
}

TEST_CASE("build() rejects cycles and names their ops") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({});
  const StreamId s0 = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId s1 = b.add_stream(p, StreamRole::comm, "gpu0.comm");

  SECTION("a dependency cycle") {
    const OpId x = b.add_op(labelled_compute(Time{1}, b.intern("x")), s0);
    const OpId y = b.add_op(labelled_compute(Time{1}, b.intern("y")), s1);
    b.add_dependency(x, y);
    b.add_dependency(y, x);
    CHECK_THROWS_WITH(std::move(b).build(), Catch::Matchers::Contains("cycle (2 ops could never start)") &&
                                                Catch::Matchers::Contains("\"x\" on [gpu0.compute]") &&
                                                Catch::Matchers::Contains("\"y\" on [gpu0.comm]"));
  }
  SECTION("a dependency against stream order") {
    // x runs before y on the stream, yet x waits for y: neither can ever start.
    const OpId x = b.add_op(labelled_compute(Time{1}, b.intern("x")), s0);
    const OpId y = b.add_op(labelled_compute(Time{1}, b.intern("y")), s0);
    b.add_dependency(y, x);
    CHECK_THROWS_WITH(std::move(b).build(),
                      Catch::Matchers::Contains("op 1 \"y\" on [gpu0.compute] -(dependency)-> op 0") &&
                          Catch::Matchers::Contains("-(stream order)-> op 1"));
  }
  SECTION("a cycle through a multi-stream op behind a stuck stream") {
    // c occupies both streams; a (before c on s0) waits for d (after c on s1).
    const OpId a = b.add_op(labelled_compute(Time{1}, b.intern("a")), s0);
    const StreamId both[] = {s0, s1};
    b.add_op(labelled_compute(Time{1}, b.intern("c")), both);
    const OpId d = b.add_op(labelled_compute(Time{1}, b.intern("d")), s1);
    b.add_dependency(d, a);
    CHECK_THROWS_WITH(std::move(b).build(), Catch::Matchers::Contains("(3 ops could never start)"));
  }
  SECTION("an acyclic graph with a backward-added dependency builds") {
    const OpId x = b.add_op(labelled_compute(Time{1}), s0);
    const OpId y = b.add_op(labelled_compute(Time{1}), s1);
    b.add_dependency(y, x);  // y was added later but nothing orders x before y
    CHECK_NOTHROW(std::move(b).build());
  }
}

TEST_CASE("builder rejects malformed ops and processors") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({});
  const StreamId s = b.add_stream(p, StreamRole::compute, "s");
  CHECK_THROWS_AS(b.add_processor({1.0}), std::invalid_argument);  // speed would drop to 0
  CHECK_THROWS_AS(b.add_processor({-0.1}), std::invalid_argument);
  CHECK_THROWS_AS(b.add_stream(7, StreamRole::comm, "x"), std::invalid_argument);
  CHECK_THROWS_AS(b.add_op(labelled_compute(Time{1}), std::span<const StreamId>{}), std::invalid_argument);
  CHECK_THROWS_AS(b.add_op(labelled_compute(Time{1}), StreamId{9}), std::invalid_argument);
  const StreamId twice[] = {s, s};
  CHECK_THROWS_AS(b.add_op(labelled_compute(Time{1}), twice), std::invalid_argument);
  CHECK_THROWS_AS(b.add_op(labelled_compute(Time{-1}), s), std::invalid_argument);
  CHECK_THROWS_AS(b.add_op(labelled_compute(Time{1}, 42), s), std::invalid_argument);  // unknown label
  b.add_op(labelled_compute(Time{1}), s);
  CHECK_THROWS_AS(b.add_dependency(0, 1), std::invalid_argument);
  CHECK(b.op_count() == 1);  // rejected ops left no trace
}
