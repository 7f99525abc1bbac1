// The validation report's JSON and table: not-simulated cases carry their reason instead of a
// prediction, and the group summaries count them apart.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "output/views/validate_view.hpp"

using namespace stepsim;

namespace {

/// One simulated and one not-simulated (refused) case in group "g", one not-simulated case alone
/// in group "h".
scen::ValidationReport sample_report() {
  scen::ValidationReport r;
  scen::ValidationCase a;
  a.id = "a";
  a.group = "g";
  a.file = "a.toml";
  a.measured_step_s = 2.0;
  a.predicted_step_s = 2.2;
  a.error = 0.1;
  a.bottleneck = "compute";
  a.estimate_step_s = 2.1;
  scen::ValidationCase b;
  b.id = "b";
  b.group = "g";
  b.file = "b.toml";
  b.measured_step_s = 3.0;
  b.not_simulated = "uneven stages with interleaving";
  b.load_error = "b.toml:9:1: parallelism.first_stage_layers: cannot be combined with virtual_stages = 8";
  scen::ValidationCase c = b;
  c.id = "c";
  c.group = "h";
  c.not_simulated = "a whole static batch";
  c.load_error.clear();
  r.cases = {a, b, c};
  r.groups["g"] = {1, 1, 0.1, 0.1, 0.1};
  r.groups["h"] = {0, 1, 0.0, 0.0, 0.0};
  r.overall = {1, 2, 0.1, 0.1, 0.1};
  return r;
}

}  // namespace

TEST_CASE("validate JSON gives a not-simulated case its reason and no prediction") {
  const auto j = nlohmann::json::parse(out::validate_json_text(sample_report()));
  REQUIRE(j["cases"].size() == 3);
  const auto& a = j["cases"][0];
  CHECK(a["predicted_step_s"].get<double>() == 2.2);
  CHECK_FALSE(a.contains("not_simulated"));
  const auto& b = j["cases"][1];
  CHECK(b["not_simulated"] == "uneven stages with interleaving");
  CHECK(b["load_error"].get<std::string>().find("virtual_stages = 8") != std::string::npos);
  CHECK(b["measured_step_s"].get<double>() == 3.0);
  for (const char* key : {"predicted_step_s", "error", "bottleneck", "estimate_step_s"})
    CHECK_FALSE(b.contains(key));
  CHECK_FALSE(j["cases"][2].contains("load_error"));
  CHECK(j["groups"]["g"]["cases"] == 1);
  CHECK(j["groups"]["g"]["not_simulated"] == 1);
  CHECK(j["groups"]["g"]["mape"].get<double>() == 0.1);
  CHECK(j["groups"]["h"]["cases"] == 0);
  CHECK(j["groups"]["h"]["mape"].is_null());
  CHECK(j["mape"]["h"].is_null());
  CHECK(j["overall"]["not_simulated"] == 2);
}

TEST_CASE("validate table marks not-simulated cases and lists their reasons") {
  const std::string t = out::validate_table(sample_report());
  CHECK_THAT(t, Catch::Contains("not simulated"));
  CHECK_THAT(t, Catch::Contains("b: uneven stages with interleaving"));
  CHECK_THAT(t, Catch::Contains("stepsim refuses it: b.toml:9:1"));
  CHECK_THAT(t, Catch::Contains("c: a whole static batch"));
  CHECK_THAT(t, Catch::Contains("Not simulated (in no error figure):"));
}

TEST_CASE("validate marks a case whose predicted memory peak exceeds the usable HBM") {
  // The measured run ran, so a predicted peak of 81 GB against 80 GB usable is the memory model's
  // error: the table marks the case [m] and lists its peak; the JSON carries both figures.
  scen::ValidationReport r = sample_report();
  r.cases[0].memory_peak_bytes = 81e9;
  r.cases[0].usable_hbm_bytes = 80e9;
  const std::string t = out::validate_table(r);
  CHECK(t.find("compute [m]") != std::string::npos);
  CHECK(t.find("a: peak 81.00 GB of 80.00 GB usable") != std::string::npos);
  const auto j = nlohmann::json::parse(out::validate_json_text(r));
  CHECK(j["cases"][0]["predicted_to_fit"] == false);
  CHECK(j["cases"][0]["memory_peak_bytes"].get<double>() == 81e9);
  // Within the usable HBM: no mark, no list.
  r.cases[0].memory_peak_bytes = 79e9;
  const std::string fits = out::validate_table(r);
  CHECK(fits.find("[m]") == std::string::npos);
  CHECK(nlohmann::json::parse(out::validate_json_text(r))["cases"][0]["predicted_to_fit"] == true);
}

TEST_CASE("validate marks a case whose host work or kernels alone outlast the measured step") {
  // Case a measured 2.0 s and was predicted 2.2 s. Its host's launches and framework code alone,
  // 2.1 s, cannot fit in the measured 2.0 s whatever else the model does: [h]. Kernels of 1.5 s fit.
  scen::ValidationReport r = sample_report();
  r.cases[0].host_busy_s = 2.1;
  r.cases[0].kernel_busy_s = 1.5;
  const std::string t = out::validate_table(r);
  CHECK(t.find("compute [h]") != std::string::npos);
  CHECK(t.find("a: host 2.100 s against 2.000 s measured") != std::string::npos);
  CHECK(t.find("[k]") == std::string::npos);
  const auto j = nlohmann::json::parse(out::validate_json_text(r));
  CHECK(j["cases"][0]["host_busy_s"].get<double>() == 2.1);
  CHECK(j["cases"][0]["kernel_busy_s"].get<double>() == 1.5);
  // Kernels of 2.05 s on the busiest GPU: [k] as well; both within the step: no mark, no list.
  r.cases[0].kernel_busy_s = 2.05;
  CHECK(out::validate_table(r).find("compute [h] [k]") != std::string::npos);
  r.cases[0].host_busy_s = 1.9;
  r.cases[0].kernel_busy_s = 1.9;
  const std::string within = out::validate_table(r);
  CHECK(within.find("[h]") == std::string::npos);
  CHECK(within.find("[k]") == std::string::npos);
}
