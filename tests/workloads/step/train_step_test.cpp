#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/critical_path.hpp"
#include "sim/engine.hpp"
#include "tests/workloads/fake_planner.hpp"
#include "tests/workloads/step/schedule_eval.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/step_report.hpp"
#include "workloads/step/train_step.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::FixedCostPlanner;

namespace {

/// A small GPT-like job on A100-like GPUs; the caller sets the layout.
JobSpec small_job(int tp, int pp, int dp, int micro_batches, int virtual_stages = 1) {
  JobSpec j;
  j.model.layers = 8;
  j.model.hidden = 1024;
  j.model.heads = 16;
  j.model.kv_heads = 16;
  j.model.head_dim = 64;
  j.model.ffn = 4096;
  j.model.vocab = 32000;
  j.model.activation = Activation::gelu;
  j.model.norm = NormKind::layernorm;
  j.workload.seq_len = 1024;
  j.workload.micro_batch = 2;
  j.workload.global_batch = 2 * dp * micro_batches;
  j.parallel.tp = tp;
  j.parallel.pp = pp;
  j.parallel.dp = dp;
  j.parallel.virtual_stages = virtual_stages;
  j.parallel.schedule = virtual_stages > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  j.cluster.gpu.id = "test-gpu";
  j.cluster.gpu.bf16_peak = units::flops_per_s(300e12);
  j.cluster.gpu.hbm_bw = units::bytes_per_s(2e12);
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = tp * pp * dp;
  return j;
}

struct Simulated {
  StepPlan plan;
  sim::RunResult run;
  StepReport report;
};

Simulated simulate(const JobSpec& job, FixedCostPlanner& planner, RankMode mode = RankMode::representative) {
  Simulated s{build_train_step(job, planner, {mode}), {}, {}};
  auto net = planner.make_network();
  sim::Engine engine(s.plan.graph, net.get());
  s.run = engine.run();
  s.report = analyse_step(s.plan, s.run, sim::critical_path(s.plan.graph, s.run, net.get()));
  return s;
}

FixedCostPlanner free_comm() {
  return FixedCostPlanner([](const CommRequest&) { return Time::zero(); });
}

double kernel_sum(const Simulated& s, std::uint16_t rank) {
  double sum = 0;
  for (sim::OpId k : s.plan.graph.ops_on(s.plan.ranks[rank].compute))
    sum += to_seconds(s.plan.graph.op(k).work);
  return sum;
}

double optimizer_time(const Simulated& s, std::uint16_t rank) {
  double sum = 0;
  for (sim::OpId k : s.plan.graph.ops_on(s.plan.ranks[rank].compute))
    if (s.plan.info[k].pass == Pass::optimizer) sum += to_seconds(s.plan.graph.op(k).work);
  return sum;
}

}  // namespace

TEST_CASE("with communication free and one stage, the step is the sum of its kernels") {
  auto planner = free_comm();
  const auto s = simulate(small_job(2, 1, 4, 3), planner);
  REQUIRE(s.plan.ranks.size() == 1);
  // No comm time and no pipeline: the compute stream never waits.
  CHECK(s.report.step_time_s == Approx(kernel_sum(s, 0)).epsilon(1e-9));
  CHECK(s.report.mean.bubble_s == Approx(0.0).margin(1e-12));
  CHECK(s.report.mean.total() == Approx(s.report.step_time_s).epsilon(1e-9));
}

TEST_CASE("the 1F1B bubble emerges from the schedule: (p - 1) / (m + p - 1) of the pipeline") {
  // Uniform stages need the embedding and LM head to cost nothing next to the layers: a one-token
  // vocabulary, no kernel launch overhead and (so that their bandwidth-bound kernels vanish) a GPU
  // with unlimited HBM bandwidth. The optimizer runs after the pipeline drains, so the
  // pipelined part of the step is the step minus the optimizer.
  for (int m : {4, 8, 16}) {
    JobSpec job = small_job(1, 4, 1, m);
    job.model.vocab = 1;
    job.cluster.gpu.hbm_bw = units::bytes_per_s(1e30);
    // A flat GEMM curve, so that the one-column logits GEMM costs its FLOPs and no more.
    job.cluster.gpu.eff.gemm16 = topo::GemmCurve{0.8, 0.0, 0.0};
    auto planner = free_comm();
    const auto s = simulate(job, planner);
    const double p = 4;
    // Each stage computes m micro-batches of work W: the pipeline takes (m + p - 1) W, of which each
    // stage idles (p - 1) W.
    const double expected = (p - 1) / (m + p - 1);
    const double pipeline = s.report.step_time_s - optimizer_time(s, 0);
    for (const auto& r : s.report.ranks)
      CHECK(r.breakdown.bubble_s / pipeline == Approx(expected).epsilon(1e-3));
  }
}

TEST_CASE("interleaving with v virtual stages shrinks the bubble by v") {
  // Interleaved 1F1B: each stage idles (p - 1) W / v, a fraction (p - 1) / (v m + p - 1) of the
  // pipelined part of the step.
  const int p = 4, m = 8, v = 2;
  JobSpec job = small_job(1, p, 1, m, v);
  job.model.vocab = 1;
  job.cluster.gpu.hbm_bw = units::bytes_per_s(1e30);
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  const double expected = (p - 1.0) / (v * m + p - 1.0);
  const double pipeline = s.report.step_time_s - optimizer_time(s, 0);
  CHECK(s.report.mean.bubble_s / pipeline == Approx(expected).epsilon(1e-3));
}

