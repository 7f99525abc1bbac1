// A simulated serving run as a terminal report and a JSON document.
#include "output/views/serving_view.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

Json stats_json(const work::MetricStats& m) {
  return Json{{"count", m.count}, {"mean_s", m.mean_s}, {"p50_s", m.p50_s},
              {"p90_s", m.p90_s}, {"p99_s", m.p99_s},   {"max_s", m.max_s}};
}

std::string outcome_name(work::SloSearchOutcome o) {
  switch (o) {
    case work::SloSearchOutcome::bracketed: return "bracketed";
    case work::SloSearchOutcome::none_met: return "none_met";
    case work::SloSearchOutcome::all_met: return "all_met";
  }
  return "unknown";
}

std::string slo_words(const work::ServingSlo& slo) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "p%g", slo.percentile);
  std::string out;
  if (slo.ttft_s) out += std::string(buf) + " TTFT <= " + format_seconds(*slo.ttft_s);
  if (slo.tpot_s)
    out += std::string(out.empty() ? "" : " and ") + buf + " TPOT <= " + format_seconds(*slo.tpot_s);
  return out;
}

std::string slo_line(const work::Serving& s) {
  const auto& r = *s.slo;
  const std::string what = slo_words(*s.slo_asked);
  switch (r.outcome) {
    case work::SloSearchOutcome::bracketed:
      return "highest rate meeting " + what + ": " + format_number(r.rate_per_s, 2) + " requests/s (" +
             format_number(r.failing_rate_per_s, 2) + "/s fails; " + std::to_string(r.simulations) +
             " serving runs)\n";
    case work::SloSearchOutcome::none_met:
      return "no rate meets " + what + ", not even " + format_number(r.rate_per_s, 4) +
             " requests/s: an idle engine is too slow for it\n";
    case work::SloSearchOutcome::all_met:
      return "every rate tried meets " + what + ", up to " + format_number(r.rate_per_s, 1) + " requests/s\n";
  }
  return "";
}

}  // namespace

nlohmann::ordered_json serving_json(const work::JobSpec& job, const work::Serving& s,
                                    const RunLabels& labels) {
  const auto& m = s.result.summary;
  Json j;
  j["scenario"] = labels.scenario;
  j["model"] = labels.model;
  j["gpu"] = labels.gpu;
  j["kind"] = "serve";
  j["gpus"] = job.parallel.world();
  j["replicas"] = s.config.replicas;
  j["requests"] = m.requests;
  j["duration_s"] = m.duration_s;
  j["output_tokens_per_s"] = m.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = m.output_tokens_per_s / job.parallel.world();
  j["input_tokens_per_s"] = m.input_tokens_per_s;
  j["requests_per_s"] = m.requests_per_s;
  j["ttft"] = stats_json(m.ttft);
  j["tpot"] = stats_json(m.tpot);
  j["latency"] = stats_json(m.latency);
  j["queueing"] = stats_json(m.queueing);
  if (s.config.disaggregation) {
    j["disaggregation"] = {{"prefill_replicas", s.config.disaggregation->prefill_replicas},
                           {"decode_replicas", s.config.disaggregation->decode_replicas},
                           {"kv_transfer", stats_json(m.kv_transfer)},
                           {"decode_queueing", stats_json(m.decode_queueing)},
                           {"mean_transferring", m.mean_transferring}};
  }
  j["mean_in_system"] = m.mean_in_system;
  j["mean_running"] = m.mean_running;
  j["iterations"] = m.iterations;
  j["engine"] = {{"max_batch", s.config.max_batch},
                 {"max_num_tokens", s.config.max_num_tokens},
                 {"chunked_prefill", s.config.chunked_prefill},
                 {"kv_capacity_tokens", s.config.kv_capacity_tokens},
                 {"peak_kv_reserved_tokens", m.peak_kv_reserved_tokens},
                 {"kv_bytes_per_token_per_gpu", s.kv_bytes_per_token},
                 {"weights_bytes_per_gpu", s.weights_bytes},
                 {"usable_bytes_per_gpu", s.capacity_bytes},
                 {"simulated_steps", s.simulated_steps}};
  if (s.slo) {
    const auto& r = *s.slo;
    j["slo"] = {{"percentile", s.slo_asked->percentile},
                {"ttft_s", s.slo_asked->ttft_s ? Json(*s.slo_asked->ttft_s) : Json(nullptr)},
                {"tpot_s", s.slo_asked->tpot_s ? Json(*s.slo_asked->tpot_s) : Json(nullptr)},
                {"outcome", outcome_name(r.outcome)},
                {"max_rate_per_s", r.rate_per_s},
                {"failing_rate_per_s", r.failing_rate_per_s},
                {"simulations", r.simulations}};
  }
  return j;
}

std::string serving_json_text(const work::JobSpec& job, const work::Serving& s, const RunLabels& labels) {
  return serving_json(job, s, labels).dump(2) + "\n";
}

std::string serving_table(const work::JobSpec& job, const work::Serving& s, const RunLabels& labels) {
  const auto& m = s.result.summary;
  const int gpus = job.parallel.world();
  std::ostringstream o;
  o << "stepsim run: " << labels.scenario << "\n  " << labels.model << " on " << gpus << " x " << labels.gpu
    << ", " << parallel_layout(job) << ": " << s.config.replicas << " replica(s), max batch "
    << s.config.max_batch << ", " << s.config.max_num_tokens << " tokens per iteration"
    << (s.config.chunked_prefill ? ", chunked prefill" : "") << "\n\n";
  o << m.requests << " requests in " << format_seconds(m.duration_s) << ": "
    << format_number(m.output_tokens_per_s / gpus, 1) << " output tokens/s per GPU ("
    << format_number(m.output_tokens_per_s, 0) << " for the job), " << format_number(m.requests_per_s, 2)
    << " requests/s completed\n";
  TextTable t({"per request", "mean", "p50", "p90", "p99", "max"});
  const auto row = [&t](const char* name, const work::MetricStats& x) {
    t.add_row({name, format_seconds(x.mean_s), format_seconds(x.p50_s), format_seconds(x.p90_s),
               format_seconds(x.p99_s), format_seconds(x.max_s)});
  };
  row("time to first token", m.ttft);
  row("time per output token", m.tpot);
  row("latency", m.latency);
  row("queueing", m.queueing);
  o << "\n" << t.render() << "\n";
  o << "in flight   " << format_number(m.mean_in_system, 1) << " requests on average, "
    << format_number(m.mean_running, 1) << " of them in a batch; " << m.iterations << " iterations\n";
  o << "KV cache    " << s.config.kv_capacity_tokens << " tokens per replica ("
    << format_bytes(s.kv_bytes_per_token) << " per token per GPU beside " << format_bytes(s.weights_bytes)
    << " of weights in " << format_bytes(s.capacity_bytes) << "); at most " << m.peak_kv_reserved_tokens
    << " reserved\n";
  if (s.config.disaggregation)
    o << "disaggregated: " << s.config.disaggregation->prefill_replicas << " prefill and "
      << s.config.disaggregation->decode_replicas << " decode replica(s); KV transfer mean "
      << format_seconds(m.kv_transfer.mean_s) << ", decode queueing mean "
      << format_seconds(m.decode_queueing.mean_s) << " (p99 " << format_seconds(m.decode_queueing.p99_s)
      << ")\n";
  o << "step model  " << s.simulated_steps
    << " decode and prefill steps simulated, interpolated per iteration\n";
  if (s.slo) o << "\n" << slo_line(s);
  return o.str();
}

}  // namespace stepsim::out
