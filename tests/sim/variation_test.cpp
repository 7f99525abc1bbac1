// sim::Variation: per-processor factors, mean-1 lognormal kernel jitter, stalls; and the engine's
// makespan over N jittered processors against the exact expected maximum of N lognormal draws.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <vector>

#include "sim/engine.hpp"
#include "sim/replay.hpp"
#include "sim/variation.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace stepsim;
using namespace stepsim::sim;
using namespace stepsim::test;

namespace {

struct Moments {
  double mean = 0.0;
  double cv = 0.0;  ///< sample standard deviation over the mean (population form)
};

/// The mean and coefficient of variation of draw(0) .. draw(n - 1).
template <class Draw>
Moments moments(int n, Draw&& draw) {
  double sum = 0.0, sq = 0.0;
  for (int i = 0; i < n; ++i) {
    const double x = draw(i);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(std::max(0.0, sq / n - mean * mean)) / mean};
}

}  // namespace

TEST_CASE("a processor factor scales its kernels, not its delays") {
  StepGraphBuilder b;
  const Gpu g0 = add_gpu(b);
  const Gpu g1 = add_gpu(b);
  const OpId a = b.add_op(compute(us(10)), g0.compute);
  const OpId m = b.add_op(memory(us(4)), g0.compute);
  const OpId d = b.add_op(delay(us(3)), g0.compute);
  const OpId other = b.add_op(compute(us(10)), g1.compute);
  const StepGraph graph = std::move(b).build();
  Variation v;
  v.processor_factor = {1.5, 1.0};
  Engine e(graph);
  e.set_variation(&v);
  const RunResult r = e.run();
  // g0: compute 10 x 1.5 = 15 us, memory 4 x 1.5 = 6 us, the delay keeps its 3 us: 24 us. g1: 10 us.
  CHECK(r.ops[a].end == us(15));
  CHECK(r.ops[m].end - r.ops[m].start == us(6));
  CHECK(r.ops[d].end - r.ops[d].start == us(3));
  CHECK(r.ops[other].end == us(10));
  CHECK(r.makespan == us(24));
}

TEST_CASE("a stall adds its length before the kernel it strikes") {
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  for (int i = 0; i < 4; ++i) b.add_op(compute(us(2)), g.compute);
  const StepGraph graph = std::move(b).build();
  Variation v;
  v.stall_probability = {1.0};  // every kernel stalls
  v.stall = us(5);
  Engine e(graph);
  e.set_variation(&v);
  // 4 kernels x (2 + 5) us.
  CHECK(e.run().makespan == us(28));
}

TEST_CASE("draws are a function of the seed and the op: same seed, same run") {
  Variation v;
  v.jitter_sigma = lognormal_sigma_for_cv(0.1);
  v.seed = 42;
  Variation w = v;
  CHECK(v.jitter(7) == w.jitter(7));
  w.seed = 43;
  CHECK(v.jitter(7) != w.jitter(7));
  CHECK(v.jitter(7) != v.jitter(8));
  Variation none;
  CHECK(none.jitter(7) == 1.0);
}

TEST_CASE("kernel jitter has mean 1 and the coefficient of variation asked for") {
  // Over n = 200,000 ops the sample mean of a cv = 0.2 factor has a standard error 0.2 / sqrt(n) =
  // 4.5e-4; the sample cv's is about cv / sqrt(2n) x sqrt(1 + 2 cv^2) = 3.3e-4. Checked within 5 of each.
  const double cv = 0.2;
  Variation v;
  v.jitter_sigma = lognormal_sigma_for_cv(cv);
  v.seed = 9;
  const Moments m = moments(200000, [&](int i) { return v.jitter(static_cast<OpId>(i)); });
  CHECK(m.mean == Approx(1.0).margin(5 * 4.5e-4));
  CHECK(m.cv == Approx(cv).margin(5 * 3.3e-4));
}

namespace variation_test_detail {

/// E[max of n iid lognormals with ln X ~ N(mu, sigma^2)] = integral over x >= 0 of 1 - F(x)^n,
/// by the trapezoid rule on a fine grid up to where F^n is 1 within double precision.
double expected_max_lognormal(int n, double mu, double sigma) {
  const auto cdf = [&](double x) {
    return x <= 0.0 ? 0.0 : 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::numbers::sqrt2));
  };
  const double upper = std::exp(mu + 9.0 * sigma);
  const int steps = 200000;
  const double h = upper / steps;
  double sum = 0.0;
  for (int i = 0; i <= steps; ++i) {
    const double x = i * h;
    const double f = 1.0 - std::pow(cdf(x), n);
    sum += (i == 0 || i == steps) ? 0.5 * f : f;
  }
  return sum * h;
}

}  // namespace variation_test_detail

