#include "workloads/serving/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/error.hpp"
#include "workloads/serving/serving_engine.hpp"

namespace stepsim::work {

namespace {

using detail::Engine;
using detail::Role;

void require(bool ok, const std::string& key, const std::string& problem) {
  if (!ok) throw UserError(SourceLocation{}, key, problem);
}

void check_config(const ServingConfig& c) {
  require(c.max_batch >= 1, "serving.max_batch", "must be at least 1, got " + std::to_string(c.max_batch));
  require(c.max_num_tokens >= c.max_batch, "serving.max_num_tokens",
          "must be at least max_batch (" + std::to_string(c.max_batch) +
              ") so a full batch of decodes fits one " + "iteration, got " +
              std::to_string(c.max_num_tokens));
  require(c.kv_capacity_tokens >= 1, "serving.kv_capacity_tokens",
          "must be at least 1, got " + std::to_string(c.kv_capacity_tokens));
  require(c.replicas >= 1, "serving.replicas", "must be at least 1, got " + std::to_string(c.replicas));
}

std::string request_name(std::size_t i) {
  return "serving: request " + std::to_string(i);
}

/// Shape and order of the request list.
void check_request(const std::vector<Request>& requests, std::size_t i) {
  const Request& r = requests[i];
  if (r.input_len < 1 || r.output_len < 1)
    throw UserError(request_name(i) + " has input_len " + std::to_string(r.input_len) + " and output_len " +
                    std::to_string(r.output_len) + "; both must be at least 1");
  if (!(std::isfinite(r.arrival_s) && r.arrival_s >= 0.0))
    throw UserError(request_name(i) + " arrives at " + std::to_string(r.arrival_s) +
                    " s; arrivals must be finite and >= 0");
  if (i > 0 && r.arrival_s < requests[i - 1].arrival_s)
    throw UserError(request_name(i) + " arrives at " + std::to_string(r.arrival_s) + " s, before request " +
                    std::to_string(i - 1) + " at " + std::to_string(requests[i - 1].arrival_s) +
                    " s; requests must be in arrival order");
}

}  // namespace

long long kv_need(const ServingConfig& c, long long tokens) {
  if (!(c.kv_local_share > 0.0) || c.kv_window <= 0 || tokens <= c.kv_window) return tokens;
  const double n = static_cast<double>(tokens), w = static_cast<double>(c.kv_window);
  return static_cast<long long>(std::ceil(n * (1.0 - c.kv_local_share) + w * c.kv_local_share));
}

namespace {

/// A request that could never be admitted or prefilled would stall its engine forever.
void check_fits(const Request& r, std::size_t i, const ServingConfig& c) {
  const long long need = kv_need(c, static_cast<long long>(r.input_len) + r.output_len);
  if (need > c.kv_capacity_tokens)
    throw UserError(
        request_name(i) + " needs " + std::to_string(need) + " KV tokens (input " +
        std::to_string(r.input_len) + " + output " + std::to_string(r.output_len) +
        ") but an engine reserves at most kv_capacity_tokens = " + std::to_string(c.kv_capacity_tokens));
  if (!c.chunked_prefill && r.input_len > c.max_num_tokens)
    throw UserError(request_name(i) + " has a " + std::to_string(r.input_len) +
                    "-token prompt, more than max_num_tokens = " + std::to_string(c.max_num_tokens) +
                    " without chunked prefill");
}

void check_disaggregation(const ServingConfig& c) {
  if (!c.disaggregation) return;
  const Disaggregation& d = *c.disaggregation;
  require(d.prefill_replicas >= 1, "serving.prefill_replicas",
          "must be at least 1 in disaggregated mode, got " + std::to_string(d.prefill_replicas));
  require(d.decode_replicas >= 1, "serving.decode_replicas",
          "must be at least 1 in disaggregated mode, got " + std::to_string(d.decode_replicas));
  if (!d.kv_transfer) throw UserError("serving: disaggregated mode needs a KV transfer cost");
}

}  // namespace

namespace detail {

std::vector<RequestRecord> checked_records(const std::vector<Request>& requests,
                                           const ServingConfig& config) {
  check_config(config);
  check_disaggregation(config);
  if (requests.empty()) throw UserError("serving: no requests to simulate");
  std::vector<RequestRecord> records(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    check_request(requests, i);
    check_fits(requests[i], i, config);
    records[i].arrival_s = requests[i].arrival_s;
    records[i].input_len = requests[i].input_len;
    records[i].output_len = requests[i].output_len;
  }
  return records;
}

std::size_t route(Routing routing, const std::vector<Engine>& engines, std::size_t i, double t_s) {
  if (routing == Routing::round_robin) return i % engines.size();
  std::size_t best = 0;
  for (std::size_t e = 1; e < engines.size(); ++e)
    if (engines[e].outstanding_at(t_s) < engines[best].outstanding_at(t_s)) best = e;
  return best;
}

/// Throughput over the span from the first arrival to the last finish; metrics from the records; time
/// averages from the engines' own integrals (the Little's-law test checks the two agree).
ServingSummary summarize(const std::vector<RequestRecord>& records, const std::vector<Engine>& engines,
                         double extra_in_system_s) {
  ServingSummary s;
  s.requests = static_cast<int>(records.size());
  std::vector<double> ttft, tpot, latency, queueing;
  for (auto* v : {&ttft, &tpot, &latency, &queueing}) v->reserve(records.size());
  double input_tokens = 0.0, output_tokens = 0.0, last_finish_s = 0.0;
  for (const RequestRecord& r : records) {
    ttft.push_back(r.ttft_s());
    if (const auto t = r.tpot_s()) tpot.push_back(*t);
    latency.push_back(r.latency_s());
    queueing.push_back(r.queueing_s());
    input_tokens += r.input_len;
    output_tokens += r.output_len;
    last_finish_s = std::max(last_finish_s, r.finish_s);
  }
  // Every request finishes at least one positive-cost iteration after it arrives, so duration > 0.
  s.duration_s = last_finish_s - records.front().arrival_s;
  s.output_tokens_per_s = output_tokens / s.duration_s;
  s.input_tokens_per_s = input_tokens / s.duration_s;
  s.requests_per_s = s.requests / s.duration_s;
  s.ttft = metric_stats(std::move(ttft));
  s.tpot = metric_stats(std::move(tpot));
  s.latency = metric_stats(std::move(latency));
  s.queueing = metric_stats(std::move(queueing));
  double running = 0.0, waiting = 0.0;
  for (const Engine& e : engines) {
    running += e.totals().running_integral;
    waiting += e.totals().waiting_integral;
    s.iterations += e.totals().iterations;
    s.peak_kv_reserved_tokens = std::max(s.peak_kv_reserved_tokens, e.totals().peak_kv_reserved_tokens);
  }
  s.mean_running = running / s.duration_s;
  s.mean_in_system = (running + waiting + extra_in_system_s) / s.duration_s;
  s.mean_transferring = extra_in_system_s / s.duration_s;
  return s;
}

}  // namespace detail

ServingResult simulate_serving(const std::vector<Request>& requests, const ServingConfig& config,
                               const IterationCost& cost) {
  std::vector<RequestRecord> records = detail::checked_records(requests, config);
  if (config.disaggregation)
    return detail::simulate_disaggregated(requests, config, cost, std::move(records));
  ServingResult out;
  out.records = std::move(records);
  std::vector<Engine> engines;
  engines.reserve(static_cast<std::size_t>(config.replicas));
  for (int e = 0; e < config.replicas; ++e)
    engines.emplace_back(e, Role::colocated, config, cost, requests, out.records);
  // Route in arrival order, each engine first brought up to the arrival so least_loaded sees its state.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (Engine& e : engines) e.run_before(requests[i].arrival_s);
    engines[detail::route(config.routing, engines, i, requests[i].arrival_s)].assign(static_cast<int>(i),
                                                                                     requests[i].arrival_s);
  }
  for (Engine& e : engines) e.run_before(std::numeric_limits<double>::infinity());
  out.summary = detail::summarize(out.records, engines);
  return out;
}

}  // namespace stepsim::work
