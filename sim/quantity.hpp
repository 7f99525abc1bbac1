#pragma once
// Physical quantities as types: bytes, bytes per second, FLOPs and FLOP/s.
//
// As absl::Duration, a quantity is built only through a named factory that says its unit and read
// out in a named unit, so GB (1e9 bytes) and GiB (2^30 bytes) are different constructors and a
// bandwidth cannot be added to a capacity:
//
//   const Bytes hbm = units::gib(80);                 // 80 GiB, as an "80 GB" H100 has
//   const BytesPerSecond nic = units::gbit_per_s(400); // 50e9 B/s
//   const double s = hbm / nic;                       // seconds to move it
//   units::in_gb(hbm)                                 // 85.899 (decimal GB)
//
// A quantity holds a double in its base unit (bytes, B/s, FLOPs, FLOP/s): the conversions are the
// same multiplications the raw doubles had, so typed and untyped code give bit-identical figures.

#include <compare>

namespace stepsim {

/// A double in one base unit, tagged so that quantities of different kinds do not mix.
template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  /// From a figure in the base unit (bytes, bytes per second, FLOPs, FLOP/s).
  static constexpr Quantity of(double base) { return Quantity(base); }
  /// The figure in the base unit.
  constexpr double value() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr Quantity& operator*=(double k) {
    v_ *= k;
    return *this;
  }
  constexpr Quantity& operator/=(double k) {
    v_ /= k;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(k * a.v_); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.v_ / k); }
  /// The ratio of two quantities of one kind (read out "by division": `b / units::gb(1)`).
  friend constexpr double operator/(Quantity a, Quantity b) { return a.v_ / b.v_; }
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;

 private:
  constexpr explicit Quantity(double v) : v_(v) {}
  double v_ = 0.0;
};

using Bytes = Quantity<struct BytesTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using Flops = Quantity<struct FlopsTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;

/// Seconds to move `b` at `bw`.
constexpr double operator/(Bytes b, BytesPerSecond bw) {
  return b.value() / bw.value();
}
/// Seconds to compute `f` at `rate`.
constexpr double operator/(Flops f, FlopsPerSecond rate) {
  return f.value() / rate.value();
}
/// What moves in `seconds` at `bw`.
constexpr Bytes moved_in(BytesPerSecond bw, double seconds) {
  return Bytes::of(bw.value() * seconds);
}

namespace units {
// Factories. Decimal units are powers of 1000 (datasheet capacities, every bandwidth); binary ones
// (GiB) are powers of 1024 and appear only where a name says so.
constexpr Bytes bytes(double n) {
  return Bytes::of(n);
}
constexpr Bytes mb(double n) {
  return Bytes::of(n * 1e6);
}
constexpr Bytes gb(double n) {
  return Bytes::of(n * 1e9);
}
constexpr Bytes gib(double n) {
  return Bytes::of(n * 1073741824.0);
}
constexpr BytesPerSecond bytes_per_s(double n) {
  return BytesPerSecond::of(n);
}
constexpr BytesPerSecond gb_per_s(double n) {
  return BytesPerSecond::of(n * 1e9);
}
constexpr BytesPerSecond tb_per_s(double n) {
  return BytesPerSecond::of(n * 1e12);
}
/// Gigabits per second (network line rates): 400 Gb/s = 50e9 B/s.
constexpr BytesPerSecond gbit_per_s(double n) {
  return BytesPerSecond::of(n * 1e9 / 8.0);
}
constexpr Flops flops(double n) {
  return Flops::of(n);
}
constexpr FlopsPerSecond flops_per_s(double n) {
  return FlopsPerSecond::of(n);
}
constexpr FlopsPerSecond tflops_per_s(double n) {
  return FlopsPerSecond::of(n * 1e12);
}

// Read-outs in a named unit.
constexpr double in_gb(Bytes b) {
  return b.value() / 1e9;
}
constexpr double in_gib(Bytes b) {
  return b.value() / 1073741824.0;
}
constexpr double in_gb_per_s(BytesPerSecond bw) {
  return bw.value() / 1e9;
}
constexpr double in_tb_per_s(BytesPerSecond bw) {
  return bw.value() / 1e12;
}
constexpr double in_gbit_per_s(BytesPerSecond bw) {
  return bw.value() * 8.0 / 1e9;
}
constexpr double in_tflops_per_s(FlopsPerSecond r) {
  return r.value() / 1e12;
}
}  // namespace units

}  // namespace stepsim
