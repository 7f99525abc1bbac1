#include "output/profile/profile_run.hpp"

#include <algorithm>
#include <limits>

namespace stepsim::out {
namespace profile_run {

/// Per-step time of one trace: its GPU span, the time some non-communication kernel ran, and the
/// communication no such kernel hid, each over `steps`.
struct TraceStep {
  double span_s = 0.0, compute_s = 0.0, exposed_comm_s = 0.0;
};

TraceStep trace_step(const GpuTrace& trace, int steps) {
  TraceStep t;
  if (trace.kernels.empty() || steps <= 0) return t;
  double first_us = std::numeric_limits<double>::max(), last_us = std::numeric_limits<double>::lowest();
  for (const TraceKernel& k : trace.kernels) {
    first_us = std::min(first_us, k.ts_us);
    last_us = std::max(last_us, k.ts_us + k.dur_us);
  }
  std::vector<Interval> compute, comm;
  for (const TraceKernel& k : trace.kernels) {
    const Interval span{(k.ts_us - first_us) * 1e-6, (k.ts_us - first_us + k.dur_us) * 1e-6};
    (is_comm_class(kernel_class(k.name, k.category)) ? comm : compute).push_back(span);
  }
  t.span_s = (last_us - first_us) * 1e-6 / steps;
  t.exposed_comm_s = uncovered_time(comm, compute) / steps;
  t.compute_s = uncovered_time(std::move(compute), {}) / steps;
  return t;
}

/// The same figures of one simulated rank over the whole step.
TraceStep simulated_step(const work::Simulation& sim, int rank) {
  TraceStep t;
  t.span_s = sim.metrics.step_time_s;
  const work::StepPlan& plan = sim.plan;
  std::vector<Interval> compute, comm;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const work::OpInfo& i = plan.info[op];
    if (plan.ranks[i.rank].rank != rank || i.is_host) continue;
    const Interval span{to_seconds(sim.run.ops[op].start), to_seconds(sim.run.ops[op].end)};
    if (i.is_comm)
      comm.push_back(span);
    else if (plan.graph.exec(op).kind == sim::OpKind::compute)
      compute.push_back(span);
  }
  t.exposed_comm_s = uncovered_time(comm, compute);
  t.compute_s = uncovered_time(std::move(compute), {});
  return t;
}

void add(MeasuredProfile& into, const MeasuredProfile& m) {
  into.kernels += m.kernels;
  into.host += m.host;
  for (const auto& [cls, c] : m.classes) {
    MeasuredClass& to = into.classes[cls];
    to.time_s += c.time_s;
    to.count += c.count;
    to.flops += c.flops;
    to.shaped += c.shaped;
  }
  for (const auto& [cls, s] : m.exposed_comm_s) into.exposed_comm_s[cls] += s;
  for (const UnclassifiedKernel& u : m.unclassified) {
    auto same = std::find_if(into.unclassified.begin(), into.unclassified.end(),
                             [&](const UnclassifiedKernel& v) { return v.name == u.name; });
    if (same == into.unclassified.end()) {
      into.unclassified.push_back(u);
    } else {
      same->count += u.count;
      same->time_s += u.time_s;
    }
  }
}

void add(SimulatedProfile& into, const SimulatedProfile& s) {
  into.ops += s.ops;
  into.host_s += s.host_s;
  into.host_ops += s.host_ops;
  for (const auto& [cls, c] : s.classes) {
    SimulatedClass& to = into.classes[cls];
    to.time_s += c.time_s;
    to.count += c.count;
    to.flops += c.flops;
    to.hbm_bytes += c.hbm_bytes;
  }
  for (const auto& [group, v] : s.comm_busy_s) into.comm_busy_s[group] += v;
  for (const auto& [group, v] : s.comm_exposed_s) into.comm_exposed_s[group] += v;
}

}  // namespace profile_run

std::vector<ProfiledRank> profiled_ranks(const std::vector<GpuTrace>& traces, const std::vector<int>& ranks) {
  std::vector<ProfiledRank> out;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const profile_run::TraceStep whole = profile_run::trace_step(traces[i], 1);
    out.push_back(ProfiledRank{&traces[i], measure_profile(traces[i]), i < ranks.size() ? ranks[i] : 0,
                               whole.span_s, whole.compute_s, whole.exposed_comm_s});
  }
  return out;
}

StepFigures step_figures(const std::vector<ProfiledRank>& ranks, int steps, const work::Simulation& sim) {
  StepFigures f;
  if (steps <= 0 || ranks.empty()) return f;
  f.steps = steps;
  const double n = static_cast<double>(ranks.size());
  for (const ProfiledRank& r : ranks) {
    const profile_run::TraceStep s = profile_run::simulated_step(sim, r.rank);
    f.measured_step_s += r.span_s / steps / n;
    f.measured_compute_s += r.compute_s / steps / n;
    f.measured_exposed_comm_s += r.exposed_comm_s / steps / n;
    f.simulated_compute_s += s.compute_s / n;
    f.simulated_exposed_comm_s += s.exposed_comm_s / n;
  }
  f.simulated_step_s = sim.metrics.step_time_s;
  f.mfu_simulated = sim.metrics.mfu;
  f.tokens_per_s_per_gpu_simulated = sim.metrics.tokens_per_s_per_gpu;
  // The same model FLOPs and tokens per step, over the measured step.
  if (f.measured_step_s > 0.0) {
    const double scale = f.simulated_step_s / f.measured_step_s;
    f.mfu_measured = f.mfu_simulated * scale;
    f.tokens_per_s_per_gpu_measured = f.tokens_per_s_per_gpu_simulated * scale;
  }
  return f;
}

ProfileComparison compare_job(const std::vector<ProfiledRank>& ranks, const work::JobSpec& job,
                              const ProfileWindow& window, int steps) {
  work::SimulateOptions options;
  options.ranks = work::RankMode::representative;
  const work::Simulation sim = work::simulate(job, options);
  MeasuredProfile measured;
  SimulatedProfile simulated;
  ProfileComparison c;
  for (const ProfiledRank& r : ranks) {
    ProfileWindow w = window;
    w.rank = r.rank;
    profile_run::add(measured, r.measured);
    profile_run::add(simulated, simulate_window(sim.plan, w, &sim.run));
    c.ranks.push_back(r.rank);
  }
  std::stable_sort(
      measured.unclassified.begin(), measured.unclassified.end(),
      [](const UnclassifiedKernel& a, const UnclassifiedKernel& b) { return a.time_s > b.time_s; });
  const std::vector<int> compared = c.ranks;
  c = compare_profiles(std::move(measured), std::move(simulated));
  c.ranks = compared;
  c.window = window;
  if (!compared.empty()) c.window.rank = compared.front();
  c.step = step_figures(ranks, steps, sim);
  return c;
}

}  // namespace stepsim::out
