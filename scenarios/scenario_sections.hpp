#pragma once
// Internal to the scenario loader: one reader per scenario table, the cross-field checks, and the
// hint for keys written in the wrong table. Each reader applies the keys present, calls finish()
// (unknown keys), and leaves checks that span tables to check_scenario().

#include <filesystem>
#include <string>
#include <string_view>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen::detail {

/// [model]: a catalog preset, a Hugging Face config.json (`hf_config`, relative to `base_dir`) or
/// inline dimensions, plus overrides.
void read_model_section(TableReader r, const Catalog& catalog, Scenario& s,
                        const std::filesystem::path& base_dir);
void read_hardware_section(TableReader r, const Catalog& catalog, Scenario& s);
void read_fabric_section(TableReader r, Scenario& s);
void read_workload_section(TableReader r, Scenario& s);
void read_parallelism_section(TableReader r, const Catalog& catalog, Scenario& s);
void read_precision_section(TableReader r, Scenario& s);
void read_moe_section(TableReader r, Scenario& s);
void read_estimate_section(TableReader r, Scenario& s);
/// [collective]: the algorithm and protocol every collective is forced to (NCCL_ALGO, NCCL_PROTO).
void read_collective_section(TableReader r, Scenario& s);
/// [variability]: slow GPUs and nodes, part-to-part spread, kernel jitter, host stalls. After
/// [hardware]: named GPUs and nodes must exist.
void read_variability_section(TableReader r, Scenario& s);
/// [reliability]: failure rates per component, checkpoint storage and mode, restart time (train only).
void read_reliability_section(TableReader r, Scenario& s);
/// [serving]: the requests (drawn or read from a trace file relative to `base_dir`) and the engine.
void read_serving_section(TableReader r, Scenario& s, const std::filesystem::path& base_dir);

/// "`tp` belongs in [parallelism]" or "stepsim calls this `layers`" for a key unknown in
/// `table_path`, or "" when it has nothing to say.
std::string elsewhere_hint(std::string_view table_path, std::string_view key);

/// Fills values derived from several tables (dp, nvlink_domain, schedule, precision defaults)
/// and applies every cross-field rule (cross_checks.hpp); throws UserError pointing at the
/// offending key as the scenario wrote it.
void resolve_and_check(Scenario& s);

}  // namespace stepsim::scen::detail
