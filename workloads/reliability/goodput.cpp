// The job's failure rate, its checkpoint's cost, and the Monte Carlo at and around the chosen interval.
#include "workloads/reliability/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/error.hpp"

namespace stepsim::work {
namespace goodput_detail {

bool is_scale_out_switch(topo::VertexKind k) {
  using topo::VertexKind;
  return k == VertexKind::leaf || k == VertexKind::spine || k == VertexKind::core ||
         k == VertexKind::custom_switch;
}

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

/// Where the first-order model or the Monte Carlo's assumptions are stretched, said in the report.
std::vector<std::string> assessment_notes(const GoodputAssessment& a) {
  std::vector<std::string> notes;
  const double m = a.young_daly.mtbf_s;
  const double tau = static_cast<double>(a.interval_steps) * a.step_s;
  if (std::isfinite(m) && (a.young_daly.tau_opt_s > 0.1 * m || a.plan.checkpoint_block_s > 0.1 * tau))
    notes.push_back(
        "Young/Daly is a first-order model (checkpoint cost << interval << job MTBF); here C/tau = " +
        percent_text(a.plan.checkpoint_block_s / tau) + " and tau_opt/M = " +
        percent_text(a.young_daly.tau_opt_s / m) + ", so trust the Monte Carlo's optimum");
  if (a.spec.checkpoint.mode == CheckpointMode::async && a.checkpoint.write_s > tau)
    notes.push_back("the background checkpoint write (" + std::to_string(a.checkpoint.write_s) +
                    " s) takes longer than the interval's steps: writes overlap, which the model lets the "
                    "storage absorb at full bandwidth each");
  if (!std::isfinite(a.at_interval.mean_wall_s))
    notes.push_back(
        "at this interval the run does not finish: failures come faster than the work between "
        "checkpoints can be done");
  return notes;
}

}  // namespace goodput_detail

ComponentCounts component_counts(const topo::Topology& topology) {
  ComponentCounts c;
  const topo::ClusterSpec& spec = topology.spec();
  c.gpus = static_cast<double>(spec.total_gpus());
  c.nodes = static_cast<double>(spec.nodes);
  for (topo::GpuId g = 0; g < topology.gpu_count(); ++g)
    if (topology.nic_up(g) != topo::kNoLink) c.nics += 1.0;
  for (std::size_t v = 0; v < topology.vertex_count(); ++v)
    if (goodput_detail::is_scale_out_switch(topology.vertex_kind(static_cast<topo::VertexId>(v))))
      c.switches += 1.0;
  return c;
}

double JobFailureRate::mtbf_hours() const {
  return failures_per_hour > 0.0 ? 1.0 / failures_per_hour : std::numeric_limits<double>::infinity();
}

JobFailureRate job_failure_rate(const FailureRates& rates, const ComponentCounts& counts) {
  JobFailureRate r;
  r.components = {ComponentFailures{"GPU", counts.gpus, rates.gpu_mtbf_hours, 0.0},
                  ComponentFailures{"node", counts.nodes, rates.node_mtbf_hours, 0.0},
                  ComponentFailures{"NIC", counts.nics, rates.nic_mtbf_hours, 0.0},
                  ComponentFailures{"switch", counts.switches, rates.switch_mtbf_hours, 0.0}};
  for (ComponentFailures& c : r.components) {
    c.failures_per_hour = c.count > 0.0 ? c.count / c.mtbf_hours : 0.0;  // infinite MTBF: 0
    r.failures_per_hour += c.failures_per_hour;
  }
  return r;
}

CheckpointCost checkpoint_cost(const JobSpec& job, double params, const CheckpointSpec& spec) {
  CheckpointCost c;
  c.params = params;
  c.bytes_per_param = job.precision.param_bytes + job.precision.optimizer_bytes;
  c.bytes = units::bytes(params * c.bytes_per_param);
  c.bytes_per_gpu = c.bytes / static_cast<double>(std::max(1, job.cluster.total_gpus()));
  c.write_s = c.bytes / spec.storage_write;
  c.read_s = c.bytes / spec.storage_read;
  if (spec.mode == CheckpointMode::sync) {
    c.block_s = c.write_s;
    return c;
  }
  const BytesPerSecond pcie = job.cluster.gpu.pcie_bw;
  if (!(pcie.value() > 0.0))
    throw UserError({}, "reliability.checkpoint_mode",
                    "an asynchronous checkpoint copies the state to host memory over PCIe, and GPU `" +
                        job.cluster.gpu.id + "` has no PCIe bandwidth",
                    "set hardware.gpu.pcie_gb_s, or checkpoint_mode = \"sync\"");
  c.block_s = c.bytes_per_gpu / pcie;
  c.durable_s = c.write_s;
  return c;
}

std::vector<std::int64_t> sweep_intervals(std::int64_t young_daly_steps, std::int64_t chosen,
                                          std::int64_t steps) {
  std::vector<std::int64_t> out{std::clamp<std::int64_t>(chosen, 1, steps)};
  for (int j = -12; j <= 12; ++j) {
    const double k = static_cast<double>(young_daly_steps) * std::exp2(j / 4.0);
    out.push_back(std::clamp<std::int64_t>(std::llround(std::min(k, 9e18)), 1, steps));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

GoodputAssessment assess_goodput(const JobSpec& job, const topo::Topology& topology, double step_s,
                                 double tokens_per_step, double params, const ReliabilitySpec& spec,
                                 const RunLength& length, const MonteCarloOptions& options) {
  GoodputAssessment a;
  a.step_s = step_s;
  a.tokens_per_step = tokens_per_step;
  a.spec = spec;
  a.monte_carlo = options;
  const double steps =
      length.tokens > 0.0 ? std::ceil(length.tokens / tokens_per_step) : static_cast<double>(length.steps);
  if (!(steps >= 1.0) || !(steps * step_s < kGoodputLongestSeconds))
    throw UserError({}, length.tokens > 0.0 ? "--tokens" : "--steps",
                    "the run is " + std::to_string(steps) + " steps of " + std::to_string(step_s) +
                        " s, outside what the Monte Carlo covers (1 step to about 36 years)",
                    "ask for fewer tokens or steps");
  a.steps = static_cast<std::int64_t>(steps);
  a.failures = job_failure_rate(spec.failures, component_counts(topology));
  a.checkpoint = checkpoint_cost(job, params, spec.checkpoint);
  if (!(spec.restart_s + a.checkpoint.read_s < kGoodputLongestSeconds) ||
      !(a.checkpoint.write_s < kGoodputLongestSeconds))
    throw UserError({}, "reliability",
                    "a restart or a checkpoint write would take longer than about 36 years",
                    "check restart_s and the storage bandwidths");
  a.plan = GoodputPlan{a.steps,
                       step_s,
                       a.checkpoint.block_s,
                       a.checkpoint.durable_s,
                       spec.restart_s + a.checkpoint.read_s,
                       a.failures.failures_per_hour};
  a.young_daly = young_daly(a.plan);
  a.interval_from_young_daly = spec.checkpoint.interval_steps == 0;
  a.interval_steps = a.interval_from_young_daly ? a.young_daly.interval_steps
                                                : std::min(spec.checkpoint.interval_steps, a.steps);
  // The sweep includes the chosen interval: its entry is the report's.
  const std::vector<std::int64_t> intervals =
      sweep_intervals(a.young_daly.interval_steps, a.interval_steps, a.steps);
  a.sweep = goodput_over_intervals(a.plan, intervals, options);
  for (std::size_t i = 0; i < a.sweep.size(); ++i) {
    if (a.sweep[i].interval_steps == a.interval_steps) a.at_interval = a.sweep[i];
    if (a.sweep[i].goodput > a.sweep[a.best].goodput) a.best = i;
  }
  a.notes = goodput_detail::assessment_notes(a);
  return a;
}

}  // namespace stepsim::work
