#include <catch2/catch.hpp>
#include <functional>
#include <type_traits>

#include "sim/quantity.hpp"

using namespace stepsim;

TEST_CASE("quantities are built in a named unit and read out in one") {
  // GB and GiB are different constructors: an "80 GB" H100 has 80 x 2^30 = 85,899,345,920 bytes.
  CHECK(units::gib(80).value() == 85'899'345'920.0);
  CHECK(units::gb(80).value() == 80e9);
  CHECK(units::gib(80) > units::gb(80));
  CHECK(units::in_gb(units::gib(80)) == Approx(85.899345920));
  CHECK(units::in_gib(units::gb(80)) == Approx(80e9 / 1073741824.0));
  CHECK(units::mb(20).value() == 20e6);
  // Line rates are in bits: 400 Gb/s = 400e9 / 8 = 50e9 B/s; HBM in TB/s, NVLink in GB/s.
  CHECK(units::gbit_per_s(400).value() == 50e9);
  CHECK(units::in_gbit_per_s(units::gb_per_s(50)) == 400.0);
  CHECK(units::tb_per_s(3.35).value() == 3.35 * 1e12);
  CHECK(units::in_tb_per_s(units::tb_per_s(3.35)) == Approx(3.35));
  CHECK(units::in_gb_per_s(units::gb_per_s(450)) == 450.0);
  CHECK(units::tflops_per_s(989).value() == 989e12);
  CHECK(units::in_tflops_per_s(units::flops_per_s(989e12)) == 989.0);
}

TEST_CASE("dividing a quantity by its rate gives seconds, by its own kind a ratio") {
  // 80 GB over 400 Gb/s: 80e9 / 50e9 = 1.6 s.
  CHECK(units::gb(80) / units::gbit_per_s(400) == Approx(1.6));
  // 2 x 8192^3 FLOPs at 989 TFLOP/s: 1.0995e12 / 989e12 = 1.1117 ms.
  CHECK(units::flops(2.0 * 8192.0 * 8192.0 * 8192.0) / units::tflops_per_s(989) ==
        Approx(1.1117e-3).epsilon(1e-4));
  CHECK(units::gb(3) / units::gb(1) == 3.0);
  CHECK(moved_in(units::gb_per_s(50), 2.0) == units::gb(100));
}

TEST_CASE("arithmetic stays within one kind and matches the raw doubles bit for bit") {
  Bytes b = units::gb(1);
  b += units::mb(500);
  b *= 2.0;
  b /= 4.0;
  CHECK(b.value() == (1e9 + 500e6) * 2.0 / 4.0);
  CHECK((units::gb(3) - units::gb(1)).value() == 2e9);
  CHECK((0.5 * units::gb(3)).value() == 1.5e9);
  CHECK(Bytes{}.value() == 0.0);
  // Kinds do not mix: a capacity plus a bandwidth does not compile, nor a double as bytes.
  STATIC_REQUIRE_FALSE(std::is_convertible_v<double, Bytes>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<Bytes, double>);
  STATIC_REQUIRE_FALSE(std::is_same_v<Bytes, BytesPerSecond>);
  STATIC_REQUIRE_FALSE(std::is_invocable_v<std::plus<>, Bytes, BytesPerSecond>);
  STATIC_REQUIRE_FALSE(std::is_invocable_v<std::plus<>, Flops, double>);
}
