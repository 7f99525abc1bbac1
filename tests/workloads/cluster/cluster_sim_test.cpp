// Several jobs on one cluster: jobs whose links are disjoint do not slow each other, and jobs whose
// traffic meets on an oversubscribed leaf's uplinks slow each other by the max-min share, which the
// tests derive by hand; placements, the repeated steps and the contended links.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "sim/error.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/cluster/cluster_sim.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using work::ClusterJob;
using work::ClusterJobs;
using work::NodePlacement;

namespace {

/// 4 nodes of 8 round GPUs (fixtures.hpp: NIC 50 GB/s) on a two-tier fat-tree with 16 NICs per leaf:
/// nodes 0 and 1 on leaf 0, nodes 2 and 3 on leaf 1. A leaf with oversubscription r has
/// round(16 / r) uplinks, each 16 x 50 / (r x round(16 / r)) = 50 GB/s for r = 1, 4 and 8.
topo::ClusterSpec cluster_test_machine(double oversubscription) {
  topo::ClusterSpec c = test::cluster(4, 8, topo::FabricKind::fat_tree);
  c.gpu = test::round_gpu();
  c.fabric.tiers = 2;
  c.fabric.hosts_per_leaf = 16;
  c.fabric.oversubscription = {oversubscription, 1.0, 1.0};
  return c;
}

/// tiny_gpt, pure data parallel over 2 nodes (dp 16, one micro-batch of 2 per rank), the gradient
/// all-reduce in one bucket after the backward pass (nothing overlaps it) over ring channels.
ClusterJob cluster_test_dp_job(const std::string& name, const topo::ClusterSpec& machine,
                               NodePlacement placement, std::vector<int> nodes = {}) {
  ClusterJob j;
  j.name = name;
  j.job = test::tiny_training();
  j.job.cluster = machine;
  j.job.cluster.nodes = 2;
  j.job.parallel.tp = 1;
  j.job.parallel.dp = 16;
  j.job.workload.global_batch = 32;
  j.job.parallel.dp_overlap = false;
  j.job.parallel.dp_bucket_bytes = 1e12;
  j.job.collective.algorithm = topo::CollectiveAlgorithm::ring;
  j.placement = placement;
  j.nodes = std::move(nodes);
  return j;
}

ClusterJobs cluster_test_pair(double oversubscription, NodePlacement placement) {
  ClusterJobs jobs;
  jobs.cluster = cluster_test_machine(oversubscription);
  jobs.jobs = {cluster_test_dp_job("a", jobs.cluster, placement),
               cluster_test_dp_job("b", jobs.cluster, placement)};
  jobs.steps = 3;
  return jobs;
}

}  // namespace

TEST_CASE("cluster: two jobs on disjoint nodes of a non-blocking fat-tree do not slow each other") {
  SECTION("packed: each job fills its own leaf, and no link carries both") {
    const work::ClusterSimulation s = work::simulate_cluster(cluster_test_pair(1.0, NodePlacement::packed));
    REQUIRE(s.jobs.size() == 2);
    CHECK(s.jobs[0].nodes == std::vector<int>{0, 1});
    CHECK(s.jobs[1].nodes == std::vector<int>{2, 3});
    for (const auto& j : s.jobs) {
      CHECK(j.shared_step_s == j.alone_step_s);
      CHECK(j.steps_run == 3);
      CHECK(j.steps_in_window == 3);
      for (double t : j.shared_steps_s) CHECK(t == j.alone_step_s);
    }
    CHECK(s.contended.empty());
    // Each job's memory peak is its step's alone, as `stepsim run --ranks all` simulates it.
    work::SimulateOptions all;
    all.ranks = work::RankMode::all;
    const work::Simulation one =
        work::simulate(cluster_test_dp_job("a", s.topology->spec(), NodePlacement::packed).job, all);
    for (const auto& j : s.jobs) {
      CHECK(j.memory_peak_bytes == one.report.ranks[one.report.peak_rank].memory.peak.value());
      CHECK(j.usable_hbm_bytes == one.usable_hbm.value());
      CHECK(j.fits() == one.fits);
    }
  }
  SECTION("spread: both jobs cross the leaves and meet on uplinks that static routing shares") {
    // Non-blocking is not contention-free: d-mod-k routing gives each (destination, channel) one
    // uplink, and some of job b's ring flows land on uplinks that job a's already fill. The jobs then
    // slow each other, and only leaf-spine links are reported (their NICs and NVLinks are disjoint).
    const work::ClusterSimulation s = work::simulate_cluster(cluster_test_pair(1.0, NodePlacement::spread));
    CHECK(s.jobs[0].nodes == std::vector<int>{0, 2});
    CHECK(s.jobs[1].nodes == std::vector<int>{1, 3});
    REQUIRE(!s.contended.empty());
    for (const auto& l : s.contended) CHECK(l.kind == topo::LinkKind::leaf_spine);
    for (const auto& j : s.jobs) CHECK(j.shared_step_s >= j.alone_step_s);
  }
}