TEST_CASE("the first 1F1B stage keeps p micro-batches of activations: Korthikanti's L x activation") {
  const int p = 4, m = 8;
  JobSpec job = small_job(1, p, 1, m);
  job.model.vocab = 1;
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  // One layer of one micro-batch (docs/model.md, no recompute; FlashAttention stores no scores; no
  // dropout masks): s b (4 b_a h + b_a (q + k + v + o + f_in + f)) = 2,048 tokens x (8h + 2 x 12h) B =
  // 2,048 x 32 x 1,024 = 67,108,864 B, plus FlashAttention's fp32 log-sum-exp per head kept for the
  // backward, 2,048 x 16 x 4 = 131,072: 67,239,936 B.
  const double per_layer = 2048.0 * 32 * 1024 + 2048.0 * 16 * 4;
  const DenseLayer layer(layer_dims(job, job.workload.micro_batch));
  CHECK(layer.stored_activation_bytes(Recompute::none) == per_layer);
  // Stage 0 has L / p layers and p micro-batches in flight at the end of warm-up: L layers' worth,
  // 8 x 67,239,936 = 537,919,488 B.
  const double expected = job.model.layers * per_layer;
  CHECK(s.report.ranks[0].memory.activations.value() == Approx(expected).epsilon(1e-9));
  // The last stage keeps one micro-batch of its 2 layers plus the fp32 logits of its loss (2,048 tokens
  // x a 1-token vocabulary x 4 B): 134,479,872 + 8,192 = 134,488,064 B.
  CHECK(s.report.ranks[3].memory.activations.value() < expected / 3);
  CHECK(s.report.ranks[3].memory.activations.value() == Approx(2 * per_layer + 2048.0 * 4).epsilon(1e-12));
}

TEST_CASE("communication that takes time shows up as exposed communication of its group") {
  // Every TP collective costs 100 us; a single stage of TP 2 waits for each one.
  auto planner = FixedCostPlanner(
      [](const CommRequest& r) { return r.dim == ParallelDim::tp ? from_us(100) : Time::zero(); });
  const auto s = simulate(small_job(2, 1, 1, 2), planner);
  const auto tp = static_cast<std::size_t>(ParallelDim::tp);
  CHECK(s.report.mean.exposed_comm_s[tp] > 0.0);
  CHECK(s.report.mean.total() == Approx(s.report.step_time_s).epsilon(1e-9));
  CHECK(s.report.step_time_s == Approx(kernel_sum(s, 0) + s.report.mean.exposed_comm_s[tp]).epsilon(1e-9));
}

TEST_CASE("representative ranks behave like the full simulation") {
  // TP 2 x PP 2 x DP 2 = 8 GPUs, comm with fixed costs per group: simulating one rank per stage
  // (others as symmetric images) gives the same step as simulating all eight.
  auto cost = [](const CommRequest& r) { return from_us(r.dim == ParallelDim::dp ? 300 : 20); };
  JobSpec job = small_job(2, 2, 2, 4);
  FixedCostPlanner p1(cost), p2(cost);
  const auto rep = simulate(job, p1, RankMode::representative);
  const auto all = simulate(job, p2, RankMode::all);
  CHECK(rep.plan.ranks.size() == 2);
  CHECK(all.plan.ranks.size() == 8);
  CHECK(rep.report.step_time_s == Approx(all.report.step_time_s).epsilon(1e-12));
  // Images: the representative DP all-reduce carries both DP groups of its stage (tp = 0 and 1).
  bool saw_dp = false;
  for (const auto& r : p1.requests) {
    if (r.dim != ParallelDim::dp) continue;
    saw_dp = true;
    CHECK(r.groups.size() == 2);
  }
  CHECK(saw_dp);
}

TEST_CASE("ZeRO-3 gathers each layer's weights before its forward and its backward") {
  JobSpec job = small_job(1, 2, 4, 3);
  job.parallel.zero_stage = 3;
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  const DenseLayer layer(layer_dims(job, job.workload.micro_batch));
  double gathered = 0.0, scattered = 0.0;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    if (s.plan.info[op].rank != 0) continue;
    const auto label = s.plan.graph.label(op);
    if (label.find("dp.param_gather") != std::string_view::npos) gathered += s.plan.graph.op(op).bytes;
    if (label.find("dp.grad_reduce_scatter") != std::string_view::npos && s.plan.info[op].layer >= 0)
      scattered += s.plan.graph.op(op).bytes;
  }
  // Stage 0 holds L / pp = 4 layers; each of m = 3 micro-batches gathers every layer twice
  // (forward, backward) and reduce-scatters its gradients once: 4 x 3 x 2 x P x 2 bytes gathered.
  const double p = layer.params_per_rank();
  CHECK(gathered == Approx(4 * 3 * 2 * p * job.precision.param_bytes));
  CHECK(scattered == Approx(4 * 3 * p * job.precision.grad_bytes));
  // Weights at rest: the four layers sharded over dp = 4, plus the whole 32000 x 1024 embedding.
  CHECK(s.plan.static_memory[0].weights == Approx((4 * p / 4 + 32000.0 * 1024) * job.precision.param_bytes));
  // Deferred gradient sync (AutoModel's defer_fsdp_grad_sync): only the last micro-batch's backward
  // reduce-scatters, 4 x 1 x P x 2 bytes; meanwhile the four layers' unsharded gradients accumulate
  // in the parameters' dtype, 4 P x 2 bytes more at rest.
  job.parallel.defer_grad_sync = true;
  const auto deferred = simulate(job, planner);
  double deferred_scattered = 0.0;
  for (sim::OpId op = 0; op < deferred.plan.graph.op_count(); ++op)
    if (deferred.plan.info[op].rank == 0 && deferred.plan.info[op].layer >= 0 &&
        deferred.plan.graph.label(op).find("dp.grad_reduce_scatter") != std::string_view::npos) {
      CHECK(deferred.plan.info[op].microbatch == 2);
      deferred_scattered += deferred.plan.graph.op(op).bytes;
    }
  CHECK(deferred_scattered == Approx(4 * 1 * p * job.precision.grad_bytes));
  CHECK(deferred.plan.static_memory[0].gradients - s.plan.static_memory[0].gradients ==
        Approx(4 * p * job.precision.param_bytes));
}