TEST_CASE("the slowest of N jittered GPUs grows with N as the maximum of N lognormal draws") {
  // N processors, each one kernel of 1 ms with mean-1 lognormal jitter of cv 0.1 (sigma 0.0998),
  // all finishing into one step: the makespan is 1 ms x the largest of N draws. Over 300 seeds the
  // mean makespan estimates E[max]; its standard error is about sd(max) / sqrt(300), and sd(max) of
  // N lognormals is below sigma (the spread of a maximum shrinks with N). Checked within 4 standard
  // errors of the exact expectation, and growing with N: E[max] for N = 1, 16, 256 is 1.000, about
  // 1.17 and about 1.29 (for a normal the gain is sigma sqrt(2 ln N) to first order).
  const double sigma = lognormal_sigma_for_cv(0.1);
  const double mu = -0.5 * sigma * sigma;
  const int seeds = 300;
  double previous = 0.0;
  for (int n : {1, 16, 256}) {
    StepGraphBuilder b;
    for (int p = 0; p < n; ++p) b.add_op(compute(us(1000)), add_gpu(b).compute);
    const StepGraph graph = std::move(b).build();
    const Moments m = moments(seeds, [&](int s) {
      Variation v;
      v.jitter_sigma = sigma;
      v.seed = static_cast<std::uint64_t>(1000 * n + s);
      Engine e(graph);
      e.set_variation(&v);
      return to_seconds(e.run().makespan) / 1e-3;
    });
    const double mean = m.mean;
    const double se = m.cv * m.mean / std::sqrt(seeds);
    const double expected = variation_test_detail::expected_max_lognormal(n, mu, sigma);
    INFO("N = " << n << ": mean of the maximum " << mean << ", expected " << expected << ", se " << se);
    CHECK(std::abs(mean - expected) <= 4.0 * se + 1e-9);
    CHECK(mean > previous);
    previous = mean;
  }
}

TEST_CASE("replayed copies: the slowest of N grows with N as the maximum of N lognormal draws") {
  // The same law for N copies of one 1 ms kernel replayed (sim/replay.hpp): its jitter comes from a
  // table of the lognormal's quantiles instead of Box-Muller draws, the same distribution to within
  // its 2^20 steps; over 300 seeds the mean makespan is within 4 standard errors of E[max].
  const double sigma = lognormal_sigma_for_cv(0.1);
  const double mu = -0.5 * sigma * sigma;
  const int seeds = 300;
  StepGraphBuilder b;
  b.add_op(compute(us(1000)), add_gpu(b).compute);
  const StepGraph graph = std::move(b).build();
  Engine nominal(graph);
  const RunResult run = nominal.run();
  double previous = 0.0;
  for (std::uint32_t n : {1u, 16u, 256u}) {
    ReplayLayout layout;
    layout.width = n;
    layout.op_partition.assign(1, ReplayLayout::kNoPartition);
    Replay replay(graph, run, layout);
    const Moments m = moments(seeds, [&](int s) {
      Variation v;
      v.jitter_sigma = sigma;
      v.seed = static_cast<std::uint64_t>(1000 * n + s);
      return to_seconds(replay.run(&v, false).makespan) / 1e-3;
    });
    const double mean = m.mean;
    const double se = m.cv * m.mean / std::sqrt(seeds);
    const double expected = variation_test_detail::expected_max_lognormal(static_cast<int>(n), mu, sigma);
    INFO("N = " << n << ": mean of the maximum " << mean << ", expected " << expected << ", se " << se);
    CHECK(std::abs(mean - expected) <= 4.0 * se + 1e-9);
    CHECK(mean > previous);
    previous = mean;
  }
}

