// A simulated step as JSON. Keys keep a fixed order so that identical inputs print identical bytes.
#include <nlohmann/json.hpp>

#include "output/run/run_figures.hpp"
#include "output/views/accuracy_view.hpp"
#include "output/views/run_view.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/explain.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;
constexpr work::ParallelDim kDims[] = {work::ParallelDim::tp, work::ParallelDim::cp, work::ParallelDim::ep,
                                       work::ParallelDim::pp, work::ParallelDim::dp};

Json per_dim(const std::array<double, work::kDimCount>& v) {
  Json j = Json::object();
  for (auto d : kDims) j[std::string(work::name(d))] = v[static_cast<std::size_t>(d)];
  return j;
}

Json breakdown_json(const work::Breakdown& b) {
  return Json{{"compute_s", b.compute_s},
              {"memory_bound_s", b.memory_bound_s},
              {"exposed_comm_s", per_dim(b.exposed_comm_s)},
              {"bubble_s", b.bubble_s},
              {"host_bound_s", b.host_bound_s},
              {"total_s", b.total()}};
}

Json overlap_json(const work::CommOverlap& o) {
  Json j = Json::object();
  for (auto d : kDims) {
    const auto i = static_cast<std::size_t>(d);
    const double hidden = o.busy_s[i] > 0 ? (o.busy_s[i] - o.exposed_s[i]) / o.busy_s[i] : 1.0;
    j[std::string(work::name(d))] = {
        {"busy_s", o.busy_s[i]}, {"exposed_s", o.exposed_s[i]}, {"hidden_fraction", hidden}};
  }
  return j;
}

Json critical_json(const work::StepReport& r) {
  Json seconds = Json::object(), share = Json::object();
  for (std::size_t i = 0; i < r.critical_s.size(); ++i) {
    const auto res = static_cast<topo::Resource>(i);
    if (res == topo::Resource::none) continue;
    seconds[std::string(topo::name(res))] = r.critical_s[i];
    share[std::string(topo::name(res))] = r.step_time_s > 0 ? r.critical_s[i] / r.step_time_s : 0.0;
  }
  return Json{{"bottleneck", std::string(topo::name(work::critical_bottleneck(r)))},
              {"share", std::move(share)},
              {"seconds", std::move(seconds)}};
}

Json memory_json(const work::Simulation& s) {
  const auto& peak = s.report.ranks[s.report.peak_rank];
  const auto& st = s.plan.static_memory[s.report.peak_rank];
  return Json{{"peak_bytes", peak.memory.peak.value()},
              {"capacity_bytes", s.usable_hbm.value()},
              {"fits", s.fits},
              {"shortfall_bytes", s.fits ? 0.0 : peak.memory.peak.value() - s.usable_hbm.value()},
              {"rank", peak.rank},
              {"stage", peak.stage},
              {"peak_time_s", peak.memory.peak_time_s},
              {"weights_bytes", st.weights},
              {"gradients_bytes", st.gradients},
              {"optimizer_bytes", st.optimizer},
              {"activations_bytes", peak.memory.activations.value()},
              {"kv_cache_bytes", st.kv_cache},
              {"low_precision_weights_bytes", st.low_precision_weights},
              {"device_capacity_bytes", s.device_hbm.value()}};
}

/// Inference only: latency, per-replica rate and how much KV cache fits.
Json inference_json(const work::JobSpec& job, const work::Simulation& s) {
  const bool prefill = job.workload.kind == work::WorkloadKind::prefill;
  const auto& kv = s.plan.kv;
  return Json{{"batch", job.workload.batch},
              {"time_to_first_token_s", prefill ? Json(s.metrics.latency_s) : Json(nullptr)},
              {"per_token_latency_s", prefill ? Json(nullptr) : Json(s.metrics.latency_s)},
              {"tokens_per_s_per_replica", s.metrics.tokens_per_s_per_replica},
              {"kv_cache",
               {{"bytes_per_gpu", s.plan.static_memory[s.report.peak_rank].kv_cache},
                {"bytes_per_token_per_gpu", kv.bytes_per_token},
                {"free_bytes_per_gpu", kv.free_bytes},
                {"max_batch", kv.max_batch},
                {"max_context", kv.max_context}}}};
}

/// MoE only: how routing turned out and what its imbalance costs the busiest rank.
Json moe_json(const work::Simulation& s) {
  const auto& r = s.plan.routing;
  return Json{{"imbalance_s", s.metrics.imbalance_s},
              {"expert_load_max_over_mean", r.expert_imbalance},
              {"rank_load_max_over_mean", r.rank_imbalance},
              {"dropped_fraction", r.dropped_fraction}};
}

Json ranks_json(const work::Simulation& s) {
  Json a = Json::array();
  for (const auto& r : s.report.ranks)
    a.push_back({{"rank", r.rank},
                 {"stage", r.stage},
                 {"breakdown", breakdown_json(r.breakdown)},
                 {"host_busy_s", r.host_busy_s},
                 {"memory_peak_bytes", r.memory.peak.value()}});
  return a;
}

Json entry_json(const work::BreakdownEntry& e, double share) {
  return Json{{"key", e.key}, {"label", e.label}, {"seconds", e.seconds}, {"share", share}};
}

/// What the step waits on most and second, from the breakdown (work::step_verdict).
Json verdict_json(const work::StepVerdict& v) {
  return Json{{"primary", entry_json(v.primary, v.primary_share)},
              {"secondary", entry_json(v.secondary, v.secondary_share)}};
}

