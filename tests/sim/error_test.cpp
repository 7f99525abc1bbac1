#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "sim/units.hpp"

using namespace stepsim;

TEST_CASE("UserError formats file:line:column, key, problem and hint") {
  const UserError e({"run.toml", 12, 5}, "parallelism.tpp", "unknown key", "did you mean `tp`?");
  CHECK(std::string(e.what()) == "run.toml:12:5: parallelism.tpp: unknown key (did you mean `tp`?)");
  CHECK(e.key() == "parallelism.tpp");
}

TEST_CASE("from_seconds rounds up so positive durations advance time") {
  CHECK(from_seconds(1e-13).count() == 1);  // 0.1 ps -> 1 ps
  CHECK(from_seconds(1.0).count() == 1'000'000'000'000);
  CHECK(from_seconds(0.0).count() == 0);
  CHECK(from_seconds(-1.0).count() == 0);
  CHECK(to_seconds(from_us(13.67)) == Approx(13.67e-6));
}
