#include "workloads/simulate/simulate.hpp"

#include <algorithm>
#include <stdexcept>
#include "sim/engine.hpp"
#include "sim/error.hpp"

#include "workloads/layout/topology_planner.hpp"
#include "workloads/model/names.hpp"
#include "workloads/step/inference_step.hpp"
#include "workloads/step/replay_step.hpp"
#include "workloads/step/train_step.hpp"

namespace stepsim::work {
namespace {

StepMetrics metrics_of(const JobSpec& job, const Simulation& s) {
  StepMetrics m;
  m.step_time_s = s.report.step_time_s;
  m.tokens_per_step = s.plan.tokens_per_step;
  const double gpus = s.plan.world;
  const double peak = job.cluster.gpu.peak_flops(job.precision.compute).value();
  if (m.step_time_s > 0.0) {
    m.tokens_per_s = m.tokens_per_step / m.step_time_s;
    m.tokens_per_s_per_gpu = m.tokens_per_s / gpus;
    m.model_flops_per_step = s.estimate.flops.model * m.tokens_per_step;
    m.hardware_flops_per_step = s.plan.hardware_flops_per_step;
    m.mfu = m.model_flops_per_step / (m.step_time_s * gpus * peak);
    m.hfu = m.hardware_flops_per_step / (m.step_time_s * gpus * peak);
    m.model_tflops_per_gpu = m.model_flops_per_step / (m.step_time_s * gpus) / 1e12;
    m.tokens_per_s_per_replica = m.tokens_per_s / job.parallel.dp;
    if (job.workload.kind != WorkloadKind::train) m.latency_s = m.step_time_s;
  }
  return m;
}

/// The busiest simulated rank's extra expert-kernel and all-to-all time over balanced routing.
double imbalance_seconds(const StepPlan& plan, const topo::TransferTable& table) {
  std::vector<double> per_rank(plan.ranks.size(), 0.0);
  for (const BalancedOp& b : plan.balanced) {
    const sim::Op op = plan.graph.op(b.op);
    const double delta = b.payload != BalancedOp{}.payload
                             ? table.info(op.payload).time_alone_s - table.info(b.payload).time_alone_s
                             : to_seconds(op.work) - to_seconds(b.kernel);
    per_rank[plan.info[b.op].rank] += delta;
  }
  return per_rank.empty() ? 0.0 : std::max(0.0, *std::max_element(per_rank.begin(), per_rank.end()));
}

/// Every link that starts or ends at a simulated rank's GPU (its NVLink/PCIe and NIC links).
std::vector<topo::LinkId> links_of(const topo::Topology& t, const StepPlan& plan) {
  std::vector<std::uint8_t> simulated(t.gpu_count(), 0);
  for (const SimRank& r : plan.ranks) simulated[static_cast<std::size_t>(r.rank)] = 1;
  std::vector<topo::LinkId> out;
  const auto links = t.links();
  for (topo::LinkId l = 0; l < links.size(); ++l) {
    const auto touches = [&](topo::VertexId v) { return v < simulated.size() && simulated[v]; };
    if (touches(links[l].from) || touches(links[l].to)) out.push_back(l);
  }
  return out;
}

/// Runs `count` steps of `plan` with [variability]'s draws (and one with nothing varying), fills
/// `out`, and returns the variation of the median step, which the caller runs again for the report.
sim::Variation run_steps(const JobSpec& job, const StepPlan& plan, TopologyPlanner& planner, int count,
                         StepDistribution& out) {
  const VariabilitySpec& v = job.variability;
  const std::vector<double> factors = gpu_time_factors(v, plan.world, job.cluster.gpus_per_node);
  {
    auto network = planner.make_network();
    sim::Engine engine(plan.graph, network.get());
    out.nominal_s = to_seconds(engine.run().makespan);
  }
  const int n = std::max(1, count);
  sim::Variation variation = plan_variation(v, plan, factors);
  for (int step = 0; step < n; ++step) {
    variation.seed = step_seed(v, static_cast<std::uint64_t>(step));
    auto network = planner.make_network();
    sim::Engine engine(plan.graph, network.get());
    engine.set_variation(&variation);
    const sim::RunResult run = engine.run();
    const sim::CriticalPath path = sim::critical_path(plan.graph, run, network.get());
    StepWaits waits = step_waits(plan, run, path, variation, factors, 5);
    record_step(out, variation.seed, to_seconds(run.makespan), std::move(waits));
  }
  summarise_steps(out, factors);
  variation.seed = step_seed(v, static_cast<std::uint64_t>(out.median_step));
  return variation;
}

/// Every simulated step kind; generations and serving runs have their own entry points.
void check_single_step(const JobSpec& job) {
  if (job.workload.kind == WorkloadKind::generate || job.workload.kind == WorkloadKind::serve)
    throw std::logic_error(
        "simulate() on a generation or serving job: use simulate_generation/simulate_serve");
}

topo::CommConfig comm_config(const JobSpec& job, const SimulateOptions& options) {
  topo::CommConfig comm = options.comm;
  if (comm.algorithm == topo::CollectiveAlgorithm::automatic) comm.algorithm = job.collective.algorithm;
  if (comm.protocol == topo::CollectiveProtocol::automatic) comm.protocol = job.collective.protocol;
  return comm;
}

StepPlan build_step(const JobSpec& job, CommPlanner& planner, RankMode ranks) {
  return job.workload.kind == WorkloadKind::train ? build_train_step(job, planner, {ranks})
                                                  : build_inference_step(job, planner, {ranks});
}

/// The fabric the representative step of a replay runs on: the healthy one when links are degraded
/// (the replay then slows the groups they reach; workloads/step/replay_fabric.hpp), else `topology`.
/// `topology`, built from job.cluster, has checked the degraded links against the cluster.
std::shared_ptr<const topo::Topology> replay_topology(const JobSpec& job,
                                                      const std::shared_ptr<const topo::Topology>& topology,
                                                      const SimulateOptions& options) {
  if (!options.replay || !job.cluster.has_degradation()) return topology;
  topo::ClusterSpec healthy = job.cluster;
  healthy.clear_degradation();
  return std::make_shared<const topo::Topology>(healthy);
}

/// Runs a built step whose collectives `planner` holds on `topology`, and reads its results.
/// `fabric` is the job's topology as built from job.cluster, degraded parts included: a replay
/// prices them on it (the representative step of a replay runs on the healthy `topology`).
Simulation run_built_step(const JobSpec& job, std::shared_ptr<const topo::Topology> topology, StepPlan plan,
                          TopologyPlanner& planner, const SimulateOptions& options,
                          std::shared_ptr<const topo::Topology> fabric) {
  if (options.links == topo::LinkAccounting::timeline) planner.watch_links(links_of(*topology, plan));
  StepDistribution steps;
  sim::Variation variation;
  if (options.replay && options.ranks != RankMode::representative)
    throw std::logic_error("simulate: a replay of every GPU runs over representative ranks");
  const bool varied = (job.variability.active() || options.steps > 1) && !options.replay;
  if (varied) {
    if (job.variability.active() && options.ranks != RankMode::all)
      throw UserError(
          "[variability] makes GPUs differ, and representative ranks assume they do not: simulate every GPU "
          "(stepsim run --ranks all)");
    variation = run_steps(job, plan, planner, options.steps, steps);
    if (job.cluster.has_degradation()) {
      // The nominal step is the healthy fabric's: the same job with every link at its line rate
      // and nothing varying, which representative ranks simulate exactly.
      JobSpec healthy = job;
      healthy.cluster.clear_degradation();
      healthy.variability = {};
      SimulateOptions o;
      o.comm = options.comm;
      o.max_ops = options.max_ops;
      steps.nominal_s = simulate(healthy, o).report.step_time_s;
    }
  }
  auto network = planner.make_network();
  sim::Engine engine(plan.graph, network.get());
  engine.set_observer(options.observer);
  if (varied) engine.set_variation(&variation);
  sim::RunResult run = engine.run();
  sim::CriticalPath critical = sim::critical_path(plan.graph, run, network.get());
  StepReport report = analyse_step(plan, run, critical);
  Simulation s{std::move(topology),
               planner.table(),
               std::move(plan),
               std::move(run),
               std::move(critical),
               std::move(report),
               {},
               {},
               {},
               {},
               Bytes{},
               Bytes{},
               true,
               {},
               {}};
  s.steps = options.replay ? replay_steps(job, s.plan, s.run, options.steps, *s.transfers, std::move(fabric),
                                          comm_config(job, options))
                           : std::move(steps);
  s.estimate = estimate_stepsim(job);
  s.metrics = metrics_of(job, s);
  if (s.transfers) s.metrics.imbalance_s = imbalance_seconds(s.plan, *s.transfers);
  if (options.links != topo::LinkAccounting::off) {
    auto& flow = static_cast<topo::FlowNetwork&>(*network);
    const auto bytes = flow.link_bytes();
    s.link_bytes.assign(bytes.begin(), bytes.end());
    s.link_timeline = flow.take_timeline();
  }
  s.usable_hbm = job.cluster.gpu.usable_hbm();
  s.device_hbm = job.cluster.gpu.hbm_capacity;
  s.fits = s.report.ranks[s.report.peak_rank].memory.peak <= s.usable_hbm;
  return s;
}

/// Passes every request on to another planner and keeps it with the payload id it got, so that
/// a StepProgram can make the same calls on another topology's planner.
class RecordingPlanner final : public CommPlanner {
 public:
  RecordingPlanner(CommPlanner& inner, std::vector<CommRequest>& requests,
                   std::vector<std::uint32_t>& payloads)
      : inner_(inner), requests_(requests), payloads_(payloads) {}
  std::uint32_t plan(const CommRequest& request) override {
    const std::uint32_t payload = inner_.plan(request);
    requests_.push_back(request);
    payloads_.push_back(payload);
    return payload;
  }
  std::unique_ptr<sim::Network> make_network() override { return inner_.make_network(); }

