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

TEST_CASE("check: the attention line gives the fused kernel's share of peak at the step's shape",
          "[check_view]") {
  // Llama 3.1 8B (32 heads) at TP 1, one sequence of 1,024 a micro-batch: 1,024 keys a row and
  // 32 x 1,024 / 128 = 256 query tiles. With attention 0.6, seq_half 400, tiles_half 200:
  // 0.6 / (1 + 400 / 1024 + 200 / 256) = 0.6 / 2.171875 = 0.276, the shape's factor 0.460.
  const std::string text = check_text(
      "[hardware.efficiency]\nattention = 0.6\nattention_seq_half = 400\nattention_tiles_half = 200\n");
  CHECK_THAT(text,
             Catch::Contains("attention  cudnn fused, 0.276 of peak at its shape (0.600 for long rows and "
                             "many query tiles x 0.460: 1,024 keys a row, 256 query tiles a kernel)"));
  // Unfused attention has no fused kernel to describe.
  CHECK_THAT(check_text("attention_impl = \"unfused\"\n"), !Catch::Contains("attention  "));
}
