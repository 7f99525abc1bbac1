#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "output/views/kv_view.hpp"
#include "tests/support/fixtures.hpp"

using namespace stepsim;
using namespace stepsim::work;

TEST_CASE("KV JSON echoes the inputs and the figures, GPU figures are null without a GPU") {
  KvQuery q;
  q.context = 2048;
  q.batch = 4;
  q.params = 70e9;
  const KvReport r = size_kv(test::llama_70b(), q);
  const auto j = out::kv_json(r, q, {"llama-3.1-70b", ""});
  CHECK(j["bytes_per_token"].get<double>() == 327'680.0);
  CHECK(j["cache_bytes"].get<double>() == 4.0 * 2048 * 327'680);
  CHECK(j["gpu"].is_null());
  CHECK(j["fits"].is_null());
  CHECK(j["max_batch"].is_null());
  const std::string t = out::kv_table(r, q, {"llama-3.1-70b", ""});
  CHECK_THAT(t, Catch::Contains("327,680 B"));
}

TEST_CASE("KV table with a GPU gives the fit and the largest batch") {
  const KvQuery q = test::kv_70b_on_8_h200();
  const KvReport r = size_kv(test::llama_70b(), q);
  const auto j = out::kv_json(r, q, {"llama-3.1-70b", "h200"});
  CHECK(j["fits"] == true);
  CHECK(j["max_batch"] == 306);  // see kv_test
  const std::string t = out::kv_table(r, q, {"llama-3.1-70b", "h200"});
  CHECK_THAT(t, Catch::Contains("largest batch at 8,192 tokens: 306"));
}
