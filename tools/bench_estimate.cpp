// Benchmark: the closed-form estimate (with sizing) over the bundled scenarios; sweeps and the
// optimiser call it many times, and sizing re-estimates at every candidate replica count.
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
#include "workloads/estimate/estimate.hpp"

namespace stepsim::cli {

BenchResult bench_estimate() {
  namespace fs = std::filesystem;
  const scen::Catalog catalog = scen::Catalog::load_builtin();
  std::vector<work::JobSpec> jobs;
  for (const char* dir : {"examples", "validation", "seed"})
    for (const auto& e : fs::directory_iterator(scen::data_dir() / dir)) {
      if (e.path().extension() != ".toml") continue;
      // Validation cases stepsim does not simulate may be configurations it refuses.
      if (!scen::not_simulated_reason(scen::read_text_file(e.path()), e.path().string()).empty()) continue;
      work::JobSpec j = scen::load_scenario(e.path(), catalog).job;
      // Whole generations and serving runs are many steps: the closed form prices one.
      if (j.workload.kind == work::WorkloadKind::generate || j.workload.kind == work::WorkloadKind::serve)
        continue;
      jobs.push_back(std::move(j));
    }
  std::size_t sized = 0;
  for (auto& j : jobs)
    if (!j.estimate.target_tokens_per_s) j.estimate.target_tokens_per_s = 1e6;  // make every job size
  constexpr int kRounds = 20;
  const auto t0 = std::chrono::steady_clock::now();
  double checksum = 0.0;
  for (int r = 0; r < kRounds; ++r)
    for (const auto& j : jobs) {
      const work::Estimate e = work::estimate(j);
      checksum += e.tokens_per_s_per_gpu;
      sized += e.sizing.has_value();
    }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BenchResult res;
  res.name = "estimate";
  res.wall_s = wall;
  res.metrics = {{"estimates_per_s", static_cast<double>(kRounds * jobs.size()) / wall},
                 {"checksum_tokens_per_s", checksum / kRounds}};
  res.note = std::to_string(sized) + " estimates with sizing of the " + std::to_string(jobs.size()) +
             " bundled example, validation and seed scenarios";
  return res;
}

}  // namespace stepsim::cli
