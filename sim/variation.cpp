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

std::uint64_t key_of(OpId id, std::uint64_t stream) {
  return (static_cast<std::uint64_t>(id) << 2) | stream;
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

double lognormal_sigma_for_cv(double cv) {
  return std::sqrt(std::log1p(cv * cv));
}

double Variation::jitter(OpId id) const {
  if (jitter_sigma <= 0.0) return 1.0;
  const double z = hash_normal(seed, variation_detail::key_of(id, variation_detail::kJitterStream));
  // Mean 1: E[exp(sigma z - sigma^2 / 2)] = 1.
  return std::exp(jitter_sigma * z - 0.5 * jitter_sigma * jitter_sigma);
}

bool Variation::stalls(OpId id, ProcessorId p) const {
  if (p >= stall_probability.size() || stall_probability[p] <= 0.0 || stall.count() <= 0) return false;
  return hash_uniform(seed, variation_detail::key_of(id, variation_detail::kStallStream)) <
         stall_probability[p];
}

Time Variation::duration(OpId id, ProcessorId p, Time work) const {
  double factor = jitter(id);
  if (p < processor_factor.size()) factor *= processor_factor[p];
  Time t = factor == 1.0 ? work : ceil_to_time(static_cast<double>(work.count()) * factor);
  if (stalls(id, p)) t = saturating_add(t, stall);
  return t;
}

}  // namespace stepsim::sim
