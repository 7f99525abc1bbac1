#pragma once
// The cross-field rules: configurations whose keys are each valid alone but which stepsim refuses
// together (docs/scenarios.md, "Cross-field checks"). They live in one place so that no command
// accepts what another refuses: the scenario loader applies them to every scenario it reads (check,
// estimate, run, compare, each sweep point), and the layout search to every layout it considers.
// The simulator's own throw sites on the same conditions stay as internal guards only.
//
// Files by subject: cross_checks.cpp (the entry points), cross_checks_hardware.cpp (precision,
// NVLink domains, fabrics), cross_checks_collective.cpp (forced NCCL algorithms and protocols),
// cross_checks_parallel.cpp (layout arithmetic, pipeline schedules, sharding), cross_checks_moe.cpp
// (experts), cross_checks_workload.cpp (workload kinds, serving).

#include "workloads/model/job.hpp"
#include "workloads/serving/serve.hpp"

namespace stepsim::scen {

/// Applies every rule on values of a resolved job (dp, schedule and precision defaults filled in)
/// and its [serving] spec (null unless kind = "serve"). Throws UserError for the first rule it
/// breaks, carrying the key to point at, the problem and a hint but no file position: the caller
/// locates it (the loader at the key as written, the search names the layout instead).
void check_job_rules(const work::JobSpec& job, const work::ServeSpec* serve = nullptr);

}  // namespace stepsim::scen
