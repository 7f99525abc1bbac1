// [variability] in the step: per-GPU factors from the seed, a slow GPU in a pure data-parallel step
// against the critical path's prediction, several steps and their distribution.
#include <catch2/catch.hpp>
#include <cmath>

#include "sim/error.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace variability_test_detail {

/// tiny_training as pure data parallelism on 8 GPUs, gradients reduced after the backward pass
/// (no overlap), every GPU simulated.
JobSpec pure_dp() {
  JobSpec j = test::tiny_training();
  j.parallel.tp = 1;
  j.parallel.dp = 8;
  j.parallel.dp_overlap = false;
  return j;
}

SimulateOptions all_ranks(int steps = 1) {
  SimulateOptions o;
  o.ranks = RankMode::all;
  o.steps = steps;
  return o;
}

/// Time of the kernels (compute and memory ops) on a run's critical path.
double kernel_time_on_path(const Simulation& s) {
  double t = 0.0;
  for (const sim::OpId id : s.critical.ops) {
    const sim::OpKind k = s.plan.graph.exec(id).kind;
    if (k == sim::OpKind::compute || k == sim::OpKind::memory)
      t += to_seconds(s.run.ops[id].end - s.run.ops[id].start);
  }
  return t;
}

}  // namespace variability_test_detail

using namespace variability_test_detail;

TEST_CASE("named slow GPUs and nodes multiply the drawn factors") {
  VariabilitySpec v;
  v.slow_gpus = {{5, 1.2}};
  v.slow_nodes = {{1, 1.5}};
  const auto f = gpu_time_factors(v, 16, 8);
  REQUIRE(f.size() == 16);
  CHECK(f[5] == 1.2);
  CHECK(f[4] == 1.0);
  for (int r = 8; r < 16; ++r) CHECK(f[static_cast<std::size_t>(r)] == 1.5);  // node 1 = ranks 8-15
  v.slow_gpus = {{9, 1.2}};
  CHECK(gpu_time_factors(v, 16, 8)[9] == Approx(1.8));  // 1.5 x 1.2
}

TEST_CASE("the part-to-part spread and the throttled tail have the moments asked for") {
  // 100,000 GPUs: the sample sd of a 0.02 spread has a standard error 0.02 / sqrt(2 x 1e5) = 4.5e-5,
  // the throttled fraction 0.01 a binomial standard error sqrt(0.01 x 0.99 / 1e5) = 3.1e-4.
  VariabilitySpec v;
  v.seed = 3;
  v.gpu_speed_sd = 0.02;
  const int n = 100000;
  auto f = gpu_time_factors(v, n, 8);
  double sum = 0.0, sq = 0.0;
  for (double x : f) sum += x, sq += x * x;
  const double mean = sum / n;
  CHECK(mean == Approx(1.0).margin(5 * 0.02 / std::sqrt(n)));
  CHECK(std::sqrt(sq / n - mean * mean) == Approx(0.02).margin(5 * 4.5e-5));
  v.gpu_speed_sd = 0.0;
  v.throttled_fraction = 0.01;
  v.throttled_factor = 1.15;
  f = gpu_time_factors(v, n, 8);
  int throttled = 0, other = 0;
  for (double x : f) {
    throttled += x == 1.15;
    other += x != 1.0 && x != 1.15;
  }
  CHECK(other == 0);
  CHECK(throttled / double(n) == Approx(0.01).margin(5 * 3.1e-4));
  // The same seed draws the same parts; another seed others.
  CHECK(gpu_time_factors(v, n, 8) == f);
  v.seed = 4;
  CHECK(gpu_time_factors(v, n, 8) != f);
}

