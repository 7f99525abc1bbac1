// The Python module's native half, `stepsim._native`: the same libraries as the CLI, taking a
// scenario (a file or TOML text) and returning the JSON documents the CLI prints. The Python half
// (tools/python/stepsim/__init__.py) turns them into objects and DataFrames.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <toml++/toml.hpp>
#include <vector>

#include "output/report/run_outputs.hpp"
#include "output/search/layout_search.hpp"
#include "output/sweep/sweep_run.hpp"
#include "output/sweep/sweep_table.hpp"
#include "output/views/estimate_view.hpp"
#include "output/views/generation_view.hpp"
#include "output/views/run_view.hpp"
#include "output/views/search_view.hpp"
#include "output/views/serving_view.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/sweep.hpp"
#include "sim/error.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/layout/layout_space.hpp"
#include "workloads/serving/generation.hpp"
#include "workloads/serving/serve.hpp"
#include "workloads/simulate/simulate.hpp"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace stepsim::python {

namespace {

/// Where a scenario comes from: a file, or TOML text named `name` in messages.
struct Source {
  std::string path;
  std::string text;
  std::string name;
  std::vector<std::string> set;
  std::vector<std::string> catalogs;
};

/// The built-in catalog with the user's extra files, as the CLI's --catalog gives them.
scen::Catalog catalog_of(const std::vector<std::string>& catalogs) {
  const std::vector<fs::path> files(catalogs.begin(), catalogs.end());
  return scen::Catalog::load_builtin().with_files(files);
}

scen::Scenario load(const Source& s, const scen::Catalog& catalog) {
  scen::LoadOptions load;
  load.set = s.set;
  if (!s.path.empty()) return scen::load_scenario(s.path, catalog, load);
  return scen::load_scenario_string(s.text, s.name, catalog, load, fs::current_path());
}

std::string run(const Source& src, const std::string& ranks, std::uint64_t max_ops, const std::string& hdf5,
                const std::string& trace, const std::string& report) {
  const scen::Catalog catalog = catalog_of(src.catalogs);
  const scen::Scenario s = load(src, catalog);
  out::RunOutputs outputs;
  outputs.hdf5_path = hdf5;
  outputs.trace_path = trace;
  outputs.report_path = report;
  out::check_run_outputs(outputs);
  work::SimulateOptions options;
  if (ranks == "all")
    options.ranks = work::RankMode::all;
  else if (ranks == "replay")
    options.replay = true;  // every GPU replayed over the representative step (docs/simulation.md)
  else if (ranks != "representative")
    throw UserError({}, "ranks", "expected \"representative\", \"all\" or \"replay\", got \"" + ranks + "\"",
                    "");
  options.links = out::link_accounting_for(outputs);
  options.max_ops = max_ops;
  out::RunLabels labels{s.label(), s.job.cluster.gpu.id, s.job.model.id};
  labels.validated = scen::builtin_accuracy_match(s.job);
  const auto kind = s.job.workload.kind;
  if ((kind == work::WorkloadKind::generate || kind == work::WorkloadKind::serve) && outputs.any())
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "hdf5, trace and report describe one step, and this scenario is many steps",
                    "run one prefill or decode step with them");
  if (kind == work::WorkloadKind::generate) {
    work::GenerationOptions g;
    g.simulate = options;
    return out::generation_json_text(s.job, work::simulate_generation(s.job, g), labels);
  }
  if (kind == work::WorkloadKind::serve)
    return out::serving_json_text(s.job, work::simulate_serve(s.job, *s.serve, std::nullopt, options),
                                  labels);
  const work::Simulation sim = work::simulate(s.job, options);
  nlohmann::ordered_json doc = out::run_json(s.job, sim, labels);
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& line : out::write_run_outputs(outputs, s, {}, sim, labels, catalog, STEPSIM_VERSION))
    files.push_back(line);
  doc["files_written"] = std::move(files);
  return doc.dump();
}

std::string estimate(const Source& src) {
  const scen::Catalog catalog = catalog_of(src.catalogs);
  const scen::Scenario s = load(src, catalog);
  const work::Estimate e = work::estimate(s.job);
  return out::estimate_json_text(e, out::EstimateLabels{s.label(), s.job.cluster.gpu.id, s.job.model.id});
}

std::string search(const Source& src, const std::vector<std::string>& gpus, const std::vector<int>& counts,
                   unsigned jobs, std::size_t top, const std::string& rank, std::uint64_t max_ops) {
  const scen::Catalog catalog = catalog_of(src.catalogs);
  out::SearchOptions o;
  o.gpu_types = gpus;
  o.gpu_counts = counts;
  o.jobs = jobs;
  o.set = src.set;
  o.max_ops = max_ops;
  if (rank == "cost")
    o.rank = out::SearchRank::cost;
  else if (rank != "tokens_per_s")
    throw UserError({}, "rank", "expected \"tokens_per_s\" or \"cost\", got \"" + rank + "\"", "");
  for (const work::KnobInfo& k : work::knobs()) o.space.values(k.knob) = k.defaults;
  const out::SearchResult r = out::search_layouts(src.path, catalog, o);
  if (r.ranked.empty()) throw UserError({}, "search", out::search_no_layout(r), "");
  return out::search_json(r, top);
}

