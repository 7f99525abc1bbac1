#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/fake_planner.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/routing.hpp"
#include "workloads/step/train_step.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::FixedCostPlanner;

namespace {

/// A small MoE model: 4 layers (the first dense, FFN 4096), h = 1024, 16 heads of 64, 8 experts of
/// width 2048, top-2, vocab 32,000; on one 8-GPU H100-like node. PP 2 x DP 4 with EP 4: the EP group
/// of stage 0 is ranks {0, 2, 4, 6} (order tp, cp, pp, dp: pp is innermost after tp and cp).
JobSpec moe_job(double imbalance = 1.0) {
  JobSpec j;
  ModelSpec& m = j.model;
  m.id = "tiny-moe";
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 16;
  m.head_dim = 64;
  m.ffn = 4096;
  m.vocab = 32000;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn = 2048;
  m.dense_layers = 1;
  j.workload.seq_len = 1024;
  j.workload.micro_batch = 1;
  j.workload.global_batch = 4 * 4;  // dp 4 x 4 micro-batches
  j.parallel.pp = 2;
  j.parallel.dp = 4;
  j.parallel.ep = 4;
  j.moe.imbalance = imbalance;
  topo::GpuSpec& g = j.cluster.gpu;
  g.id = "h100-like";
  g.bf16_peak = units::flops_per_s(989e12);
  g.fp32_peak = units::flops_per_s(67e12);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  g.hbm_capacity = units::bytes(80e9);
  g.nvlink_bw = units::bytes_per_s(450e9);
  g.nvlink_domain = 8;
  g.pcie_bw = units::bytes_per_s(64e9);
  g.nic_bw = units::bytes_per_s(50e9);
  g.kernel_gap_s = 4e-6;
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 8;
  j.cluster.nvlink_domain = 8;
  return j;
}

/// Collectives of `kind` on the expert-parallel group, as the builder asked for them.
std::vector<CommRequest> all_to_alls(const FixedCostPlanner& p) {
  std::vector<CommRequest> out;
  for (const auto& r : p.requests)
    if (r.dim == ParallelDim::ep && r.kind == CollectiveKind::all_to_all) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("MoE step: dispatch and combine move tokens x hidden x top-k bytes per rank") {
  FixedCostPlanner planner([](const CommRequest&) { return Time::zero(); });
  const StepPlan plan = build_train_step(moe_job(), planner);
  const auto a2a = all_to_alls(planner);
  REQUIRE_FALSE(a2a.empty());
  // Each rank routes its 1,024 tokens to 2 experts: 1,024 x 1,024 x 2 x 2 B = 4,194,304 bytes sent,
  // the same received (balanced), over the EP group of stage 0 or 1: {0,2,4,6} or {1,3,5,7}.
  for (const auto& r : a2a) {
    CHECK(r.bytes == Approx(4'194'304.0));
    CHECK(r.pair_bytes.empty());
    REQUIRE(r.groups.size() == 1);
    CHECK((r.groups.front() == std::vector<int>{0, 2, 4, 6} ||
           r.groups.front() == std::vector<int>{1, 3, 5, 7}));
  }
  // The first layer is dense (dense_layers = 1): no router in it; layers 1-3 route.
  bool router_in_0 = false, router_in_1 = false;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    if (op_label(plan, op).find(".router mb") == std::string::npos) continue;
    router_in_0 |= plan.info[op].layer == 0;
    router_in_1 |= plan.info[op].layer == 1;
  }
  CHECK_FALSE(router_in_0);
  CHECK(router_in_1);
}

TEST_CASE("MoE step: with skewed routing the matrix still sends what it receives") {
  FixedCostPlanner planner([](const CommRequest&) { return Time::zero(); });
  build_train_step(moe_job(2.0), planner);
  const auto a2a = all_to_alls(planner);
  int matrices = 0;
  for (const auto& r : a2a) {
    // The balanced counterparts (planned to price the imbalance) are plain all-to-alls.
    if (r.pair_bytes.empty()) {
      CHECK(r.bytes == Approx(4'194'304.0));
      continue;
    }
    ++matrices;
    REQUIRE(r.pair_bytes.size() == 16);
    double sent = 0.0, received = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) sent += r.pair_bytes[i * 4 + j], received += r.pair_bytes[j * 4 + i];
    // 4 ranks x 4,194,304 bytes each, whatever the skew.
    CHECK(sent == Approx(4 * 4'194'304.0));
    CHECK(received == Approx(sent));
  }
  // Three MoE layers, a dispatch and a combine matrix each (the payloads are cached per layer).
  CHECK(matrices == 6);
}

