// Scenario entry points: parse, apply --set overrides, dispatch the tables, run cross-checks.
#include <optional>

#include "scenarios/scenario.hpp"
#include "scenarios/scenario_document.hpp"
#include "scenarios/scenario_sections.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace {

constexpr std::string_view kTables[] = {
    "meta",     "model",  "hardware",   "fabric",  "workload",   "parallelism", "precision",  "moe",
    "estimate", "target", "validation", "serving", "collective", "variability", "reliability"};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// Applies one "dotted.key=value" override to the parsed document.
void apply_set(toml::table& doc, const std::string& assignment, KeyLocations& locations) {
  const auto eq = assignment.find('=');
  const std::string key = trim(std::string_view(assignment).substr(0, eq == std::string::npos ? 0 : eq));
  if (eq == std::string::npos || key.empty())
    throw UserError(SourceLocation{"--set", 0, 0}, "", "`" + assignment + "` is not KEY=VALUE",
                    "e.g. --set parallelism.tp=4");
  const std::string value = trim(std::string_view(assignment).substr(eq + 1));
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value, "--set " + key);
  } catch (const toml::parse_error&) {
    parsed.insert("v", value);  // not TOML: take it as a bare string (hardware.gpu=h200)
  }
  // Tables the override creates have no place in the file: they, like the value, are located at
  // the override itself, so that an unknown part of the key is reported as coming from it.
  const SourceLocation from_set{"--set " + key + "=" + value, 0, 0};
  toml::table* t = &doc;
  std::string_view rest = key;
  for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    const std::string part(rest.substr(0, dot));
    const bool gpu_id = t == doc["hardware"].as_table() && part == "gpu";
    rest.remove_prefix(dot + 1);
    if (t->get(part) == nullptr) {
      t->insert(part, toml::table{});
      locations.add(std::string(key.substr(0, key.size() - rest.size() - 1)), from_set);
    }
    // `gpu = "h100-sxm"` is short for a [hardware.gpu] table with that preset, so
    // `--set hardware.gpu.price_per_hour=2` overrides one figure of a catalog GPU.
    if (gpu_id && t->get(part)->is_string())
      t->insert_or_assign(part, toml::table{{"preset", *t->get(part)->as_string()}});
    t = t->get(part)->as_table();
    if (t == nullptr)
      throw UserError(from_set, key, "`" + part + "` is a value, not a table", "set the whole value instead");
  }
  t->insert_or_assign(std::string(rest), *parsed.get("v"));
  locations.add(key, from_set);
}

/// Removes `key` ("parallelism.dp") from the parsed document, if it is there.
void apply_unset(toml::table& doc, std::string_view key) {
  toml::table* t = &doc;
  for (auto dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
    toml::node* next = t->get(key.substr(0, dot));
    t = next != nullptr ? next->as_table() : nullptr;
    if (t == nullptr) return;
    key.remove_prefix(dot + 1);
  }
  t->erase(key);
}

void require(const TableReader& root, std::string_view table, std::string_view example) {
  if (!root.has(table))
    root.fail("", "missing the [" + std::string(table) + "] table", "add it, e.g. " + std::string(example));
}

void read_meta(TableReader& r, Scenario& s) {
  r.read("name", s.meta.name);
  r.read("description", s.meta.description);
  r.read("id", s.meta.id);
  r.read("group", s.meta.group);
  r.finish();
}

void read_target(TableReader& r, Scenario& s) {
  double rate = 0.0;
  if (r.read("tokens_per_s", rate, kPositive)) s.target.tokens_per_s = rate;
  r.finish();
  s.job.estimate.target_tokens_per_s = s.target.tokens_per_s;
}

void read_validation(TableReader& r, Scenario& s) {
  ValidationData v;
  if (!r.read("measured_step_s", v.measured_step_s, kPositive))
    r.fail("", "missing `measured_step_s` (the measured step time in seconds)");
  r.read("metric", v.metric);
  r.read("value", v.value, kNonNegative);
  if (!r.read("source", v.source)) r.fail("", "missing `source` (where the measurement was published)");
  r.read("note", v.note);
  if (r.read("not_simulated", v.not_simulated) && v.not_simulated.empty())
    r.fail("not_simulated", "is empty", "say why stepsim does not simulate this case, or remove the key");
  r.finish();
  s.validation = std::move(v);
}

