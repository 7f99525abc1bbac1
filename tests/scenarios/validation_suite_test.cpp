// `stepsim validate`'s suite: simulated cases against their measurement, and cases marked
// `not_simulated`, which are listed with their reason and left out of every error figure.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/validation_suite.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/simulate/simulate.hpp"

using stepsim::UserError;
using stepsim::scen::Catalog;
using stepsim::scen::run_validation;
using stepsim::scen::ValidationCase;
using stepsim::scen::ValidationReport;
using stepsim::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// A four-layer training job on one 8-GPU node (simulates in a moment) in group "g", with
/// `parallelism` as its [parallelism] lines and `validation` added to [validation].
std::string small_case(const std::string& id, const std::string& parallelism, const std::string& validation) {
  return "[meta]\nid = \"" + id + "\"\ngroup = \"g\"\n" +
         "[model]\npreset = \"llama-3.1-8b\"\nlayers = 4\n"
         "[hardware]\ngpu = \"h100-sxm\"\nnodes = 1\ngpus_per_node = 8\n"
         "[workload]\nkind = \"train\"\nseq_len = 1024\nglobal_batch = 8\nmicro_batch = 1\n"
         "[parallelism]\n" +
         parallelism + "[validation]\nmeasured_step_s = 0.5\nsource = \"test fixture\"\n" + validation;
}

constexpr const char* kTp8 = "tp = 8\n";
// A first stage of 1 layer cannot split over 2 model chunks.
constexpr const char* kRefused = "tp = 2\npp = 2\nvirtual_stages = 2\nfirst_stage_layers = 1\n";

const ValidationCase& find(const ValidationReport& r, const std::string& id) {
  for (const auto& c : r.cases)
    if (c.id == id) return c;
  FAIL("no case " << id);
  return r.cases.front();
}

}  // namespace

TEST_CASE("a not-simulated case is listed with its reason and left out of the group's figures") {
  TempDir dir;
  dir.write("a.toml", small_case("a", kTp8, ""));
  dir.write("b.toml", small_case("b", kTp8, "not_simulated = \"the measured quantity is a whole batch\"\n"));
  const ValidationReport r = run_validation(dir.path(), stepsim::test::builtin_catalog(), 2);
  REQUIRE(r.cases.size() == 2);
  const ValidationCase& a = find(r, "a");
  const ValidationCase& b = find(r, "b");
  CHECK(a.simulated());
  // The prediction is the scenario's simulated step, its error (predicted - measured) / measured
  // against the fixture's 0.5 s.
  const auto a_alone = stepsim::scen::load_scenario(dir.path() / "a.toml", stepsim::test::builtin_catalog());
  CHECK(a.predicted_step_s > 0.0);
  CHECK(a.predicted_step_s == stepsim::work::simulate(a_alone.job).metrics.step_time_s);
  CHECK(a.error == Approx((a.predicted_step_s - 0.5) / 0.5).epsilon(1e-12));
  CHECK_FALSE(b.simulated());
  CHECK(b.not_simulated == "the measured quantity is a whole batch");
  CHECK(b.load_error.empty());
  CHECK(b.predicted_step_s == 0.0);
  CHECK(b.measured_step_s == 0.5);
  CHECK(b.group == "g");
  const auto& g = r.groups.at("g");
  CHECK(g.cases == 1);
  CHECK(g.not_simulated == 1);
  CHECK(g.mape == Approx(std::abs(a.error)));
  CHECK(g.mean_error == Approx(a.error));
  CHECK(g.max_abs_error == Approx(std::abs(a.error)));
  CHECK(r.overall.cases == 1);
  CHECK(r.overall.not_simulated == 1);
}

TEST_CASE(
    "a refused configuration marked not simulated is listed with the refusal and does not stop the run") {
  TempDir dir;
  dir.write("a.toml", small_case("a", kTp8, ""));
  dir.write("refused.toml", small_case("refused", kRefused, "not_simulated = \"uneven stages with VP\"\n"));
  const ValidationReport r = run_validation(dir.path(), stepsim::test::builtin_catalog(), 1);
  REQUIRE(r.cases.size() == 2);
  const ValidationCase& c = find(r, "refused");
  CHECK(c.not_simulated == "uneven stages with VP");
  CHECK(c.load_error.find("parallelism.first_stage_layers") != std::string::npos);
  CHECK(c.load_error.find("stage 0 holds 1 layers, which its virtual_stages = 2 model chunks") !=
        std::string::npos);
  CHECK(r.groups.at("g").cases == 1);
  CHECK(r.groups.at("g").not_simulated == 1);
  CHECK(find(r, "a").simulated());
}

TEST_CASE("a refused configuration not marked not simulated still fails the run") {
  TempDir dir;
  dir.write("a.toml", small_case("a", kTp8, ""));
  dir.write("refused.toml", small_case("refused", kRefused, ""));
  CHECK_THROWS_WITH(run_validation(dir.path(), stepsim::test::builtin_catalog(), 2),
                    Catch::Contains("refused.toml") && Catch::Contains("model chunks cannot share evenly"));
}

TEST_CASE("a not-simulated case's file must still read: unknown keys and bad values are errors") {
  TempDir dir;
  dir.write("typo.toml", small_case("typo", "tp = 8\ntpp = 2\n", "not_simulated = \"reason\"\n"));
  CHECK_THROWS_WITH(run_validation(dir.path(), stepsim::test::builtin_catalog(), 1),
                    Catch::Contains("typo.toml") && Catch::Contains("parallelism.tpp"));
  TempDir empty_reason;
  empty_reason.write("e.toml", small_case("e", kTp8, "not_simulated = \"\"\n"));
  CHECK_THROWS_WITH(run_validation(empty_reason.path(), stepsim::test::builtin_catalog(), 1),
                    Catch::Contains("validation.not_simulated"));
  TempDir not_a_string;
  not_a_string.write("n.toml", small_case("n", kTp8, "not_simulated = true\n"));
  CHECK_THROWS_AS(run_validation(not_a_string.path(), stepsim::test::builtin_catalog(), 1), UserError);
}

TEST_CASE("a directory without a validation case is refused, not scored as empty") {
  TempDir none;
  CHECK_THROWS_WITH(run_validation(none.path(), stepsim::test::builtin_catalog(), 1),
                    Catch::Contains("holds no validation case (0 .toml files"));
  TempDir plain;  // a scenario without [validation]: read, but not a case
  const std::string with_case = small_case("s", kTp8, "");
  plain.write("s.toml", with_case.substr(0, with_case.find("[validation]")));
  CHECK_THROWS_WITH(run_validation(plain.path(), stepsim::test::builtin_catalog(), 1),
                    Catch::Contains("(1 .toml file, none with a [validation] table)"));
}

TEST_CASE("not_simulated_reason reads the key from a file's text") {
  CHECK(stepsim::scen::not_simulated_reason("[validation]\nnot_simulated = \"why\"\n", "x.toml") == "why");
  CHECK(stepsim::scen::not_simulated_reason("[validation]\nmeasured_step_s = 1\n", "x.toml").empty());
  CHECK(stepsim::scen::not_simulated_reason("[meta]\nid = \"x\"\n", "x.toml").empty());
  CHECK_THROWS_AS(stepsim::scen::not_simulated_reason("[validation\n", "x.toml"), UserError);
}
