#pragma once
// Human-readable formatting of quantities for terminal tables.

#include <string>
#include <string_view>

#include "sim/quantity.hpp"

namespace stepsim::out {

/// "1.23 s", "45.6 ms", "789 us", "12 ns".
std::string format_seconds(double seconds);
/// Decimal units: "1.50 GB", "320 MB".
std::string format_bytes(double bytes);
inline std::string format_bytes(Bytes b) {
  return format_bytes(b.value());
}
/// Binary, labelled: "79.65 GiB" (device memory as the device and PyTorch report it).
std::string format_gib(double bytes);
inline std::string format_gib(Bytes b) {
  return format_gib(b.value());
}
/// "1,339.29" style thousands separators with `decimals` digits after the point; a value that
/// rounds to zero prints without a sign ("0.0", never "-0.0").
std::string format_number(double value, int decimals);
/// A fraction as a percentage: 0.1234 -> "12.3%"; never "-0.0%".
std::string format_percent(double fraction, int decimals = 1);
/// A count and its noun, singular or plural: "1 micro-batch", "1,024 micro-batches".
std::string format_count(long long n, std::string_view singular, std::string_view plural);

}  // namespace stepsim::out
