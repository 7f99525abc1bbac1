#pragma once
// Time and the unit conventions every layer shares.
//
// Simulated time is an integer number of picoseconds: exact, totally ordered, and 2^63 ps is about
// 106 days, far beyond any step. Bytes, bandwidths, FLOPs and FLOP/s are types (sim/quantity.hpp)
// at the interfaces of topology (GpuSpec, ClusterSpec, Link, KernelWork) and of the workloads'
// memory figures; inside a formula they are doubles whose unit is in their name (`bytes`, `flops`,
// `bw_Bps`, `flops_per_s`). Bandwidths and datasheet capacities are decimal: 1 GB = 1e9 bytes,
// 1 GB/s = 1e9 B/s, 1 Gb/s = 1.25e8 B/s. Binary units (GiB) appear only where a name says so
// (`units::gib`, `format_gib`).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

namespace stepsim {

/// Simulation time in integer picoseconds.
using Time = std::chrono::duration<std::int64_t, std::pico>;

/// The largest representable time; used as "never".
inline constexpr Time kTimeNever = Time::max();

/// The end of the simulator's time range (2^63 - 2 ps, about 106 days): every instant at or after
/// it is out of range. The conversions and sums below saturate here instead of wrapping to negative
/// times, and an engine that reaches it stops with time_range_error() (sim/error.hpp). One
/// picosecond below kTimeNever, so "never" stays distinct from "too late".
inline constexpr Time kTimeRangeEnd{std::numeric_limits<Time::rep>::max() - 1};

/// a + b for non-negative times, saturating at kTimeRangeEnd: a sum past the range reads as
/// kTimeRangeEnd, never as a wrapped (negative) number. One add and a predictable branch.
constexpr Time saturating_add(Time a, Time b) {
  Time::rep sum = 0;
  if (__builtin_add_overflow(a.count(), b.count(), &sum) || sum > kTimeRangeEnd.count()) [[unlikely]]
    return kTimeRangeEnd;
  return Time{sum};
}

/// Rounds a non-negative number of picoseconds (already rounded to an integer, or within a
/// picosecond of one) to Time, saturating at kTimeRangeEnd; +infinity saturates too. A double at or
/// above 2^63 does not convert to int64 (undefined behaviour), so the comparison comes first.
inline Time ps_to_time_saturating(double ps) {
  if (!(ps > 0.0)) return Time::zero();
  if (!(ps < 9223372036854775808.0)) return kTimeRangeEnd;  // 2^63, also catches +inf
  return Time{std::min(static_cast<Time::rep>(ps), kTimeRangeEnd.count())};
}

/// Seconds as a double, for reporting. Exact up to 2^53 ps (about 2.5 hours).
constexpr double to_seconds(Time t) { return static_cast<double>(t.count()) * 1e-12; }

/// Converts a non-negative duration in seconds to Time, rounding up to the next picosecond so that
/// any positive duration advances the clock. Negative or NaN input is a programming error and gives 0.
/// A duration past the time range (or infinite) saturates at kTimeRangeEnd.
inline Time from_seconds(double seconds) {
  if (!(seconds > 0.0)) return Time::zero();
  return ps_to_time_saturating(std::ceil(seconds * 1e12));
}

/// Time from nanoseconds (rounded up).
inline Time from_ns(double ns) { return from_seconds(ns * 1e-9); }
/// Time from microseconds (rounded up).
inline Time from_us(double us) { return from_seconds(us * 1e-6); }

namespace units {
inline constexpr double kKB = 1e3;  ///< decimal kilobyte
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;
inline constexpr double kGiB = 1073741824.0;  ///< binary, only where labelled
inline constexpr double kTera = 1e12;         ///< TFLOP/s -> FLOP/s
inline constexpr double kBitsPerByte = 8.0;
}  // namespace units

}  // namespace stepsim
