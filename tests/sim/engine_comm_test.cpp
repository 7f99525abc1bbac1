// Compute slowed by communication on the same processor (SMs taken by comm kernels).
//
// A compute op with full-speed work W on a processor with comm_slowdown s advances at rate 1 while
// no transfer runs on the processor's comm streams, and at rate (1 - s) while at least one does.
// It ends when the work done, the integral of the rate over time, reaches W.
#include <catch2/catch.hpp>

#include "sim/engine.hpp"
#include "tests/sim/fake_network.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace {
constexpr Time ns(std::int64_t n) {
  return Time{n * 1'000};
}
}  // namespace

TEST_CASE("a transfer during a compute op stretches it by the lost throughput") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b, 0.2);

  SECTION("transfer active for the first 5 us of wall time") {
    const OpId c = b.add_op(compute(us(10)), g.compute);
    const OpId t = b.add_op(transfer(0), g.comm);
    const StepGraph graph = std::move(b).build();
    FakeNetwork net({{Time::zero(), us(5)}});
    const RunResult r = Engine(graph, &net).run();
    // [0,5) us at rate 0.8: 4 us of work done; the other 6 us at full speed: ends at 5 + 6 = 11 us.
    // The transfer itself is not slowed.
    CHECK(r.ops[t].end == us(5));
    CHECK(r.ops[c].end == us(11));
  }
  SECTION("transfer active while 5 us of the work is done (the brief's formula)") {
    const OpId c = b.add_op(compute(us(10)), g.compute);
    b.add_op(transfer(0), g.comm);
    const StepGraph graph = std::move(b).build();
    // 5 us of work at rate 0.8 takes 5 / 0.8 = 6.25 us, so the transfer lasts 6.25 us.
    FakeNetwork net({{Time::zero(), ns(6250)}});
    const RunResult r = Engine(graph, &net).run();
    // Slowed part: 6.25 us; the other 5 us of work at full speed: 11.25 us = 10 + 5 * 0.2 / (1 - 0.2).
    CHECK(r.ops[c].end == ns(11250));
  }
  SECTION("transfer starting and ending inside the compute op") {
    const OpId c = b.add_op(compute(us(10)), g.compute);
    b.add_op(delay(us(2)), g.comm);
    const OpId t = b.add_op(transfer(0), g.comm);
    const StepGraph graph = std::move(b).build();
    FakeNetwork net({{Time::zero(), us(4)}});
    const RunResult r = Engine(graph, &net).run();
    // [0,2): 2 us of work. Transfer [2,6): 4 * 0.8 = 3.2 us more, 5.2 done, 4.8 left.
    // [6, 6 + 4.8): ends at 10.8 us. A delay on the comm stream is not communication.
    CHECK(r.ops[t].start == us(2));
    CHECK(r.ops[c].end == ns(10800));
    CHECK(r.stats.retimings == 2);  // once when the transfer starts, once when it ends
  }
  SECTION("compute starting while a transfer already runs") {
    b.add_op(transfer(0), g.comm);
    const OpId wait = b.add_op(delay(us(1)), g.compute);
    const OpId c = b.add_op(compute(us(2)), g.compute);
    const StepGraph graph = std::move(b).build();
    FakeNetwork net({{Time::zero(), us(100)}});
    const RunResult r = Engine(graph, &net).run();
    // c starts at 1 us under an active transfer: 2 us / 0.8 = 2.5 us, ends at 3.5 us.
    CHECK(r.ops[wait].end == us(1));
    CHECK(r.ops[c].end == ns(3500));
  }
}

TEST_CASE("slowed durations round up to whole picoseconds") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b, 0.3);
  const OpId c = b.add_op(compute(Time{1000}), g.compute);
  b.add_op(transfer(0), g.comm);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time::zero(), us(1)}});
  const RunResult r = Engine(graph, &net).run();
  // 1000 ps of work at rate 0.7 takes 1428.57 ps: rounded up to 1429 ps.
  CHECK(r.ops[c].end == Time{1429});
}

