#pragma once
// A scenario file turned into a validated JobSpec, plus what surrounds it (name, the published
// measurement for validation cases, a sizing target) and where every key was written.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/key_locations.hpp"
#include "workloads/model/job.hpp"
#include "workloads/reliability/reliability_spec.hpp"
#include "workloads/serving/serve.hpp"

namespace stepsim::scen {

/// [meta]: descriptive only; validation scenarios keep the published case's id and group.
struct ScenarioMeta {
  std::string name;
  std::string description;
  std::string id;
  std::string group;
};

/// [validation]: the published measurement a validation scenario is compared against.
struct ValidationData {
  double measured_step_s = 0.0;  ///< measured (or derived, see note) time of one step
  std::string metric;            ///< the figure the source printed ("model_tflops_per_gpu", "step_s")
  double value = 0.0;            ///< that figure's value
  std::string source;            ///< paper, table and configuration source
  std::string note;              ///< how measured_step_s was derived, caveats
  /// Why stepsim does not simulate this case yet ("" = it does): `stepsim validate` lists the case
  /// with this reason and leaves it out of every error figure.
  std::string not_simulated;
};

/// [target]: what to size the cluster for.
struct Target {
  std::optional<double> tokens_per_s;  ///< cluster-wide tokens/s (also in job.estimate)
};

struct Scenario {
  work::JobSpec job;
  ScenarioMeta meta;
  std::optional<ValidationData> validation;
  Target target;
  std::optional<work::ServeSpec> serve;  ///< [serving], for workload.kind = "serve"
  /// [reliability]: failure rates, checkpoints and restarts for `stepsim goodput`; the defaults
  /// (reliability_spec.hpp) when the table is absent.
  work::ReliabilitySpec reliability;
  std::string model_preset;  ///< catalog id the model started from ("" if given inline)
  std::string gpu_preset;    ///< catalog id of the GPU
  bool dp_derived = false;   ///< dp was omitted and computed as GPUs / (tp x pp x cp)
  // ZeRO-3 inputs resolved into ParallelSpec after all tables are read (cross_checks.cpp).
  bool fsdp_hybrid = false;           ///< parallelism.fsdp = "hybrid_shard*": shard inside a node
  double prefetch_bucket_params = 0;  ///< DeepSpeed stage3_prefetch_bucket_size (parameters; 0 = not given)
  double max_live_params = 0;         ///< DeepSpeed stage3_max_live_parameters (0 = not given)
  std::string source_text;            ///< the scenario file as read
  std::filesystem::path path;         ///< the file; empty when loaded from a string
  std::string display_name;           ///< how messages name the input: the path, or the name given
  KeyLocations locations;             ///< dotted key -> file:line:column

  /// How reports name the scenario: its [meta] name, else display_name.
  const std::string& label() const { return meta.name.empty() ? display_name : meta.name; }

  /// The Hugging Face config.json the model was read from (`model.hf_config`, resolved), else "".
  std::string model_hf_config;
  /// What the inputs describe that stepsim does not simulate (keys of an hf_config it does not
  /// use), one line each; `stepsim check` prints them as notes.
  std::vector<std::string> notes;

  /// Where `dotted_key` ("parallelism.tp") was written, else its table, else the file: for
  /// errors that later layers raise about this scenario.
  SourceLocation where(std::string_view dotted_key) const { return locations.find(dotted_key); }
};

struct LoadOptions {
  /// Overrides applied to the parsed file before reading, each "dotted.key=value" where value is
  /// TOML ("parallelism.tp=4", "hardware.gpu=\"h200\""); a value that is not valid TOML is taken
  /// as a string (hardware.gpu=h200). Sweeps and the CLI's --set use these.
  std::vector<std::string> set;
  /// Dotted keys removed from the parsed file before `set` is applied ("parallelism.dp"), as if
  /// they had not been written; a key the file does not have is ignored. The layout search drops
  /// base keys that conflict with a layout this way.
  std::vector<std::string> unset;
  /// false: read and type-check every key (unknown keys and bad values are still errors) but skip
  /// the cross-field resolution and checks, so a configuration stepsim refuses still loads. The
  /// job is then incomplete (dp, schedule, precision defaults unresolved): only meta and
  /// validation may be used. `stepsim validate` checks its not-simulated cases' files this way.
  bool check_configuration = true;
};

/// Reads, validates and resolves a scenario file against `catalog` (plus the files its
/// `catalog = [...]` key names, relative to the scenario). Throws UserError on any problem.
Scenario load_scenario(const std::filesystem::path& path, const Catalog& catalog,
                       const LoadOptions& options = {});

/// As load_scenario, from text. `name` stands in for the file name in messages; relative
/// `catalog` paths resolve against `base_dir`.
Scenario load_scenario_string(std::string_view text, const std::string& name, const Catalog& catalog,
                              const LoadOptions& options = {}, const std::filesystem::path& base_dir = {});

}  // namespace stepsim::scen
