#include "scenarios/validation_suite.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "workloads/explain.hpp"
#include "workloads/simulate.hpp"

namespace stepsim::scen {
namespace {

std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) throw UserError(dir.string() + ": not a directory of validation scenarios");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// Loads and simulates one file; an empty id means the file has no [validation] block.
ValidationCase run_case(const std::filesystem::path& file, const Catalog& catalog) {
  const Scenario s = load_scenario(file, catalog);
  ValidationCase c;
  if (!s.validation) return c;
  c.id = s.meta.id.empty() ? file.stem().string() : s.meta.id;
  c.group = s.meta.group.empty() ? "ungrouped" : s.meta.group;
  c.file = file.filename().string();
  c.measured_step_s = s.validation->measured_step_s;
  const work::Simulation sim = work::simulate(s.job);
  c.predicted_step_s = sim.metrics.step_time_s;
  c.error = (c.predicted_step_s - c.measured_step_s) / c.measured_step_s;
  c.bottleneck = std::string(topo::name(work::critical_bottleneck(sim.report)));
  c.estimate_step_s = sim.estimate.step_time_s;
  return c;
}

void summarise(GroupSummary& g, double error) {
  g.cases += 1;
  g.mape += (std::abs(error) - g.mape) / g.cases;
  g.mean_error += (error - g.mean_error) / g.cases;
  g.max_abs_error = std::max(g.max_abs_error, std::abs(error));
}

}  // namespace

ValidationReport run_validation(const std::filesystem::path& dir, const Catalog& catalog, int jobs) {
  const auto files = scenario_files(dir);
  std::vector<ValidationCase> results(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      try {
        results[i] = run_case(files[i], catalog);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, jobs); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  ValidationReport r;
  for (auto& c : results)
    if (!c.id.empty()) r.cases.push_back(std::move(c));
  std::stable_sort(r.cases.begin(), r.cases.end(), [](const ValidationCase& a, const ValidationCase& b) {
    return a.group != b.group ? a.group < b.group : a.id < b.id;
  });
  for (const auto& c : r.cases) {
    summarise(r.groups[c.group], c.error);
    summarise(r.overall, c.error);
  }
  return r;
}

}  // namespace stepsim::scen