namespace {
struct ShardTraffic {
  double gathered = 0.0, scattered = 0.0, replica_reduced = 0.0;
};
ShardTraffic shard_traffic(const Simulated& s) {
  ShardTraffic t;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    if (s.plan.info[op].rank != 0 || s.plan.info[op].layer < 0) continue;
    const auto label = s.plan.graph.label(op);
    const double bytes = s.plan.graph.op(op).bytes;
    if (label.find("dp.param_gather") != std::string_view::npos) t.gathered += bytes;
    if (label.find("dp.grad_reduce_scatter") != std::string_view::npos) t.scattered += bytes;
    if (label.find("dp.grad_replica_allreduce") != std::string_view::npos) t.replica_reduced += bytes;
  }
  return t;
}
}  // namespace

TEST_CASE("FSDP2 copies each gather out and each gradient reduction in on the compute stream") {
  // One stage of 8 layers, dp = 8, m = 2 micro-batches, FULL_SHARD; P = one layer's parameters.
  JobSpec job = small_job(1, 1, 8, 2);
  job.parallel.zero_stage = 3;
  const double p = DenseLayer(layer_dims(job, job.workload.micro_batch)).params_per_rank();
  const double pb = job.precision.param_bytes, gb = job.precision.grad_bytes;
  const auto copies = [](const Simulated& s, std::string_view name) {
    double bytes = 0.0;
    int count = 0;
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
      if (s.plan.info[op].rank != 0 || s.plan.graph.label(op).find(name) == std::string_view::npos) continue;
      bytes += s.plan.graph.op(op).bytes;
      ++count;
      // On the compute stream, after the collective it serves or before the one it feeds.
      CHECK(s.plan.graph.stream(s.plan.graph.streams_of(op).front()).role == sim::StreamRole::compute);
    }
    return std::pair{bytes, count};
  };
  auto planner = free_comm();
  const auto fsdp1 = simulate(job, planner);
  CHECK(copies(fsdp1, "fsdp.copy").second == 0);  // flat parameters and buffers are views
  job.parallel.fsdp_copies = true;
  auto planner2 = free_comm();
  const auto fsdp2 = simulate(job, planner2);
  // Copy-out: every gather (8 layers x 2 passes x 2 micro-batches = 32) read and written once:
  // 32 x 2 x P x pb. Copy-in: every layer's gradient reduction (8 x 2 = 16) reads the gradients in
  // the parameters' dtype and writes them in the reduce dtype: 16 x P x (pb + gb).
  const auto out = copies(fsdp2, "fsdp.copy_out");
  const auto in = copies(fsdp2, "fsdp.copy_in");
  CHECK(out.second == 32);
  CHECK(out.first == Approx(32 * 2 * p * pb));
  CHECK(in.second == 16);
  CHECK(in.first == Approx(16 * p * (pb + gb)));
  CHECK(fsdp2.report.step_time_s > fsdp1.report.step_time_s);
}

TEST_CASE("FSDP FULL_SHARD, SHARD_GRAD_OP and HSDP: gather and reduce volumes per step and memory") {
  // One stage of 8 layers, dp = 8, m = 2 micro-batches; P = one layer's parameters.
  JobSpec job = small_job(1, 1, 8, 2);
  job.parallel.zero_stage = 3;
  const double p = DenseLayer(layer_dims(job, job.workload.micro_batch)).params_per_rank();
  const double pb = job.precision.param_bytes, gb = job.precision.grad_bytes;
  auto planner = free_comm();
  const auto full = simulate(job, planner);
  const ShardTraffic f = shard_traffic(full);
  // FULL_SHARD: every layer gathered before its forward and again before its backward, per
  // micro-batch: 8 x 2 x 2 x P x pb; its gradients reduce-scattered once per micro-batch.
  CHECK(f.gathered == Approx(8 * 2 * 2 * p * pb));
  CHECK(f.scattered == Approx(8 * 2 * p * gb));
  CHECK(f.replica_reduced == 0.0);

  // SHARD_GRAD_OP (reshard_after_forward = false): the backward reuses the forward's gather, so
  // half the gathers; the same reductions.
  JobSpec sgo_job = job;
  sgo_job.parallel.reshard_after_forward = false;
  auto planner2 = free_comm();
  const auto sgo = simulate(sgo_job, planner2);
  const ShardTraffic g = shard_traffic(sgo);
  CHECK(g.gathered == Approx(8 * 2 * p * pb));
  CHECK(g.scattered == Approx(8 * 2 * p * gb));
  // Memory: SHARD_GRAD_OP holds all 8 gathered layers when the forward ends (the activations at
  // the two peaks are the same micro-batch's).
  const double gap = sgo.report.ranks[0].memory.peak.value() - full.report.ranks[0].memory.peak.value();
  // FULL_SHARD's peak (the end of the forward) holds three: the last layer's, the next layer's
  // prefetched gather, and the backward's first gather, which nothing holds back: gap >= 5 P.
  CHECK(gap >= 5 * p * pb * (1 - 1e-9));
  CHECK(gap <= 8 * p * pb * (1 + 1e-9));

  // HSDP: shard over groups of 4 of the 8 replicas. The gathers and reduce-scatters move the same
  // bytes per rank over groups of 4; each shard (P / 4) is then all-reduced over its 2 replicas.
  JobSpec hsdp_job = job;
  hsdp_job.parallel.shard_group = 4;
  auto planner3 = free_comm();
  const auto hsdp = simulate(hsdp_job, planner3);
  const ShardTraffic h = shard_traffic(hsdp);
  CHECK(h.gathered == Approx(f.gathered));
  CHECK(h.scattered == Approx(f.scattered));
  CHECK(h.replica_reduced == Approx(8 * 2 * p / 4 * gb));
  for (const CommRequest& r : planner3.requests) {
    if (r.dim != ParallelDim::dp || r.kind == CollectiveKind::all_reduce) continue;
    if (r.kind == CollectiveKind::all_gather || r.kind == CollectiveKind::reduce_scatter)
      CHECK((r.groups.front().size() == 4 || r.groups.front().size() == 8));  // 8: embedding/head buckets
  }
  // Weights at rest: the layers sharded over 4 instead of 8 (the embedding stays whole).
  // The embedding, LM head and final norm stay whole in both, so the difference is 8 P / 4 - 8 P / 8.
  CHECK(hsdp.plan.static_memory[0].weights - full.plan.static_memory[0].weights ==
        Approx((8 * p / 4 - 8 * p / 8) * pb));
}

