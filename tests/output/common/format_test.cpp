#include <catch2/catch.hpp>

#include "output/common/format.hpp"

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

TEST_CASE("format_number and format_percent never print a negative zero") {
  // -0.04 rounds to 0.0 at one decimal: no sign; -0.06 rounds to -0.1 and keeps it.
  CHECK(format_number(-0.04, 1) == "0.0");
  CHECK(format_number(-0.06, 1) == "-0.1");
  CHECK(format_number(-0.4, 0) == "0");
  // A share of -1e-6 (busy minus exposed after rounding) is 0.0%, not -0.0%.
  CHECK(format_percent(-1e-6) == "0.0%");
  CHECK(format_percent(0.1234) == "12.3%");
  CHECK(format_percent(-0.5, 0) == "-50%");
}

TEST_CASE("format_count picks the singular for one and separates thousands") {
  CHECK(format_count(1, "micro-batch", "micro-batches") == "1 micro-batch");
  CHECK(format_count(0, "micro-batch", "micro-batches") == "0 micro-batches");
  CHECK(format_count(3011700, "token", "tokens") == "3,011,700 tokens");
}