Json estimate_json(const work::Estimate& e) {
  return Json{{"step_time_s", e.step_time_s},
              {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
              {"bound", std::string(topo::name(e.bound))},
              {"mfu", e.mfu},
              {"pipeline_bubble", e.pipeline_bubble},
              {"memory_fits", e.memory ? Json(e.memory->fits()) : Json(nullptr)}};
}

}  // namespace

namespace run_json_steps {

Json waits_json(const work::StepWaits& w) {
  Json ranks = Json::array(), ops = Json::array();
  for (const auto& r : w.ranks)
    ranks.push_back({{"rank", r.rank}, {"kernel_s", r.kernel_s}, {"factor", r.factor}});
  for (const auto& k : w.ops)
    ops.push_back({{"label", k.label},
                   {"rank", k.rank},
                   {"duration_s", k.duration_s},
                   {"added_s", k.added_s},
                   {"host_stall", k.stalled}});
  return {{"ranks", std::move(ranks)}, {"ops", std::move(ops)}};
}

}  // namespace run_json_steps

Json steps_json(const work::StepDistribution& d) {
  Json times = Json::array(), waited = Json::array();
  for (const auto& st : d.steps) {
    times.push_back(st.time_s);
    waited.push_back(st.waited_on_rank);
  }
  Json slow = Json::array();
  for (const auto& g : d.slow_gpus) slow.push_back({{"rank", g.rank}, {"factor", g.factor}});
  return {{"count", d.steps.size()},
          {"nominal_s", d.nominal_s},
          {"mean_s", d.mean_s},
          {"p50_s", d.p50_s},
          {"p90_s", d.p90_s},
          {"p99_s", d.p99_s},
          {"min_s", d.min_s},
          {"max_s", d.max_s},
          {"median_step", d.median_step},
          {"slowest_step", d.slowest_step},
          {"step_time_s", std::move(times)},
          {"waited_on_rank", std::move(waited)},
          {"slowest_waited_on", run_json_steps::waits_json(d.slowest)},
          {"gpus_varied", d.gpus_varied},
          {"replayed", d.replayed},
          {"slowest_gpus", std::move(slow)}};
}

nlohmann::ordered_json run_json(const work::JobSpec& job, const work::Simulation& s,
                                const RunLabels& labels) {
  const auto& m = s.metrics;
  Json j;
  j["scenario"] = labels.scenario;
  j["model"] = labels.model;
  j["gpu"] = labels.gpu;
  j["kind"] = std::string(work::name(job.workload.kind));
  j["gpus"] = s.plan.world;
  j["simulated_ranks"] = s.plan.ranks.size();
  // Feasibility before any rate: a step that does not fit has figures, but no one can run it.
  const RunFigures f = run_figures(job, s);
  j["feasible"] = f.fits;
  j["memory_headroom_bytes"] = f.headroom_bytes;
  j["step_time_s"] = m.step_time_s;
  j["tokens_per_step"] = m.tokens_per_step;
  j["tokens_per_s"] = m.tokens_per_s;
  j["tokens_per_s_per_gpu"] = m.tokens_per_s_per_gpu;
  j["mfu"] = m.mfu;
  j["hfu"] = m.hfu;
  j["mfu_peak"] = {{"precision", f.mfu_peak}, {"flops_per_s", f.mfu_peak_flops}};
  j["model_tflops_per_gpu"] = m.model_tflops_per_gpu;
  // The held SM clock over the short-run one; duty null where the GPU has one fixed clock.
  j["clock"] = {{"ratio", s.clock.clock}, {"duty", s.clock.duty >= 0.0 ? Json(s.clock.duty) : Json(nullptr)}};
  j["bottleneck"] = verdict_json(f.verdict);
  const bool inference = job.workload.kind != work::WorkloadKind::train;
  j["latency_s"] = inference ? Json(m.latency_s) : Json(nullptr);
  if (inference) j["inference"] = inference_json(job, s);
  if (job.model.is_moe()) j["moe"] = moe_json(s);
  j["breakdown"] = breakdown_json(s.report.mean);
  j["overlap"] = overlap_json(s.report.mean_overlap);
  j["critical_path"] = critical_json(s.report);
  j["memory"] = memory_json(s);
  j["estimate"] = estimate_json(s.estimate);
  if (labels.validated) j["validated"] = validated_json(*labels.validated, m.step_time_s);
  Json diffs = Json::array();
  for (const auto& d : work::explain_differences(s))
    diffs.push_back({{"effect", d.effect}, {"seconds", d.seconds}, {"detail", d.detail}});
  j["differences"] = std::move(diffs);
  const double price = job.cluster.gpu.price_per_hour;
  const double cluster_per_hour = price * s.plan.world;
  j["cost"] = {
      {"per_gpu_hour", price},
      {"cluster_per_hour", cluster_per_hour},
      {"per_million_tokens", m.tokens_per_s > 0 ? cluster_per_hour / 3600.0 / m.tokens_per_s * 1e6 : 0.0}};
  j["ranks"] = ranks_json(s);
  if (!s.steps.empty()) j["steps"] = steps_json(s.steps);
  if (s.steps.replayed && job.cluster.has_degradation())
    j["steps"]["degraded"] = Json{{"collectives", s.steps.degraded_ops},
                                  {"gpu_copies", s.steps.degraded_copies},
                                  {"max_time_factor", s.steps.degraded_max_factor}};
  j["engine"] = {{"ops", s.plan.graph.op_count()},
                 {"events", s.run.stats.events},
                 {"transfers", s.transfers ? s.transfers->size() : 0}};
  return j;
}

std::string run_json_text(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels) {
  return run_json(job, s, labels).dump(2) + "\n";
}

}  // namespace stepsim::out