TEST_CASE("ZeRO-3 backward: the next layer's gather is issued before this layer's reduce-scatter") {
  // FSDP's pre-backward prefetch issues layer l - 1's all-gather when layer l's backward starts,
  // ahead of layer l's gradient reduce-scatter on the same communicator (channels run in issue
  // order). One stage of 8 layers, dp = 8, full recompute; every data-parallel collective costs T,
  // a quarter of the shortest layer's recompute + backward, so a prefetched gather (T) and the
  // reduce-scatter before it (T) fit under a layer's backward and the layers run back to back; a
  // gather queued behind the reduce-scatter would leave each layer 2 T idle after the one above.
  JobSpec job = small_job(1, 1, 8, 1);
  job.parallel.zero_stage = 3;
  job.recompute = Recompute::full;
  const auto layer_span = [](const Simulated& s, int l) {
    Time first = Time::max(), last{};
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
      const auto& info = s.plan.info[op];
      if (info.rank != 0 || info.is_comm || info.layer != l) continue;
      if (info.pass != Pass::backward && info.pass != Pass::recompute) continue;
      first = std::min(first, s.run.ops[op].start);
      last = std::max(last, s.run.ops[op].end);
    }
    return std::pair{first, last};
  };
  auto free = free_comm();
  const auto ref = simulate(job, free);
  Time shortest = Time::max();
  for (int l = 0; l < 8; ++l) {
    const auto [a, b] = layer_span(ref, l);
    shortest = std::min(shortest, b - a);
  }
  const Time t = shortest / 4;
  auto planner =
      FixedCostPlanner([t](const CommRequest& r) { return r.dim == ParallelDim::dp ? t : Time::zero(); });
  const auto s = simulate(job, planner);
  std::map<int, Time> gather_start, scatter_start;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    const auto& info = s.plan.info[op];
    if (info.rank != 0 || info.pass != Pass::backward || info.layer < 0) continue;
    const auto label = s.plan.graph.label(op);
    if (label.find("dp.param_gather") != std::string_view::npos)
      gather_start[info.layer] = s.run.ops[op].start;
    if (label.find("dp.grad_reduce_scatter") != std::string_view::npos)
      scatter_start[info.layer] = s.run.ops[op].start;
  }
  REQUIRE(gather_start.size() == 8);
  REQUIRE(scatter_start.size() == 8);
  for (int l = 0; l < 7; ++l) {
    CAPTURE(l);
    CHECK(gather_start[l] < scatter_start[l + 1]);
    // Layer l's recompute starts when layer l + 1's backward ends: its weights are already here.
    CHECK(layer_span(s, l).first == layer_span(s, l + 1).second);
  }
}

TEST_CASE("ZeRO-3 without dp_overlap reduces a micro-batch's gradients after its backward") {
  // dp_overlap (the default) reduce-scatters each layer's gradients as soon as its backward is
  // done, under the remaining layers' backward; without it the reductions wait for the whole
  // micro-batch's backward. With free communication each reduction starts when it may.
  JobSpec job = small_job(1, 1, 4, 1);
  job.parallel.zero_stage = 3;
  const auto starts_before_backward_ends = [](const Simulated& s) {
    Time last_layer_end{};
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op)
      if (s.plan.info[op].pass == Pass::backward && s.plan.info[op].layer >= 0 && !s.plan.info[op].is_comm)
        last_layer_end = std::max(last_layer_end, s.run.ops[op].end);
    int early = 0, total = 0;
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
      if (s.plan.graph.label(op).find("dp.grad_reduce_scatter") == std::string_view::npos) continue;
      if (s.plan.info[op].layer < 0 || s.plan.info[op].rank != 0) continue;
      ++total;
      if (s.run.ops[op].start < last_layer_end) ++early;
    }
    return std::make_pair(early, total);
  };
  auto planner = free_comm();
  const auto overlapped = simulate(job, planner);
  const auto [early, total] = starts_before_backward_ends(overlapped);
  CHECK(total == 8);
  CHECK(early == 7);  // all but the first layer's, which is the backward's last
  job.parallel.dp_overlap = false;
  auto planner2 = free_comm();
  const auto deferred = simulate(job, planner2);
  const auto [early2, total2] = starts_before_backward_ends(deferred);
  CHECK(total2 == 8);
  CHECK(early2 == 0);
}