/// The `catalog = [...]` files, relative to the scenario, applied on top of `base`.
std::optional<Catalog> local_catalog(TableReader& root, const Catalog& base,
                                     const std::filesystem::path& base_dir) {
  std::vector<std::string> files;
  if (!root.read("catalog", files) || files.empty()) return std::nullopt;
  std::vector<std::filesystem::path> paths;
  for (const auto& f : files) {
    const std::filesystem::path p =
        std::filesystem::path(f).is_absolute() ? std::filesystem::path(f) : base_dir / f;
    if (const std::string problem = file_problem(p); !problem.empty())
      root.fail("catalog", "catalog file `" + f + "` " + problem + " (looked for " + p.string() + ")",
                "paths are relative to the scenario file");
    paths.push_back(p);
  }
  return base.with_files(paths);
}

Scenario read_document(Scenario s, toml::table& doc, const Catalog& base, const LoadOptions& options,
                       const std::filesystem::path& base_dir) {
  for (const auto& k : options.unset) apply_unset(doc, k);
  for (const auto& a : options.set) apply_set(doc, a, s.locations);
  const ReadContext ctx{s.display_name, &s.locations, &detail::elsewhere_hint};
  TableReader root(doc, "", ctx);
  root.accept({"catalog"});
  for (auto t : kTables) root.accept({t});
  root.finish();  // a mistyped table name is reported before anything it would have changed
  const std::optional<Catalog> local = local_catalog(root, base, base_dir);
  const Catalog& catalog = local ? *local : base;
  require(root, "model", "[model] with preset = \"llama-3.1-70b\"");
  require(root, "hardware", "[hardware] with gpu = \"h100-sxm\" and nodes = 8");
  require(root, "workload", "[workload] with kind = \"train\", seq_len and global_batch");
  if (auto t = root.table("meta")) read_meta(*t, s);
  detail::read_model_section(*root.table("model"), catalog, s, base_dir);
  detail::read_hardware_section(*root.table("hardware"), catalog, s);
  if (auto t = root.table("fabric")) detail::read_fabric_section(*t, s);
  detail::read_workload_section(*root.table("workload"), s);
  if (auto t = root.table("parallelism")) detail::read_parallelism_section(*t, catalog, s);
  if (auto t = root.table("precision")) detail::read_precision_section(*t, s);
  if (auto t = root.table("moe")) detail::read_moe_section(*t, s);
  if (auto t = root.table("estimate")) detail::read_estimate_section(*t, s);
  if (auto t = root.table("collective")) detail::read_collective_section(*t, s);
  if (auto t = root.table("serving")) detail::read_serving_section(*t, s, base_dir);
  if (auto t = root.table("variability")) detail::read_variability_section(*t, s);
  if (auto t = root.table("reliability")) detail::read_reliability_section(*t, s);
  if (auto t = root.table("target")) read_target(*t, s);
  if (auto t = root.table("validation")) read_validation(*t, s);
  if (options.check_configuration) detail::resolve_and_check(s);
  return s;
}

Scenario read_scenario(Scenario s, const Catalog& base, const LoadOptions& options,
                       const std::filesystem::path& base_dir) {
  toml::table doc = parse_toml(s.source_text, s.display_name);
  return read_document(std::move(s), doc, base, options, base_dir);
}

}  // namespace

Scenario load_scenario(const std::filesystem::path& path, const Catalog& catalog,
                       const LoadOptions& options) {
  Scenario s;
  s.source_text = read_text_file(path);
  s.path = path;
  s.display_name = path.string();
  s.locations = KeyLocations(s.display_name);
  return read_scenario(std::move(s), catalog, options, path.parent_path());
}

Scenario load_scenario_string(std::string_view text, const std::string& name, const Catalog& catalog,
                              const LoadOptions& options, const std::filesystem::path& base_dir) {
  Scenario s;
  s.source_text = std::string(text);
  s.display_name = name;
  s.locations = KeyLocations(name);
  return read_scenario(std::move(s), catalog, options, base_dir);
}

Scenario load_scenario_document(toml::table doc, KeyLocations locations, const Catalog& catalog,
                                const std::filesystem::path& base_dir) {
  Scenario s;
  s.display_name = locations.file();
  s.locations = std::move(locations);
  return read_document(std::move(s), doc, catalog, {}, base_dir);
}

}  // namespace stepsim::scen