TEST_CASE("MoE step: more skew is never faster") {
  // Property: for several seeds, the step time does not decrease as the imbalance grows.
  for (std::uint64_t seed : {1u, 7u, 42u}) {
    double previous = 0.0;
    for (double imbalance : {1.0, 1.2, 1.5, 2.0, 3.0, 4.0}) {
      JobSpec job = moe_job(imbalance);
      job.moe.seed = seed;
      const double step = simulate(job).report.step_time_s;
      CHECK(step >= previous * (1.0 - 1e-12));
      previous = step;
    }
  }
}

TEST_CASE("MoE step: the representative busiest rank paces the step like the full simulation") {
  // Every EP rank simulated (the seed decides which is busiest, layer by layer) against one rank per
  // stage that is the busiest in every layer. The all-to-alls synchronise the group twice per layer,
  // so both runs pay the per-layer maxima. The groups sit on one NVLink switch, so relabelling the
  // busiest rank is a symmetry of the fabric.
  for (double imbalance : {1.0, 1.5, 3.0}) {
    const JobSpec job = moe_job(imbalance);
    SimulateOptions all;
    all.ranks = RankMode::all;
    const Simulation rep = simulate(job);
    const Simulation full = simulate(job, all);
    CHECK(rep.plan.ranks.size() == 2);
    CHECK(full.plan.ranks.size() == 8);
    CHECK(rep.report.step_time_s == Approx(full.report.step_time_s).epsilon(1e-9));
  }
}

TEST_CASE("MoE step: representative and full simulation agree across nodes with node-limited routing") {
  // 16 GPUs in 4 nodes of 4: stage 0 holds ranks {0, 2, ..., 14}, so the EP group {0, 2, 4, 6} spans
  // nodes 0 and 1 and tokens reach one node each (M = 1); expert-DP pairs such as {0, 8} reduce expert
  // gradients (ZeRO-1) beside the dense DP group of 8. In the full simulation the expert and dense
  // reductions share no channel, so every member sees each group's collectives in program order.
  JobSpec job = moe_job(1.5);
  job.cluster.nodes = 4;
  job.cluster.gpus_per_node = 4;
  job.cluster.nvlink_domain = 4;
  job.parallel.dp = 8;
  job.workload.global_batch = 8 * 2;
  job.parallel.zero_stage = 1;
  job.moe.max_nodes_per_token = 1;
  SimulateOptions all;
  all.ranks = RankMode::all;
  const Simulation rep = simulate(job);
  const Simulation full = simulate(job, all);
  CHECK(full.plan.ranks.size() == 16);
  // Relabelling the busiest rank swaps whole nodes and in-node positions: a symmetry of the
  // rail-optimised fabric up to which equal-cost paths the flows take, so agreement within 1%.
  CHECK(rep.report.step_time_s == Approx(full.report.step_time_s).epsilon(0.01));
}

TEST_CASE("MoE step: the imbalance cost is zero when balanced and grows with the skew") {
  const Simulation balanced = simulate(moe_job(1.0));
  const Simulation skewed = simulate(moe_job(2.0));
  CHECK(balanced.metrics.imbalance_s == Approx(0.0).margin(1e-12));
  CHECK(skewed.metrics.imbalance_s > 0.0);
  // It is the busiest rank's extra expert and all-to-all time: no more than the step grew by plus
  // what overlapping hides.
  CHECK(skewed.plan.routing.expert_imbalance == Approx(2.0));
  CHECK(skewed.report.step_time_s > balanced.report.step_time_s);
}