TEST_CASE(
    "DualPipe and DualPipeV on the engine: the step follows the schedule, weight steps run the deferred "
    "gradients") {
  // Uniform stages as in the 1F1B bubble test; pp 4, 8 micro-batches (DualPipe: 4 from each end;
  // DualPipeV: 8 layers as a V of 8 one-layer chunks), pairs run one after the other (no
  // ep_overlap). A middle rank's kernels give a chunk's forward F, its backward's weight-gradient
  // GEMMs W and the rest of its backward Bd; the pipelined part of the simulated step must then
  // equal the list schedule of the steps with those costs (schedule_eval.hpp, which meets the
  // README's bubble formula; pipeline_schedule_test.cpp).
  const int pp = 4, m = 8;
  for (const PipelineSchedule kind : {PipelineSchedule::dualpipe, PipelineSchedule::dualpipev}) {
    CAPTURE(static_cast<int>(kind));
    const int v = kind == PipelineSchedule::dualpipev ? 2 : 1;
    JobSpec job = small_job(1, pp, 1, m);
    job.model.vocab = 1;
    job.cluster.gpu.hbm_bw = units::bytes_per_s(1e30);
    job.cluster.gpu.eff.gemm16 = topo::GemmCurve{0.8, 0.0, 0.0};
    job.parallel.schedule = kind;
    job.parallel.virtual_stages = v;
    auto planner = free_comm();
    const auto s = simulate(job, planner);
    REQUIRE(s.plan.ranks[1].compute_weights != SimRank::kNoStream);
    double fwd = 0.0, wgrad = 0.0, bwd = 0.0;
    for (sim::StreamId st : {s.plan.ranks[1].compute, s.plan.ranks[1].compute_weights})
      for (sim::OpId k : s.plan.graph.ops_on(st)) {
        const double d = to_seconds(s.plan.graph.op(k).work);
        const Pass pass = s.plan.info[k].pass;
        if (pass == Pass::forward) fwd += d;
        if (pass == Pass::backward && s.plan.graph.label(k).find("wgrad") != std::string_view::npos)
          wgrad += d;
        if (pass == Pass::backward) bwd += d;
      }
    // Rank 1 runs m chunk forwards and backwards per direction pair (DualPipe: m / 2 through each of
    // its stages) or v m (DualPipeV: m through each half of the V).
    const double chunks = v * m;
    const testing::UnitCosts c{fwd / chunks, (bwd - wgrad) / chunks, wgrad / chunks};
    REQUIRE(c.w > 0.0);
    const auto ends = testing::list_schedule(pipeline_schedule(kind, pp, m, v), kind, c);
    const double pipeline = s.report.step_time_s - optimizer_time(s, 0);
    // Within 1e-4: the end ranks also run the embedding and the one-column head, which the list
    // schedule leaves out (about 0.3 us in 12.7 ms).
    CHECK(pipeline == Approx(*std::max_element(ends.begin(), ends.end())).epsilon(1e-4));
    // The weight steps ran the deferred gradients, on the weight stream.
    std::size_t deferred = 0;
    for (sim::OpId k : s.plan.graph.ops_on(s.plan.ranks[1].compute_weights))
      if (s.plan.graph.op(k).kind == sim::OpKind::compute) ++deferred;
    CHECK(deferred > 0);
    // The same step with every GPU simulated.
    auto planner2 = free_comm();
    const auto all = simulate(job, planner2, RankMode::all);
    CHECK(all.report.step_time_s == Approx(s.report.step_time_s).epsilon(1e-12));
  }
}

TEST_CASE("DualPipe keeps both stages' weights and pp + 1 chunks of activations on a rank") {
  const int pp = 4, m = 8;
  JobSpec job = small_job(1, pp, 1, m);
  job.model.vocab = 1;
  auto planner = free_comm();
  const auto one = simulate(job, planner);
  job.parallel.schedule = PipelineSchedule::dualpipe;
  auto planner2 = free_comm();
  const auto dual = simulate(job, planner2);
  // Rank r holds stages r and pp - 1 - r (DualPipe's "2x parameters per device").
  for (int r = 0; r < pp; ++r) {
    const StaticMemory& w = dual.plan.static_memory[static_cast<std::size_t>(r)];
    const StaticMemory& a = one.plan.static_memory[static_cast<std::size_t>(r)];
    const StaticMemory& b = one.plan.static_memory[static_cast<std::size_t>(pp - 1 - r)];
    CHECK(w.weights == Approx(a.weights + b.weights).epsilon(1e-12));
    CHECK(w.optimizer == Approx(a.optimizer + b.optimizer).epsilon(1e-12));
  }
  // The middle ranks keep pp + 1 = 5 chunk activations at their peak (DualPipe README), each of
  // L / pp = 2 layers of 67,239,936 B (the 1F1B activation test's per-layer figure).
  const double per_layer = 2048.0 * 32 * 1024 + 2048.0 * 16 * 4;
  for (int r : {1, 2})
    CHECK(dual.report.ranks[static_cast<std::size_t>(r)].memory.activations.value() ==
          Approx((pp + 1) * 2 * per_layer).epsilon(1e-12));
}

