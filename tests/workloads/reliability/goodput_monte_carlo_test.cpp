// The goodput Monte Carlo against what can be derived by hand: a run without failures, Daly's exact
// expectation for Poisson failures, the first-order (Young/Daly) waste and optimum in their regime,
// Wald's identity for the number of failures, and determinism per seed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "workloads/reliability/goodput.hpp"
#include "workloads/reliability/goodput_monte_carlo.hpp"

using stepsim::work::GoodputPlan;
using stepsim::work::GoodputStats;
using stepsim::work::MonteCarloOptions;

namespace {

// The first-order regime of tests (b) and (c): M = 100 h = 360,000 s between failures, C = 60 s per
// checkpoint, R = 600 s per restart. tau_opt = sqrt(2 C M) = sqrt(4.32e7) = 6,572.7 s; with 10-s
// steps, 657 steps (6,570 s). C/tau = 0.9% and tau/M = 1.8%: C << tau << M.
constexpr double kM = 360000.0, kC = 60.0, kR = 600.0, kStep = 10.0;
constexpr std::int64_t kK = 657;
// 600 intervals: 3,942,000 s of steps, about 11 failures per trial.
constexpr std::int64_t kSteps = kK * 600;

GoodputPlan first_order_plan(double durable_s = 0.0) {
  return GoodputPlan{kSteps, kStep, kC, durable_s, kR, 3600.0 / kM};
}

/// Daly (2006), exact for Poisson failures, a restart R that failures can interrupt, and a segment
/// of L seconds lost whole when a failure strikes it: E(L) = M e^(R/M) (e^(L/M) - 1). (From
/// E(L) = E[min(X, L)] + P(X < L) (E_R + E(L)) with X ~ Exp(1/M), E_R = M (e^(R/M) - 1).)
double daly_expected_s(double segment_s) {
  return kM * std::exp(kR / kM) * std::expm1(segment_s / kM);
}

/// Standard error of the waste 1 - U / W estimated from the mean wall W over n trials (delta method:
/// d(waste)/dW = U / W^2).
double waste_standard_error(const GoodputStats& s, int trials) {
  return s.useful_s / (s.mean_wall_s * s.mean_wall_s) * s.stddev_wall_s / std::sqrt(double(trials));
}

}  // namespace

TEST_CASE("goodput: without failures the wall time is steps x step + checkpoints x checkpoint, exactly") {
  // 1,000 steps of 12.5 s with a 30-s checkpoint every 10 steps: 99 checkpoints (none after the last
  // step), 12,500 + 99 x 30 = 15,470 s. Every figure is exact in nanoseconds and in doubles.
  GoodputPlan plan{1000, 12.5, 30.0, 0.0, 600.0, 0.0};
  const MonteCarloOptions mc{20, 7};
  const GoodputStats s = stepsim::work::simulate_goodput(plan, 10, mc);
  CHECK(stepsim::work::checkpoint_count(1000, 10) == 99);
  CHECK(s.mean_wall_s == 15470.0);
  CHECK(s.p10_wall_s == 15470.0);
  CHECK(s.p90_wall_s == 15470.0);
  CHECK(s.stddev_wall_s == 0.0);
  CHECK(s.useful_s == 12500.0);
  CHECK(s.checkpoint_s == 2970.0);
  CHECK(s.rework_s == 0.0);
  CHECK(s.restart_s == 0.0);
  CHECK(s.mean_failures == 0.0);
  CHECK(s.goodput == 12500.0 / 15470.0);
  // An interval that does not divide the run: 999 / 7 = 142 checkpoints, 12,500 + 4,260 = 16,760 s.
  CHECK(stepsim::work::simulate_goodput(plan, 7, mc).mean_wall_s == 16760.0);
  // Asynchronous: only the 0.25-s block counts, however long the background write takes:
  // 12,500 + 99 x 0.25 = 12,524.75 s.
  plan.checkpoint_block_s = 0.25;
  plan.checkpoint_durable_s = 500.0;
  CHECK(stepsim::work::simulate_goodput(plan, 10, mc).mean_wall_s == 12524.75);
}

