#pragma once
// What varies between two runs of one step graph: a GPU that is slower than its peers, kernels
// whose durations scatter around their mean, a GPU whose speed wanders over time, a host that
// stalls now and then.
//
// `sim` knows no GPUs: a Variation scales the duration of compute and memory ops (kernels) by a
// factor per processor, a mean-1 lognormal factor per op, a mean-1 lognormal factor per processor
// and window of time (the window the kernel starts in), and adds a fixed stall before an op with a
// probability per processor. Transfers and delay ops keep their durations: a collective's time
// emerges from the links, and launch gaps belong to the host. Every draw is a pure function of
// (seed, op id) or (seed, processor, window), so a run is reproducible for its seed and independent
// of event order; a processor's factor is the caller's (a property of the part, the same in every
// step).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/graph.hpp"
#include "sim/units.hpp"

namespace stepsim::sim {

struct Variation {
  /// Per processor: its kernels' time multiplier (1.1 = 10% slower). Empty: 1 for every processor.
  std::vector<double> processor_factor;
  /// Sigma of ln(factor) of each kernel's lognormal time factor, whose mean is 1; 0 = no jitter.
  double jitter_sigma = 0.0;
  /// Clock wander: time is cut into windows of `wander_window` from the run's start, and each
  /// processor's kernels that start in one window take that (processor, window)'s lognormal time
  /// factor of mean 1 and sigma of its log `wander_sigma`, independent between processors and
  /// windows. 0 (either) = none. Unlike jitter, which averages out over a chain of many kernels, a
  /// window's factor holds for every kernel in it: a GPU's clock drifting with its power and
  /// temperature for milliseconds at a time.
  double wander_sigma = 0.0;
  Time wander_window{};
  /// Per processor: the probability that one given kernel is preceded by a stall; empty = none.
  std::vector<double> stall_probability;
  Time stall{};  ///< the length of one stall
  std::uint64_t seed = 0;

  /// The duration of kernel `id` on processor `p` in this run, its full-speed work being `work`,
  /// starting at `start` (which picks its clock-wander window).
  Time duration(OpId id, ProcessorId p, Time work, Time start) const;
  /// Whether kernel `id` on `p` is preceded by a stall in this run.
  bool stalls(OpId id, ProcessorId p) const;
  /// Its lognormal jitter factor alone (1 without jitter).
  double jitter(OpId id) const;
  /// The clock-wander factor of row `row` (a processor, or sim/replay.hpp's copy of one) for a
  /// kernel starting at `at` (1 without wander).
  double wander(std::uint64_t row, Time at) const;
  bool wanders() const { return wander_sigma > 0.0 && wander_window.count() > 0; }
  /// The index of the clock-wander window holding time `at` (wanders() must hold).
  std::uint64_t window_of(Time at) const {
    return static_cast<std::uint64_t>(std::max<Time::rep>(at.count(), 0) / wander_window.count());
  }
  /// stalls() under any 64-bit key and row of stall_probability: sim/replay.hpp keys a copy of an
  /// op by (op, copy) and gives each copy its own row.
  bool stalls_of(std::uint64_t key, std::size_t row) const;
};

/// A 64-bit seed derived from `seed` and `key` (SplitMix64): independent streams of draws.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t key);
/// A uniform draw in (0, 1), a pure function of (seed, key): SplitMix64 of their mix.
double hash_uniform(std::uint64_t seed, std::uint64_t key);
/// A standard normal draw, a pure function of (seed, key) (Box-Muller on two hash_uniform draws).
double hash_normal(std::uint64_t seed, std::uint64_t key);
/// The standard normal quantile: z with P(Z <= z) = p, for p in (0, 1) (Acklam's rational
/// approximation, refined by one Halley step on std::erfc: about 1e-15 relative).
double normal_quantile(double p);
/// sigma of ln X for a lognormal X of mean 1 and coefficient of variation `cv`: sqrt(ln(1 + cv^2)).
double lognormal_sigma_for_cv(double cv);

}  // namespace stepsim::sim