std::string sweep(const std::string& path, const std::string& out_path,
                  const std::vector<std::string>& catalogs, unsigned jobs, bool resume,
                  std::uint64_t max_ops) {
  const scen::Sweep sw = scen::load_sweep(path);
  const scen::Catalog catalog = catalog_of(catalogs);
  out::SweepRunOptions o;
  o.out = out_path;
  o.jobs = jobs;
  o.resume = resume;
  o.version = STEPSIM_VERSION;
  o.max_ops = max_ops;
  std::ostringstream quiet;
  const out::SweepRunSummary s = out::run_sweep(sw, catalog, o, quiet);
  nlohmann::ordered_json j;
  j["out"] = out_path;
  j["points_total"] = s.points_total;
  j["rejected_by_filters"] = s.rejected;
  j["resumed"] = s.resumed;
  j["evaluated"] = s.evaluated;
  nlohmann::ordered_json status;
  for (std::size_t i = 0; i < s.by_status.size(); ++i)
    status[std::string(out::name(static_cast<out::PointStatus>(i)))] = s.by_status[i];
  j["by_status"] = std::move(status);
  j["first_problem"] = s.first_problem;
  return j.dump();
}

// A JSON object (from a Python dict) as a TOML table: numbers, strings, booleans, arrays and
// nested tables; null has no TOML form and is refused at its key.
void add_value(toml::table& t, const std::string& key, const nlohmann::json& v, const std::string& where);

toml::array array_of(const nlohmann::json& a, const std::string& where) {
  toml::array out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const nlohmann::json& v = a[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (v.is_object()) {
      toml::table t;
      for (const auto& [k, x] : v.items()) add_value(t, k, x, at + "." + k);
      out.push_back(std::move(t));
    } else if (v.is_array()) {
      out.push_back(array_of(v, at));
    } else if (v.is_boolean()) {
      out.push_back(v.get<bool>());
    } else if (v.is_number_integer()) {
      out.push_back(v.get<std::int64_t>());
    } else if (v.is_number()) {
      out.push_back(v.get<double>());
    } else if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else {
      throw UserError({}, at, "has no TOML form (None)", "leave the key out instead");
    }
  }
  return out;
}

void add_value(toml::table& t, const std::string& key, const nlohmann::json& v, const std::string& where) {
  if (v.is_object()) {
    toml::table sub;
    for (const auto& [k, x] : v.items()) add_value(sub, k, x, where + "." + k);
    t.insert(key, std::move(sub));
  } else if (v.is_array()) {
    t.insert(key, array_of(v, where));
  } else if (v.is_boolean()) {
    t.insert(key, v.get<bool>());
  } else if (v.is_number_integer()) {
    t.insert(key, v.get<std::int64_t>());
  } else if (v.is_number()) {
    t.insert(key, v.get<double>());
  } else if (v.is_string()) {
    t.insert(key, v.get<std::string>());
  } else {
    throw UserError({}, where, "has no TOML form (None)", "leave the key out instead");
  }
}

std::string toml_from_json(const std::string& json_text) {
  const nlohmann::json j = nlohmann::json::parse(json_text);
  if (!j.is_object()) throw UserError("a scenario must be a dict of tables");
  toml::table t;
  for (const auto& [k, v] : j.items()) add_value(t, k, v, k);
  std::ostringstream s;
  s << t << "\n";
  return s.str();
}

Source source(std::string path, std::string text, std::string name, std::vector<std::string> set,
              std::vector<std::string> catalogs) {
  return Source{std::move(path), std::move(text), std::move(name), std::move(set), std::move(catalogs)};
}

}  // namespace

}  // namespace stepsim::python

PYBIND11_MODULE(_native, m) {
  using namespace stepsim::python;
  m.doc() = "stepsim's native half: scenarios in, the CLI's JSON documents out";
  m.attr("version") = STEPSIM_VERSION;
  static py::exception<stepsim::UserError> user_error(m, "UserError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const stepsim::UserError& e) {
      user_error(e.what());
    }
  });
  const auto released = py::call_guard<py::gil_scoped_release>();
  m.def(
      "run",
      [](std::string path, std::string text, std::string name, std::vector<std::string> set,
         std::vector<std::string> catalogs, std::string ranks, std::uint64_t max_ops, std::string hdf5,
         std::string trace, std::string report) {
        return run(source(path, text, name, set, catalogs), ranks, max_ops, hdf5, trace, report);
      },
      released);
  m.def(
      "estimate",
      [](std::string path, std::string text, std::string name, std::vector<std::string> set,
         std::vector<std::string> catalogs) { return estimate(source(path, text, name, set, catalogs)); },
      released);
  m.def(
      "search",
      [](std::string path, std::vector<std::string> set, std::vector<std::string> catalogs,
         std::vector<std::string> gpus, std::vector<int> counts, unsigned jobs, std::size_t top,
         std::string rank, std::uint64_t max_ops) {
        return search(source(path, "", "", set, catalogs), gpus, counts, jobs, top, rank, max_ops);
      },
      released);
  m.def("sweep", &sweep, released);
  m.def("toml_from_json", &toml_from_json);
}