TEST_CASE("only comm activity on the op's own processor, by transfers, switches the rate") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b, 0.5);
  const Gpu g1 = add_gpu(b, 0.5);
  const OpId c0 = b.add_op(compute(us(10)), g0.compute);
  const OpId m0 = b.add_op(memory(us(10)), g0.compute);
  const OpId c1 = b.add_op(compute(us(10)), g1.compute);
  b.add_op(transfer(0), g1.compute);  // a transfer on a compute-role stream is not comm activity
  const StreamId overlap[] = {g0.comm};
  const OpId t1 = b.add_op(transfer(1), overlap);
  const OpId t2 = b.add_op(transfer(2), b.add_stream(g0.processor, StreamRole::comm, "gpu0.comm2"));
  const StepGraph graph = std::move(b).build();
  // t1 [0,4) us and t2 [0,6) us on gpu0's two comm streams: active while either runs, i.e. [0,6).
  FakeNetwork net({{Time::zero(), us(1)}, {Time::zero(), us(4)}, {Time::zero(), us(6)}});
  const RunResult r = Engine(graph, &net).run();
  // c0: [0,6) at rate 0.5 = 3 us of work, 7 us left at full speed: ends at 13 us. The 1 -> 2 -> 1
  // transitions of the transfer count at 0 and 4 us change nothing; only 0 <-> >0 does.
  CHECK(r.ops[t1].end == us(4));
  CHECK(r.ops[t2].end == us(6));
  CHECK(r.ops[c0].end == us(13));
  // The memory op waits behind c0 on the stream and is never slowed: [13, 23).
  CHECK(r.ops[m0].end == us(23));
  // gpu1 saw no comm-stream transfer (its transfer runs on the compute stream, after c1): c1 keeps
  // full speed, [0,10) us, although gpu0's comm was busy.
  CHECK(r.ops[c1].end == us(10));
}

TEST_CASE("compute streams that share their processor split its speed among their running ops") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({0.0, true});
  const StreamId a = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId c = b.add_stream(p, StreamRole::compute, "gpu0.compute.lane1");
  const OpId a1 = b.add_op(compute(us(10)), a);
  const OpId a2 = b.add_op(compute(us(4)), a);
  const OpId c1 = b.add_op(compute(us(30)), c);
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph, nullptr).run();
  // a1 and c1 start together at 1/2 each: a1's 10 us of work end at 20 us, when c1 has done 10 of
  // its 30. a2 (4 us) then shares with c1: a2 ends at 28 us (c1 has done 14), and c1 alone does its
  // last 16 us by 44 us: the processor did 10 + 4 + 30 = 44 us of work at full speed in all.
  CHECK(r.ops[a1].end == us(20));
  CHECK(r.ops[a2].end == us(28));
  CHECK(r.ops[c1].end == us(44));
}

TEST_CASE("shared compute streams slow down together while communication runs") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({0.5, true});
  const StreamId a = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId c = b.add_stream(p, StreamRole::compute, "gpu0.compute.lane1");
  const StreamId comm = b.add_stream(p, StreamRole::comm, "gpu0.comm");
  const OpId a1 = b.add_op(compute(us(10)), a);
  const OpId c1 = b.add_op(compute(us(10)), c);
  b.add_op(transfer(0), comm);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time::zero(), us(8)}});
  const RunResult r = Engine(graph, &net).run();
  // [0, 8) us: two ops at 0.5 / 2 = 0.25 each, 2 us of work apiece; then 8 us left each at 1/2:
  // both end at 8 + 16 = 24 us.
  CHECK(r.ops[a1].end == us(24));
  CHECK(r.ops[c1].end == us(24));
}