TEST_CASE("cluster: two jobs across a 4:1 oversubscribed leaf slow each other by the max-min share") {
  // Spread puts job a on nodes 0 and 2 and job b on nodes 1 and 3: each job's all-reduce sends the
  // same flows from leaf 0 to leaf 1 and back. With oversubscription 4 a leaf has 4 uplinks of
  // 50 GB/s (200 GB/s for 16 NICs of 50), and d-mod-k routing puts job b's flows on the same uplinks
  // as job a's (its destinations are 8 NICs further, a multiple of the 4 uplinks). Alone, job a's
  // all-reduce is limited by the uplinks: with n of its flows on each, each flow gets 50 / n GB/s.
  // Together the jobs start in step (same program, time 0), so every uplink carries n flows of each
  // job, max-min fairness gives each flow 50 / 2n, and each job's all-reduce moves its bytes at half
  // its rate alone. That is exactly job a alone on a leaf oversubscribed 8:1: 2 uplinks of 50 GB/s,
  // each carrying the 2n flows the two uplinks j and j + 2 of the 4:1 leaf carried (destinations
  // mod 2 instead of mod 4), again 50 / 2n each. Everything else (kernels, latencies, hops) is the
  // same, so the shared step at 4:1 equals the step alone at 8:1.
  const ClusterJobs shared = cluster_test_pair(4.0, NodePlacement::spread);
  const work::ClusterSimulation s = work::simulate_cluster(shared);
  REQUIRE(s.jobs.size() == 2);
  CHECK(s.jobs[0].nodes == std::vector<int>{0, 2});
  CHECK(s.jobs[1].nodes == std::vector<int>{1, 3});

  ClusterJobs half = cluster_test_pair(8.0, NodePlacement::spread);
  half.jobs.resize(1);
  const work::ClusterSimulation alone_at_half = work::simulate_cluster(half);
  const double expected = alone_at_half.jobs[0].alone_step_s;
  for (const auto& j : s.jobs) {
    // The uplinks limit the all-reduce alone: halving them (8:1) lengthens the step.
    CHECK(j.alone_step_s < expected);
    // Times are integer picoseconds: each flow's end rounds up, a few ps per step at most.
    CHECK(j.shared_step_s == Approx(expected).margin(1e-10));
    CHECK(j.steps_in_window == j.steps_run);
  }
  CHECK(s.jobs[0].alone_step_s == s.jobs[1].alone_step_s);

  // The contended links: leaf 0's and leaf 1's uplinks and downlinks, each carrying the same bytes of
  // both jobs; no NIC or NVLink link is shared (the jobs' nodes are disjoint).
  REQUIRE(!s.contended.empty());
  for (const auto& l : s.contended) {
    CHECK(l.kind == topo::LinkKind::leaf_spine);
    REQUIRE(l.bytes_per_step.size() == 2);
    CHECK(l.bytes_per_step[0] == Approx(l.bytes_per_step[1]));
    CHECK(l.bytes_per_step[0] > 0.0);
    CHECK(l.busy_s > 0.0);
    CHECK(l.peak_utilisation == Approx(1.0));
    CHECK(l.capacity_Bps == Approx(50e9));
  }
}

