#pragma once
// Renders a simulated serving run (workload.kind = "serve"): throughput, TTFT / TPOT / latency /
// queueing percentiles, batch occupancy, the KV cache, and the highest rate meeting an SLO when one
// was asked for; a terminal report and a JSON document.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "output/views/run_view.hpp"
#include "workloads/serving/serve.hpp"

namespace stepsim::out {

nlohmann::ordered_json serving_json(const work::JobSpec& job, const work::Serving& s,
                                    const RunLabels& labels);
std::string serving_json_text(const work::JobSpec& job, const work::Serving& s, const RunLabels& labels);
std::string serving_table(const work::JobSpec& job, const work::Serving& s, const RunLabels& labels);

}  // namespace stepsim::out
