#pragma once
// Human-readable formatting of quantities for terminal tables.

#include <string>

namespace stepsim::out {

/// "1.23 s", "45.6 ms", "789 us", "12 ns".
std::string format_seconds(double seconds);
/// Decimal units: "1.50 GB", "320 MB".
std::string format_bytes(double bytes);
/// Binary, labelled: "79.65 GiB" (device memory as the device and PyTorch report it).
std::string format_gib(double bytes);
/// "1,339.29" style thousands separators with `decimals` digits after the point.
std::string format_number(double value, int decimals);

}  // namespace stepsim::out
