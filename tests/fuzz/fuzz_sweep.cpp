// libFuzzer target: sweep text -> reader -> points (axes, filters) -> each point's scenario
// overrides applied to the base, as `stepsim sweep` does before simulating.
#include <cstdint>

#include "tests/fuzz/fuzz_support.hpp"
#include "scenarios/sweep.hpp"
#include "scenarios/sweep_scenarios.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  // Relative `base` paths resolve against the bundled examples, so inputs can name a real base.
  static const std::filesystem::path examples = std::filesystem::path(STEPSIM_SOURCE_DIR) / "scenarios" / "examples" / "sweeps";
  fuzz::expect_user_errors_only([&] {
    const scen::Sweep sweep = scen::load_sweep_string(fuzz::as_text(data, size), "fuzz-sweep.toml", examples);
    if (sweep.product_size() > 100000) return;  // the filters run per point: keep an input fast
    const scen::SweepPoints points(sweep);
    const scen::SweepScenarios scenarios(sweep, fuzz::catalog());
    for (std::size_t i = 0; i < points.size() && i < 4; ++i) {
      const auto values = scen::point_values(sweep, points.steps(i));
      // A point that is not a valid scenario is that point's UserError; the sweep goes on.
      try {
        (void)scenarios.load(values);
      } catch (const UserError&) {
      }
    }
  });
  return 0;
}