TEST_CASE("DualPipeV keeps one copy of the weights and 2 pp + 1 one-layer chunks of activations") {
  const int pp = 4, m = 8;
  JobSpec job = small_job(1, pp, 1, m);
  job.model.vocab = 1;
  auto planner = free_comm();
  const auto one = simulate(job, planner);
  job.parallel.schedule = PipelineSchedule::dualpipev;
  job.parallel.virtual_stages = 2;
  auto planner2 = free_comm();
  const auto v = simulate(job, planner2);
  // The middle ranks hold two one-layer chunks, as a 1F1B stage holds two layers; rank 0 holds the
  // embedding and the head (both ends of the V).
  double total_v = 0.0, total_one = 0.0;
  for (int r = 0; r < pp; ++r) {
    total_v += v.plan.static_memory[static_cast<std::size_t>(r)].weights;
    total_one += one.plan.static_memory[static_cast<std::size_t>(r)].weights;
  }
  CHECK(total_v == Approx(total_one).epsilon(1e-12));
  CHECK(v.plan.static_memory[1].weights == Approx(one.plan.static_memory[1].weights).epsilon(1e-12));
  // DualPipe README: 2 pp + 1 = 9 chunks of activations on every rank at its peak, one layer each.
  const double per_layer = 2048.0 * 32 * 1024 + 2048.0 * 16 * 4;
  for (int r : {1, 2})
    CHECK(v.report.ranks[static_cast<std::size_t>(r)].memory.activations.value() ==
          Approx((2 * pp + 1) * per_layer).epsilon(1e-12));
}

TEST_CASE("lock-step pipelining puts every exchange of the torch table on the critical path") {
  // pp 2, 2 micro-batches, 2 chunks of 2 layers per rank, each chunk's forward f and backward b
  // (uniform: a one-token vocabulary and unlimited HBM bandwidth make the embedding and the head
  // free), every pipeline transfer T. The time steps (pipeline_schedule_test) are
  //   rank 0: 0F0 1F0 2F0 2F1 at t 0-3, 2B0 2B1 0B0 0B1 at t 7, 9, 11, 13
  //   rank 1: 1F0 1F1 at t 1-2, 3F0 3B0 3F1 3B1 at t 4-7, 1B0 1B1 at t 9, 11
  // (stage:kind:micro-batch). With each rank waiting at every step for the exchanges of that step:
  //   t0 0F0 ends f, its transfer f + T; t1 0F0/1F0 end 2f + T, transfers 2f + 2T; t2 3f + 3T;
  //   t3 2F1 (rank 1 idle) 4f + 4T; t4 3F0 5f + 4T (the last stage sends nothing forward);
  //   t5 3B0 5f + b + 5T; t6 3F1 6f + b + 5T; t7 3B1 and 2B0 6f + 2b + 6T; t9 6f + 3b + 7T;
  //   t11 6f + 4b + 8T; t13 0B1 ends 6f + 5b + 8T.
  // So each unit of T adds 8 T to the pipeline; overlapped sends (the consumer alone waits) put
  // fewer of them on the critical path.
  JobSpec job = small_job(1, 2, 1, 2, 2);
  job.model.vocab = 1;
  job.cluster.gpu.hbm_bw = units::bytes_per_s(1e30);
  const auto pipeline = [&](P2pMode mode, Time t) {
    job.parallel.pp_p2p = mode;
    auto planner =
        FixedCostPlanner([t](const CommRequest& r) { return r.dim == ParallelDim::pp ? t : Time::zero(); });
    const auto s = simulate(job, planner);
    return s.report.step_time_s - optimizer_time(s, 0);
  };
  const Time t = from_us(1000);
  const double slope = (pipeline(P2pMode::lockstep, t) - pipeline(P2pMode::lockstep, Time::zero())) / 1e-3;
  CHECK(slope == Approx(8.0).epsilon(1e-6));
  const double overlapped =
      (pipeline(P2pMode::overlapped, t) - pipeline(P2pMode::overlapped, Time::zero())) / 1e-3;
  CHECK(overlapped < slope);
  // Every-GPU and representative builds agree.
  job.parallel.pp_p2p = P2pMode::lockstep;
  auto planner =
      FixedCostPlanner([t](const CommRequest& r) { return r.dim == ParallelDim::pp ? t : Time::zero(); });
  CHECK(simulate(job, planner, RankMode::all).report.step_time_s ==
        Approx(simulate(job, planner).report.step_time_s).epsilon(1e-12));
}

TEST_CASE("torch.distributed.pipelining reduces and regathers the weights at every schedule.step()") {
  // pp 2, dp 2, ZeRO-2 with the gather under the forward (FSDP2 under pipelining), 4 micro-batches
  // per pipeline as one schedule or as two (local_batch = 2 x micro_batch). Each schedule.step()
  // ends with its chunks' gradient reduction and reshards, so two schedules reduce every gradient
  // twice (the same buckets: twice the reduce-scatters and their bytes) and gather every layer's
  // weights twice (4 layers per stage: 4 gathers, then 8).
  JobSpec job = small_job(1, 2, 2, 4);
  job.parallel.zero_stage = 2;
  job.parallel.overlap_param_gather = true;
  // Data-parallel transfers take 1 us per MB: their durations sum their bytes.
  const auto count = [](const Simulated& s, std::string_view what, double* megabytes) {
    int n = 0;
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
      const auto& info = s.plan.info[op];
      if (info.rank != 0 || s.plan.graph.label(op).find(what) == std::string_view::npos) continue;
      ++n;
      if (megabytes) *megabytes += to_seconds(s.run.ops[op].end - s.run.ops[op].start) * 1e6;
    }
    return n;
  };
  auto planner = FixedCostPlanner(
      [](const CommRequest& r) { return r.dim == ParallelDim::dp ? from_us(r.bytes * 1e-6) : Time::zero(); });
  const auto one = simulate(job, planner);
  job.workload.local_batch = 2 * job.workload.micro_batch;
  REQUIRE(job.pipeline_flushes() == 2);
  const auto two = simulate(job, planner);
  double one_bytes = 0.0, two_bytes = 0.0;
  const int reductions = count(one, "dp.grad_reduce_scatter", &one_bytes);
  REQUIRE(reductions > 0);
  CHECK(count(two, "dp.grad_reduce_scatter", &two_bytes) == 2 * reductions);
  CHECK(two_bytes == Approx(2.0 * one_bytes).epsilon(1e-12));
  CHECK(count(one, "dp.param_allgather", nullptr) == 4);
  CHECK(count(two, "dp.param_allgather", nullptr) == 8);
}

