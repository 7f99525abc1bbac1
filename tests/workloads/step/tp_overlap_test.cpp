// TP-communication overlap (parallelism.tp_comm_overlap): the chunked all-gather + GEMM and GEMM +
// reduce-scatter that layer_ops emits, run on a one-rank graph whose kernel and transfer times the
// test sets, so that each exposed time can be derived by hand.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "sim/engine.hpp"
#include "sim/graph.hpp"
#include "tests/workloads/fake_planner.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// One rank: a compute stream, a TP comm channel (SMs) and a copy-engine channel. A kernel takes
/// `flops` nanoseconds; a transfer takes `bytes` nanoseconds (no contention, no latency).
class TimedSink : public OpSink {
 public:
  TimedSink() {
    const sim::ProcessorId p = b_.add_processor({0.0});
    compute_ = b_.add_stream(p, sim::StreamRole::compute, "gpu0.compute");
    comm_ = b_.add_stream(p, sim::StreamRole::comm, "gpu0.comm.tp");
    copy_ = b_.add_stream(p, sim::StreamRole::copy, "gpu0.copy.tp");
  }
  /// The makespan once everything emitted has run.
  double run_us() {
    const sim::StepGraph g = std::move(b_).build();
    work::fakes::FixedCostNetwork net(costs_);
    sim::Engine e(g, &net);
    return to_seconds(e.run().makespan) * 1e6;
  }
  std::vector<CommOp> comms;
  std::vector<double> kernel_rows;

 protected:
  Handle emit_kernel(std::string_view, const topo::KernelWork& w, std::span<const Handle> deps) override {
    sim::Op op;
    op.kind = sim::OpKind::compute;
    op.work = Time{static_cast<std::int64_t>(w.flops.value() * 1000.0)};
    const sim::OpId id = b_.add_op(op, compute_);
    for (Handle h : deps) b_.add_dependency(h.id, id);
    kernel_rows.push_back(w.gemm_m);
    return Handle{id};
  }
  Handle emit_comm(std::string_view, const CommOp& c, std::span<const Handle> deps) override {
    sim::Op op;
    op.kind = sim::OpKind::transfer;
    op.payload = static_cast<std::uint32_t>(costs_.size());
    costs_.push_back(Time{static_cast<std::int64_t>(c.bytes * 1000.0)});
    const sim::OpId id = b_.add_op(op, c.copy_engine ? copy_ : comm_);
    for (Handle h : deps) b_.add_dependency(h.id, id);
    comms.push_back(c);
    return Handle{id};
  }

 private:
  sim::StepGraphBuilder b_;
  sim::StreamId compute_{}, comm_{}, copy_{};
  std::vector<Time> costs_;
};

LayerDims dims(int tp, TpCommOverlap mode) {
  LayerDims d;
  d.tp = tp;
  d.sp = true;
  d.tp_overlap = mode;
  d.rs_splits = 4;
  return d;
}

/// A GEMM whose time is `us_per_row` microseconds per row of M.
RowGemm timed_gemm(double us_per_row) {
  return [us_per_row](double rows) {
    topo::KernelWork w;
    w.op_class = topo::OpClass::gemm;
    w.flops = units::flops(rows * us_per_row * 1000.0);  // TimedSink: 1 FLOP = 1 ns
    w.gemm_m = rows;
    return w;
  };
}

}  // namespace