TEST_CASE("a balanced router's all-to-all takes the analytic time on a uniform fabric") {
  // 8 GPUs on one NVSwitch: every pair crosses its sender's NVLink and its receiver's; a balanced
  // all-to-all sends S (p - 1) / p = 7/8 S through each GPU's link at 450 GB/s x 0.82. The fixed part
  // (launch, per-peer latency) cancels in T(2S) - T(S) = 7/8 S / (450e9 x 0.82).
  const JobSpec job = moe_job();
  auto topology = std::make_shared<const topo::Topology>(job.cluster);
  RoutingInputs in;
  in.experts = 8;
  in.top_k = 2;
  in.tokens_per_rank = 4096;
  in.node_of.assign(8, 0);
  in.vector_bytes = 1024 * 2.0;
  const LayerRouting r = route_layer(in, 0, HotRank::as_drawn);
  REQUIRE(r.uniform);
  const double S = r.sent(0) * in.vector_bytes;  // 4,096 x 2 x 2,048 B = 16,777,216
  CHECK(S == Approx(16'777'216.0));
  topo::TransferTableBuilder tb(topology);
  const auto request = [&](double scale, bool matrix) {
    topo::CollectiveRequest c;
    c.op = topo::CollectiveOp::all_to_all;
    c.groups = {{0, 1, 2, 3, 4, 5, 6, 7}};
    c.bytes = S * scale;
    if (matrix)
      for (double b : r.dispatch_bytes) c.pair_bytes.push_back(b * scale);
    return tb.table().info(tb.add(c)).time_alone_s;
  };
  const double bandwidth = 450e9 * 0.82;
  const double expected = 7.0 / 8.0 * S / bandwidth;  // 47.75 us
  CHECK(request(2.0, true) - request(1.0, true) == Approx(expected).epsilon(1e-9));
  // The router's matrix and the plain all-to-all are the same transfer.
  CHECK(request(1.0, true) == Approx(request(1.0, false)).epsilon(1e-12));
}

TEST_CASE("MTP: one more MoE layer, its glue and a second loss on the last stage only") {
  FixedCostPlanner p0([](const CommRequest&) { return Time::zero(); });
  FixedCostPlanner p1([](const CommRequest&) { return Time::zero(); });
  JobSpec job = moe_job();
  const StepPlan without = build_train_step(job, p0);
  job.model.mtp_layers = 1;
  const StepPlan with = build_train_step(job, p1);
  // FLOPs of rank `rank`'s ops in layer `layer` (any layer: -2) whose label contains one of `names`
  // (all ops: none given).
  const auto flops_of = [](const StepPlan& plan, int rank, int layer, std::vector<std::string> names = {}) {
    double f = 0.0;
    for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
      if (plan.info[op].rank != rank || (layer != -2 && plan.info[op].layer != layer)) continue;
      const std::string label = op_label(plan, op);
      bool match = names.empty();
      for (const auto& n : names) match |= label.find(n) != std::string::npos;
      if (match) f += plan.graph.info(op).flops;
    }
    return f;
  };
  // Stage 0 (rank 0) is unchanged.
  CHECK(flops_of(with, 0, -2) == Approx(flops_of(without, 0, -2)));
  // The glue's projection [1024 x 2048] x [2048 x 1024]: forward, dgrad and wgrad, 4 micro-batches.
  CHECK(flops_of(with, 1, 4, {"mtp.proj"}) == Approx(4 * 3 * 2.0 * 1024 * 2048 * 1024));
  // The MTP layer (index 4) does what the last model layer (index 3, also routed) does; its context
  // also holds the glue, the embedding lookup and the head's second pass.
  const std::vector<std::string> glue_and_head{"mtp.", "embed", "final_norm", "logits", "loss"};
  CHECK(flops_of(with, 1, 4) - flops_of(with, 1, 4, glue_and_head) == Approx(flops_of(with, 1, 3)));
  CHECK(flops_of(with, 1, -2, {"logits"}) == Approx(2 * flops_of(without, 1, -2, {"logits"})));
  // Weights on the last stage grow by the layer, the glue (two norms, 2h x h) and an embedding copy,
  // 2 bytes each; the layer holds attention 4h^2, two norms 2h, a router 8h and 8 / ep 4 = 2 experts
  // of 3 x h x 2048.
  const double h = 1024.0;
  const double layer = 4 * h * h + 2 * h + 8 * h + 2 * 3 * h * 2048;
  const double glue = 2 * h + 2 * h * h, embedding = 32000 * h;
  CHECK(with.static_memory[1].weights - without.static_memory[1].weights ==
        Approx(2 * (layer + glue + embedding)));
  CHECK(with.static_memory[0].weights == Approx(without.static_memory[0].weights));
}