TEST_CASE("reserved communication SMs: compute runs at 1 - s throughout, with or without a transfer") {
  // Processor::reserved_comm (DeepGEMM on 112 of 132 SMs beside DeepEP): rate 0.8 always, so 10 us
  // of work takes 10 / 0.8 = 12.5 us alone, and the same under a transfer (no re-timing).
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor({0.2, false, true});
  const StreamId compute_stream = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId comm_stream = b.add_stream(p, StreamRole::comm, "gpu0.comm");
  const OpId alone = b.add_op(compute(us(10)), compute_stream);
  const OpId beside = b.add_op(compute(us(10)), compute_stream);
  const OpId wait = b.add_op(delay(ns(13000)), comm_stream);
  b.add_op(transfer(0), comm_stream);
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time::zero(), us(4)}});
  const RunResult r = Engine(graph, &net).run();
  CHECK(r.ops[wait].end == ns(13000));
  CHECK(r.ops[alone].end == ns(12500));
  // The transfer runs [13, 17) us inside the second op, which still ends 12.5 us after it began.
  CHECK(r.ops[beside].end == ns(25000));
  CHECK(r.stats.retimings == 0);
}

namespace {
/// 10 us of compute starting with a transfer of [0, 4) us on one processor `p`.
RunResult compute_beside_a_transfer(const Processor& p) {
  StepGraphBuilder b;
  const ProcessorId id = b.add_processor(p);
  b.add_op(compute(us(10)), b.add_stream(id, StreamRole::compute, "gpu0.compute"));
  b.add_op(transfer(0), b.add_stream(id, StreamRole::comm, "gpu0.comm"));
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time::zero(), us(4)}});
  return Engine(graph, &net).run();
}
}  // namespace

TEST_CASE("communication interference slows compute beyond the SM share while a transfer runs") {
  // Processor{0.2, false, false, 1.25}: under a transfer compute runs at (1 - 0.2) / 1.25 = 0.64.
  // 10 us of work starts with a transfer of [0, 4) us: 4 x 0.64 = 2.56 us done, 7.44 us left at
  // full speed: it ends at 11.44 us.
  const RunResult r = compute_beside_a_transfer({0.2, false, false, 1.25});
  CHECK(r.ops[0].end == ns(11440));
  // Re-timed when the transfer starts (the op started first, at the same instant) and when it ends.
  CHECK(r.stats.retimings == 2);
}

TEST_CASE("reserved communication SMs with interference: 1 - s without a transfer, (1 - s) / i with one") {
  // Processor{0.2, false, true, 1.25}: 0.8 with no transfer, 0.64 under one. 10 us of work with a
  // transfer of [0, 4) us: 2.56 us done by 4 us, 7.44 us left at 0.8 take 9.3 us: ends at 13.3 us.
  CHECK(compute_beside_a_transfer({0.2, false, true, 1.25}).ops[0].end == ns(13300));
}

TEST_CASE("a processor refuses communication interference below 1") {
  StepGraphBuilder b;
  CHECK_THROWS_AS(b.add_processor({0.1, false, false, 0.9}), std::invalid_argument);
}

TEST_CASE("a comm stream marked alt_comm takes its processor's other SM share") {
  // Processor{s = 0.2, alt = 0.05}: a transfer on the NCCL stream slows compute to 0.8, one on the
  // alt_comm stream (DeepEP's kernels) to 0.95; while both run the larger share holds (0.8).
  StepGraphBuilder b;
  Processor spec;
  spec.comm_slowdown = 0.2;
  spec.alt_comm_slowdown = 0.05;
  const ProcessorId p = b.add_processor(spec);
  const StreamId compute_stream = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId nccl = b.add_stream(p, StreamRole::comm, "gpu0.comm.dp");
  const StreamId deepep = b.add_stream(p, StreamRole::comm, "gpu0.comm.ep", true);
  const OpId c = b.add_op(compute(us(20)), compute_stream);
  b.add_op(transfer(0), deepep);  // [0, 8) us
  b.add_op(delay(us(4)), nccl);
  b.add_op(transfer(1), nccl);  // [4, 6) us
  const StepGraph graph = std::move(b).build();
  FakeNetwork net({{Time::zero(), us(8)}, {Time::zero(), us(2)}});
  const RunResult r = Engine(graph, &net).run();
  // [0, 4): 0.95 x 4 = 3.8; [4, 6): both, 0.8 x 2 = 1.6; [6, 8): 0.95 x 2 = 1.9; 7.3 us of work by
  // 8 us, 12.7 left at full speed: ends at 20.7 us.
  CHECK(r.ops[c].end == ns(20700));
  CHECK(r.stats.retimings == 4);  // at 0, 4, 6 and 8 us: each change of the share
}

