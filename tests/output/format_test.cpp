#include <catch2/catch.hpp>

#include "output/format.hpp"

using namespace stepsim::out;

TEST_CASE("format_number groups thousands and keeps the requested decimals") {
  CHECK(format_number(1339.2857, 2) == "1,339.29");
  CHECK(format_number(287435.0, 0) == "287,435");
  CHECK(format_number(-1234567.5, 1) == "-1,234,567.5");
  CHECK(format_number(12.0, 0) == "12");
}

TEST_CASE("format_seconds and format_bytes pick a readable unit") {
  CHECK(format_seconds(1.5) == "1.500 s");
  CHECK(format_seconds(0.0123) == "12.300 ms");
  CHECK(format_seconds(13.67e-6) == "13.670 us");
  CHECK(format_bytes(1.5e9) == "1.50 GB");
  CHECK(format_bytes(512) == "512 B");
}
