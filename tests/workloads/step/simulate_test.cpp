#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// A GPT-like model on two 8-GPU nodes of H100-like GPUs with a rail-optimised fabric.
JobSpec two_node_job(int tp, int pp, int dp, int zero) {
  JobSpec j;
  j.model.layers = 8;
  j.model.hidden = 2048;
  j.model.heads = 16;
  j.model.kv_heads = 16;
  j.model.head_dim = 128;
  j.model.ffn = 8192;
  j.model.vocab = 32000;
  j.model.activation = Activation::swiglu;
  j.workload.seq_len = 2048;
  j.workload.micro_batch = 1;
  j.workload.global_batch = dp * 4;
  j.parallel.tp = tp;
  j.parallel.pp = pp;
  j.parallel.dp = dp;
  j.parallel.zero_stage = zero;
  j.parallel.dp_bucket_bytes = 20e6;
  auto& g = j.cluster.gpu;
  g.id = "test-h100";
  g.bf16_peak = units::flops_per_s(989e12);
  g.fp32_peak = units::flops_per_s(67e12);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  g.hbm_capacity = units::bytes(80e9);
  g.nvlink_bw = units::bytes_per_s(450e9);
  g.nic_bw = units::bytes_per_s(50e9);
  g.comm_sm_fraction = 0.15;
  g.kernel_gap_s = 4e-6;
  j.cluster.nodes = 2;
  j.cluster.gpus_per_node = 8;
  j.cluster.nvlink_domain = 8;
  j.cluster.fabric.kind = topo::FabricKind::rail_optimized;
  return j;
}

}  // namespace

TEST_CASE("representative ranks reproduce the full simulation on a real topology") {
  // The argument (docs/model.md): ranks at one pipeline stage run identical programs, and every
  // collective of the simulated rank carries its symmetric images, so all replicas progress in
  // lock step; simulating one rank per stage must give the step of simulating all 16.
  for (auto [tp, pp, dp, zero] : {std::tuple{2, 2, 4, 0}, std::tuple{4, 1, 4, 1}, std::tuple{2, 4, 2, 3}}) {
    CAPTURE(tp, pp, dp, zero);
    const JobSpec job = two_node_job(tp, pp, dp, zero);
    SimulateOptions rep_opts, all_opts;
    rep_opts.ranks = RankMode::representative;
    all_opts.ranks = RankMode::all;
    const Simulation rep = simulate(job, rep_opts);
    const Simulation all = simulate(job, all_opts);
    CHECK(rep.plan.ranks.size() == static_cast<std::size_t>(pp));
    CHECK(all.plan.ranks.size() == 16);
    CHECK(rep.metrics.step_time_s == Approx(all.metrics.step_time_s).epsilon(1e-6));
    // The breakdown can shift slightly: in the full simulation a collective may be gated by a peer's
    // kernel rather than the rank's own, which moves a sliver of waiting between groups.
    CHECK(rep.report.mean.bubble_s == Approx(all.report.mean.bubble_s).epsilon(0.02).margin(1e-9));
  }
}

TEST_CASE("the simulated step is never faster than the closed-form bound at full efficiency") {
  // With every efficiency at 1, the estimate's step time is a lower bound: the simulation adds
  // bubbles, exposed communication, latencies and memory-bound kernels on top of the same work.
  std::uint64_t state = 12345;
  const auto pick = [&state](std::initializer_list<int> xs) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *(xs.begin() + (state >> 33) % xs.size());
  };
  for (int trial = 0; trial < 12; ++trial) {
    const int tp = pick({1, 2, 4}), pp = pick({1, 2}), dp = 16 / (tp * pp);
    JobSpec job = two_node_job(tp, pp, dp, pick({0, 1}));
    job.workload.micro_batch = pick({1, 2});
    job.workload.global_batch = dp * job.workload.micro_batch * pick({1, 4});
    job.recompute = pick({0, 1}) ? Recompute::full : Recompute::none;
    auto& e = job.cluster.gpu.eff;
    e.gemm16 = topo::GemmCurve{1.0, 0.0, 0.0};
    e.attention = e.elementwise = 1.0;
    e.hbm = e.nvlink = e.nic = 1.0;
    e.estimate_compute = e.estimate_memory = e.estimate_network = 1.0;
    CAPTURE(trial, tp, pp, dp, job.workload.micro_batch, job.workload.global_batch);
    const Simulation s = simulate(job);
    CHECK(s.metrics.step_time_s >= s.estimate.step_time_s * (1 - 1e-9));
  }
}

