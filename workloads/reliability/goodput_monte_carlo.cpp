// The goodput Monte Carlo: failure times drawn one by one, the failure-free stretches between them
// crossed in one arithmetic jump.
#include "workloads/reliability/goodput_monte_carlo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "workloads/serving/serving.hpp"

namespace stepsim::work {
namespace goodput_mc_detail {

using Ns = std::int64_t;
constexpr Ns kNever = std::numeric_limits<Ns>::max();
/// The wall time after which a trial is given up (2^62 ns, 146 years), and the longest failure-free
/// run, restart or write accepted (2^60 ns, 36 years): every sum of two stays inside int64.
constexpr Ns kHorizonNs = Ns{1} << 62;
constexpr Ns kLongestInputNs = Ns{1} << 60;
/// A trial that meets this many failures is given up too (a run that cannot get past its failures).
constexpr std::int64_t kMaxFailures = 1'000'000;
/// A trial is given up once its wall time passes this many times the failure-free run plus one
/// restart: its goodput would be under 0.1%, and it is reported as not finishing.
constexpr double kGiveUpFactor = 1000.0;

/// Seconds as nanoseconds, rounded up so that a non-zero duration always advances time.
Ns to_ns(double s) {
  return static_cast<Ns>(std::ceil(s * 1e9));
}

Ns saturating_add(Ns a, Ns b) {
  return b > kHorizonNs || a > kHorizonNs - b ? kNever : a + b;
}

/// splitmix64 (Steele et al. 2014): decorrelates the per-trial seeds (seed, 0), (seed, 1), ...
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Exponential gaps between failures. mt19937_64's sequence is fixed by the standard; the
/// inversion below (not std::exponential_distribution, whose algorithm is the library's) keeps the
/// draws identical across standard libraries.
class FailureClock {
 public:
  FailureClock(std::uint64_t seed, std::uint64_t trial, double mean_gap_ns)
      : rng_(mix(seed ^ mix(trial))), mean_gap_ns_(mean_gap_ns) {}
  /// The time of the next failure after `now`; kNever without failures.
  Ns next_after(Ns now) {
    if (!std::isfinite(mean_gap_ns_)) return kNever;
    const double u = 1.0 - static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // in (0, 1]
    const double gap = -std::log(u) * mean_gap_ns_;
    return gap >= static_cast<double>(kHorizonNs) ? kNever : saturating_add(now, static_cast<Ns>(gap));
  }

