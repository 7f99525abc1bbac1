#include "scenarios/validation_suite.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <string>

#include "scenarios/scenario.hpp"
#include "scenarios/toml_reader.hpp"
#include "sim/error.hpp"
#include "sim/parallel_for.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/serving/generation.hpp"
#include "workloads/simulate/explain.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::scen {
namespace {

std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UserError(dir.string() + ": not a directory of validation scenarios");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// True if the parsed file has a `not_simulated` key in [validation], whatever its type.
bool marks_not_simulated(const toml::table& doc) {
  const toml::table* v = doc["validation"].as_table();
  return v != nullptr && v->contains("not_simulated");
}

/// The case's identity and measurement from a loaded scenario.
ValidationCase case_of(const Scenario& s, const std::filesystem::path& file) {
  ValidationCase c;
  c.id = s.meta.id.empty() ? file.stem().string() : s.meta.id;
  c.group = s.meta.group.empty() ? "ungrouped" : s.meta.group;
  c.file = file.filename().string();
  c.measured_step_s = s.validation->measured_step_s;
  c.not_simulated = s.validation->not_simulated;
  c.cls = accuracy_class_of(s.job);
  return c;
}

/// A case marked not simulated: its file is read in full but without the cross-field checks (so
/// syntax and key errors still raise), then loaded as usual to record a refusal, if any.
ValidationCase not_simulated_case(const std::filesystem::path& file, const Catalog& catalog) {
  LoadOptions read_only;
  read_only.check_configuration = false;
  ValidationCase c = case_of(load_scenario(file, catalog, read_only), file);
  try {
    (void)load_scenario(file, catalog);
  } catch (const UserError& e) {
    c.load_error = e.what();
  }
  return c;
}

/// Loads and simulates one file; an empty id means the file has no [validation] block.
ValidationCase run_case(const std::filesystem::path& file, const Catalog& catalog, std::uint64_t max_ops) {
  work::SimulateOptions options;
  options.max_ops = max_ops;
  std::string text;
  if (marks_not_simulated(parse_toml_file(file, text))) return not_simulated_case(file, catalog);
  const Scenario s = load_scenario(file, catalog);
  if (!s.validation) return {};
  ValidationCase c = case_of(s, file);
  if (s.job.workload.kind == work::WorkloadKind::serve)
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "validation compares one step or one static batch; a serving run has no single step time",
                    "write the measured case as kind = \"generate\" or \"decode\"");
  if (s.job.workload.kind == work::WorkloadKind::generate) {
    // A static batch is measured as its whole latency per output token (the prefill's share in it).
    work::GenerationOptions generation;
    generation.simulate = options;
    const work::Generation g = work::simulate_generation(s.job, generation);
    c.predicted_step_s = g.total_s / s.job.workload.output_len;
    c.bottleneck = std::string(topo::name(work::critical_bottleneck(g.last_decode ? g.last_decode->report : g.prefill.report)));
    // The closed form is affine in the context: its decode step at the mean context stands for all.
    const int n = s.job.workload.output_len;
    const double decode = n > 1 ? work::estimate_stepsim(work::decode_job(s.job, s.job.workload.seq_len + (n - 2) / 2))
                                      .step_time_s
                                : 0.0;
    c.estimate_step_s = (g.prefill.estimate.step_time_s + (n - 1) * decode) / n;
  } else {
    const work::Simulation sim = work::simulate(s.job, options);
    c.predicted_step_s = sim.metrics.step_time_s;
    c.bottleneck = std::string(topo::name(work::critical_bottleneck(sim.report)));
    c.estimate_step_s = sim.estimate.step_time_s;
    c.memory_peak_bytes = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
    c.usable_hbm_bytes = sim.usable_hbm.value();
    for (const work::RankReport& r : sim.report.ranks)
      c.kernel_busy_s = std::max(c.kernel_busy_s, r.breakdown.compute_s + r.breakdown.memory_bound_s);
    c.host_busy_s = sim.report.host_busy_s;
  }
  c.error = (c.predicted_step_s - c.measured_step_s) / c.measured_step_s;
  return c;
}

void summarise(GroupSummary& g, const ValidationCase& c) {
  if (!c.simulated()) {
    g.not_simulated += 1;
    return;
  }
  g.cases += 1;
  g.mape += (std::abs(c.error) - g.mape) / g.cases;
  g.mean_error += (c.error - g.mean_error) / g.cases;
  g.max_abs_error = std::max(g.max_abs_error, std::abs(c.error));
}

}  // namespace

std::string not_simulated_reason(std::string_view toml_text, const std::string& file) {
  const toml::table doc = parse_toml(toml_text, file);
  return std::string(doc["validation"]["not_simulated"].value_or(std::string_view{}));
}

ValidationReport run_validation(const std::filesystem::path& dir, const Catalog& catalog, int jobs,
                                const ValidationProgress& progress, std::uint64_t max_ops) {
  const auto files = scenario_files(dir);
  std::vector<ValidationCase> results(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  std::atomic<std::size_t> done{0};
  // Every case runs even when one fails; the first failure in file order is the one reported.
  parallel_for(files.size(), static_cast<unsigned>(std::max(1, jobs)), [&](std::size_t i) {
    try {
      results[i] = run_case(files[i], catalog, max_ops);
    } catch (...) {
      errors[i] = std::current_exception();
    }
    if (progress) progress(++done, files.size());
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);

  ValidationReport r;
  for (auto& c : results)
    if (!c.id.empty()) r.cases.push_back(std::move(c));
  // A directory without a single case is a wrong path, not a perfect score: an empty table with exit 0
  // would read as "nothing to check" where the user meant to check something.
  if (r.cases.empty())
    throw UserError(dir.string() + ": holds no validation case (" + std::to_string(files.size()) +
                    " .toml file" + (files.size() == 1 ? "" : "s") +
                    ", none with a [validation] table); give the directory of published measurements, "
                    "e.g. stepsim validate scenarios/validation");
  std::stable_sort(r.cases.begin(), r.cases.end(), [](const ValidationCase& a, const ValidationCase& b) {
    return a.group != b.group ? a.group < b.group : a.id < b.id;
  });
  for (const auto& c : r.cases) {
    summarise(r.groups[c.group], c);
    summarise(r.overall, c);
  }
  return r;
}

}  // namespace stepsim::scen
