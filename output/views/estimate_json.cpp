// The estimate as JSON. Keys keep a fixed, documented order; infinite rates (a resource the job
// does not use) and not-applicable prices (NaN) are written as null.
#include <cmath>
#include <nlohmann/json.hpp>

#include "output/views/estimate_view.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {

namespace {

using Json = nlohmann::ordered_json;

Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string_view formulas_name(work::EstimateFormulas f) {
  return f == work::EstimateFormulas::notebook ? "notebook" : "stepsim";
}

void add_rates(Json& j, const work::Estimate& e) {
  Json rates = Json::object(), demand = Json::object(), usable = Json::object();
  for (const work::ResourceRate& r : e.rates) {
    const std::string key(topo::name(r.resource));
    rates[key] = number(r.tokens_per_s);
    demand[key] = number(r.demand_per_token);
    usable[key] = number(r.usable_per_s);
  }
  j["rates"] = std::move(rates);
  j["demand_per_token"] = std::move(demand);
  j["usable_per_s"] = std::move(usable);
}

Json network_json(const work::Estimate& e) {
  Json terms = Json::array();
  for (const work::NetworkTerm& t : e.network)
    terms.push_back({{"name", t.name},
                     {"group", std::string(work::name(t.group))},
                     {"collective", std::string(work::name(t.collective))},
                     {"group_size", t.placement.size},
                     {"ranks_per_domain", t.placement.per_domain},
                     {"domains", t.placement.domains},
                     {"message_bytes", t.message_bytes},
                     {"calls_per_step", t.calls_per_step},
                     {"scale_up_bytes_per_token", t.scale_up_bytes_per_token},
                     {"scale_out_bytes_per_token", t.scale_out_bytes_per_token}});
  return terms;
}

Json memory_json(const work::Estimate& e) {
  if (!e.memory)
    return Json{
        {"checked", false}, {"fits", nullptr}, {"bytes_per_gpu", nullptr}, {"capacity_bytes", nullptr}};
  const work::MemoryEstimate& m = *e.memory;
  return Json{{"checked", true},
              {"fits", m.fits()},
              {"bytes_per_gpu", m.total().value()},
              {"capacity_bytes", m.capacity.value()},
              {"shortfall_bytes", m.shortfall().value()},
              {"stage", m.stage},
              {"micro_batches_in_flight", m.micro_batches_in_flight},
              {"breakdown",
               {{"weights", m.weights.value()},
                {"gradients", m.gradients.value()},
                {"optimizer", m.optimizer.value()},
                {"activations", m.activations.value()},
                {"kv_cache", m.kv_cache.value()}}}};
}

Json cost_json(const work::CostEstimate& c) {
  return Json{
      {"per_gpu_hour", number(c.per_gpu_hour)},        {"per_tflop_hour", number(c.per_tflop_hour)},
      {"per_tb_s_hour", number(c.per_tb_s_hour)},      {"per_gb_hour", number(c.per_gb_hour)},
      {"per_gbps_hour", number(c.per_gbps_hour)},      {"per_million_tokens", number(c.per_million_tokens)},
      {"cluster_per_hour", number(c.cluster_per_hour)}};
}

Json sizing_json(const work::Sizing& s) {
  return Json{{"tokens_per_s", s.target_tokens_per_s},
              {"feasible", s.feasible},
              {"gpus_needed", s.gpus_needed},
              {"dp_needed", s.dp_needed > 0 ? Json(s.dp_needed) : Json(nullptr)},
              {"tokens_per_s_per_gpu", number(s.tokens_per_s_per_gpu)},
              {"cluster_cost_per_hour", s.cluster_cost_per_hour},
              {"cluster_hbm_tb_s", s.cluster_hbm_Bps / 1e12},
              {"note", s.note}};
}

}  // namespace

nlohmann::ordered_json estimate_json(const work::Estimate& e, const EstimateLabels& labels) {
  Json j;
  j["scenario"] = labels.scenario;
  j["formulas"] = std::string(formulas_name(e.formulas));
  j["workload"] = std::string(work::name(e.kind));
  j["gpu"] = {{"id", labels.gpu}, {"count", e.gpus}};
  j["model"] = {{"id", labels.model}, {"params", e.params}, {"active_params", e.active_params}};
  // Before any rate, as `stepsim run` does: null when the formulas do not check memory (notebook).
  j["feasible"] = e.memory ? Json(e.memory->fits()) : Json();
  j["tokens_per_step"] = e.tokens_per_step;
  j["tokens_per_s_per_gpu"] = number(e.tokens_per_s_per_gpu);
  j["tokens_per_s_cluster"] = number(e.tokens_per_s_cluster);
  j["bound"] = std::string(topo::name(e.bound));
  add_rates(j, e);
  j["step_time_s"] = number(e.step_time_s);
  j["mfu"] = number(e.mfu);
  j["pipeline_bubble"] = e.pipeline_bubble;
  j["intensity_flops_per_byte"] = number(e.intensity_flops_per_byte);
  j["ridge_flops_per_byte"] = number(e.ridge_flops_per_byte);
  j["flops_per_token"] = {{"matmul_forward", e.flops.matmul_forward},
                          {"attention_forward", e.flops.attention_forward},
                          {"model", e.flops.model},
                          {"recompute", e.flops.recompute},
                          {"hardware", e.flops.hardware},
                          {"busiest_gpu", e.flops.busiest_gpu}};
  if (e.flops.scan_forward > 0.0)
    j["flops_per_token"]["scan_forward"] = e.flops.scan_forward;  // hybrid models
  j["hbm_bytes_per_token"] = {{"weights", e.hbm.weights},     {"gradients", e.hbm.gradients},
                              {"optimizer", e.hbm.optimizer}, {"activations", e.hbm.activations},
                              {"kv_cache", e.hbm.kv_cache},   {"total", e.hbm.total()}};
  j["network"] = network_json(e);
  j["memory"] = memory_json(e);
  j["cost"] = cost_json(e.cost);
  if (e.sizing) {
    j["target"] = sizing_json(*e.sizing);
    j["gpus_needed"] = e.sizing->gpus_needed;
    j["cluster_cost_per_hour"] = e.sizing->cluster_cost_per_hour;
  }
  j["notes"] = e.notes;
  return j;
}

std::string estimate_json_text(const work::Estimate& e, const EstimateLabels& labels) {
  return estimate_json(e, labels).dump(2) + "\n";
}

}  // namespace stepsim::out
