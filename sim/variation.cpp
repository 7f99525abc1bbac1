#include "sim/variation.hpp"

#include <cmath>
#include <numbers>

#include "sim/engine.hpp"

namespace stepsim::sim {

namespace variation_detail {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Separate streams of draws per op: the jitter and the stall of one op are independent.
constexpr std::uint64_t kJitterStream = 0;
constexpr std::uint64_t kStallStream = 1;
constexpr std::uint64_t kWanderStream = 2;  // keyed by processor, then by window

std::uint64_t key_of(std::uint64_t key, std::uint64_t stream) {
  return (key << 2) | stream;
}

}  // namespace variation_detail

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t key) {
  return variation_detail::splitmix64(variation_detail::splitmix64(seed) ^ key);
}

double hash_uniform(std::uint64_t seed, std::uint64_t key) {
  const std::uint64_t h = mix_seed(seed, key);
  // 53 random bits, offset by half a unit: never 0, never 1.
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

double hash_normal(std::uint64_t seed, std::uint64_t key) {
  const double u1 = hash_uniform(seed, key * 2);
  const double u2 = hash_uniform(seed, key * 2 + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double low = 0.02425;
  const auto tail = [&](double q) {
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  };
  double x = 0.0;
  if (p < low) {
    x = tail(std::sqrt(-2.0 * std::log(p)));
  } else if (p <= 1.0 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    x = -tail(std::sqrt(-2.0 * std::log1p(-p)));
  }
  // One Halley step on P(Z <= x) - p.
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2.0 * std::numbers::pi) * std::exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

double lognormal_sigma_for_cv(double cv) {
  return std::sqrt(std::log1p(cv * cv));
}

double Variation::jitter(OpId id) const {
  if (jitter_sigma <= 0.0) return 1.0;
  const double z = hash_normal(seed, variation_detail::key_of(id, variation_detail::kJitterStream));
  // Mean 1: E[exp(sigma z - sigma^2 / 2)] = 1.
  return std::exp(jitter_sigma * z - 0.5 * jitter_sigma * jitter_sigma);
}

double Variation::wander(std::uint64_t row, Time at) const {
  if (!wanders()) return 1.0;
  const std::uint64_t per_row =
      mix_seed(seed, variation_detail::key_of(row, variation_detail::kWanderStream));
  return std::exp(wander_sigma * hash_normal(per_row, window_of(at)) - 0.5 * wander_sigma * wander_sigma);
}

bool Variation::stalls(OpId id, ProcessorId p) const {
  return stalls_of(id, p);
}

bool Variation::stalls_of(std::uint64_t key, std::size_t row) const {
  if (row >= stall_probability.size() || stall_probability[row] <= 0.0 || stall.count() <= 0) return false;
  return hash_uniform(seed, variation_detail::key_of(key, variation_detail::kStallStream)) <
         stall_probability[row];
}

Time Variation::duration(OpId id, ProcessorId p, Time work, Time start) const {
  double factor = jitter(id) * wander(p, start);
  if (p < processor_factor.size()) factor *= processor_factor[p];
  Time t = factor == 1.0 ? work : ceil_to_time(static_cast<double>(work.count()) * factor);
  if (stalls(id, p)) t = saturating_add(t, stall);
  return t;
}

}  // namespace stepsim::sim
