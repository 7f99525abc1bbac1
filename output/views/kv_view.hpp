#pragma once
// Renders a KV-cache sizing report as a terminal table or JSON (fixed key order).

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "workloads/model/kv.hpp"

namespace stepsim::out {

/// What was sized, for headings and the JSON echo of the inputs.
struct KvLabels {
  std::string model;  ///< model id
  std::string gpu;    ///< GPU id, empty without one
};

/// JSON with the inputs (context, batch, overhead, gpus, target) and every figure of the report;
/// figures that need a GPU or a target are null without one.
nlohmann::ordered_json kv_json(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels);

/// kv_json pretty-printed with a trailing newline.
std::string kv_json_text(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels);

/// A readable report.
std::string kv_table(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels);

}  // namespace stepsim::out