TEST_CASE("a step of tiny kernels is host-bound: the launches set the pace") {
  // One GPU, compute and HBM made free: every kernel costs only its GPU-side gap g = 1 us per
  // launch, and every launch costs the host h = 10 us. The host issues launches back to back; each
  // kernel starts when its launch ends and is done long before the next launch ends. The exceptions
  // are the multi-tensor optimizer kernels (one launch per 21 M parameters: n launches cost the host
  // n h and the GPU n g): the host's sync after the gradient norm waits for that kernel to finish,
  // and Adam is the last kernel. So the step is (sum of host ops) + grad_norm's GPU time + Adam's.
  JobSpec job = two_node_job(1, 1, 1, 0);
  job.cluster.nodes = 1;
  job.cluster.gpus_per_node = 1;
  job.workload.global_batch = 2;
  auto& g = job.cluster.gpu;
  g.bf16_peak = g.fp32_peak = units::flops_per_s(1e30);
  g.hbm_bw = units::bytes_per_s(1e30);
  g.kernel_gap_s = 1e-6;
  g.host_launch_s = 10e-6;
  const Simulation s = simulate(job);
  double host_s = 0.0, gpu_s = 0.0, optimizer_s = 0.0;
  int syncs = 0;
  for (sim::OpId op = 0; op < s.plan.info.size(); ++op) {
    const double work = to_seconds(s.plan.graph.op(op).work);
    const std::string label(s.plan.graph.label(op));
    if (s.plan.info[op].is_host) {
      host_s += work;
      syncs += label.find("sync") != std::string::npos;
    } else {
      gpu_s += work;
      if (label == "grad_norm" || label == "adam") optimizer_s += work;
    }
  }
  REQUIRE(syncs == 1);
  // About 0.67 B parameters: 32 launches each for the gradient norm and Adam (32 us of GPU time each).
  CHECK(optimizer_s == Approx(2 * 32e-6).epsilon(1e-6));
  CHECK(s.metrics.step_time_s == Approx(host_s + optimizer_s).epsilon(1e-9));
  // The breakdown: the kernels' own time, and all the rest waiting for launches.
  CHECK(s.report.mean.compute_s + s.report.mean.memory_bound_s == Approx(gpu_s).epsilon(1e-9));
  CHECK(s.report.mean.host_bound_s == Approx(s.metrics.step_time_s - gpu_s).epsilon(1e-6));
  // The host ran its launches back to back but for the wait on grad_norm: busy for their sum.
  CHECK(s.report.ranks.front().host_busy_s == Approx(host_s).epsilon(1e-9));
  CHECK(s.report.host_busy_s == s.report.ranks.front().host_busy_s);  // the one simulated rank's
}

