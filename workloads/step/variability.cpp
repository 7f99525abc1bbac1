#include "workloads/step/variability.hpp"

#include <algorithm>
#include <cmath>

#include "sim/stats.hpp"

namespace stepsim::work {

namespace variability_detail {

// Independent streams of draws under one scenario seed.
constexpr std::uint64_t kSpreadStream = 1;
constexpr std::uint64_t kThrottleStream = 2;
constexpr std::uint64_t kStepStream = 3;

}  // namespace variability_detail

std::vector<double> gpu_time_factors(const VariabilitySpec& v, int world, int gpus_per_node) {
  using namespace variability_detail;
  std::vector<double> f(static_cast<std::size_t>(std::max(world, 0)), 1.0);
  const std::uint64_t spread = sim::mix_seed(v.seed, kSpreadStream);
  const std::uint64_t throttle = sim::mix_seed(v.seed, kThrottleStream);
  for (int r = 0; r < world; ++r) {
    double x = 1.0;
    // A normal spread, floored so that no part runs more than 10x faster than nominal.
    if (v.gpu_speed_sd > 0.0)
      x = std::max(0.1, 1.0 + v.gpu_speed_sd * sim::hash_normal(spread, static_cast<std::uint64_t>(r)));
    if (v.throttled_fraction > 0.0 &&
        sim::hash_uniform(throttle, static_cast<std::uint64_t>(r)) < v.throttled_fraction)
      x *= v.throttled_factor;
    f[static_cast<std::size_t>(r)] = x;
  }
  for (const SlowPart& n : v.slow_nodes)
    for (int g = 0; g < gpus_per_node; ++g) {
      const int r = n.index * gpus_per_node + g;
      if (r >= 0 && r < world) f[static_cast<std::size_t>(r)] *= n.factor;
    }
  for (const SlowPart& g : v.slow_gpus)
    if (g.index >= 0 && g.index < world) f[static_cast<std::size_t>(g.index)] *= g.factor;
  return f;
}

std::uint64_t step_seed(const VariabilitySpec& v, std::uint64_t step) {
  return sim::mix_seed(sim::mix_seed(v.seed, variability_detail::kStepStream), step);
}

sim::Variation plan_variation(const VariabilitySpec& v, const StepPlan& plan,
                              const std::vector<double>& gpu_factors) {
  sim::Variation out;
  out.jitter_sigma = v.kernel_jitter_cv > 0.0 ? sim::lognormal_sigma_for_cv(v.kernel_jitter_cv) : 0.0;
  if (v.clock_wander_cv > 0.0 && v.clock_wander_ms > 0.0) {
    out.wander_sigma = sim::lognormal_sigma_for_cv(v.clock_wander_cv);
    out.wander_window = from_seconds(v.clock_wander_ms * 1e-3);
  }
  const std::size_t processors = plan.graph.processor_count();
  out.processor_factor.assign(processors, 1.0);
  for (const SimRank& r : plan.ranks)
    if (static_cast<std::size_t>(r.rank) < gpu_factors.size())
      out.processor_factor[r.processor] = gpu_factors[static_cast<std::size_t>(r.rank)];
  if (v.host_stalls_per_step > 0.0 && v.host_stall_ms > 0.0) {
    // host_stalls_per_step stalls expected per GPU: each of its n kernels stalls with 1/n of that
    // (capped at 1), so stalls land uniformly over the GPU's kernels.
    std::vector<double> kernels(processors, 0.0);
    for (sim::OpId id = 0; id < plan.graph.op_count(); ++id) {
      const sim::OpExec& e = plan.graph.exec(id);
      if (e.kind == sim::OpKind::compute || e.kind == sim::OpKind::memory) kernels[e.aux] += 1.0;
    }
    out.stall_probability.assign(processors, 0.0);
    for (std::size_t p = 0; p < processors; ++p)
      if (kernels[p] > 0.0) out.stall_probability[p] = std::min(1.0, v.host_stalls_per_step / kernels[p]);
    out.stall = from_seconds(v.host_stall_ms * 1e-3);
  }
  return out;
}

StepWaits step_waits(const StepPlan& plan, const sim::RunResult& run, const sim::CriticalPath& path,
                     const sim::Variation& variation, const std::vector<double>& gpu_factors,
                     std::size_t top) {
  StepWaits w;
  std::vector<double> per_sim_rank(plan.ranks.size(), 0.0);
  for (const sim::OpId id : path.ops) {
    const sim::OpExec& e = plan.graph.exec(id);
    if (e.kind != sim::OpKind::compute && e.kind != sim::OpKind::memory) continue;
    const sim::OpRecord& rec = run.ops[id];
    const double d = to_seconds(rec.end - rec.start);
    const std::size_t sr = plan.info[id].rank;
    per_sim_rank[sr] += d;
    const double added = to_seconds(variation.duration(id, e.aux, e.work, rec.start) - e.work);
    if (added > 0.0)
      w.ops.push_back(
          {std::string(plan.graph.label(id)), plan.ranks[sr].rank, d, added, variation.stalls(id, e.aux)});
  }
  for (std::size_t i = 0; i < per_sim_rank.size(); ++i) {
    if (per_sim_rank[i] <= 0.0) continue;
    const int rank = plan.ranks[i].rank;
    const double f = static_cast<std::size_t>(rank) < gpu_factors.size()
                         ? gpu_factors[static_cast<std::size_t>(rank)]
                         : 1.0;
    w.ranks.push_back({rank, per_sim_rank[i], f});
  }
  sort_waits(w, top);
  return w;
}

void sort_waits(StepWaits& w, std::size_t top) {
  const auto by_rank = [](const RankWait& a, const RankWait& b) {
    return a.kernel_s != b.kernel_s ? a.kernel_s > b.kernel_s : a.rank < b.rank;
  };
  const auto by_added = [](const OpWait& a, const OpWait& b) {
    return a.added_s != b.added_s ? a.added_s > b.added_s : a.rank < b.rank;
  };
  std::sort(w.ranks.begin(), w.ranks.end(), by_rank);
  std::stable_sort(w.ops.begin(), w.ops.end(), by_added);
  if (w.ranks.size() > top) w.ranks.resize(top);
  if (w.ops.size() > top) w.ops.resize(top);
}

void record_step(StepDistribution& out, std::uint64_t seed, double time_s, StepWaits waits) {
  StepSample sample;
  sample.seed = seed;
  sample.time_s = time_s;
  if (!waits.ranks.empty()) {
    sample.waited_on_rank = waits.ranks.front().rank;
    sample.waited_on_s = waits.ranks.front().kernel_s;
  }
  if (out.steps.empty() || time_s > out.steps[static_cast<std::size_t>(out.slowest_step)].time_s) {
    out.slowest_step = static_cast<int>(out.steps.size());
    out.slowest = std::move(waits);
  }
  out.steps.push_back(sample);
}

void summarise_steps(StepDistribution& out, const std::vector<double>& factors) {
  std::vector<double> times;
  for (const StepSample& s : out.steps) times.push_back(s.time_s);
  const sim::MetricStats stats = sim::metric_stats(times);
  out.mean_s = stats.mean_s;
  out.p50_s = stats.p50_s;
  out.p90_s = stats.p90_s;
  out.p99_s = stats.p99_s;
  out.max_s = stats.max_s;
  out.min_s = *std::min_element(times.begin(), times.end());
  // The lower median: the step whose time ranks (n - 1) / 2 (ties to the earlier step).
  const int n = static_cast<int>(times.size());
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return times[static_cast<std::size_t>(a)] < times[static_cast<std::size_t>(b)];
  });
  out.median_step = order[static_cast<std::size_t>((n - 1) / 2)];
  for (int r = 0; r < static_cast<int>(factors.size()); ++r)
    if (factors[static_cast<std::size_t>(r)] != 1.0) {
      ++out.gpus_varied;
      out.slow_gpus.push_back({r, 0.0, factors[static_cast<std::size_t>(r)]});
    }
  std::stable_sort(out.slow_gpus.begin(), out.slow_gpus.end(),
                   [](const RankWait& a, const RankWait& b) { return a.factor > b.factor; });
  if (out.slow_gpus.size() > 16) out.slow_gpus.resize(16);
  out.gpu_factors = factors;
}

}  // namespace stepsim::work
