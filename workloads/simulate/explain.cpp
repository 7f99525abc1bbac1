#include "workloads/simulate/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "workloads/model/names.hpp"

namespace stepsim::work {
namespace {

std::string percent(double part, double whole) {
  double v = whole > 0 ? 100.0 * part / whole : 0.0;
  if (std::abs(v) < 0.05) v = 0.0;  // a rounding residue below zero would print "-0.0%"
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::vector<Difference> explain_differences(const Simulation& s) {
  const double step = s.report.step_time_s;
  const Breakdown& b = s.report.mean;
  std::vector<Difference> out;
  out.push_back({"pipeline bubble", b.bubble_s,
                 "compute idles " + percent(b.bubble_s, step) +
                     " of the step waiting on other stages; the estimate charges (p-1)/(v m) = " +
                     percent(s.estimate.pipeline_bubble, 1.0) + " of compute time"});
  if (b.host_bound_s > 0.0)
    out.push_back(
        {"host-bound launches", b.host_bound_s,
         "compute idles " + percent(b.host_bound_s, step) +
             " of the step waiting for the host to launch kernels (eager PyTorch); the estimate has "
             "no host"});
  for (std::size_t d = 0; d < kDimCount; ++d) {
    const double exposed = b.exposed_comm_s[d];
    const double busy = s.report.mean_overlap.busy_s[d];
    const std::string group(name(static_cast<ParallelDim>(d)));
    out.push_back(
        {"exposed " + group + " communication", exposed,
         group + " communication runs " + fixed(busy, 4) + " s per rank and " +
             percent(busy - exposed, busy) +
             " of it hides under compute; the estimate assumes it all overlaps (its rate is a min())"});
  }
  out.push_back({"memory-bound kernels", b.memory_bound_s,
                 "kernels limited by HBM bandwidth take " + percent(b.memory_bound_s, step) +
                     " of the step; the estimate adds no time for them unless HBM is the bound"});
  // Compute efficiency: what the simulated compute-bound kernels achieved against the estimate's
  // single factor. Positive seconds: the simulation's kernels are slower than the estimate's.
  const double flops_per_gpu = s.plan.world > 0 ? s.metrics.hardware_flops_per_step / s.plan.world : 0.0;
  if (b.compute_s > 0.0 && flops_per_gpu > 0.0) {
    const auto est =
        std::find_if(s.estimate.rates.begin(), s.estimate.rates.end(),
                     [](const ResourceRate& r) { return r.resource == topo::Resource::compute; });
    if (est != s.estimate.rates.end() && est->usable_per_s > 0.0) {
      const double at_estimate = flops_per_gpu / est->usable_per_s;
      const double extra = b.compute_s + b.memory_bound_s - at_estimate;
      out.push_back(
          {"kernel efficiency", extra,
           "kernels take " + fixed(b.compute_s + b.memory_bound_s, 3) + " s per rank against " +
               fixed(at_estimate, 3) + " s at the estimate's flat efficiency " +
               "(per-op-class efficiencies, GEMM shapes, launch overheads, SM share lost to communication)"});
    }
  }
  if (s.metrics.imbalance_s > 0.0)
    out.push_back(
        {"MoE routing imbalance", s.metrics.imbalance_s,
         "the busiest expert rank's kernels and all-to-alls take this much longer than under balanced "
         "routing (expert load max/mean " +
             fixed(s.plan.routing.expert_imbalance, 2) +
             "); the estimate scales the routed work of the busiest GPU by the imbalance"});
  std::stable_sort(out.begin(), out.end(), [](const Difference& x, const Difference& y) {
    return std::abs(x.seconds) > std::abs(y.seconds);
  });
  std::erase_if(out, [&](const Difference& d) { return std::abs(d.seconds) < 0.01 * step; });
  return out;
}

std::vector<BreakdownEntry> breakdown_entries(const Breakdown& b) {
  std::vector<BreakdownEntry> out{{"compute", "compute", b.compute_s},
                                  {"memory_bound", "memory-bound kernels", b.memory_bound_s}};
  for (std::size_t d = 0; d < kDimCount; ++d) {
    if (b.exposed_comm_s[d] <= 0.0) continue;
    const std::string group(name(static_cast<ParallelDim>(d)));
    out.push_back({"exposed_comm." + group, "exposed " + group + " communication", b.exposed_comm_s[d]});
  }
  out.push_back({"bubble", "pipeline bubble / waiting", b.bubble_s});
  if (b.host_bound_s > 0.0) out.push_back({"host_bound", "host-bound (kernel launches)", b.host_bound_s});
  return out;
}

StepVerdict step_verdict(const StepReport& r) {
  auto entries = breakdown_entries(r.mean);
  // Stable: equal times keep the table's order, so the verdict is the same on every run.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const BreakdownEntry& x, const BreakdownEntry& y) { return x.seconds > y.seconds; });
  StepVerdict v;
  v.primary = entries[0];
  v.secondary = entries[1];  // compute, memory-bound and bubble are always there
  const auto share = [&](double s) { return r.step_time_s > 0.0 ? s / r.step_time_s : 0.0; };
  v.primary_share = share(v.primary.seconds);
  v.secondary_share = share(v.secondary.seconds);
  return v;
}

topo::Resource critical_bottleneck(const StepReport& r) {
  std::size_t best = static_cast<std::size_t>(topo::Resource::dependency);
  double best_s = -1.0;
  for (std::size_t i = 0; i < r.critical_s.size(); ++i) {
    const auto res = static_cast<topo::Resource>(i);
    if (res == topo::Resource::dependency || res == topo::Resource::none) continue;
    if (r.critical_s[i] > best_s) {
      best_s = r.critical_s[i];
      best = i;
    }
  }
  return best_s > 0.0 ? static_cast<topo::Resource>(best) : topo::Resource::dependency;
}

}  // namespace stepsim::work