TEST_CASE("one GPU slowed by f slows a pure data-parallel step by (f - 1) x its critical kernels") {
  // Without overlap every rank computes its micro-batches alone, then all wait in the gradient
  // all-reduce and run the optimizer. The nominal critical path is one rank's kernels, the
  // reduction and its optimizer kernels. Slowing one GPU by f stretches each of its kernels by f;
  // the others wait for it at the reduction, and its optimizer ends last: the step grows by
  // (f - 1) x K, K the kernel time on the nominal critical path (to within a picosecond per op).
  const JobSpec nominal_job = pure_dp();
  const Simulation nominal = simulate(nominal_job, all_ranks());
  const double K = kernel_time_on_path(nominal);
  REQUIRE(K > 0.5 * nominal.report.step_time_s);
  for (double f : {1.1, 1.5}) {
    JobSpec j = nominal_job;
    j.variability.slow_gpus = {{5, f}};
    const Simulation slow = simulate(j, all_ranks());
    REQUIRE(slow.steps.steps.size() == 1);
    CHECK(slow.steps.nominal_s == Approx(nominal.report.step_time_s).epsilon(1e-12));
    CHECK(slow.report.step_time_s - nominal.report.step_time_s == Approx((f - 1.0) * K).epsilon(1e-6));
    // What the step waited on: GPU 5, for its stretched kernels, f x K.
    REQUIRE(!slow.steps.slowest.ranks.empty());
    CHECK(slow.steps.slowest.ranks.front().rank == 5);
    CHECK(slow.steps.slowest.ranks.front().factor == f);
    CHECK(slow.steps.slowest.ranks.front().kernel_s == Approx(f * K).epsilon(1e-6));
    CHECK(slow.steps.steps.front().waited_on_rank == 5);
  }
}

TEST_CASE("several jittered steps: a distribution around the nominal step, the median reported") {
  JobSpec j = pure_dp();
  j.variability.kernel_jitter_cv = 0.05;
  const Simulation s = simulate(j, all_ranks(9));
  const StepDistribution& d = s.steps;
  REQUIRE(d.steps.size() == 9);
  CHECK(d.min_s <= d.p50_s);
  CHECK(d.p50_s <= d.p90_s);
  CHECK(d.p90_s <= d.p99_s);
  CHECK(d.p99_s <= d.max_s);
  CHECK(d.max_s == d.steps[static_cast<std::size_t>(d.slowest_step)].time_s);
  // Nine steps: the median is the 5th smallest, and the run reported is that step, run again.
  CHECK(d.p50_s == d.steps[static_cast<std::size_t>(d.median_step)].time_s);
  CHECK(s.report.step_time_s == Approx(d.p50_s).epsilon(1e-12));
  // Mean-1 jitter on a step that waits for the slowest of 8 GPUs at each synchronisation: slower
  // than nominal, and not identical from step to step.
  CHECK(d.mean_s > d.nominal_s);
  CHECK(d.max_s > d.min_s);
  // Deterministic for the seed.
  const Simulation again = simulate(j, all_ranks(9));
  CHECK(again.steps.mean_s == d.mean_s);
  j.variability.seed = 2;
  CHECK(simulate(j, all_ranks(9)).steps.mean_s != d.mean_s);
}

TEST_CASE("variability needs every GPU simulated") {
  JobSpec j = pure_dp();
  j.variability.kernel_jitter_cv = 0.05;
  CHECK_THROWS_AS(simulate(j), UserError);
  // Without variability, several steps of the representative ranks are identical.
  SimulateOptions o;
  o.steps = 3;
  const Simulation s = simulate(pure_dp(), o);
  CHECK(s.steps.max_s == s.steps.min_s);
  CHECK(s.steps.mean_s == Approx(s.steps.nominal_s).epsilon(1e-12));
}

TEST_CASE("a degraded NIC slows the step, and the nominal step is the healthy fabric's") {
  // Pure data parallelism over two nodes: the gradient reduction crosses the NICs, so one NIC at
  // half rate slows it; representative ranks simulate the healthy job exactly.
  JobSpec j = pure_dp();
  j.cluster.nodes = 2;
  j.parallel.dp = 16;
  const Simulation healthy = simulate(j);
  j.cluster.degraded = {{3, topo::LinkDegradation::Part::nic, 0.5}};
  j.variability.degraded_links = 1;
  const Simulation slow = simulate(j, all_ranks());
  CHECK(slow.steps.nominal_s == Approx(healthy.report.step_time_s).epsilon(1e-12));
  CHECK(slow.report.step_time_s > healthy.report.step_time_s);
  // No draws: every step is the same.
  CHECK(slow.steps.max_s == slow.steps.min_s);
}

