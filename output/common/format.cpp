#include "output/common/format.hpp"

#include <cmath>
#include <cstdio>

namespace stepsim::out {

std::string format_seconds(double s) {
  char buf[64];
  const double a = std::fabs(s);
  if (a >= 1.0 || a == 0.0)
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (a >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else if (a >= 1e-6)
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f ns", s * 1e9);
  return buf;
}

std::string format_bytes(double b) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  double v = b;
  while (std::fabs(v) >= 1000.0 && u < 5) {
    v /= 1000.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[u]);
  return buf;
}

std::string format_gib(double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  return buf;
}

std::string format_number(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(value));
  std::string digits(buf);
  const auto dot = digits.find('.');
  std::string int_part = digits.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : digits.substr(dot);
  std::string grouped;
  for (std::size_t i = 0; i < int_part.size(); ++i) {
    if (i > 0 && (int_part.size() - i) % 3 == 0) grouped += ',';
    grouped += int_part[i];
  }
  const bool zero = digits.find_first_not_of("0.") == std::string::npos;
  return (value < 0 && !zero ? "-" : "") + grouped + frac;
}

std::string format_percent(double fraction, int decimals) {
  return format_number(100.0 * fraction, decimals) + "%";
}

std::string format_count(long long n, std::string_view singular, std::string_view plural) {
  return format_number(static_cast<double>(n), 0) + " " + std::string(n == 1 ? singular : plural);
}

}  // namespace stepsim::out