TEST_CASE(
    "cluster: a short job repeats its step while a long one runs, and the window counts only shared steps") {
  // Job b runs a quarter of job a's batch: its step is shorter, so it runs more steps than a's 2, as
  // many as fit in a's 2 steps alone (rounded up). The window ends when the first job finishes; the
  // two jobs' all-reduces meet only when their phases do, so the slowdown depends on the timing.
  ClusterJobs jobs = cluster_test_pair(4.0, NodePlacement::spread);
  jobs.steps = 2;
  jobs.jobs[1].job.workload.global_batch = 32;
  jobs.jobs[0].job.workload.global_batch = 128;  // 4 micro-batches per rank
  const work::ClusterSimulation s = work::simulate_cluster(jobs);
  const auto& a = s.jobs[0];
  const auto& b = s.jobs[1];
  CHECK(a.alone_step_s > b.alone_step_s);
  CHECK(a.steps_run == 2);
  CHECK(b.steps_run == static_cast<int>(std::ceil(2 * a.alone_step_s / b.alone_step_s - 1e-9)));
  double a_end = 0.0, b_end = 0.0;
  for (double t : a.shared_steps_s) a_end += t;
  for (double t : b.shared_steps_s) b_end += t;
  CHECK(s.window_s == Approx(std::min(a_end, b_end)));
  CHECK(s.makespan_s == Approx(std::max(a_end, b_end)));
  // Sharing never makes a step faster; the window holds every step of the job that ends first.
  CHECK(a.shared_step_s >= a.alone_step_s);
  CHECK(b.shared_step_s >= b.alone_step_s);
  const bool a_first = a_end <= b_end;
  CHECK((a_first ? a.steps_in_window : b.steps_in_window) == (a_first ? a.steps_run : b.steps_run));
  CHECK(a.steps_in_window >= 1);
}

TEST_CASE("cluster: a job that starts later runs its steps from its start, the other alone until then") {
  // Job b starts after 10 of job a's steps alone. The horizon is b's start plus its 3 steps alone,
  // so a runs 13 steps (identical jobs: 10 + 3), and until b starts nothing else runs: a's first 10
  // steps take exactly its time alone.
  ClusterJobs jobs = cluster_test_pair(4.0, NodePlacement::spread);
  const double alone =
      work::simulate_cluster(ClusterJobs{jobs.cluster, {jobs.jobs[0]}, 1}).jobs[0].alone_step_s;
  jobs.jobs[1].start_s = 10 * alone;
  const work::ClusterSimulation s = work::simulate_cluster(jobs);
  const auto& a = s.jobs[0];
  const auto& b = s.jobs[1];
  CHECK(a.start_s == 0.0);
  CHECK(b.start_s == Approx(10 * alone).margin(1e-12));
  CHECK(b.steps_run == 3);
  CHECK(a.steps_run == 13);
  for (int k = 0; k < 10; ++k) CHECK(a.shared_steps_s[static_cast<std::size_t>(k)] == alone);
  double b_end = b.start_s;
  for (double t : b.shared_steps_s) b_end += t;
  CHECK(s.makespan_s == Approx(std::max(b_end, 0.0)));
  CHECK(b.shared_step_s >= b.alone_step_s);
}

TEST_CASE("cluster: placements and the checks that refuse jobs the cluster cannot run") {
  ClusterJobs jobs = cluster_test_pair(1.0, NodePlacement::packed);
  SECTION("explicit lists are taken first, packed jobs take the lowest free nodes") {
    jobs.jobs[1].placement = NodePlacement::explicit_nodes;
    jobs.jobs[1].nodes = {0, 3};
    const auto placed = work::place_jobs(jobs);
    CHECK(placed[0] == std::vector<int>{1, 2});
    CHECK(placed[1] == std::vector<int>{0, 3});
  }
  SECTION("too many nodes") {
    jobs.jobs.push_back(cluster_test_dp_job("c", jobs.cluster, NodePlacement::packed));
    CHECK_THROWS_AS(work::place_jobs(jobs), UserError);
  }
  SECTION("overlapping lists") {
    jobs.jobs[0].placement = jobs.jobs[1].placement = NodePlacement::explicit_nodes;
    jobs.jobs[0].nodes = {0, 1};
    jobs.jobs[1].nodes = {1, 2};
    CHECK_THROWS_WITH(work::place_jobs(jobs), Catch::Contains("already taken by job `a`"));
  }
  SECTION("another GPU") {
    jobs.jobs[1].job.cluster.gpu = test::h100();
    CHECK_THROWS_WITH(work::simulate_cluster(jobs), Catch::Contains("runs on h100-sxm GPUs"));
  }
  SECTION("variability") {
    jobs.jobs[0].job.variability.kernel_jitter_cv = 0.1;
    CHECK_THROWS_AS(work::simulate_cluster(jobs), UserError);
  }
}