TEST_CASE(
    "a training step's host pays the framework's cost per op: 2.80 kernels each, bare launches inside "
    "calls") {
  // Training runs in a PyTorch framework: each simulated compute op costs the host 2.80 kernels x
  // host_framework_s (f = 20 us here: 56 us), each collective call f, and what a loop inside one
  // call launches (the optimizer's multi-tensor chunks) or a host wake-up a bare launch h = 10 us.
  // With DP 2 the step has compute ops, the gradient all-reduce, the optimizer's
  // chunked kernels and one sync; the host ops must add up to exactly that.
  JobSpec job = two_node_job(1, 1, 2, 0);
  auto& g = job.cluster.gpu;
  g.host_launch_s = 10e-6;
  g.host_framework_s = 20e-6;
  const Simulation s = simulate(job);
  const sim::OpId n = static_cast<sim::OpId>(s.plan.info.size());
  double host_s = 0.0, expected_s = 0.0;
  int compute_ops = 0, comm_ops = 0;
  for (sim::OpId op = 0; op < n; ++op) {
    if (s.plan.info[op].is_host) {
      host_s += to_seconds(s.plan.graph.op(op).work);
      continue;
    }
    if (s.plan.info[op].rank != 0) continue;
    const std::string label(s.plan.graph.label(op));
    const sim::OpKind kind = s.plan.graph.op(op).kind;
    if (label == "grad_norm" || label == "adam") {
      expected_s += 32 * 10e-6;  // about 0.67 B parameters: 32 chunks of 21 M
    } else if (kind == sim::OpKind::compute) {
      expected_s += 2.80 * 20e-6;
      ++compute_ops;
    } else if (kind != sim::OpKind::delay) {
      expected_s += 20e-6;
      ++comm_ops;
    }
  }
  expected_s += 10e-6;  // the host's wake-up after the gradient norm
  REQUIRE(compute_ops > 0);
  REQUIRE(comm_ops > 0);
  // Host ops of the first simulated rank only.
  double rank0_host_s = 0.0;
  for (sim::OpId op = 0; op < n; ++op)
    if (s.plan.info[op].is_host && s.plan.info[op].rank == 0)
      rank0_host_s += to_seconds(s.plan.graph.op(op).work);
  CHECK(rank0_host_s == Approx(expected_s).epsilon(1e-9));
  CHECK(host_s >= rank0_host_s);
  // The same job priced as an inference engine would be: a bare launch per op. Training pays more.
  job.cluster.gpu.host_framework_s = 0.0;
  const Simulation bare = simulate(job);
  double bare_host_s = 0.0;
  for (sim::OpId op = 0; op < bare.plan.info.size(); ++op)
    if (bare.plan.info[op].is_host) bare_host_s += to_seconds(bare.plan.graph.op(op).work);
  CHECK(bare_host_s < host_s);
}

TEST_CASE("overlap_param_gather: the weight all-gathers move under the next forward, one per layer") {
  JobSpec job = two_node_job(2, 2, 4, 1);
  job.workload.global_batch = 4 * 8;
  const Simulation exposed = simulate(job);
  job.parallel.overlap_param_gather = true;
  SimulateOptions all_opts;
  all_opts.ranks = RankMode::all;
  const Simulation hidden = simulate(job);
  const Simulation all = simulate(job, all_opts);
  // Same bytes, gathered per layer at the start of the step instead of per bucket after Adam: each
  // of the 2 stages gathers its 4 layers (the embedding and the head ride with the first and last).
  int gathers = 0;
  for (sim::OpId op = 0; op < hidden.plan.info.size(); ++op)
    gathers += std::string(hidden.plan.graph.label(op)).find("param_allgather") != std::string::npos;
  CHECK(gathers == 2 * 4);
  CHECK(hidden.metrics.step_time_s < exposed.metrics.step_time_s);
  CHECK(hidden.report.mean.exposed_comm_s[static_cast<std::size_t>(ParallelDim::dp)] <
        exposed.report.mean.exposed_comm_s[static_cast<std::size_t>(ParallelDim::dp)]);
  // Every replica still runs the same program: representative and full simulation agree.
  CHECK(all.metrics.step_time_s == Approx(hidden.metrics.step_time_s).epsilon(1e-6));
  // The gathers write into the weights every rank holds (ZeRO-1): nothing is freed after a layer's
  // first forward, so the memory peak is the same as without the overlap and no rank's memory ever
  // falls below its static state (weights, gradients, optimizer shard). Before, each layer's first
  // forward released the layer's weights as if ZeRO-3 had gathered them.
  for (const auto& r : hidden.report.ranks) {
    for (const auto& [t, bytes] : r.memory.timeline)
      CHECK(bytes >= r.memory.static_state.value() * (1.0 - 1e-9));
  }
  CHECK(hidden.report.ranks[hidden.report.peak_rank].memory.peak ==
        exposed.report.ranks[exposed.report.peak_rank].memory.peak);
}