 private:
  std::mt19937_64 rng_;
  double mean_gap_ns_;
};

/// The plan in nanoseconds at one interval.
struct Timeline {
  std::int64_t steps = 0;
  std::int64_t interval = 1;  ///< K
  Ns step = 0;
  Ns block = 0;             ///< C
  Ns durable = 0;           ///< D
  Ns restart = 0;           ///< R
  Ns give_up = kHorizonNs;  ///< wall time at which a trial stops as not finishing
  Ns segment() const { return interval * step + block; }  ///< K steps and their checkpoint
};

struct Trial {
  Ns wall = 0, rework = 0, restart = 0;
  std::int64_t failures = 0;
  bool finished = true;
};

/// Runs the restart after a failure at `t`; returns when the job runs again, with the next failure.
Ns restart_after(const Timeline& tl, FailureClock& clock, Ns t, Trial& trial, Ns& next_failure) {
  for (;;) {
    const Ns g = clock.next_after(t);
    if (g >= t + tl.restart) {
      trial.restart += tl.restart;
      next_failure = g;
      return t + tl.restart;
    }
    trial.restart += g - t;
    t = g;
    if (++trial.failures >= kMaxFailures || t >= tl.give_up) return kNever;
  }
}

/// One run. From a resume point (time t0, `saved` steps restorable) the run is deterministic until
/// the next failure: checkpoint i ends its block at t0 + i L and is restorable D later, and the run
/// ends at t0 + m L + r step (m checkpoints, r steps after the last).
Trial run_trial(const Timeline& tl, FailureClock& clock) {
  Trial trial;
  Ns t0 = 0;
  std::int64_t saved = 0;
  Ns next_failure = clock.next_after(0);
  const Ns L = tl.segment();
  for (;;) {
    const std::int64_t left = tl.steps - saved;
    const std::int64_t m = (left - 1) / tl.interval;
    const Ns finish = t0 + m * L + (left - m * tl.interval) * tl.step;
    if (next_failure >= finish) {
      trial.wall = finish;
      return trial;
    }
    const Ns f = next_failure;
    ++trial.failures;
    // The newest checkpoint restorable at f: i L + D <= f - t0, at most m.
    const std::int64_t i = f - t0 >= tl.durable ? std::min(m, (f - t0 - tl.durable) / L) : 0;
    saved += i * tl.interval;
    trial.rework += f - (t0 + i * L);
    t0 = restart_after(tl, clock, f, trial, next_failure);
    if (t0 >= tl.give_up || trial.failures >= kMaxFailures) {
      trial.finished = false;
      return trial;
    }
  }
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

double stddev_of(const std::vector<double>& v, double mean) {
  if (v.size() < 2) return 0.0;
  double sum = 0.0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

Timeline timeline_of(const GoodputPlan& plan, std::int64_t interval) {
  if (plan.steps < 1 || !(plan.step_s > 0.0) || !(plan.checkpoint_block_s >= 0.0) ||
      !(plan.checkpoint_durable_s >= 0.0) || !(plan.restart_s >= 0.0) || !(plan.failures_per_hour >= 0.0) ||
      interval < 1)
    throw std::invalid_argument("goodput plan out of range");
  // Checked in seconds before any conversion, so that no double out of the int64 range is cast.
  const double longest_s = kGoodputLongestSeconds;
  const std::int64_t k = std::min(interval, plan.steps);
  const double failure_free_s =
      static_cast<double>(plan.steps) * plan.step_s +
      static_cast<double>(checkpoint_count(plan.steps, k)) * plan.checkpoint_block_s;
  if (!(failure_free_s + plan.checkpoint_block_s < longest_s) || !(plan.restart_s < longest_s) ||
      !(plan.checkpoint_durable_s < longest_s))
    throw std::invalid_argument("goodput plan: the run is longer than the simulator's time range");
  const double give_up_s = kGiveUpFactor * (failure_free_s + plan.restart_s);
  return Timeline{plan.steps,
                  k,
                  to_ns(plan.step_s),
                  to_ns(plan.checkpoint_block_s),
                  to_ns(plan.checkpoint_durable_s),
                  to_ns(plan.restart_s),
                  give_up_s * 1e9 < static_cast<double>(kHorizonNs) ? to_ns(give_up_s) : kHorizonNs};
}

GoodputStats summarise(const Timeline& tl, const std::vector<Trial>& trials) {
  GoodputStats s;
  s.interval_steps = tl.interval;
  const double useful_ns = static_cast<double>(tl.steps) * static_cast<double>(tl.step);
  s.useful_s = useful_ns / 1e9;
  if (std::any_of(trials.begin(), trials.end(), [](const Trial& t) { return !t.finished; })) {
    s.mean_wall_s = std::numeric_limits<double>::infinity();
    return s;  // goodput 0: the run does not finish
  }
  std::vector<double> wall, goodput;
  double failures = 0.0, rework = 0.0, restart = 0.0;
  for (const Trial& t : trials) {
    wall.push_back(static_cast<double>(t.wall) / 1e9);
    goodput.push_back(useful_ns / static_cast<double>(t.wall));
    failures += static_cast<double>(t.failures);
    rework += static_cast<double>(t.rework) / 1e9;
    restart += static_cast<double>(t.restart) / 1e9;
  }
  const double n = static_cast<double>(trials.size());
  s.mean_wall_s = mean_of(wall);
  s.stddev_wall_s = stddev_of(wall, s.mean_wall_s);
  s.p10_wall_s = percentile(wall, 10.0);
  s.p50_wall_s = percentile(wall, 50.0);
  s.p90_wall_s = percentile(wall, 90.0);
  s.goodput = s.useful_s / s.mean_wall_s;
  s.p10_goodput = percentile(goodput, 10.0);
  s.p50_goodput = percentile(goodput, 50.0);
  s.p90_goodput = percentile(goodput, 90.0);
  s.mean_failures = failures / n;
  s.checkpoint_s =
      static_cast<double>(checkpoint_count(tl.steps, tl.interval)) * static_cast<double>(tl.block) / 1e9;
  s.rework_s = rework / n;
  s.restart_s = restart / n;
  return s;
}

}  // namespace goodput_mc_detail

std::int64_t checkpoint_count(std::int64_t steps, std::int64_t interval_steps) {
  return steps < 1 || interval_steps < 1 ? 0 : (steps - 1) / interval_steps;
}

GoodputStats simulate_goodput(const GoodputPlan& plan, std::int64_t interval_steps,
                              const MonteCarloOptions& options) {
  using namespace goodput_mc_detail;
  if (options.trials < 1) throw std::invalid_argument("goodput Monte Carlo: no trials");
  const Timeline tl = timeline_of(plan, interval_steps);
  const double mean_gap_ns = plan.failures_per_hour > 0.0 ? 3600e9 / plan.failures_per_hour
                                                          : std::numeric_limits<double>::infinity();
  std::vector<Trial> trials;
  trials.reserve(static_cast<std::size_t>(options.trials));
  for (int i = 0; i < options.trials; ++i) {
    FailureClock clock(options.seed, static_cast<std::uint64_t>(i), mean_gap_ns);
    trials.push_back(run_trial(tl, clock));
    if (!trials.back().finished) break;  // the interval does not finish: no need for more trials
  }
  return summarise(tl, trials);
}

std::vector<GoodputStats> goodput_over_intervals(const GoodputPlan& plan,
                                                 std::span<const std::int64_t> intervals,
                                                 const MonteCarloOptions& options) {
  std::vector<GoodputStats> out;
  out.reserve(intervals.size());
  for (std::int64_t k : intervals) out.push_back(simulate_goodput(plan, k, options));
  return out;
}

YoungDaly young_daly(const GoodputPlan& plan) {
  YoungDaly yd;
  yd.mtbf_s = plan.failures_per_hour > 0.0 ? 3600.0 / plan.failures_per_hour
                                           : std::numeric_limits<double>::infinity();
  yd.tau_opt_s = std::sqrt(2.0 * plan.checkpoint_block_s * yd.mtbf_s);
  const double steps = yd.tau_opt_s / plan.step_s;
  yd.interval_steps = std::isfinite(steps) ? std::clamp<std::int64_t>(std::llround(std::min(steps, 9e18)), 1,
                                                                      std::max<std::int64_t>(plan.steps, 1))
                                           : std::max<std::int64_t>(plan.steps, 1);
  return yd;
}

double first_order_waste(const GoodputPlan& plan, double tau_s) {
  const double m = plan.failures_per_hour > 0.0 ? 3600.0 / plan.failures_per_hour
                                                : std::numeric_limits<double>::infinity();
  if (!std::isfinite(m)) return plan.checkpoint_block_s / tau_s;  // no failures: only the checkpoints cost
  return plan.checkpoint_block_s / tau_s + (tau_s / 2.0 + plan.checkpoint_durable_s + plan.restart_s) / m;
}

}  // namespace stepsim::work
