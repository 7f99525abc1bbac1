#include "workloads/serving/generation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "workloads/model/attention_window.hpp"

namespace stepsim::work {
namespace {

/// Sum over the integers k in [a, b) of the line through (a, fa) and (b, fb):
/// n fa + (fb - fa)(0 + 1 + ... + (n - 1)) / n with n = b - a.
double line_sum(int a, double fa, int b, double fb) {
  const double n = b - a;
  return n * fa + (fb - fa) * (n - 1.0) / 2.0;
}

/// The decode steps of one generation, simulated on demand and kept by context.
class DecodeSampler {
 public:
  DecodeSampler(const JobSpec& job, std::shared_ptr<const topo::Topology> topology, const SimulateOptions& o)
      : job_(job), topology_(std::move(topology)), options_(o) {}

  double at(int context) {
    auto it = steps_.find(context);
    if (it == steps_.end()) {
      Simulation s = simulate(decode_job(job_, context), topology_, options_);
      it = steps_.emplace(context, std::move(s)).first;
    }
    return it->second.metrics.step_time_s;
  }
  int simulated() const { return static_cast<int>(steps_.size()); }
  std::map<int, Simulation>& steps() { return steps_; }

 private:
  const JobSpec& job_;
  std::shared_ptr<const topo::Topology> topology_;
  SimulateOptions options_;
  std::map<int, Simulation> steps_;
};

struct Interval {
  int a, b;
  double parent_move;  ///< how far splitting the interval this one came from moved the sum
};

/// Sum of the step times over contexts [first, last], and its estimated error: intervals are split
/// at their midpoints, widest first, until each split moves the sum by less than its share of the
/// tolerance or the point budget is spent.
std::pair<double, double> integrate(DecodeSampler& f, int first, int last, const GenerationOptions& o) {
  const int steps = last - first + 1;
  if (steps <= 2) {
    double sum = 0.0;
    for (int c = first; c <= last; ++c) sum += f.at(c);
    return {sum, 0.0};
  }
  std::vector<Interval> open{{first, last, 0.0}};
  double sum = line_sum(first, f.at(first), last, f.at(last)) + f.at(last);
  double error = 0.0;
  while (!open.empty()) {
    // Widest first, so a spent budget leaves the error spread evenly.
    const auto widest = std::max_element(open.begin(), open.end(),
                                         [](Interval x, Interval y) { return x.b - x.a < y.b - y.a; });
    const Interval iv = *widest;
    open.erase(widest);
    const int m = iv.a + (iv.b - iv.a) / 2;
    if (f.simulated() >= o.max_decode_points && !f.steps().count(m)) {
      // Out of budget: this half of its parent's split is left unrefined, and for a step time of
      // bounded curvature its error is a quarter of that half; count the whole half.
      error += iv.parent_move / 2.0;
      continue;
    }
    const double coarse = line_sum(iv.a, f.at(iv.a), iv.b, f.at(iv.b));
    const double fine = line_sum(iv.a, f.at(iv.a), m, f.at(m)) + line_sum(m, f.at(m), iv.b, f.at(iv.b));
    const double move = std::abs(fine - coarse);
    sum += fine - coarse;
    const double allowed = o.relative_tolerance * sum * (iv.b - iv.a) / steps;
    if (move <= allowed) {
      error += move;
      continue;
    }
    if (m - iv.a > 1) open.push_back({iv.a, m, move});
    if (iv.b - m > 1) open.push_back({m, iv.b, move});
  }
  return {sum, error};
}

}  // namespace

JobSpec prefill_job(const JobSpec& generation) {
  JobSpec j = generation;
  j.workload.kind = WorkloadKind::prefill;
  j.workload.output_len = 0;
  return j;
}

JobSpec decode_job(const JobSpec& generation, int context_tokens) {
  JobSpec j = generation;
  j.workload.kind = WorkloadKind::decode;
  j.workload.context_len = context_tokens;
  j.workload.output_len = 0;
  return j;
}

Generation simulate_generation(const JobSpec& job, const GenerationOptions& options) {
  // Before the topology; the decode steps are no larger than the prefill (workloads/step/step_size.hpp).
  check_step_size(prefill_job(job), options.simulate.ranks, options.simulate.max_ops);
  return simulate_generation(job, std::make_shared<const topo::Topology>(job.cluster), options);
}

Generation simulate_generation(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                               const GenerationOptions& options) {
  if (job.workload.kind != WorkloadKind::generate)
    throw std::logic_error("simulate_generation on a single step");
  const WorkloadSpec& w = job.workload;
  Generation g{.prefill = simulate(prefill_job(job), topology, options.simulate)};
  g.batch = w.batch, g.input_len = w.seq_len, g.output_len = w.output_len;
  g.ttft_s = g.prefill.metrics.step_time_s;
  g.fits = g.prefill.fits;
  if (w.output_len > 1) {
    // Decode step k (1-based) generates output token k + 1 from a cache of input_len + k - 1 tokens.
    const int first = w.seq_len, last = w.seq_len + w.output_len - 2;
    DecodeSampler sampler(job, topology, options.simulate);
    // The two sides of a sliding window's bend are integrated apart, so no interval straddles it.
    const auto bend = decode_cost_bend(job.model);
    if (bend && *bend > first && *bend < last) {
      const int at = static_cast<int>(*bend);
      const auto [below, below_error] = integrate(sampler, first, at, options);
      const auto [above, above_error] = integrate(sampler, at, last, options);
      g.decode_s = below + above - sampler.at(at);  // the bend's own step counted once
      g.integration_error_s = below_error + above_error;
    } else {
      std::tie(g.decode_s, g.integration_error_s) = integrate(sampler, first, last, options);
    }
    for (auto& [context, s] : sampler.steps()) {
      const auto& peak = s.report.ranks[s.report.peak_rank];
      g.points.push_back({context, context - w.seq_len + 2, s.metrics.step_time_s,
                          s.plan.static_memory[s.report.peak_rank].kv_cache, peak.memory.peak.value()});
    }
    g.last_decode.emplace(std::move(sampler.steps().at(last)));
    g.fits = g.fits && g.last_decode->fits;
    g.tpot_s = g.decode_s / (w.output_len - 1);
  }
  g.total_s = g.ttft_s + g.decode_s;
  const double outputs = double(job.parallel.dp) * w.batch * w.output_len;
  g.output_tokens_per_s = outputs / g.total_s;
  g.output_tokens_per_s_per_gpu = g.output_tokens_per_s / job.parallel.world();
  return g;
}

}  // namespace stepsim::work