TEST_CASE("MTP: representative and full simulation agree, and the step is no faster") {
  JobSpec job = moe_job();
  const Simulation plain = simulate(job);
  job.model.mtp_layers = 1;
  SimulateOptions all;
  all.ranks = RankMode::all;
  const Simulation rep = simulate(job);
  const Simulation full = simulate(job, all);
  CHECK(rep.report.step_time_s == Approx(full.report.step_time_s).epsilon(0.01));
  CHECK(rep.report.step_time_s > plain.report.step_time_s);
}

TEST_CASE("MoE step: overlapped backward-forward pairs hide all-to-all time and do the same work") {
  // Slow NVLink (20 GB/s) makes the all-to-alls worth hiding. 1F1B on 2 stages with 4 micro-batches:
  // stage 0 runs F0 F1 (B0 F2) (B1 F3) B2 B3, two pairs.
  JobSpec job = moe_job(1.0);
  job.cluster.gpu.nvlink_bw = units::bytes_per_s(20e9);
  const Simulation plain = simulate(job);
  job.parallel.ep_overlap = true;
  const Simulation paired = simulate(job);
  const auto kernel_work = [](const Simulation& s) {
    double w = 0.0;
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op)
      if (s.plan.graph.exec(op).kind == sim::OpKind::compute) w += to_seconds(s.plan.graph.exec(op).work);
    return w;
  };
  CHECK(kernel_work(paired) == Approx(kernel_work(plain)).epsilon(1e-12));
  CHECK(paired.report.step_time_s < plain.report.step_time_s);
  const auto ep_hidden = [](const Simulation& s) {
    const auto& o = s.report.mean_overlap;
    const auto d = static_cast<std::size_t>(ParallelDim::ep);
    return o.busy_s[d] - o.exposed_s[d];
  };
  CHECK(ep_hidden(paired) > ep_hidden(plain));
  // Every EP rank simulated agrees with one rank per stage.
  SimulateOptions all;
  all.ranks = RankMode::all;
  CHECK(simulate(job, all).report.step_time_s == Approx(paired.report.step_time_s).epsilon(1e-9));
}

namespace {

/// The [start, end) of `rank`'s ops of pass `pass` and micro-batch `mb`: its kernels, or with `host`
/// its host launches, in start order, with their labels.
struct Timed {
  Time start, end;
  std::string label;
};
std::vector<Timed> ops_of(const Simulation& s, int rank, Pass pass, int mb, bool host = false) {
  std::vector<Timed> out;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    const OpInfo& i = s.plan.info[op];
    if (i.rank != rank || i.pass != pass || i.microbatch != mb || i.is_comm || i.is_host != host) continue;
    if (!host && s.plan.graph.exec(op).kind != sim::OpKind::compute) continue;
    out.push_back({s.run.ops[op].start, s.run.ops[op].end, op_label(s.plan, op)});
  }
  std::sort(out.begin(), out.end(), [](const Timed& a, const Timed& b) { return a.start < b.start; });
  return out;
}

/// Whether no interval of `a` overlaps one of `b` (both in start order).
bool disjoint(const std::vector<Timed>& a, const std::vector<Timed>& b) {
  for (const Timed& x : a)
    for (const Timed& y : b)
      if (x.start < y.end && y.start < x.end && x.end > x.start && y.end > y.start) return false;
  return true;
}

