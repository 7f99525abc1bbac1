#include "workloads/cluster/cluster_sim.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/critical_path.hpp"
#include "sim/engine.hpp"
#include "sim/error.hpp"
#include "sim/graph_copy.hpp"
#include "topology/flow_network.hpp"
#include "topology/transfer_table.hpp"
#include "workloads/layout/topology_planner.hpp"
#include "workloads/simulate/step_clock.hpp"
#include "workloads/step/inference_step.hpp"
#include "workloads/step/step_report.hpp"
#include "workloads/step/train_step.hpp"

namespace stepsim::work {
namespace {

/// One job's CommPlanner: its GPU ids become the cluster's, its [collective] choices apply to its
/// own requests, and every payload goes into the one table all jobs share.
class ClusterJobPlanner final : public CommPlanner {
 public:
  ClusterJobPlanner(const topo::Topology& topology, topo::TransferTableBuilder& table,
                    std::vector<int> gpu_of, const topo::CommConfig& config)
      : topology_(topology), table_(table), gpu_of_(std::move(gpu_of)), config_(config) {}

  std::uint32_t plan(const CommRequest& request) override {
    CommRequest mapped = request;
    for (auto& group : mapped.groups)
      for (int& g : group) g = gpu_of_.at(static_cast<std::size_t>(g));
    topo::CollectiveRequest c = planned_collective(topology_, mapped);
    // As TransferTableBuilder applies a job-wide NCCL_ALGO / NCCL_PROTO, for this job only.
    if (c.algorithm == topo::CollectiveAlgorithm::automatic &&
        config_.algorithm != topo::CollectiveAlgorithm::automatic &&
        topo::implements(c.op, config_.algorithm))
      c.algorithm = config_.algorithm;
    if (c.protocol == topo::CollectiveProtocol::automatic) c.protocol = config_.protocol;
    return table_.add(c);
  }
  std::unique_ptr<sim::Network> make_network() override {
    throw std::logic_error("ClusterJobPlanner::make_network: the cluster's jobs share one network");
  }

