#pragma once
// One self-contained HTML page about a simulated step (inline CSS and SVG; no scripts, nothing
// fetched): the headline figures, where the time goes, one pipeline replica over time, the
// roofline with the step's kernels, memory per stage, and the price of each bottleneck resource
// across the catalog's GPUs. Same inputs, same bytes.

#include <span>
#include <string>
#include <string_view>

#include "output/views/run_view.hpp"
#include "topology/gpu.hpp"

namespace stepsim::out {

struct Advice;

/// The page. `catalog_gpus` feed the cost comparison; `version` is stepsim's; `advice` (from
/// `stepsim run --advise`), when given, adds a "What to change" section after the breakdown.
std::string report_html(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels,
                        std::span<const topo::GpuSpec> catalog_gpus, std::string_view version,
                        const Advice* advice = nullptr);

/// The page's <head> with its stylesheet, and the footer; shared with the comparison page.
std::string html_head(std::string_view title);
std::string html_foot(std::string_view version);

}  // namespace stepsim::out