/// The first and last op of `ops` whose label contains `what`.
const Timed& first_with(const std::vector<Timed>& ops, std::string_view what) {
  for (const Timed& t : ops)
    if (t.label.find(what) != std::string::npos) return t;
  FAIL("no op labelled " << what);
  return ops.front();
}
const Timed& last_with(const std::vector<Timed>& ops, std::string_view what) {
  for (auto it = ops.rbegin(); it != ops.rend(); ++it)
    if (it->label.find(what) != std::string::npos) return *it;
  FAIL("no op labelled " << what);
  return ops.back();
}

}  // namespace

TEST_CASE("MoE step: an overlapped pair's halves take turns on the compute stream in Megatron-Core's order") {
  // moe_job's stage 0 holds layer 0 (dense) and layer 1 (MoE) and runs F0 F1 (B0 F2) (B1 F3) B2 B3.
  // In the pair (B0, F2) each half's kernels are cut at its expert all-to-alls: the backward's B0
  // (layer 1's output gradient, up to its combine gradient), B1 (the experts' backward, up to the
  // dispatch gradient), B2 (router, attention and layer 0); the forward's F0 (layer 0, layer 1's
  // attention and router, up to its dispatch), F1 (the experts, up to the combine), F2 (the rest).
  // Megatron-Core's TransformerLayerSchedulePlan.run issues them B0 F0 B1 F1 B2 F2 on one stream.
  JobSpec job = moe_job(1.0);
  job.cluster.gpu.nvlink_bw = units::bytes_per_s(20e9);
  job.parallel.ep_overlap = true;
  const auto check_turns = [](const Simulation& s) {
    const auto b = ops_of(s, 0, Pass::backward, 0), f = ops_of(s, 0, Pass::forward, 2);
    REQUIRE(!b.empty());
    REQUIRE(!f.empty());
    CHECK(disjoint(b, f));  // one compute stream: never two kernels at once
    CHECK(f.front().start >= last_with(b, "L1.bwd.bda2.bwd").end);                 // F0 after B0
    CHECK(first_with(b, "L1.bwd.experts").start >= last_with(f, "router").end);    // B1 after F0
    CHECK(first_with(f, "L1.fwd.experts").start >= last_with(b, "experts").end);   // F1 after B1
    CHECK(first_with(b, "L1.bwd.attn.bwd").start >= last_with(f, "experts").end);  // B2 after F1
  };
  check_turns(simulate(job));  // no host timeline (moe_job's GPU has no launch cost)
  // Launched eagerly, the host issues the halves' launches in the same turns, one at a time.
  job.cluster.gpu.host_launch_s = 5e-6;
  job.cluster.gpu.host_framework_s = 20e-6;
  const Simulation eager = simulate(job);
  check_turns(eager);
  const auto hb = ops_of(eager, 0, Pass::backward, 0, true), hf = ops_of(eager, 0, Pass::forward, 2, true);
  REQUIRE(!hb.empty());
  REQUIRE(!hf.empty());
  CHECK(disjoint(hb, hf));
  // The forward's first launch follows the backward's first segment's, not the whole backward's.
  CHECK(hf.front().start < hb.back().start);
  // Every EP rank simulated agrees with one rank per stage.
  SimulateOptions all;
  all.ranks = RankMode::all;
  CHECK(simulate(job, all).report.step_time_s == Approx(eager.report.step_time_s).epsilon(1e-9));
}

TEST_CASE("MoE step: DualPipe's overlapped pairs take turns too, on every rank alike") {
  // DualPipe over 2 ranks (each holds both stages), 4 micro-batches, launched eagerly: every pair's
  // halves take turns, so the rank's two compute streams never run a kernel at the same time, and
  // simulating every GPU gives the representative step.
  JobSpec job = moe_job(1.0);
  job.cluster.gpu.nvlink_bw = units::bytes_per_s(20e9);
  job.parallel.schedule = PipelineSchedule::dualpipe;
  job.parallel.ep_overlap = true;
  job.cluster.gpu.host_launch_s = 5e-6;
  job.cluster.gpu.host_framework_s = 20e-6;
  const Simulation rep = simulate(job);
  for (const SimRank& r : rep.plan.ranks) {
    REQUIRE(r.compute_pair != SimRank::kNoStream);
    const auto timed = [&](sim::StreamId stream) {
      std::vector<Timed> out;
      for (sim::OpId op : rep.plan.graph.ops_on(stream))
        if (rep.run.ops[op].end > rep.run.ops[op].start)
          out.push_back({rep.run.ops[op].start, rep.run.ops[op].end, op_label(rep.plan, op)});
      return out;
    };
    const auto main = timed(r.compute), pair = timed(r.compute_pair);
    CHECK(!pair.empty());
    CHECK(disjoint(main, pair));
  }
  SimulateOptions all;
  all.ranks = RankMode::all;
  CHECK(simulate(job, all).report.step_time_s == Approx(rep.report.step_time_s).epsilon(1e-9));
}

