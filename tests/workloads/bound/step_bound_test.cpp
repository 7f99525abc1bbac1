// The step bound (workloads/bound/step_bound.hpp) against built and simulated steps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "sim/error.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/workloads/fake_planner.hpp"
#include "topology/topology.hpp"
#include "workloads/bound/comm_bound.hpp"
#include "workloads/bound/step_bound.hpp"
#include "workloads/layout/layout_space.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/train_step.hpp"

using namespace stepsim;
using work::JobSpec;
using work::Knob;
using work::Layout;

namespace {

/// A 4-layer MoE model (the first layer dense) with 8 experts of 2048, top-2, on the tiny job's GPUs.
JobSpec tiny_moe() {
  JobSpec j = test::tiny_training();
  j.model.experts = 8;
  j.model.top_k = 2;
  j.model.expert_ffn = 2048;
  j.model.dense_layers = 1;
  j.moe.imbalance = 1.5;
  return j;
}

/// tiny_moe's layers as a hybrid stack: a Mamba-2 mixer, attention, an MoE FFN and a dense MLP, each a
/// layer of its own (Mamba: 2 x hidden / 64 heads of 64, state 64, 4 groups).
JobSpec tiny_hybrid() {
  JobSpec j = tiny_moe();
  j.model.dense_layers = 0;
  j.model.hybrid_layers = {work::LayerKind::mamba, work::LayerKind::attention, work::LayerKind::moe,
                           work::LayerKind::mlp};
  j.model.layers = 4;
  j.model.mamba = work::MambaDims{2 * j.model.hidden / 64, 64, 64, 4, 4, 128};
  return j;
}

/// The same with a Gated DeltaNet mixer (4 key and 8 value heads of 64) and a gated attention layer.
JobSpec tiny_gated_delta() {
  JobSpec j = tiny_hybrid();
  j.model.hybrid_layers[0] = work::LayerKind::gated_delta;
  j.model.mamba = {};
  j.model.gated_delta = work::GatedDeltaDims{4, 8, 64, 64, 4, 64};
  j.model.attention_output_gate = true;
  return j;
}

/// The busiest simulated rank's compute-stream work in a built step: every kernel at full speed.
Time busiest_kernels(const work::StepPlan& plan) {
  std::map<int, Time> per_rank;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const work::OpInfo& i = plan.info[op];
    if (i.is_comm || i.is_host) continue;
    per_rank[i.rank] += plan.graph.op(op).work;
  }
  Time best{};
  for (const auto& [rank, t] : per_rank) best = std::max(best, t);
  return best;
}

/// Every layout of `job` with micro-batches 1 and 2, ZeRO 0, 1 and 3, and each recomputation.
std::vector<Layout> layouts_of(const JobSpec& job) {
  work::LayoutSpaceOptions o;
  o.values(Knob::micro_batch) = {1, 2};
  o.values(Knob::zero_stage) = {0, 1, 3};
  return work::enumerate_layouts(job, o);
}

}  // namespace

TEST_CASE("The step bound is never above the simulated step, nor its memory bound above the peak", "[slow]") {
  // Why: the bound runs the same emitters with a subset of the step graph's constraints (each
  // rank's compute stream, the emitters' own dependencies, pipeline boundaries, the data-parallel
  // channel) and durations no longer than the simulation's (kernels at full speed; each collective
  // at its time on an idle network, which contention only lengthens). Taking every op as early as
  // those constraints allow cannot end later than the simulation, whatever the layout.
  JobSpec two_nodes = test::tiny_training();  // data parallelism across the NICs
  two_nodes.cluster.nodes = 2;
  two_nodes.workload.global_batch = 128;
  JobSpec eager = test::tiny_training();  // every kernel launched by the host first
  eager.cluster.gpu.host_launch_s = 5e-6;
  JobSpec uneven = test::tiny_training();  // 6 layers on 3 stages as 1 + 4 + 1
  uneven.model.layers = 6;
  uneven.parallel.pp = 3;
  uneven.parallel.first_stage_layers = 1;
  uneven.parallel.last_stage_layers = 1;
  uneven.cluster.gpus_per_node = 6;
  uneven.cluster.nvlink_domain = 6;
  uneven.workload.global_batch = 48;
  JobSpec mtp = tiny_moe();  // a multi-token-prediction module on the last stage
  mtp.model.mtp_layers = 1;
  JobSpec paired = tiny_moe();  // overlapped backward-forward pairs: halves taking turns
  paired.parallel.ep_overlap = true;
  const std::vector<std::pair<const char*, JobSpec>> jobs{
      {"one node", test::tiny_training()},
      {"two nodes", two_nodes},
      {"eager launches", eager},
      {"uneven stages", uneven},
      {"MoE", tiny_moe()},
      {"MoE with MTP", mtp},
      {"MoE with overlapped pairs", paired},
      {"hybrid Mamba / attention / MoE / MLP", tiny_hybrid()},
      {"hybrid Gated DeltaNet / gated attention / MoE / MLP", tiny_gated_delta()}};
  for (const auto& [name, base] : jobs) {
    auto topology = std::make_shared<const topo::Topology>(base.cluster);
    work::TopologyCommBound comm(topology);
    std::size_t checked = 0;
    const std::vector<Layout> all = layouts_of(base);
    // Every third layout keeps the test short while covering each grid and knob.
    for (std::size_t i = 0; i < all.size(); i += 3) {
      const JobSpec job = work::with_layout(base, all[i]);
      work::StepBound b;
      try {
        b = work::bound_train_step(job, &comm);
      } catch (const UserError&) {
        continue;  // a layout the builder refuses (MoE with tp > 1 and no SP, say)
      }
      CAPTURE(name, all[i].text());
      const work::Simulation sim = work::simulate(job, topology);
      CAPTURE(to_seconds(b.step), sim.metrics.step_time_s);
      CHECK(b.step <= sim.run.makespan);
      CHECK(b.kernels <= b.step);
      CHECK(b.step > Time::zero());
      const double peak = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
      CHECK(b.memory_bytes <= peak);
      // The static memory alone is already most of the bound on these small models' ranks.
      CHECK(b.memory_bytes >= 0.5 * peak);
      ++checked;
    }
    CAPTURE(name);
    CHECK(checked >= 10);
  }
}