TEST_CASE("SHARD_GRAD_OP keeps one unsharded copy of a layer, shared by the micro-batches in flight") {
  // pp 4, dp 2, 4 micro-batches, ZeRO-3 with reshard_after_forward = false (FSDP2 under a
  // pipeline). Stage 0 (2 layers) runs F0 F1 F2 F3 B0 B1 B2 B3: its layers are gathered by F0 and
  // stay unsharded for F1-F3 and B0 (one copy, FSDP's own parameters), B0 reshards them, and B1, B2
  // and B3 each gather them again: 4 gathers of each layer, the same count as one per micro-batch,
  // but at most one copy held, where one copy per micro-batch in flight would hold four at the end
  // of the warm-up. Comm is free and the copies are weights of P x 2 bytes a layer.
  JobSpec job = small_job(1, 4, 2, 4);
  job.parallel.zero_stage = 3;
  job.parallel.reshard_after_forward = false;
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  int gathers = 0;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op)
    if (s.plan.info[op].rank == 0 && s.plan.info[op].layer == 0 &&
        s.plan.graph.label(op).find("dp.param_gather") != std::string_view::npos)
      ++gathers;
  CHECK(gathers == 4);
  // Above the activations alone (no sharding, nothing gathered), the peak holds the gathered copies:
  // the stage's two layers of P x 2 bytes once, not four times.
  const double p = DenseLayer(layer_dims(job, job.workload.micro_batch)).params_per_rank();
  job.parallel.zero_stage = 0;
  job.parallel.reshard_after_forward = true;
  const auto plain = simulate(job, planner);
  const double held =
      s.report.ranks[0].memory.activations.value() - plain.report.ranks[0].memory.activations.value();
  CHECK(held == Approx(2 * p * job.precision.param_bytes).epsilon(1e-9));
}

TEST_CASE("FP8 delayed scaling reduces each chunk's amaxes over the pipeline stage") {
  // TP 2, PP 2, DP 2, VP 2: 8 layers in 4 chunks of 2, each rank runs 2 chunks for each of its 4
  // micro-batches. Megatron-Core wraps a chunk in one fp8_autocast; its exit all-reduces the chunk's
  // forward amaxes (3 per FP8 GEMM, 4 GEMMs a layer: 2 x 4 x 3 x 4 B = 96 B) over the stage's
  // tp x dp = 4 ranks, and the chunk's first FP8 module does the backward's (2 per GEMM: 64 B): 8 of
  // each on rank 0. The scale update waits for its all-reduce (async_op=False).
  JobSpec job = small_job(2, 2, 2, 4, 2);
  job.cluster.gpu.fp8_peak = units::flops_per_s(600e12);
  job.precision.compute = topo::Precision::fp8;
  job.precision.recipe = LowPrecisionRecipe::delayed;
  std::vector<std::size_t> amax_groups;
  FixedCostPlanner planner([&](const CommRequest& r) {
    if (r.bytes < 100.0 && r.kind == CollectiveKind::all_reduce)
      amax_groups.push_back(r.groups.front().size());
    return Time::zero();
  });
  const auto s = simulate(job, planner);
  int forward = 0, backward = 0;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    if (s.plan.info[op].rank != 0) continue;
    const auto label = s.plan.graph.label(op);
    if (label.find("fp8.amax_reduce") == std::string_view::npos) continue;
    const bool bwd = label.find("amax_reduce.bwd") != std::string_view::npos;
    (bwd ? backward : forward) += 1;
    CHECK(s.plan.graph.op(op).bytes == Approx(bwd ? 64.0 : 96.0));
    bool update_waits = false;
    for (sim::OpId next : s.plan.graph.successors(op))
      update_waits =
          update_waits || s.plan.graph.label(next).find("fp8.amax_update") != std::string_view::npos;
    CHECK(update_waits);
  }
  CHECK(forward == 8);
  CHECK(backward == 8);
  REQUIRE_FALSE(amax_groups.empty());
  for (std::size_t n : amax_groups) CHECK(n == 4);
  // Not under BF16, nor under block scaling (no amax history to agree on).
  for (auto [compute, recipe] : {std::pair{topo::Precision::bf16, LowPrecisionRecipe::delayed},
                                 std::pair{topo::Precision::fp8, LowPrecisionRecipe::blockwise}}) {
    JobSpec other = job;
    other.precision.compute = compute;
    other.precision.recipe = recipe;
    auto free = free_comm();
    const auto o = simulate(other, free);
    for (sim::OpId op = 0; op < o.plan.graph.op_count(); ++op)
      CHECK(o.plan.graph.label(op).find("fp8.amax") == std::string_view::npos);
  }
}