TEST_CASE("goodput: the Monte Carlo's mean wall time is Daly's exact expectation") {
  // 599 segments of K steps + C = 6,630 s and a last one of 6,570 s without a checkpoint:
  // E = 599 x 6,702.6 + 6,641.4 = 4,021,492 s. The Monte Carlo must agree within 4 standard errors of
  // its mean (about 14,600 s of spread per trial / sqrt(2,000) = 330 s). Over seeds 1-300 the error in
  // standard errors has mean 0.1 and standard deviation 1.02, its largest 3.6 (seed 1): 4 SE holds.
  const int trials = 2000;
  const GoodputStats s =
      stepsim::work::simulate_goodput(first_order_plan(), kK, MonteCarloOptions{trials, 2});
  const double expected = 599.0 * daly_expected_s(kK * kStep + kC) + daly_expected_s(kK * kStep);
  const double se = s.stddev_wall_s / std::sqrt(double(trials));
  INFO("mean " << s.mean_wall_s << " s, expected " << expected << " s, standard error " << se << " s");
  CHECK(std::fabs(s.mean_wall_s - expected) < 4.0 * se);
  CHECK(se < 0.001 * expected);  // the check above is sharp: 4 SE is 0.03% of the run
  // The parts add up to the wall time (each is a mean over the same trials).
  CHECK(s.useful_s + s.checkpoint_s + s.rework_s + s.restart_s == Approx(s.mean_wall_s).epsilon(1e-12));
  // Failures arrive at 1/M over the whole wall time, restarts included, and a trial stops at a
  // stopping time: E[failures] = E[wall] / M (Wald). A Poisson count of about 11.2 has a standard
  // deviation of 3.3, so 4 standard errors over 2,000 trials are 0.3 failures.
  CHECK(std::fabs(s.mean_failures - s.mean_wall_s / kM) < 4.0 * std::sqrt(s.mean_wall_s / kM / trials));
}

TEST_CASE("goodput: the mean waste matches the first-order model where C << tau << M") {
  // First order: W = C/tau + (tau/2 + R)/M = 60/6,570 + (3,285 + 600)/360,000 = 0.019924.
  // It neglects terms of order (tau/M)^2 = 3.3e-4, C/M = 1.7e-4 and (R/M) W = 3.3e-5 (Daly's exact
  // form gives 0.019767): allowed 5.3e-4, plus 4 standard errors of the Monte Carlo's waste
  // (about 4 x 8e-5 with 2,000 trials).
  const int trials = 2000;
  const GoodputPlan plan = first_order_plan();
  const GoodputStats s = stepsim::work::simulate_goodput(plan, kK, MonteCarloOptions{trials, 3});
  const double tau = kK * kStep;
  const double first_order = stepsim::work::first_order_waste(plan, tau);
  CHECK(first_order == Approx(kC / tau + (tau / 2.0 + kR) / kM));
  const double waste = 1.0 - s.goodput;
  const double se = waste_standard_error(s, trials);
  INFO("Monte Carlo waste " << waste << ", first order " << first_order << ", standard error " << se);
  CHECK(se < 1.5e-4);
  CHECK(std::fabs(waste - first_order) < 5.3e-4 + 4.0 * se);

  SECTION("an asynchronous checkpoint restorable D later loses D more per failure") {
    // A failure in the D seconds after a snapshot rolls back one more interval (L): extra loss
    // (D / L) x L = D per failure, D / M = 1,000 / 360,000 = 2.8e-3 of the time to first order.
    // Its noise: per failure L with probability D/L = 0.15, about 7,900 s per trial, 180 s over
    // 2,000 trials against 11,000 s expected: 10% is 60 standard errors.
    const GoodputStats d =
        stepsim::work::simulate_goodput(first_order_plan(1000.0), kK, MonteCarloOptions{trials, 3});
    const double extra = (1.0 - d.goodput) - waste;
    CHECK(extra == Approx(1000.0 / kM).epsilon(0.10));
  }
}

