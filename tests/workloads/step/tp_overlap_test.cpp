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
  std::vector<double> kernel_margins;

 protected:
  Handle emit_kernel(std::string_view, const topo::KernelWork& w, std::span<const Handle> deps) override {
    sim::Op op;
    op.kind = sim::OpKind::compute;
    op.work = Time{static_cast<std::int64_t>(w.flops.value() * 1000.0)};
    op.sm_margin = w.sm_margin;
    const sim::OpId id = b_.add_op(op, compute_);
    for (Handle h : deps) b_.add_dependency(h.id, id);
    kernel_rows.push_back(w.gemm_m);
    kernel_margins.push_back(w.sm_margin);
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
                {}, UbGemm::qkv_fprop);
  CHECK(overlapped.run_us() == Approx(400.0));
  REQUIRE(overlapped.comms.size() == 3);
  CHECK(overlapped.comms[0].kind == CollectiveKind::ring_exchange);
  CHECK(overlapped.comms[0].copy_engine);
  CHECK(overlapped.comms[0].bytes == Approx(40'000));
  CHECK(overlapped.kernel_rows == std::vector<double>{100, 100, 100, 100});
  // Off: the whole gather (160 us here) and then the 400 us GEMM: 160 us exposed.
  TimedSink off;
  gathered_gemm(off, dims(4, TpCommOverlap::off), "ag", "qkv", 400, 160'000, timed_gemm(1.0), {},
                UbGemm::qkv_fprop);
  CHECK(off.run_us() == Approx(560.0));
  REQUIRE(off.comms.size() == 1);
  CHECK(off.comms[0].kind == CollectiveKind::all_gather);
}

TEST_CASE("userbuffers all-gather + GEMM: a GEMM shorter than its chunk leaves (tp - 1)(x - g) exposed") {
  // TP 4, four 20 us chunks (M = 80 at 1 us per row), exchanges of 50 us (200 us gathered / 4):
  //   exchanges [0,50] [50,100] [100,150]; GEMMs [0,20] [50,70] [100,120] [150,170].
  // T = g + (tp - 1) max(g, x) = 20 + 3 x 50 = 170 us; exposed = 170 - 80 = 90 = 3 x (50 - 20).
  TimedSink s;
  gathered_gemm(s, dims(4, TpCommOverlap::userbuffers), "ag", "fc1", 80, 200'000, timed_gemm(1.0), {},
                UbGemm::qkv_fprop);
  CHECK(s.run_us() == Approx(170.0));
}

TEST_CASE("userbuffers GEMM + reduce-scatter: rs_splits chunks, only the last reduction exposed") {
  // M = 400 at 1 us per row in 4 splits: GEMM chunks of 100 us; the output is 200 us of
  // reduce-scatter, 50 us per chunk, each after its chunk: RS at [100,150] [200,250] [300,350]
  // [400,450]. T = 4 x 100 + 50 = 450 us (off: 400 + 200 = 600 us).
  TimedSink s;
  reduced_gemm(s, dims(4, TpCommOverlap::userbuffers), "proj", "rs", 400, 200'000, timed_gemm(1.0), {},
               UbGemm::proj_fprop);
  CHECK(s.run_us() == Approx(450.0));
  REQUIRE(s.comms.size() == 4);
  CHECK(s.comms[0].kind == CollectiveKind::reduce_scatter);
  CHECK_FALSE(s.comms[0].copy_engine);
  TimedSink off;
  reduced_gemm(off, dims(4, TpCommOverlap::off), "proj", "rs", 400, 200'000, timed_gemm(1.0), {},
               UbGemm::proj_fprop);
  CHECK(off.run_us() == Approx(600.0));
  // Reductions longer than their chunks: 4 chunks of 20 us, 4 reductions of 50 us each back to
  // back after the first chunk: T = 20 + 4 x 50 = 220 us.
  TimedSink slow;
  reduced_gemm(slow, dims(4, TpCommOverlap::userbuffers), "proj", "rs", 80, 200'000, timed_gemm(1.0), {},
               UbGemm::proj_fprop);
  CHECK(slow.run_us() == Approx(220.0));
}

TEST_CASE("AsyncTP GEMM + reduce-scatter: tp copy-engine steps and a sum of the partials") {
  // TP 2, M = 200 at 1 us per row: two 100 us GEMM chunks; one exchange of half the output
  // (100 us / 2 = 50 us) after the first chunk, hidden under the second; then the sum of the tp
  // partials of this rank's rows, an element-wise kernel.
  TimedSink s;
  LayerDims d = dims(2, TpCommOverlap::async_tp);
  d.act_bytes = 2;
  reduced_gemm(s, d, "proj", "rs", 200, 100'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
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
  gathered_gemm(s, d, "ag", "qkv", 400, 160'000, timed_gemm(1.0), {}, UbGemm::qkv_fprop);
  CHECK(s.comms.empty());
  CHECK(s.run_us() == Approx(400.0));
}

TEST_CASE(
    "userbuffers pipeline as configured: GEMM chunks on the SMs the margin leaves, reductions on num_sm, the "
    "last on 32") {
  // TE's split_overlap_rs: every chunk's GEMM gets sms - num_sm SMs (set_sm_margin), each chunk's
  // reduce-scatter kernel num_sm CTAs and the last one UB_MAX_SM = 32. A GPU of 128 SMs and
  // num_sm 16 make the margin 0.125 (exact). M = 400 at 1 us per row in 4 splits: each 100 us
  // chunk runs at 0.875, 114.29 us; reductions of 50 us after each: T = 4 x 800 / 7 + 50 us.
  TimedSink s;
  LayerDims d = dims(4, TpCommOverlap::userbuffers);
  d.sms = 128;
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)] = {UbMethod::pipeline, 16, true, 4, false, false};
  reduced_gemm(s, d, "proj", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
  CHECK(s.run_us() == Approx(4.0 * 800.0 / 7.0 + 50.0));
  REQUIRE(s.comms.size() == 4);
  CHECK(s.comms[0].sms == 16);
  CHECK(s.comms[2].sms == 16);
  CHECK(s.comms[3].sms == 32);
  CHECK(s.kernel_margins == std::vector<double>{0.125, 0.125, 0.125, 0.125});
  // The last chunk takes UB_MAX_SM = 32 whatever num_sm is, fewer too: 48 SMs, then 32.
  TimedSink wide;
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)].num_sm = 48;
  reduced_gemm(wide, d, "proj", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
  REQUIRE(wide.comms.size() == 4);
  CHECK(wide.comms[0].sms == 48);
  CHECK(wide.comms[3].sms == 32);
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)].num_sm = 16;
  // Without the margin the chunks run on every SM (the reductions' SMs are the engine's business).
  TimedSink free;
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)].set_sm_margin = false;
  reduced_gemm(free, d, "proj", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
  CHECK(free.run_us() == Approx(450.0));
  CHECK(free.kernel_margins == std::vector<double>{0.0, 0.0, 0.0, 0.0});
  // num_splits 2 in the GEMM's own configuration overrides rs_splits: 2 chunks of 200 us, 100 us
  // reductions: T = 400 + 100.
  TimedSink two;
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)].num_splits = 2;
  reduced_gemm(two, d, "proj", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
  CHECK(two.comms.size() == 2);
  CHECK(two.run_us() == Approx(500.0));
}

