#pragma once
// Small helpers for building step graphs inline in tests.

#include <string_view>

#include "sim/graph.hpp"

namespace stepsim::test {

/// Microseconds as exact picoseconds (1 us = 1e6 ps), for readable expectations.
constexpr Time us(std::int64_t n) {
  return Time{n * 1'000'000};
}

inline sim::Op make_op(sim::OpKind kind, Time work, sim::BoundTag bound = sim::kBoundNone) {
  sim::Op op;
  op.kind = kind;
  op.work = work;
  op.bound = bound;
  return op;
}
inline sim::Op compute(Time work, sim::BoundTag bound = sim::kBoundNone) {
  return make_op(sim::OpKind::compute, work, bound);
}
inline sim::Op memory(Time work, sim::BoundTag bound = sim::kBoundNone) {
  return make_op(sim::OpKind::memory, work, bound);
}
inline sim::Op delay(Time work, sim::BoundTag bound = sim::kBoundNone) {
  return make_op(sim::OpKind::delay, work, bound);
}
inline sim::Op transfer(std::uint32_t payload) {
  sim::Op op = make_op(sim::OpKind::transfer, Time::zero());
  op.payload = payload;
  return op;
}

/// A processor with one compute stream and one comm stream, named gpu<i>.compute / gpu<i>.comm.
struct Gpu {
  sim::ProcessorId processor;
  sim::StreamId compute;
  sim::StreamId comm;
};
inline Gpu add_gpu(sim::StepGraphBuilder& b, double comm_slowdown = 0.0) {
  const sim::ProcessorId p = b.add_processor({comm_slowdown});
  const std::string name = "gpu" + std::to_string(p);
  return {p, b.add_stream(p, sim::StreamRole::compute, name + ".compute"),
          b.add_stream(p, sim::StreamRole::comm, name + ".comm")};
}

}  // namespace stepsim::test
