// `stepsim run --advise` through the real binary: the advice's figures are what `stepsim run` gives
// the scenario with the advised edits.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

namespace {

const std::string kSmallTrainFile = std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml";

}  // namespace

TEST_CASE("stepsim run --advise: each helpful change is the run of the edited scenario", "[advise]") {
  const auto r = run_stepsim("run '" + kSmallTrainFile + "' --advise --advise-top 3 --jobs 2 --format json");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& advice = doc.at("advice");
  // The base the advice compares with is the run the document reports.
  CHECK(advice.at("base").at("step_time_s").get<double>() == doc.at("step_time_s").get<double>());
  const auto& helpful = advice.at("helpful");
  REQUIRE(!helpful.empty());
  CHECK(helpful.size() <= 3);
  // Re-run the best change from the command line with its edits.
  const auto& best = helpful.at(0);
  std::string edits;
  for (const auto& e : best.at("set")) edits += " --set '" + e.get<std::string>() + "'";
  for (const auto& e : best.at("unset")) edits += " --unset " + e.get<std::string>();
  const auto again = run_stepsim("run '" + kSmallTrainFile + "'" + edits + " --format json");
  REQUIRE(again.exit_code == 0);
  const auto rerun = nlohmann::json::parse(again.out);
  CHECK(rerun.at("step_time_s").get<double>() == best.at("figures").at("step_time_s").get<double>());
  CHECK(rerun.at("feasible").get<bool>());
  // Its gain is its tokens/s over the base's, and it is a gain.
  const double gain = rerun.at("tokens_per_s").get<double>() / doc.at("tokens_per_s").get<double>() - 1.0;
  CHECK(best.at("tokens_per_s_gain").get<double>() == Approx(gain).epsilon(1e-9));
  CHECK(gain > 0.005);
}

TEST_CASE("stepsim run --advise: the table lists the changes and how to reproduce them", "[advise]") {
  const auto r = run_stepsim("run '" + kSmallTrainFile + "' --advise --advise-top 2 --jobs 2");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("what to change (each change simulated") != std::string::npos);
  CHECK(r.out.find("to reproduce one: stepsim run SCENARIO with its edits") != std::string::npos);
  CHECK(r.out.find("  1: --set '") != std::string::npos);
  // Progress goes to a terminal only; the tests' stderr is a file.
  CHECK(r.err.find("advise") == std::string::npos);
}

TEST_CASE("stepsim run --advise refuses a serving scenario with exit 2", "[advise]") {
  const auto r = run_stepsim("run '" + std::string(STEPSIM_SOURCE_DIR) +
                             "/scenarios/examples/llama3.1-70b-serve-8xh100.toml' --advise");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--advise") != std::string::npos);
}

TEST_CASE("stepsim run --advise --report: the report has a What to change section", "[advise]") {
  stepsim::test::TempDir dir;
  const auto with = dir.path() / "with.html";
  const auto without = dir.path() / "without.html";
  const auto r =
      run_stepsim("run '" + kSmallTrainFile + "' --advise --advise-top 2 --jobs 2 --format json --report '" +
                  with.string() + "'");
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const std::string page = stepsim::test::slurp(with);
  CHECK(page.find("<h2 id=\"s-advice\">What to change</h2>") != std::string::npos);
  // The best change's first edit, as the JSON lists it, is in the page (double quotes as &quot;).
  std::string first_edit;
  for (const char ch : doc.at("advice").at("helpful").at(0).at("set").at(0).get<std::string>())
    first_edit += ch == '"' ? std::string("&quot;") : std::string(1, ch);
  CHECK(page.find("--set '" + first_edit + "'") != std::string::npos);
  REQUIRE(run_stepsim("run '" + kSmallTrainFile + "' --report '" + without.string() + "'").exit_code == 0);
  CHECK(stepsim::test::slurp(without).find("s-advice") == std::string::npos);
}
