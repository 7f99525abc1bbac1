#pragma once
// Internal to the cross-field checks (cross_checks*.cpp): how a rule refuses, and the rules by
// subject. Three kinds of function:
//   resolve_*      fill values derived from several tables; they need to know which keys were
//                  written, so they take the Scenario (and may refuse what they cannot resolve);
//   check_*_keys   rules about which keys were written together (the Scenario);
//   check_*_rules  rules on the resolved values alone (the JobSpec): the layout search applies
//                  these to every layout it considers (scen::check_job_rules).
// Every rule throws an unlocated UserError naming its key (refuse); resolve_and_check locates it.

#include <string>
#include <string_view>

#include "scenarios/scenario.hpp"
#include "sim/error.hpp"

namespace stepsim::scen::detail {

/// Refuses the configuration at `key` ("parallelism.tp"): what is wrong, expected, and what to do.
[[noreturn]] inline void refuse(std::string_view key, const std::string& problem,
                                const std::string& hint = {}) {
  throw UserError(SourceLocation{}, std::string(key), problem, hint);
}

/// True when the scenario wrote `key` (in the file or by --set).
inline bool given(const Scenario& s, std::string_view key) {
  return s.locations.contains(key);
}

// cross_checks_hardware.cpp
void resolve_precision(Scenario& s);
void resolve_recipe(Scenario& s);
void resolve_nvlink_domain(Scenario& s);
void check_hardware_rules(const work::JobSpec& job);

// cross_checks_collective.cpp
void check_collective_rules(const work::JobSpec& job);

// cross_checks_parallel.cpp
void resolve_schedule(Scenario& s);
void resolve_dp(Scenario& s);
void resolve_sharding(Scenario& s);
void check_sharding_keys(const Scenario& s);
void check_parallel_rules(const work::JobSpec& job);

// cross_checks_moe.cpp
void check_moe_keys(const Scenario& s);
void check_moe_rules(const work::JobSpec& job);

// cross_checks_workload.cpp
void resolve_attention(Scenario& s);
void check_workload_keys(const Scenario& s);
void check_workload_rules(const work::JobSpec& job, const work::ServeSpec* serve);

}  // namespace stepsim::scen::detail