namespace variability_test_detail {

SimulateOptions replayed(int steps = 1) {
  SimulateOptions o;
  o.replay = true;
  o.steps = steps;
  return o;
}

/// tiny_training on 16 GPUs as TP 2, PP 2, DP 4 with interleaved stages: collectives of every
/// kind, pipeline transfers and a schedule that overlaps them.
JobSpec pipelined() {
  JobSpec j = test::tiny_training();
  j.cluster.nodes = 2;
  j.parallel.tp = 2;
  j.parallel.pp = 2;
  j.parallel.dp = 4;
  j.parallel.virtual_stages = 2;
  j.workload.global_batch = 32;
  return j;
}

}  // namespace variability_test_detail

TEST_CASE("every GPU replayed with nothing varying is the representative step, exactly") {
  // The replay holds each op's duration from the representative run and starts each op of each
  // GPU when its predecessors on that GPU end (its group's latest member, for a collective): with
  // every GPU alike that is the run itself, to the picosecond.
  for (const JobSpec& j : {pure_dp(), pipelined()}) {
    const Simulation rep = simulate(j);
    const Simulation s = simulate(j, replayed(2));
    REQUIRE(s.steps.replayed);
    REQUIRE(s.steps.steps.size() == 2);
    CHECK(s.steps.steps[0].time_s == rep.report.step_time_s);
    CHECK(s.steps.steps[1].time_s == rep.report.step_time_s);
    CHECK(s.steps.nominal_s == rep.report.step_time_s);
    CHECK(s.steps.instances ==
          2u * rep.plan.graph.op_count() * static_cast<std::uint64_t>(j.parallel.tp * j.parallel.dp));
  }
}

TEST_CASE("replayed, one GPU slowed by f slows a pure data-parallel step by (f - 1) x its critical kernels") {
  // The same law as simulated with every GPU (above): the replay starts the gradient reduction of
  // all 8 GPUs when GPU 5 is ready, and its optimizer ends last.
  const JobSpec nominal_job = pure_dp();
  const Simulation nominal = simulate(nominal_job, all_ranks());
  const double K = kernel_time_on_path(nominal);
  for (double f : {1.1, 1.5}) {
    JobSpec j = nominal_job;
    j.variability.slow_gpus = {{5, f}};
    const Simulation slow = simulate(j, replayed());
    REQUIRE(slow.steps.steps.size() == 1);
    CHECK(slow.steps.steps[0].time_s - nominal.report.step_time_s == Approx((f - 1.0) * K).epsilon(1e-6));
    REQUIRE(!slow.steps.slowest.ranks.empty());
    CHECK(slow.steps.slowest.ranks.front().rank == 5);
    CHECK(slow.steps.slowest.ranks.front().kernel_s == Approx(f * K).epsilon(1e-6));
    CHECK(slow.steps.steps.front().waited_on_rank == 5);
  }
}

TEST_CASE("replayed and simulated with every GPU, a slow GPU costs a pipelined step the same") {
  // With TP, PP and interleaving, a slow GPU also shifts when its peers' transfers run, and so
  // which of their kernels those transfers slow (comm_slowdown): every GPU simulated re-times
  // them, the replay holds each kernel at its representative duration. Measured here: the slow
  // GPU adds 0.571 ms to the 13.010 ms step simulated, 0.517 ms replayed (the step -0.40%); the
  // check allows 1% of the step (docs/simulation.md, "Every GPU replayed").
  JobSpec j = pipelined();
  j.variability.slow_gpus = {{5, 1.3}};
  const Simulation all = simulate(j, all_ranks());
  const Simulation replay = simulate(j, replayed());
  INFO("every GPU " << all.report.step_time_s << " s, replayed " << replay.steps.steps[0].time_s << " s");
  CHECK(replay.steps.steps[0].time_s == Approx(all.report.step_time_s).epsilon(1e-2));
  CHECK(replay.steps.steps[0].time_s > simulate(pipelined()).report.step_time_s);
}