TEST_CASE("userbuffers pipeline with fp8_buf reduces an FP8 GEMM's output in FP8") {
  // FP8 linears with 2-byte activations: the reduce-scatter moves 1 byte per element, half the
  // 200,000 bytes, 25,000 per chunk; a 16-bit run (or fp8_buf off) moves the 16-bit output.
  LayerDims d = dims(4, TpCommOverlap::userbuffers);
  d.act_bytes = 2;
  d.linear = topo::Precision::fp8;
  d.ub[static_cast<std::size_t>(UbGemm::fc2_fprop)] = {UbMethod::pipeline, 8, true, 4, false, true};
  TimedSink s;
  reduced_gemm(s, d, "fc2", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::fc2_fprop);
  REQUIRE(s.comms.size() == 4);
  CHECK(s.comms[0].bytes == Approx(25'000));
  d.ub[static_cast<std::size_t>(UbGemm::fc2_fprop)].fp8_buf = false;
  TimedSink wide;
  reduced_gemm(wide, d, "fc2", "rs", 400, 200'000, timed_gemm(1.0), {}, UbGemm::fc2_fprop);
  CHECK(wide.comms[0].bytes == Approx(50'000));
}

TEST_CASE(
    "userbuffers ring_exchange reduce-scatter runs as copy-engine steps and a sum (split_overlap_rs_p2p)") {
  // NeMo's FP8 configurations set proj_fprop and fc2_fprop to ring_exchange: the AsyncTP pattern
  // of the test above, on the same numbers: T = 200 + 25 us.
  TimedSink s;
  LayerDims d = dims(2, TpCommOverlap::userbuffers);
  d.act_bytes = 2;
  d.ub[static_cast<std::size_t>(UbGemm::proj_fprop)] = {UbMethod::ring_exchange, 1, false, 0, false, false};
  reduced_gemm(s, d, "proj", "rs", 200, 100'000, timed_gemm(1.0), {}, UbGemm::proj_fprop);
  REQUIRE(s.comms.size() == 1);
  CHECK(s.comms[0].copy_engine);
  CHECK(s.comms[0].kind == CollectiveKind::ring_exchange);
  CHECK(s.run_us() == Approx(225.0));
}

TEST_CASE("userbuffers aggregate: a swap with the neighbour, then tp / 2 steps of two chunks") {
  // TP 4, M = 400 at 1 us per row, 160,000 bytes gathered (40 us a chunk). split_overlap_ag's
  // _aggregate: swap one chunk [0,40]; step 0 multiplies its two chunks [40,240] while the next two
  // pass on (80 us, [40,120]); step 1 [240,440]. T = 440 us (without aggregate: 400, above).
  TimedSink s;
  LayerDims d = dims(4, TpCommOverlap::userbuffers);
  d.ub[static_cast<std::size_t>(UbGemm::fc1_fprop)].aggregate = true;
  gathered_gemm(s, d, "ag", "fc1", 400, 160'000, timed_gemm(1.0), {}, UbGemm::fc1_fprop);
  CHECK(s.run_us() == Approx(440.0));
  REQUIRE(s.comms.size() == 2);
  CHECK(s.comms[0].bytes == Approx(40'000));
  CHECK(s.comms[1].bytes == Approx(80'000));
  CHECK(s.kernel_rows == std::vector<double>{200, 200});
}

TEST_CASE("userbuffers bulk overlaps: the collective holds the GEMM's num_sm SMs, the GEMM its margin") {
  // TE's bulk_overlap launches the collective with num_sm CTAs and the GEMM with sms - num_sm SMs
  // where set_sm_margin holds. 132 SMs, num_sm 24: a margin of 24 / 132.
  LayerDims d = dims(8, TpCommOverlap::userbuffers);
  d.sms = 132;
  d.tokens = 1000;
  d.h = 100;
  d.act_bytes = 2;
  d.ub[static_cast<std::size_t>(UbGemm::qkv_wgrad)] = {UbMethod::bulk, 24, true, 0, false, false};
  d.ub[static_cast<std::size_t>(UbGemm::qkv_dgrad)] = {UbMethod::bulk, 4, false, 0, false, false};
  CHECK(ub_sm_margin(d, UbGemm::qkv_wgrad) == Approx(24.0 / 132.0));
  CHECK(ub_sm_margin(d, UbGemm::qkv_dgrad) == 0.0);
  TimedSink s;
  tp_reduce(s, d, "rs", {}, UbGemm::qkv_wgrad);
  sp_gather_linear_input(s, d, "ag", {}, UbGemm::qkv_dgrad);
  REQUIRE(s.comms.size() == 2);
  CHECK(s.comms[0].sms == 24);
  CHECK(s.comms[0].kind == CollectiveKind::reduce_scatter);
  CHECK(s.comms[1].sms == 4);
  // Without userbuffers the same collectives take NCCL's channels (sms 0) and no GEMM a margin.
  d.tp_overlap = TpCommOverlap::async_tp;
  CHECK(ub_sm_margin(d, UbGemm::qkv_wgrad) == 0.0);
  TimedSink nccl;
  tp_reduce(nccl, d, "rs", {}, UbGemm::qkv_wgrad);
  CHECK(nccl.comms.at(0).sms == 0);
}