TEST_CASE("eager PyTorch's loss holds its fp32 logits and gradients beside every layer's activations") {
  // One stage, one micro-batch: the peak comes at the loss's backward, with all 8 layers' activations
  // kept, the kept fp32 log_softmax (4 B per logit) and the two fp32 gradients nll_loss and
  // log_softmax write (8 B per logit): 2,048 tokens x 32,000 logits x 12 B = 786,432,000 B.
  JobSpec job = small_job(1, 1, 1, 1);
  job.workload.pointwise = Pointwise::eager;
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  const DenseLayer layer(layer_dims(job, job.workload.micro_batch));
  const double logits = 2048.0 * 32000;
  const double layers = job.model.layers * layer.stored_activation_bytes(Recompute::none);
  CHECK(s.report.ranks[0].memory.activations.value() == Approx(layers + 12 * logits).epsilon(1e-9));
  // A fused loss keeps the fp32 softmax only.
  job.workload.pointwise = Pointwise::fused;
  auto fused_planner = free_comm();
  const auto f = simulate(job, fused_planner);
  const DenseLayer fused(layer_dims(job, job.workload.micro_batch));
  CHECK(f.report.ranks[0].memory.activations.value() ==
        Approx(job.model.layers * fused.stored_activation_bytes(Recompute::none) + 4 * logits).epsilon(1e-9));
}

TEST_CASE("torchtitan's per-op policy holds a layer's replayed activations while its backward runs") {
  // Vocabulary 1: the loss is negligible. The peak comes at the last layer's backward: the 8 layers'
  // kept activations, plus what its replay regenerates (all it would keep without checkpointing, less
  // what the policy kept): 7 kept + 1 whole, plus the loss's 4 B per token (2,048 x 4).
  JobSpec job = small_job(1, 1, 1, 1);
  job.model.vocab = 1;
  job.recompute = Recompute::selective;
  job.recompute_modules = RecomputeModules{false, false, false, false, true};
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  const DenseLayer layer(layer_dims(job, job.workload.micro_batch));
  const double kept = layer.stored_activation_bytes(Recompute::selective);
  const double whole = layer.stored_activation_bytes(Recompute::none);
  CHECK(kept < whole / 2);
  CHECK(s.report.ranks[0].memory.activations.value() == Approx(7 * kept + whole + 2048.0 * 4).epsilon(1e-9));
}

TEST_CASE("recompute_layers and recompute_every choose the layers full recomputation covers") {
  JobSpec job = small_job(1, 2, 1, 4, 2);  // 8 layers over PP 2 x VP 2: chunks of 2 layers
  job.recompute = Recompute::full;
  const auto full_layers = [&] {
    std::vector<int> out;
    for (int l = 0; l < job.model.layers; ++l)
      if (job.layer_recompute(l) == Recompute::full) out.push_back(l);
    return out;
  };
  CHECK(full_layers() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // Megatron's block method: the first layer of each chunk (layers 0, 2, 4, 6).
  job.recompute_layers = 1;
  CHECK(full_layers() == std::vector<int>{0, 2, 4, 6});
  CHECK(job.full_recompute_share() == 0.5);
  // torchtitan counts each rank's blocks in order: rank 0 holds chunks 0 and 2 (layers 0, 1, 4, 5),
  // rank 1 chunks 1 and 3 (2, 3, 6, 7); every second one of each: 1, 5 and 3, 7.
  job.recompute_layers = 0;
  job.recompute_every = 2;
  CHECK(full_layers() == std::vector<int>{1, 3, 5, 7});
  // Without pipelining, every third of the 8: layers 2 and 5.
  JobSpec flat = small_job(1, 1, 1, 1);
  flat.recompute = Recompute::full;
  flat.recompute_every = 3;
  CHECK(flat.layer_recompute(2) == Recompute::full);
  CHECK(flat.layer_recompute(5) == Recompute::full);
  CHECK(flat.layer_recompute(6) == Recompute::none);
  CHECK(flat.full_recompute_share() == Approx(2.0 / 8));
}

TEST_CASE("a step recomputing 3 of 8 layers keeps their inputs and the others' whole activations") {
  // One stage, vocabulary 1: the peak is when the backward starts: layers 0-2 keep their input
  // (2,048 tokens x 1,024 x 2 B each), layers 3-7 everything, plus the loss's 2,048 x 4 B. The
  // recomputed layers' transients come later, after the others' activations are freed.
  JobSpec job = small_job(1, 1, 1, 1);
  job.model.vocab = 1;
  job.recompute = Recompute::full;
  job.recompute_layers = 3;
  auto planner = free_comm();
  const auto s = simulate(job, planner);
  const DenseLayer layer(layer_dims(job, job.workload.micro_batch));
  const double input = 2048.0 * 1024 * 2, whole = layer.stored_activation_bytes(Recompute::none);
  CHECK(layer.stored_activation_bytes(Recompute::full) == input);
  CHECK(s.report.ranks[0].memory.activations.value() ==
        Approx(3 * input + 5 * whole + 2048.0 * 4).epsilon(1e-9));
  // The recomputed forwards: 3 layers' worth of the forward's GEMMs, between no recomputation and all.
  const auto recompute_ops = [](const Simulated& sim) {
    int n = 0;
    for (sim::OpId op = 0; op < sim.plan.graph.op_count(); ++op)
      n += sim.plan.info[op].pass == Pass::recompute ? 1 : 0;
    return n;
  };
  JobSpec all = job;
  all.recompute_layers = 0;
  auto all_planner = free_comm();
  const auto a = simulate(all, all_planner);
  CHECK(recompute_ops(s) * 8 == recompute_ops(a) * 3);
  CHECK(s.run.makespan < a.run.makespan);
}