TEST_CASE("MoE step: FP8 dispatch sends a byte and a scale per 128 elements, the combine 2 bytes") {
  FixedCostPlanner planner([](const CommRequest&) { return Time::zero(); });
  JobSpec job = moe_job(1.0);
  job.precision.compute = topo::Precision::fp8;
  job.cluster.gpu.fp8_peak = units::flops_per_s(1979e12);
  job.moe.fp8_dispatch = true;
  const StepPlan plan = build_train_step(job, planner);
  // 1,024 tokens x top-2 x h 1,024 per rank: dispatch 2,097,152 elements x (1 + 4 / 128) bytes =
  // 2,162,688; combine x 2 bytes = 4,194,304.
  int dispatch = 0, combine = 0;
  for (const auto& r : all_to_alls(planner)) {
    if (r.bytes == Approx(2'162'688.0)) ++dispatch;
    if (r.bytes == Approx(4'194'304.0)) ++combine;
  }
  // Every EP all-to-all is one of the two, and each FP8 send to the experts (the forward's dispatch,
  // the backward's gradients) has its 16-bit way back (the forward's combine, the backward's
  // gradients from the experts: docs/scenarios.md, moe.fp8_dispatch).
  CHECK(dispatch > 0);
  CHECK(dispatch == combine);
  CHECK(std::size_t(dispatch + combine) == all_to_alls(planner).size());
  // The tokens are quantised before they leave; the experts still build the column-wise copy their
  // weight gradient needs.
  bool before_dispatch = false, in_experts = false;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const std::string label = op_label(plan, op);
    before_dispatch |= label.find(".dispatch.quantize") != std::string::npos;
    in_experts |= label.find(".experts_up.quantize") != std::string::npos;
  }
  CHECK(before_dispatch);
  CHECK(in_experts);
}

