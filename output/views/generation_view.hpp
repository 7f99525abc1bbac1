#pragma once
// Renders a simulated static-batch generation (workload.kind = "generate"): whether it fits, the
// whole batch's latency, time to first token, time per output token along the output, output
// tokens/s per GPU and the KV cache as it grows; a terminal report and a JSON document.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "output/views/run_view.hpp"
#include "workloads/serving/generation.hpp"

namespace stepsim::out {

/// The JSON document (docs/scenarios.md lists its keys); the prefill and the longest-context
/// decode step appear in full as `stepsim run` reports single steps.
nlohmann::ordered_json generation_json(const work::JobSpec& job, const work::Generation& g,
                                       const RunLabels& labels);
std::string generation_json_text(const work::JobSpec& job, const work::Generation& g,
                                 const RunLabels& labels);
/// The readable report.
std::string generation_table(const work::JobSpec& job, const work::Generation& g, const RunLabels& labels);

}  // namespace stepsim::out