TEST_CASE("goodput: the interval with the highest goodput is within 1.5x of Young/Daly's tau_opt") {
  // Around the optimum the waste is R/M + a (k + 1/k) with a = C/tau_opt = 0.9% and k the ratio to
  // tau_opt: the sweep's grid steps by 2^(1/4) = 1.19x, and at 2^(3/4) = 1.68x the waste is already
  // a x 0.27 = 2.5e-3 above the optimum's, 30 standard errors of the (common-random-number) curve.
  // So the best interval lies within two grid steps (1.41x) of tau_opt: within 1.5x.
  const GoodputPlan plan = first_order_plan();
  const auto yd = stepsim::work::young_daly(plan);
  CHECK(yd.tau_opt_s == Approx(std::sqrt(2.0 * kC * kM)));  // 6,572.7 s
  CHECK(yd.interval_steps == kK);                           // 657.27 steps, rounded
  const auto intervals = stepsim::work::sweep_intervals(yd.interval_steps, yd.interval_steps, plan.steps);
  REQUIRE(intervals.size() == 25);
  CHECK(intervals.front() == 82);   // 657 / 8
  CHECK(intervals.back() == 5256);  // 657 x 8
  const auto sweep = stepsim::work::goodput_over_intervals(plan, intervals, MonteCarloOptions{1000, 11});
  std::size_t best = 0;
  for (std::size_t i = 1; i < sweep.size(); ++i)
    if (sweep[i].goodput > sweep[best].goodput) best = i;
  const double ratio = double(sweep[best].interval_steps) / double(yd.interval_steps);
  INFO("best " << sweep[best].interval_steps << " steps, Young/Daly " << yd.interval_steps);
  CHECK(ratio > 1.0 / 1.5);
  CHECK(ratio < 1.5);
  // The curve falls away on both sides: 8x too rare and 8x too frequent both lose over 2%.
  CHECK(sweep.front().goodput < sweep[best].goodput - 0.02);
  CHECK(sweep.back().goodput < sweep[best].goodput - 0.02);
}

TEST_CASE("goodput: a seed gives the same result every time, another seed a different one") {
  const GoodputPlan plan = first_order_plan();
  const GoodputStats a = stepsim::work::simulate_goodput(plan, kK, MonteCarloOptions{50, 42});
  const GoodputStats b = stepsim::work::simulate_goodput(plan, kK, MonteCarloOptions{50, 42});
  const GoodputStats c = stepsim::work::simulate_goodput(plan, kK, MonteCarloOptions{50, 43});
  CHECK(a.mean_wall_s == b.mean_wall_s);
  CHECK(a.stddev_wall_s == b.stddev_wall_s);
  CHECK(a.p10_goodput == b.p10_goodput);
  CHECK(a.mean_failures == b.mean_failures);
  CHECK(a.rework_s == b.rework_s);
  CHECK(a.mean_wall_s != c.mean_wall_s);
  CHECK(a.mean_failures > 0.0);
}

TEST_CASE("goodput: a run whose failures outpace its intervals does not finish, and says so") {
  // One failure per 6 minutes against 10-hour intervals: e^(36000/360) = e^100 expected attempts.
  const GoodputPlan plan{1000, 36.0, 1.0, 0.0, 60.0, 10.0};
  const GoodputStats s = stepsim::work::simulate_goodput(plan, 1000, MonteCarloOptions{2, 1});
  CHECK(std::isinf(s.mean_wall_s));
  CHECK(s.goodput == 0.0);
}

TEST_CASE("goodput: the job's failure rate is the sum over its components") {
  // 16 GPUs at 80,000 h, 2 nodes at 20,000 h, 16 NICs at 1.6e6 h, 3 switches at 60,000 h:
  // 2e-4 + 1e-4 + 1e-5 + 5e-5 = 3.6e-4 per hour, 2,778 h between failures.
  const stepsim::work::FailureRates rates{80000.0, 20000.0, 1.6e6, 60000.0};
  const auto r = stepsim::work::job_failure_rate(rates, {16.0, 2.0, 16.0, 3.0});
  CHECK(r.failures_per_hour == Approx(3.6e-4));
  CHECK(r.mtbf_hours() == Approx(1.0 / 3.6e-4));
  CHECK(r.components[3].failures_per_hour == Approx(5e-5));
  // The defaults on the Llama 3 run's own counts give back its 419 interruptions in 1,296 hours.
  using namespace stepsim::work::llama3_report;
  const auto llama = stepsim::work::job_failure_rate({}, {kGpus, kNodes, kNics, kSwitches});
  CHECK(llama.failures_per_hour * kSnapshotHours == Approx(419.0));
}