namespace {

/// moe_job as a decode step on one stage: the 8 GPUs each serve `batch` sequences (DP 8, EP 8) over a
/// slow NVLink (5 GB/s), so that the expert all-to-alls cost about what the kernels do; a 1 us gap
/// per kernel (CUDA graphs) and capacity-limited routing (no exchange of token counts), so that each
/// half waits only on its dispatch and combine.
JobSpec moe_decode(int batch, bool overlap) {
  JobSpec j = moe_job(1.0);
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = batch;
  j.workload.context_len = 512;
  j.workload.cuda_graphs = true;
  j.parallel.pp = 1;
  j.parallel.dp = 8;
  j.parallel.ep = 8;
  j.parallel.ep_overlap = overlap;
  j.cluster.gpu.nvlink_bw = units::bytes_per_s(5e9);
  j.cluster.gpu.kernel_gap_s = 1e-6;
  j.moe.capacity_factor = 1.25;
  return j;
}

/// The [start, end) intervals of rank 0's kernels whose label ends in `suffix` (" mb0", " mb1").
std::vector<std::pair<Time, Time>> kernels_of(const Simulation& s, std::string_view suffix) {
  std::vector<std::pair<Time, Time>> out;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    const std::string label = op_label(s.plan, op);
    if (s.plan.graph.exec(op).kind != sim::OpKind::compute || !label.ends_with(suffix)) continue;
    out.emplace_back(s.run.ops[op].start, s.run.ops[op].end);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("MoE decode: two-micro-batch overlap takes turns between the halves and hides all-to-alls") {
  const Simulation plain = simulate(moe_decode(64, false));
  const Simulation halves = simulate(moe_decode(64, true));
  // Each half of 32 sequences runs every layer: twice the MoE layers' dispatches of the plain step.
  const auto count = [](const Simulation& s, std::string_view what) {
    int n = 0;
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op)
      n += op_label(s.plan, op).find(what) != std::string::npos;
    return n;
  };
  CHECK(count(plain, "ep.dispatch") == 3);  // layers 1-3 have experts
  CHECK(count(halves, "ep.dispatch mb0") == 3);
  CHECK(count(halves, "ep.dispatch mb1") == 3);
  // The halves take turns on the GPU (SGLang's two-batch overlap on one stream): no kernel of one
  // half runs while a kernel of the other does.
  const auto a = kernels_of(halves, " mb0"), b = kernels_of(halves, " mb1");
  REQUIRE(!a.empty());
  REQUIRE(!b.empty());
  std::size_t j = 0;
  for (const auto& [start, end] : a) {
    while (j < b.size() && b[j].second <= start) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < end; ++k)
      CHECK((b[k].second <= start || b[k].first >= end));
  }
  // So the step is at least the sum of its kernels' times (one at a time). Decode reads every
  // weight once per half, so the kernels take longer than the plain step's, yet the step is
  // shorter: the all-to-alls of one half run under the other half's kernels.
  double kernels = 0.0;
  for (const auto& [start, end] : a) kernels += to_seconds(end - start);
  for (const auto& [start, end] : b) kernels += to_seconds(end - start);
  CHECK(halves.report.step_time_s >= kernels);
  double plain_kernels = 0.0;
  for (const auto& [start, end] : kernels_of(plain, " mb0")) plain_kernels += to_seconds(end - start);
  CHECK(kernels > plain_kernels);
  CHECK(halves.report.step_time_s < plain.report.step_time_s);
  // Every GPU simulated agrees with the representative rank.
  SimulateOptions all;
  all.ranks = RankMode::all;
  CHECK(simulate(moe_decode(64, true), all).report.step_time_s ==
        Approx(halves.report.step_time_s).epsilon(1e-9));
  // A batch of one sequence cannot be split: it runs whole, as without the overlap.
  CHECK(simulate(moe_decode(1, true)).report.step_time_s ==
        Approx(simulate(moe_decode(1, false)).report.step_time_s).epsilon(1e-12));
}

TEST_CASE("ZeRO-3 with pipeline stages: an MoE layer's backward waits for the gradient its stage receives") {
  // tiny_gpt with experts in layer 2 only, one layer per stage over pp = 4, dp = 2, ZeRO-3. The
  // last layer of stage 2 is the MoE layer, so a backward chunk there begins with the layer's two
  // weight gathers (dense, then experts on the expert scope's own channel). The gradient from
  // stage 3 enters the chunk at its first op; the experts' gather, which gates the layer's kernels,
  // must follow it, or stage 2 runs its backwards before stage 3 has produced their inputs. 1F1B
  // ends each stage's last backward after the next stage's.
  JobSpec j = test::tiny_training();
  j.model.experts = 8;
  j.model.top_k = 2;
  j.model.expert_ffn = 2048;
  j.model.moe_layer_pattern = {0, 0, 1, 0};
  j.parallel.tp = 1;
  j.parallel.pp = 4;
  j.parallel.dp = 2;
  j.parallel.zero_stage = 3;
  const Simulation s = simulate(j);
  std::vector<double> last_backward(4, 0.0);
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    const OpInfo& i = s.plan.info[op];
    if (i.is_comm || i.is_host || i.pass != Pass::backward) continue;
    const int stage = s.plan.ranks[i.rank].stage;
    last_backward[static_cast<std::size_t>(stage)] =
        std::max(last_backward[static_cast<std::size_t>(stage)], to_seconds(s.run.ops[op].end));
  }
  for (int stage = 0; stage + 1 < 4; ++stage) {
    CAPTURE(stage, last_backward);
    CHECK(last_backward[static_cast<std::size_t>(stage)] >
          last_backward[static_cast<std::size_t>(stage + 1)]);
  }
}