TEST_CASE("replayed and simulated with every GPU, a degraded NIC costs a data-parallel step the same") {
  // Pure data parallelism over two nodes, so the gradient all-reduce's one group crosses the NICs:
  // with GPU 3's NIC at half rate (or down, its traffic on GPU 2's NIC), every GPU simulated runs
  // the degraded fabric; the replay runs the healthy step and slows the reached group's copies by
  // the degraded / healthy time of that group alone. The rest of the step is the same kernels.
  for (const double bw : {0.5, 0.0}) {
    JobSpec j = pure_dp();
    j.cluster.nodes = 2;
    j.parallel.dp = 16;
    const Simulation healthy = simulate(j);
    j.cluster.degraded = {{3, topo::LinkDegradation::Part::nic, bw}};
    j.variability.degraded_links = 1;
    const Simulation all = simulate(j, all_ranks());
    const Simulation replay = simulate(j, replayed());
    INFO("NIC at " << bw << ": healthy " << healthy.report.step_time_s << " s, every GPU "
                   << all.report.step_time_s << " s, replayed " << replay.steps.steps[0].time_s << " s");
    CHECK(replay.steps.nominal_s == healthy.report.step_time_s);
    CHECK(replay.steps.steps[0].time_s > healthy.report.step_time_s);
    CHECK(replay.steps.steps[0].time_s == Approx(all.report.step_time_s).epsilon(1e-2));
    // One group of 16 reaches GPU 3's node: every copy of its all-reduce is slowed alike.
    CHECK(replay.steps.degraded_copies == replay.steps.degraded_ops * 16);
    CHECK(replay.steps.degraded_max_factor > 1.0);
  }
}

TEST_CASE("replayed and simulated with every GPU, degraded links cost a pipelined step about the same") {
  // TP 2 x PP 2 x DP 4 over two nodes. A NIC at half or a tenth of its rate slows the pipeline sends
  // and the cross-node gradient reduction of its GPU's groups: the replay prices them alone with
  // the other reached groups of the same collective and matches every GPU simulated (measured:
  // within 0.01%). A degraded NVLink carries several of its GPU's collectives at once (tensor-
  // parallel reductions, pipeline sends, the gradient reduction), which every GPU simulated shares
  // on the slow link and the replay prices one collective at a time: at half rate the replay is
  // 0.7-2.7% short, at a tenth 7-12% (docs/simulation.md, "Every GPU replayed").
  for (const int gpu : {0, 3, 9})
    for (const auto part : {topo::LinkDegradation::Part::nic, topo::LinkDegradation::Part::nvlink})
      for (const double bw : {0.5, 0.1}) {
        JobSpec j = pipelined();
        const double healthy = simulate(j).report.step_time_s;
        j.cluster.degraded = {{gpu, part, bw}};
        j.variability.degraded_links = 1;
        const double all = simulate(j, all_ranks()).report.step_time_s;
        const Simulation replay = simulate(j, replayed());
        const double r = replay.steps.steps[0].time_s;
        const bool nic = part == topo::LinkDegradation::Part::nic;
        INFO("GPU " << gpu << (nic ? " NIC" : " NVLink") << " at " << bw << ": healthy " << healthy
                    << " s, every GPU " << all << " s, replayed " << r << " s");
        CHECK(replay.steps.nominal_s == healthy);
        CHECK(r >= healthy);
        if (nic)
          CHECK(r == Approx(all).epsilon(1e-3));
        else
          CHECK(r == Approx(all).epsilon(bw >= 0.5 ? 0.03 : 0.13));
        CHECK(r <= all * (1.0 + 1e-9));
      }
}

TEST_CASE("clock wander slows a pipelined step alike with every GPU simulated and replayed") {
  // Each GPU's kernels take a mean-1 factor per 1 ms window (cv 5%), so every synchronisation
  // waits for the slowest of its group's current factors: the mean step rises over nominal in both
  // modes. The two draw the same factors (a hash of seed, GPU row and window) but the replay picks
  // a kernel's window by its op's representative start and holds transfers at their run's times,
  // so they agree in distribution, not step by step: over 6 steps their means within 1% of the step.
  JobSpec j = pipelined();
  j.variability.clock_wander_cv = 0.05;
  j.variability.clock_wander_ms = 1.0;
  const double nominal = simulate(pipelined()).report.step_time_s;
  const Simulation all = simulate(j, all_ranks(6));
  const Simulation replay = simulate(j, replayed(6));
  INFO("nominal " << nominal << " s, every GPU " << all.steps.mean_s << " s, replayed " << replay.steps.mean_s
                  << " s");
  CHECK(all.steps.mean_s > nominal);
  CHECK(replay.steps.mean_s > nominal);
  CHECK(replay.steps.mean_s == Approx(all.steps.mean_s).epsilon(1e-2));
  CHECK(all.steps.max_s > all.steps.min_s);  // the windows' draws differ from step to step
}