TEST_CASE("userbuffers all-gather + GEMM: tp ring steps, the gather hidden when the GEMM is longer") {
  // TP 4, M = 400 rows at 1 us per row: four 100 us GEMM chunks. The gathered operand is 160,000
  // bytes (1 byte = 1 ns here: 160 us); each of the 3 ring exchanges moves a quarter, 40 us.
  // Step i's GEMM waits for exchange i - 1 only:
  //   exchanges at [0,40] [40,80] [80,120]; GEMMs at [0,100] [100,200] [200,300] [300,400].
  // T = g + (tp - 1) max(g, x) = 100 + 3 x 100 = 400 us: the gather is wholly hidden.
  TimedSink overlapped;
  gathered_gemm(overlapped, dims(4, TpCommOverlap::userbuffers), "ag", "qkv", 400, 160'000, timed_gemm(1.0),
                {});
  CHECK(overlapped.run_us() == Approx(400.0));
  REQUIRE(overlapped.comms.size() == 3);
  CHECK(overlapped.comms[0].kind == CollectiveKind::ring_exchange);
  CHECK(overlapped.comms[0].copy_engine);
  CHECK(overlapped.comms[0].bytes == Approx(40'000));
  CHECK(overlapped.kernel_rows == std::vector<double>{100, 100, 100, 100});
  // Off: the whole gather (160 us here) and then the 400 us GEMM: 160 us exposed.
  TimedSink off;
  gathered_gemm(off, dims(4, TpCommOverlap::off), "ag", "qkv", 400, 160'000, timed_gemm(1.0), {});
  CHECK(off.run_us() == Approx(560.0));
  REQUIRE(off.comms.size() == 1);
  CHECK(off.comms[0].kind == CollectiveKind::all_gather);
}

TEST_CASE("userbuffers all-gather + GEMM: a GEMM shorter than its chunk leaves (tp - 1)(x - g) exposed") {
  // TP 4, four 20 us chunks (M = 80 at 1 us per row), exchanges of 50 us (200 us gathered / 4):
  //   exchanges [0,50] [50,100] [100,150]; GEMMs [0,20] [50,70] [100,120] [150,170].
  // T = g + (tp - 1) max(g, x) = 20 + 3 x 50 = 170 us; exposed = 170 - 80 = 90 = 3 x (50 - 20).
  TimedSink s;
  gathered_gemm(s, dims(4, TpCommOverlap::userbuffers), "ag", "fc1", 80, 200'000, timed_gemm(1.0), {});
  CHECK(s.run_us() == Approx(170.0));
}

TEST_CASE("userbuffers GEMM + reduce-scatter: rs_splits chunks, only the last reduction exposed") {
  // M = 400 at 1 us per row in 4 splits: GEMM chunks of 100 us; the output is 200 us of
  // reduce-scatter, 50 us per chunk, each after its chunk: RS at [100,150] [200,250] [300,350]
  // [400,450]. T = 4 x 100 + 50 = 450 us (off: 400 + 200 = 600 us).
  TimedSink s;
  reduced_gemm(s, dims(4, TpCommOverlap::userbuffers), "proj", "rs", 400, 200'000, timed_gemm(1.0), {});
  CHECK(s.run_us() == Approx(450.0));
  REQUIRE(s.comms.size() == 4);
  CHECK(s.comms[0].kind == CollectiveKind::reduce_scatter);
  CHECK_FALSE(s.comms[0].copy_engine);
  TimedSink off;
  reduced_gemm(off, dims(4, TpCommOverlap::off), "proj", "rs", 400, 200'000, timed_gemm(1.0), {});
  CHECK(off.run_us() == Approx(600.0));
  // Reductions longer than their chunks: 4 chunks of 20 us, 4 reductions of 50 us each back to
  // back after the first chunk: T = 20 + 4 x 50 = 220 us.
  TimedSink slow;
  reduced_gemm(slow, dims(4, TpCommOverlap::userbuffers), "proj", "rs", 80, 200'000, timed_gemm(1.0), {});
  CHECK(slow.run_us() == Approx(220.0));
}

TEST_CASE("AsyncTP GEMM + reduce-scatter: tp copy-engine steps and a sum of the partials") {
  // TP 2, M = 200 at 1 us per row: two 100 us GEMM chunks; one exchange of half the output
  // (100 us / 2 = 50 us) after the first chunk, hidden under the second; then the sum of the tp
  // partials of this rank's rows, an element-wise kernel.
  TimedSink s;
  LayerDims d = dims(2, TpCommOverlap::async_tp);
  d.act_bytes = 2;
  reduced_gemm(s, d, "proj", "rs", 200, 100'000, timed_gemm(1.0), {});
  REQUIRE(s.comms.size() == 1);
  CHECK(s.comms[0].copy_engine);
  CHECK(s.comms[0].bytes == Approx(50'000));
  // The sum kernel's FLOPs (= ns here): (tp - 1) x shard elements = 1 x 50,000 / 2 = 25,000 ns.
  CHECK(s.run_us() == Approx(200.0 + 25.0));
}

TEST_CASE("without sequence parallelism the GEMM needs no gather and overlap changes nothing") {
  TimedSink s;
  LayerDims d = dims(4, TpCommOverlap::userbuffers);
  d.sp = false;
  d.tp_overlap = TpCommOverlap::off;  // as layer_dims() sets it without SP
  gathered_gemm(s, d, "ag", "qkv", 400, 160'000, timed_gemm(1.0), {});
  CHECK(s.comms.empty());
  CHECK(s.run_us() == Approx(400.0));
}
