// Benchmark: parsing the catalog and loading scenarios (sweeps load thousands of them).
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/data_dir.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/toml_reader.hpp"
#include "scenarios/validation_suite.hpp"
#include "tools/bench.hpp"

namespace stepsim::cli {

BenchResult bench_scenario_load() {
  namespace fs = std::filesystem;
  const fs::path data = scen::data_dir();
  auto t0 = std::chrono::steady_clock::now();
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  const double catalog_s = seconds_since(t0);
  struct Input {
    std::string name;
    std::string text;
    fs::path dir;  ///< where the files a scenario names relative to itself (hf_config, catalog) are
  };
  std::vector<Input> inputs;
  for (const char* dir : {"examples", "validation"})
    for (const auto& e : fs::directory_iterator(data / dir)) {
      if (e.path().extension() != ".toml") continue;
      std::string text = scen::read_text_file(e.path());
      // Validation cases stepsim does not simulate may be configurations it refuses.
      if (scen::not_simulated_reason(text, e.path().string()).empty())
        inputs.push_back({e.path().string(), std::move(text), e.path().parent_path()});
    }
  constexpr int kRounds = 200;
  t0 = std::chrono::steady_clock::now();
  std::size_t loaded = 0;
  for (int r = 0; r < kRounds; ++r)
    for (const auto& in : inputs)
      loaded += scen::load_scenario_string(in.text, in.name, catalog, {}, in.dir).job.parallel.world() > 0;
  const double wall = seconds_since(t0);
  BenchResult res;
  res.name = "scenario_load";
  res.wall_s = wall;
  res.metrics = {{"scenarios_per_s", static_cast<double>(loaded) / wall}, {"catalog_load_s", catalog_s}};
  res.note = std::to_string(loaded) + " loads of the " + std::to_string(inputs.size()) +
             " bundled example and validation scenarios against one parsed catalog";
  return res;
}

}  // namespace stepsim::cli