TEST_CASE("alt_comm streams need a comm role and a processor with an alt share") {
  StepGraphBuilder b;
  const ProcessorId plain = b.add_processor({0.1});
  CHECK_THROWS_AS(b.add_stream(plain, StreamRole::comm, "x", true), std::invalid_argument);
  Processor spec;
  spec.alt_comm_slowdown = 0.1;
  const ProcessorId p = b.add_processor(spec);
  CHECK_THROWS_AS(b.add_stream(p, StreamRole::compute, "y", true), std::invalid_argument);
  CHECK_NOTHROW(b.add_stream(p, StreamRole::comm, "z", true));
  spec.alt_comm_slowdown = 1.0;
  CHECK_THROWS_AS(b.add_processor(spec), std::invalid_argument);
}

namespace {
/// A FakeNetwork whose transfers' kernels hold known SM shares (payload -> share; absent: unknown).
class SharedSmNetwork : public FakeNetwork {
 public:
  SharedSmNetwork(std::vector<FakeTransfer> table, std::map<std::uint32_t, double> shares)
      : FakeNetwork(std::move(table)), shares_(std::move(shares)) {}
  double sm_share(std::uint32_t payload) const override {
    const auto it = shares_.find(payload);
    return it == shares_.end() ? -1.0 : it->second;
  }

 private:
  std::map<std::uint32_t, double> shares_;
};
}  // namespace

TEST_CASE("transfers holding their own SMs add their shares (Processor::transfer_shares)") {
  // Processor{default share 0.2, alt 0.05, transfer_shares}: each transfer takes the share its
  // network reports (NCCL's CTAs over the GPU's SMs), transfers running at once add up; those of
  // unknown share take the default once however many run; the alt stream's take the alt share.
  StepGraphBuilder b;
  Processor spec;
  spec.comm_slowdown = 0.2;
  spec.alt_comm_slowdown = 0.05;
  spec.transfer_shares = true;
  const double interference = GENERATE(1.0, 1.25);
  spec.comm_interference = interference;
  const ProcessorId p = b.add_processor(spec);
  const StreamId compute_stream = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  std::vector<StreamId> comm;
  for (int i = 0; i < 4; ++i) comm.push_back(b.add_stream(p, StreamRole::comm, "gpu0.comm"));
  const StreamId alt = b.add_stream(p, StreamRole::comm, "gpu0.comm.ep", true);
  const OpId c = b.add_op(compute(us(40)), compute_stream);
  b.add_op(transfer(0), comm[0]);  // share 0.10, [0, 8) us
  b.add_op(delay(us(4)), comm[1]);
  b.add_op(transfer(1), comm[1]);  // share 0.15, [4, 6)
  b.add_op(delay(us(10)), comm[2]);
  b.add_op(transfer(2), comm[2]);  // unknown, [10, 12)
  b.add_op(delay(us(10)), comm[3]);
  b.add_op(transfer(3), comm[3]);  // unknown, [10, 12)
  b.add_op(delay(us(14)), alt);
  b.add_op(transfer(4), alt);  // the alt share, [14, 16)
  const StepGraph graph = std::move(b).build();
  SharedSmNetwork net({{Time::zero(), us(8)},
                       {Time::zero(), us(2)},
                       {Time::zero(), us(2)},
                       {Time::zero(), us(2)},
                       {Time::zero(), us(2)}},
                      {{0, 0.10}, {1, 0.15}});
  const RunResult r = Engine(graph, &net).run();
  // Work done by 16 us, each interval's rate (1 - share) / interference (1 where nothing runs):
  //   [0, 4) 0.90 x 4 = 3.6; [4, 6) 0.75 x 2 = 1.5; [6, 8) 0.90 x 2 = 1.8; [8, 10) 1 x 2 = 2;
  //   [10, 12) the two unknown ones, 0.2 once: 0.8 x 2 = 1.6; [12, 14) 2; [14, 16) 0.95 x 2 = 1.9.
  const double slowed = (3.6 + 1.5 + 1.8 + 1.6 + 1.9) / interference;
  const double work_by_16 = slowed + 2.0 + 2.0;
  // The rest at full speed: ends at 16 + (40 - work by 16) us.
  // Each re-timing rounds up to a whole picosecond: within 1e-6 of the 42 us.
  CHECK(to_seconds(r.ops[c].end) == Approx((16.0 + 40.0 - work_by_16) * 1e-6).epsilon(1e-6));
}

