#pragma once
// `stepsim check`: what a scenario resolved to (model, GPU, cluster, workload, layout).

#include <string>

#include "output/common/render_format.hpp"
#include "scenarios/scenario.hpp"

namespace stepsim::out {

/// A labelled summary (table) or the full resolved job (json) of a loaded scenario.
std::string render_check(const scen::Scenario& scenario, RenderFormat format);

}  // namespace stepsim::out