TEST_CASE("Without communication the bound's kernel time is the built step's, kernel for kernel", "[slow]") {
  // For dense models without MTP the walk emits exactly the kernels the builder emits on each
  // simulated rank, so the busiest rank's sum of full-speed durations must agree to the picosecond.
  const JobSpec base = test::tiny_training();
  std::size_t checked = 0;
  for (const Layout& l : layouts_of(base)) {
    const JobSpec job = work::with_layout(base, l);
    const work::StepBound b = work::bound_train_step(job);
    work::fakes::FixedCostPlanner planner([](const work::CommRequest&) { return Time::zero(); });
    const work::StepPlan plan = work::build_train_step(job, planner);
    CAPTURE(l.text());
    CHECK(b.kernels == busiest_kernels(plan));
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("Layouts that emit the same program share a fingerprint, and others do not") {
  Layout l;
  l.tp = 2;
  l.dp = 4;
  l.knob(Knob::micro_batch) = 2;
  const auto program = [&](work::Recompute r, bool layernorm = false) {
    Layout x = l;
    x.knob(Knob::recompute) = static_cast<int>(r);
    JobSpec job = work::with_layout(test::tiny_training(), x);
    job.recompute_modules.layernorm = layernorm;
    return work::bound_train_step(job).program;
  };
  // Selective recomputation of the attention core replays FlashAttention's forward (Megatron
  // checkpoints the core attention call whatever kernel runs it): another program.
  CHECK(program(work::Recompute::selective) != program(work::Recompute::none));
  // TP communication overlap without TP has nothing to overlap: the same kernels and collectives.
  const auto serial = [&](int overlap) {
    Layout x = l;
    x.tp = 1;
    x.dp = 8;
    x.knob(Knob::tp_comm_overlap) = overlap;
    return work::bound_train_step(work::with_layout(test::tiny_training(), x)).program;
  };
  CHECK(serial(1) == serial(0));
  // Recomputing the norms keeps fewer activations and reruns the norms; full recomputes everything.
  CHECK(program(work::Recompute::selective, true) != program(work::Recompute::none));
  CHECK(program(work::Recompute::full) != program(work::Recompute::none));
  // Another micro-batch size changes every kernel's shape.
  Layout bigger = l;
  bigger.knob(Knob::micro_batch) = 4;
  bigger.dp = 4;
  CHECK(work::bound_train_step(work::with_layout(test::tiny_training(), bigger)).program !=
        program(work::Recompute::none));
}

TEST_CASE("DualPipe: the bound is the busiest rank's kernels, below the simulated step and peak") {
  // Why: rank r runs stages r and pp - 1 - r for half the micro-batches each; weight steps move
  // kernels to another stream but add none, and pairs take turns, so the busiest rank's kernel
  // time at full speed bounds the step (as for ep_overlap). Memory: every forward before the
  // first backward or pair is still alive when the last of them starts.
  JobSpec dense = test::tiny_training();  // TP 2 x PP 2 x DP 2, 16 micro-batches per pipeline
  dense.parallel.dp = 2;
  dense.parallel.pp = 2;
  dense.parallel.schedule = work::PipelineSchedule::dualpipe;
  JobSpec moe = tiny_moe();  // and with overlapped pairs
  moe.parallel.tp = 1;
  moe.parallel.ep = 2;
  moe.parallel.dp = 2;
  moe.parallel.pp = 4;
  moe.workload.global_batch = 32;
  moe.parallel.schedule = work::PipelineSchedule::dualpipe;
  moe.parallel.ep_overlap = true;
  JobSpec vshape = dense;  // DualPipeV: the V of 2 x pp chunks
  vshape.parallel.schedule = work::PipelineSchedule::dualpipev;
  vshape.parallel.virtual_stages = 2;
  for (const auto& [name, job] :
       {std::pair{"dense", dense}, std::pair{"MoE with pairs", moe}, std::pair{"DualPipeV", vshape}}) {
    auto topology = std::make_shared<const topo::Topology>(job.cluster);
    work::TopologyCommBound comm(topology);
    const work::StepBound b = work::bound_train_step(job, &comm);
    const work::Simulation sim = work::simulate(job, topology);
    CAPTURE(name, to_seconds(b.step), sim.metrics.step_time_s);
    CHECK(b.step == b.kernels);
    CHECK(b.step <= sim.run.makespan);
    CHECK(b.step >= 0.5 * sim.run.makespan);  // the bound is not vacuous
    const double peak = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
    CHECK(b.memory_bytes <= peak);
    CHECK(b.memory_bytes >= 0.5 * peak);
    // Without communication, the bound's kernels are the built step's, kernel for kernel.
    work::fakes::FixedCostPlanner planner([](const work::CommRequest&) { return Time::zero(); });
    CHECK(work::bound_train_step(job).kernels == busiest_kernels(work::build_train_step(job, planner)));
  }
}
