// `stepsim check`'s workload line: what recomputation covers.
#include <catch2/catch.hpp>

#include "output/views/check_view.hpp"
#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/small_inputs.hpp"

using namespace stepsim;

namespace {

std::string check_text(const std::string& workload_keys) {
  const std::string toml = test::small_llama_node() +
                           "[workload]\nkind = \"train\"\nseq_len = 1024\n"
                           "global_batch = 16\nmicro_batch = 1\n" +
                           workload_keys;
  const scen::Scenario s = scen::load_scenario_string(toml, "check.toml", test::builtin_catalog());
  return out::render_check(s, out::RenderFormat::table);
}

}  // namespace

TEST_CASE("check: the workload line says which layers and modules recomputation covers", "[check_view]") {
  CHECK_THAT(check_text("recompute = \"full\"\nrecompute_layers = 2\n"),
             Catch::Contains("recompute full (the first 2 layers of each model chunk)"));
  CHECK_THAT(check_text("recompute = \"full\"\nrecompute_every = 3\n"),
             Catch::Contains("recompute full (one layer in 3 of each pipeline rank)"));
  CHECK_THAT(check_text("recompute = \"selective\"\nrecompute_modules = [\"alternate_mm\"]\n"),
             Catch::Contains("recompute selective (alternate_mm)"));
  const std::string all = check_text("recompute = \"full\"\n");
  CHECK_THAT(all, Catch::Contains("recompute full"));
  CHECK_THAT(all, !Catch::Contains("recompute full ("));
}