TEST_CASE("a kernel with an SM margin runs on the rest and only a larger share slows it (Op::sm_margin)") {
  // Processor{transfer_shares, interference 1 or 1.25}. Two GEMMs run one after the other on one
  // compute stream: A leaves 0.1875 of the SMs (Transformer Engine's set_sm_margin, here 3/16 so
  // that the margin's 2^-16 units hold it exactly), B none. Transfers of share 0.10 over [0, 8) us and 0.30
  // over [12, 14) us.
  StepGraphBuilder b;
  Processor spec;
  spec.comm_slowdown = 0.2;
  spec.transfer_shares = true;
  const double interference = GENERATE(1.0, 1.25);
  spec.comm_interference = interference;
  const ProcessorId p = b.add_processor(spec);
  const StreamId compute_stream = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  const StreamId comm0 = b.add_stream(p, StreamRole::comm, "gpu0.comm");
  const StreamId comm1 = b.add_stream(p, StreamRole::comm, "gpu0.comm");
  Op a = compute(us(20));
  a.sm_margin = 0.1875;
  const OpId ga = b.add_op(a, compute_stream);
  const OpId gb = b.add_op(compute(us(10)), compute_stream);
  b.add_op(transfer(0), comm0);  // share 0.10, [0, 8) us
  b.add_op(delay(us(12)), comm1);
  b.add_op(transfer(1), comm1);  // share 0.30, [12, 14) us
  const StepGraph graph = std::move(b).build();
  SharedSmNetwork net({{Time::zero(), us(8)}, {Time::zero(), us(2)}}, {{0, 0.10}, {1, 0.30}});
  const RunResult r = Engine(graph, &net).run();
  // A's rate: min(1 - 0.1875, 1 - share) / interference while a transfer runs, else 0.8125:
  //   [0, 8) the 0.10 share is inside the margin: 0.8125 / I x 8; [8, 12) 0.8125 x 4 = 3.25;
  //   [12, 14) the 0.30 share exceeds it: 0.70 / I x 2; then 0.8125 until its 20 us are done.
  const double by_14 = (0.8125 * 8.0 + 0.70 * 2.0) / interference + 3.25;
  const double a_end = 14.0 + (20.0 - by_14) / 0.8125;
  CHECK(to_seconds(r.ops[ga].end) == Approx(a_end * 1e-6).epsilon(1e-6));
  // B, no margin, starts where A ends (after both transfers) and runs at full speed.
  CHECK(to_seconds(r.ops[gb].end) == Approx((a_end + 10.0) * 1e-6).epsilon(1e-6));
}

TEST_CASE("an SM margin without communication caps the kernel's speed, and the graph refuses a bad one") {
  StepGraphBuilder b;
  const ProcessorId p = b.add_processor(Processor{});
  const StreamId s = b.add_stream(p, StreamRole::compute, "gpu0.compute");
  Op a = compute(us(10));
  a.sm_margin = 0.25;
  const OpId ga = b.add_op(a, s);
  // 10 us of full-speed work on 0.75 of the SMs: 13.33 us.
  const StepGraph graph = std::move(b).build();
  const RunResult r = Engine(graph).run();
  CHECK(to_seconds(r.ops[ga].end) == Approx(10.0 / 0.75 * 1e-6).epsilon(1e-6));
  StepGraphBuilder bad;
  const StreamId s2 = bad.add_stream(bad.add_processor(Processor{}), StreamRole::compute, "gpu0.compute");
  Op over = compute(us(1));
  over.sm_margin = 1.0;
  CHECK_THROWS_AS(bad.add_op(over, s2), std::invalid_argument);
}