TEST_CASE("clock wander holds one factor per processor and window, with mean 1 and the cv asked for") {
  // Over n = 200,000 (processor, window) draws of a cv = 0.05 factor, the sample mean's standard
  // error is 0.05 / sqrt(n) = 1.1e-4 and the sample cv's about cv / sqrt(2n) = 7.9e-5: within 5 of each.
  const double cv = 0.05;
  Variation v;
  v.wander_sigma = lognormal_sigma_for_cv(cv);
  v.wander_window = us(100);
  v.seed = 3;
  CHECK(v.wander(0, us(10)) == v.wander(0, us(99)));   // one window
  CHECK(v.wander(0, us(10)) != v.wander(0, us(100)));  // the next
  CHECK(v.wander(0, us(10)) != v.wander(1, us(10)));   // another processor
  Variation other = v;
  other.seed = 4;
  CHECK(v.wander(0, us(10)) != other.wander(0, us(10)));
  // 400 processors x 500 windows.
  const Moments m = moments(
      200000, [&](int i) { return v.wander(static_cast<std::uint64_t>(i % 400), us(100) * (i / 400)); });
  CHECK(m.mean == Approx(1.0).margin(5 * 1.1e-4));
  CHECK(m.cv == Approx(cv).margin(5 * 7.9e-5));
  Variation none;
  CHECK(none.wander(0, us(10)) == 1.0);
  none.wander_sigma = 0.1;  // no window: no wander
  CHECK(none.wander(0, us(10)) == 1.0);
}

TEST_CASE("clock wander scales each kernel by the window it starts in, on the engine and replayed") {
  // One processor, kernels of 30 us, windows of 50 us: kernel 0 starts in window 0 and takes
  // 30 f0; kernel 1 starts at 30 f0 (window 0 while f0 < 5/3) and takes 30 f0; kernel 2 starts at
  // 60 f0, in window floor(60 f0 / 50). The engine's ends follow that chain exactly.
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  std::vector<OpId> ops;
  for (int i = 0; i < 3; ++i) ops.push_back(b.add_op(compute(us(30)), g.compute));
  const StepGraph graph = std::move(b).build();
  Variation v;
  v.wander_sigma = lognormal_sigma_for_cv(0.1);
  v.wander_window = us(50);
  v.seed = 11;
  Engine e(graph);
  e.set_variation(&v);
  const RunResult r = e.run();
  Time t{};
  for (const OpId op : ops) {
    CHECK(r.ops[op].start == t);
    t = t + ceil_to_time(static_cast<double>(us(30).count()) * v.wander(0, t));
    CHECK(r.ops[op].end == t);
  }
  // Replayed over the nominal run (two copies), each copy's kernel takes its own row's factor in
  // the window the op started in during the run: 0, 30 and 60 us.
  Engine nominal_engine(graph);
  const RunResult nominal = nominal_engine.run();
  ReplayLayout layout;
  layout.width = 2;
  layout.op_partition.assign(graph.op_count(), ReplayLayout::kNoPartition);
  Replay replay(graph, nominal, layout);
  for (std::uint32_t copy = 0; copy < 2; ++copy)
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Time start = us(30) * static_cast<Time::rep>(i);
      // The replay rounds a scaled duration up to the picosecond.
      const double ps = static_cast<double>(us(30).count()) * v.wander(copy, start);
      CHECK(replay.duration(ops[i], copy, &v) == Time{static_cast<Time::rep>(std::ceil(ps))});
    }
}

TEST_CASE("clock wander does not average out over a chain of kernels, as jitter does") {
  // 100 kernels of 10 us on one processor, all inside one 10 ms window: the makespan is 1 ms x the
  // window's factor, so over 400 seeds its coefficient of variation is the wander's cv (0.05; the
  // sample cv's standard error is about 0.05 / sqrt(800) = 1.8e-3, checked within 5 of it). Per-kernel
  // jitter of the same cv gives 0.05 / sqrt(100) = 0.005 (each kernel independent).
  StepGraphBuilder b;
  const Gpu g = add_gpu(b);
  for (int i = 0; i < 100; ++i) b.add_op(compute(us(10)), g.compute);
  const StepGraph graph = std::move(b).build();
  const auto makespan_cv = [&](bool wander) {
    return moments(400,
                   [&](int seed) {
                     Variation v;
                     v.seed = static_cast<std::uint64_t>(seed);
                     if (wander) {
                       v.wander_sigma = lognormal_sigma_for_cv(0.05);
                       v.wander_window = from_seconds(10e-3);
                     } else {
                       v.jitter_sigma = lognormal_sigma_for_cv(0.05);
                     }
                     Engine e(graph);
                     e.set_variation(&v);
                     return to_seconds(e.run().makespan);
                   })
        .cv;
  };
  CHECK(makespan_cv(true) == Approx(0.05).margin(5 * 1.8e-3));
  CHECK(makespan_cv(false) < 0.01);
}