 private:
  const topo::Topology& topology_;
  topo::TransferTableBuilder& table_;
  std::vector<int> gpu_of_;
  topo::CommConfig config_;
};

/// The cluster GPU of each of the job's GPUs: its node through the placement, its index kept.
std::vector<int> cluster_gpus(const ClusterJob& job, const std::vector<int>& nodes) {
  const int gpn = job.job.cluster.gpus_per_node;
  std::vector<int> out(static_cast<std::size_t>(job.job.cluster.total_gpus()));
  for (std::size_t g = 0; g < out.size(); ++g)
    out[g] = nodes[g / static_cast<std::size_t>(gpn)] * gpn + static_cast<int>(g) % gpn;
  return out;
}

/// "gpu12", "leaf0", "spine3": each vertex by its kind and its index among vertices of that kind.
std::vector<std::string> cluster_vertex_names(const topo::Topology& t) {
  static constexpr const char* kNames[] = {"gpu", "nvswitch", "pcie", "leaf", "spine", "core", "switch"};
  std::vector<int> count(std::size(kNames), 0);
  std::vector<std::string> out(t.vertex_count());
  for (topo::VertexId v = 0; v < out.size(); ++v) {
    const auto k = static_cast<std::size_t>(t.vertex_kind(v));
    out[v] = kNames[k] + std::to_string(count[k]++);
  }
  return out;
}

struct JobBuild {
  StepPlan plan;
  std::vector<double> link_bytes;  ///< per link, one step alone
  double alone_s = 0.0;
  double memory_peak_bytes = 0.0;  ///< the busiest simulated rank's, in its step alone
  int steps = 1;
  double start_s = 0.0;
};

/// Each job's steps back to back behind per-job barriers. Returns per job its start (a delay of
/// start_s that its first step waits for) and then each step's barrier.
std::vector<std::vector<sim::OpId>> add_repeated_steps(sim::StepGraphBuilder& b, const ClusterJobs& spec,
                                                       const std::vector<JobBuild>& builds) {
  std::vector<std::vector<sim::OpId>> barriers(builds.size());
  for (std::size_t j = 0; j < builds.size(); ++j) {
    const sim::StepGraph& g = builds[j].plan.graph;
    const std::string prefix = spec.jobs[j].name + "/";
    const std::vector<sim::StreamId> streams = sim::copy_streams(b, g, prefix);
    const sim::StreamId steps = b.add_stream(b.add_processor({}), sim::StreamRole::compute, prefix + "steps");
    const std::vector<sim::OpId> finals = sim::final_ops(g);
    std::vector<sim::OpId> firsts;
    for (sim::StreamId s = 0; s < g.stream_count(); ++s)
      if (g.first_on(s) != sim::StepGraph::kNoOp) firsts.push_back(g.first_on(s));
    sim::Op barrier;
    barrier.kind = sim::OpKind::delay;
    barrier.label = b.intern(prefix + "start");
    barrier.work = from_seconds(builds[j].start_s);
    barriers[j].push_back(b.add_op(barrier, steps));
    barrier.label = b.intern(prefix + "step end");
    barrier.work = Time{};
    for (int k = 0; k < builds[j].steps; ++k) {
      const sim::OpId first = sim::append_ops(b, g, streams);
      for (sim::OpId f : firsts) b.add_dependency(barriers[j].back(), first + f);
      const sim::OpId end = b.add_op(barrier, steps);
      for (sim::OpId f : finals) b.add_dependency(first + f, end);
      barriers[j].push_back(end);
    }
  }
  return barriers;
}

std::vector<ContendedLink> contended_links(const topo::Topology& t, const std::vector<JobBuild>& builds,
                                           const topo::LinkTimeline& timeline) {
  const std::vector<std::string> names = cluster_vertex_names(t);
  std::vector<ContendedLink> out;
  for (topo::LinkId l = 0; l < t.links().size(); ++l) {
    int users = 0;
    for (const JobBuild& b : builds) users += b.link_bytes[l] > 0.0 ? 1 : 0;
    if (users < 2) continue;
    const topo::Link& link = t.link(l);
    ContendedLink c;
    c.link = l;
    c.kind = link.kind;
    c.from = names[link.from];
    c.to = names[link.to];
    c.capacity_Bps = link.bw.value();
    for (const JobBuild& b : builds) c.bytes_per_step.push_back(b.link_bytes[l]);
    if (l < timeline.stats.size()) {
      c.busy_s = to_seconds(timeline.stats[l].busy);
      c.peak_utilisation = c.capacity_Bps > 0.0 ? timeline.stats[l].peak_load_Bps / c.capacity_Bps : 0.0;
    }
    out.push_back(std::move(c));
  }
  const auto total = [](const ContendedLink& c) {
    double s = 0.0;
    for (double b : c.bytes_per_step) s += b;
    return s;
  };
  std::stable_sort(out.begin(), out.end(), [&](const ContendedLink& a, const ContendedLink& b) {
    if (a.kind != b.kind) return a.kind > b.kind;  // spine-core, leaf-spine, NIC, then scale-up
    return total(a) > total(b);
  });
  return out;
}

/// Each job's step with every rank, its GPUs mapped to its nodes', its collectives planned into one
/// table (returned in `table`). Channels and chunks are the table's, so the jobs must agree on them;
/// each job's algorithm and protocol are its own.
std::vector<JobBuild> build_cluster_jobs(const ClusterJobs& spec,
                                         const std::vector<std::vector<int>>& placement,
                                         const std::shared_ptr<const topo::Topology>& topology,
                                         std::shared_ptr<const topo::TransferTable>& table) {
  const topo::CommConfig& first = spec.jobs.front().job.collective;
  for (const ClusterJob& j : spec.jobs)
    if (j.job.collective.channels != first.channels || j.job.collective.chunk_bytes != first.chunk_bytes)
      throw UserError("job `" + j.name + "`: [collective] channels and chunk size differ from job `" +
                      spec.jobs.front().name +
                      "`'s; jobs on one cluster share the network's collective plans");
  topo::CommConfig shared;
  shared.channels = first.channels;
  shared.chunk_bytes = first.chunk_bytes;
  topo::TransferTableBuilder table_builder(topology, shared);
  std::vector<JobBuild> builds;
  builds.reserve(spec.jobs.size());
  for (std::size_t j = 0; j < spec.jobs.size(); ++j) {
    // At the clock its step holds alone (the clock follows the job's own kernels, not the fabric).
    const JobSpec job =
        at_clock(spec.jobs[j].job, step_clock(spec.jobs[j].job, topology, spec.jobs[j].job.collective));
    ClusterJobPlanner planner(*topology, table_builder, cluster_gpus(spec.jobs[j], placement[j]),
                              job.collective);
    builds.push_back({job.workload.kind == WorkloadKind::train
                          ? build_train_step(job, planner, {RankMode::all})
                          : build_inference_step(job, planner, {RankMode::all}),
                      {},
                      0.0,
                      0.0,
                      1,
                      spec.jobs[j].start_s});
  }
  table = std::make_shared<const topo::TransferTable>(std::move(table_builder).build());
  return builds;
}

/// Each job's step by itself at its placement: its time and the bytes it puts on each link. With
/// a barrier after each step and nothing else running, every repetition of it takes this long.
void run_alone(std::vector<JobBuild>& builds, const std::shared_ptr<const topo::TransferTable>& table) {
  for (JobBuild& b : builds) {
    topo::FlowNetwork net(table, {topo::LinkAccounting::totals});
    sim::Engine engine(b.plan.graph, &net);
    const sim::RunResult run = engine.run();
    b.alone_s = to_seconds(run.makespan);
    const StepReport report = analyse_step(b.plan, run, sim::critical_path(b.plan.graph, run, &net));
    b.memory_peak_bytes = report.ranks[report.peak_rank].memory.peak.value();
    b.link_bytes.assign(net.link_bytes().begin(), net.link_bytes().end());
    b.link_bytes.resize(table->topology().links().size(), 0.0);
  }
}

/// Steps per job: at least `min_steps`, and as many as fit between its start and the end of the
/// last job's `min_steps` steps alone (rounded up, at most max_steps_per_job). Refuses a combined
/// graph above max_ops.
void set_repetitions(std::vector<JobBuild>& builds, int min_steps, const ClusterSimOptions& options) {
  min_steps = std::max(1, min_steps);
  double horizon = 0.0;
  for (const JobBuild& b : builds) horizon = std::max(horizon, b.start_s + b.alone_s * min_steps);
  double ops = 0.0;
  for (JobBuild& b : builds) {
    const double wanted = b.alone_s > 0.0 ? std::ceil((horizon - b.start_s) / b.alone_s - 1e-9) : min_steps;
    b.steps = static_cast<int>(
        std::clamp<double>(wanted, min_steps, std::max(min_steps, options.max_steps_per_job)));
    ops += static_cast<double>(b.steps) * static_cast<double>(b.plan.graph.op_count() + 1);
  }
  if (ops > static_cast<double>(options.max_ops))
    throw UserError({}, "--max-ops",
                    "the jobs' steps together come to " + std::to_string(static_cast<long long>(ops)) +
                        " ops, above the limit of " + std::to_string(options.max_ops),
                    "raise --max-ops, or run fewer steps (--steps)");
}

/// One job's step times from its start and barriers' ends; the mean over those that end by `window`.
ClusterJobOutcome shared_steps(const sim::RunResult& run, const std::vector<sim::OpId>& barriers,
                               Time window) {
  ClusterJobOutcome o;
  o.steps_run = static_cast<int>(barriers.size()) - 1;
  Time previous = run.ops[barriers.front()].end;
  o.start_s = to_seconds(previous);
  double in_window = 0.0;
  for (std::size_t k = 1; k < barriers.size(); ++k) {
    const Time t = run.ops[barriers[k]].end;
    o.shared_steps_s.push_back(to_seconds(t - previous));
    if (t <= window) {
      ++o.steps_in_window;
      in_window += to_seconds(t - previous);
    }
    previous = t;
  }
  o.shared_step_s = o.steps_in_window > 0 ? in_window / o.steps_in_window : o.shared_steps_s.front();
  return o;
}

}  // namespace

ClusterSimulation simulate_cluster(const ClusterJobs& spec, const ClusterSimOptions& options) {
  if (spec.jobs.empty()) throw UserError("a cluster file needs at least one [[job]]");
  for (const ClusterJob& j : spec.jobs) {
    check_cluster_job(spec.cluster, j);
    check_step_size(j.job, RankMode::all, options.max_ops);
  }
  const std::vector<std::vector<int>> placement = place_jobs(spec);
  auto topology = std::make_shared<const topo::Topology>(spec.cluster);
  std::shared_ptr<const topo::TransferTable> table;
  std::vector<JobBuild> builds = build_cluster_jobs(spec, placement, topology, table);
  run_alone(builds, table);
  set_repetitions(builds, options.steps > 0 ? options.steps : spec.steps, options);

  sim::StepGraphBuilder b;
  const auto barriers = add_repeated_steps(b, spec, builds);
  const sim::StepGraph graph = std::move(b).build();
  topo::FlowNetwork net(table, {topo::LinkAccounting::timeline});
  sim::Engine engine(graph, &net);
  const sim::RunResult run = engine.run();

  ClusterSimulation out;
  out.topology = topology;
  out.ops = graph.op_count();
  out.makespan_s = to_seconds(run.makespan);
  Time window = run.makespan;
  for (const auto& ends : barriers) window = std::min(window, run.ops[ends.back()].end);
  out.window_s = to_seconds(window);
  for (std::size_t j = 0; j < builds.size(); ++j) {
    ClusterJobOutcome o = shared_steps(run, barriers[j], window);
    o.name = spec.jobs[j].name;
    o.nodes = placement[j];
    o.gpus = spec.jobs[j].job.cluster.total_gpus();
    o.tokens_per_step = builds[j].plan.tokens_per_step;
    o.alone_step_s = builds[j].alone_s;
    o.memory_peak_bytes = builds[j].memory_peak_bytes;
    o.usable_hbm_bytes = spec.jobs[j].job.cluster.gpu.usable_hbm().value();
    out.jobs.push_back(std::move(o));
  }
  out.contended = contended_links(*topology, builds, net.take_timeline());
  return out;
}

}  // namespace stepsim::work