 private:
  CommPlanner& inner_;
  std::vector<CommRequest>& requests_;
  std::vector<std::uint32_t>& payloads_;
};

}  // namespace

Simulation simulate(const JobSpec& job, const SimulateOptions& options) {
  // Before the topology: a cluster of ten million GPUs is itself too large to build.
  if (job.workload.kind != WorkloadKind::generate && job.workload.kind != WorkloadKind::serve)
    check_step_size(job, options.ranks, options.max_ops);
  return simulate(job, std::make_shared<const topo::Topology>(job.cluster), options);
}

Simulation simulate(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                    const SimulateOptions& options) {
  check_single_step(job);
  check_step_size(job, options.ranks, options.max_ops);
  const auto run_on = replay_topology(job, topology, options);
  const StepClock clock = step_clock(job, run_on, comm_config(job, options));
  const JobSpec clocked = at_clock(job, clock);
  TopologyPlanner planner(run_on, comm_config(job, options), topo::FlowNetworkOptions{options.links});
  StepPlan plan = build_step(clocked, planner, options.ranks);
  Simulation s = run_built_step(clocked, run_on, std::move(plan), planner, options, std::move(topology));
  s.clock = clock;
  return s;
}

Simulation StepProgram::simulate(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                                 const SimulateOptions& options) {
  check_single_step(job);
  check_step_size(job, options.ranks, options.max_ops);
  const auto run_on = replay_topology(job, topology, options);
  TopologyPlanner planner(run_on, comm_config(job, options), topo::FlowNetworkOptions{options.links});
  const bool built = plan_ && ranks_ == options.ranks;
  if (!built) clock_ = step_clock(job, run_on, comm_config(job, options));
  const JobSpec clocked = at_clock(job, clock_);
  if (built) {
    // The build's calls in its order: a fresh build on this topology would make exactly these
    // (it sees the same payload ids), so a request refused here is the error that build would
    // have met first.
    for (std::size_t i = 0; i < requests_.size(); ++i)
      if (planner.plan(requests_[i]) != payloads_[i])
        throw std::logic_error("StepProgram: the planner returned another payload id than the build saw");
  } else {
    plan_.reset();
    requests_.clear();
    payloads_.clear();
    RecordingPlanner recorder(planner, requests_, payloads_);
    plan_ = build_step(clocked, recorder, options.ranks);
    ranks_ = options.ranks;
  }
  StepPlan plan = std::move(*plan_);
  plan_.reset();
  lent_ops_ = plan.graph.op_count();
  Simulation s = run_built_step(clocked, run_on, std::move(plan), planner, options, std::move(topology));
  s.clock = clock_;
  return s;
}

void StepProgram::reclaim(Simulation&& simulation) {
  if (!lent_ops_ || simulation.plan.graph.op_count() != *lent_ops_)
    throw std::logic_error("StepProgram::reclaim of a simulation it did not make");
  plan_ = std::move(simulation.plan);
  lent_ops_.reset();
}

}  // namespace stepsim::work