namespace {

/// Two simulations of the same step agree exactly: every op's record, the report and the metrics.
void check_same_simulation(const Simulation& a, const Simulation& b) {
  REQUIRE(a.run.ops.size() == b.run.ops.size());
  for (std::size_t op = 0; op < a.run.ops.size(); ++op) {
    CAPTURE(op);
    CHECK(a.run.ops[op].start == b.run.ops[op].start);
    CHECK(a.run.ops[op].end == b.run.ops[op].end);
    CHECK(a.run.ops[op].bound == b.run.ops[op].bound);
  }
  CHECK(a.metrics.step_time_s == b.metrics.step_time_s);
  CHECK(a.report.mean.exposed_comm_s == b.report.mean.exposed_comm_s);
  CHECK(a.report.mean.bubble_s == b.report.mean.bubble_s);
  CHECK(a.report.ranks[a.report.peak_rank].memory.peak == b.report.ranks[b.report.peak_rank].memory.peak);
  CHECK(a.estimate.step_time_s == b.estimate.step_time_s);
  CHECK(a.transfers->size() == b.transfers->size());
}

}  // namespace

TEST_CASE("a step program runs one build on every fabric exactly as a fresh simulation there") {
  // TP 2 x PP 2 x DP 4 on two nodes: the data-parallel reduction crosses the NICs, so their speed
  // and the fabric's shape change the step. The program builds the step for the first fabric and
  // plans only the collectives again for the others.
  const JobSpec base = two_node_job(2, 2, 4, 1);
  std::vector<JobSpec> jobs(3, base);
  jobs[1].cluster.fabric.nic_bw = units::gbit_per_s(25);
  // A fat-tree of one host per leaf, 4:1 oversubscribed: every scale-out byte crosses a spine.
  jobs[2].cluster.fabric.nic_bw = units::gbit_per_s(25);
  jobs[2].cluster.fabric.kind = topo::FabricKind::fat_tree;
  jobs[2].cluster.fabric.hosts_per_leaf = 1;
  jobs[2].cluster.fabric.oversubscription = {4.0, 1.0, 1.0};
  StepProgram program;
  const MemoryEvent* events = nullptr;
  std::vector<double> step_times;
  for (const JobSpec& job : jobs) {
    const auto topology = std::make_shared<const topo::Topology>(job.cluster);
    Simulation reused = program.simulate(job, topology);
    check_same_simulation(reused, simulate(job, topology));
    // The same plan, lent and taken back: its tables never move.
    const MemoryEvent* now = reused.plan.memory_events.data();
    if (events != nullptr) CHECK(now == events);
    events = now;
    step_times.push_back(reused.metrics.step_time_s);
    program.reclaim(std::move(reused));
  }
  CHECK(step_times[1] > step_times[0]);  // a 25 Gb/s NIC exposes more of the reduction
  CHECK(step_times[2] > step_times[1]);  // and a quarter of it through the spines, more still
  // Another rank mode builds the step again, for every rank.
  SimulateOptions all;
  all.ranks = RankMode::all;
  const auto topology = std::make_shared<const topo::Topology>(jobs[1].cluster);
  check_same_simulation(program.simulate(jobs[1], topology, all), simulate(jobs[1], topology, all));
}

TEST_CASE("a step program refuses a collective on a fabric exactly as a fresh build there") {
  // CollNet needs in-network reduction (fabric.sharp): pure data parallelism over both nodes, whose
  // only collective is the gradient all-reduce of 16 ranks in 2 hosts, builds on the SHARP fabric,
  // and on the plain one the replayed collectives meet the error a fresh build meets.
  JobSpec sharp = two_node_job(1, 1, 16, 0);
  sharp.cluster.fabric.sharp = true;
  sharp.collective.algorithm = topo::CollectiveAlgorithm::collnet_direct;
  JobSpec plain = sharp;
  plain.cluster.fabric.sharp = false;
  StepProgram program;
  const auto sharp_topology = std::make_shared<const topo::Topology>(sharp.cluster);
  program.reclaim(program.simulate(sharp, sharp_topology));
  const auto plain_topology = std::make_shared<const topo::Topology>(plain.cluster);
  std::string fresh_error;
  try {
    (void)simulate(plain, plain_topology);
  } catch (const UserError& e) {
    fresh_error = e.what();
  }
  REQUIRE_FALSE(fresh_error.empty());
  CHECK_THROWS_WITH(program.simulate(plain, plain_topology), fresh_error);
  // The program still holds its step for the fabrics it runs on.
  check_same_simulation(program.simulate(sharp, sharp_topology), simulate(sharp, sharp_topology));
}
