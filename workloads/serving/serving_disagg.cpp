// The disaggregated mode of the serving simulator: prefill engines hand requests over KV transfers to
// decode engines (see simulate_serving in serving.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "workloads/serving/serving.hpp"
#include "workloads/serving/serving_engine.hpp"

namespace stepsim::work::detail {

namespace {

std::vector<Engine> make_engines(int count, Role role, const ServingConfig& config, const IterationCost& cost,
                                 const std::vector<Request>& requests, std::vector<RequestRecord>& records,
                                 std::vector<Handoff>* handoffs) {
  std::vector<Engine> engines;
  engines.reserve(static_cast<std::size_t>(count));
  for (int e = 0; e < count; ++e) engines.emplace_back(e, role, config, cost, requests, records, handoffs);
  return engines;
}

/// The prefill stage: routed in arrival order as the colocated engines are. Returns the handoffs in the
/// order they start their transfers (by time, then request index).
std::vector<Handoff> run_prefill(std::vector<Engine>& engines, const std::vector<Request>& requests,
                                 Routing routing, std::vector<Handoff>& handoffs) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (Engine& e : engines) e.run_before(requests[i].arrival_s);
    engines[route(routing, engines, i, requests[i].arrival_s)].assign(static_cast<int>(i),
                                                                      requests[i].arrival_s);
  }
  for (Engine& e : engines) e.run_before(std::numeric_limits<double>::infinity());
  std::sort(handoffs.begin(), handoffs.end(), [](const Handoff& a, const Handoff& b) {
    return a.at_s != b.at_s ? a.at_s < b.at_s : a.request < b.request;
  });
  return std::move(handoffs);
}

double transfer_seconds(const KvTransferCost& kv_transfer, int input_len) {
  const double s = kv_transfer(input_len);
  if (!(std::isfinite(s) && s >= 0.0))
    throw std::logic_error("serving: the KV transfer cost must be finite and >= 0, got " + std::to_string(s) +
                           " s");
  return s;
}

/// The decode stage: each handoff, in transfer-start order, picks its decode engine with every engine
/// brought up to that instant and joins its queue when the transfer ends. Returns the request-seconds
/// spent in transfer.
double run_decode(std::vector<Engine>& engines, const std::vector<Handoff>& handoffs, const Disaggregation& d,
                  const std::vector<Request>& requests, std::vector<RequestRecord>& records) {
  double transferring = 0.0;
  for (std::size_t h = 0; h < handoffs.size(); ++h) {
    const Handoff& x = handoffs[h];
    const double transfer_s = transfer_seconds(d.kv_transfer, requests[x.request].input_len);
    records[x.request].kv_transfer_s = transfer_s;
    transferring += transfer_s;
    for (Engine& e : engines) e.run_before(x.at_s);
    engines[route(d.decode_routing, engines, h, x.at_s)].assign(x.request, x.at_s + transfer_s);
  }
  for (Engine& e : engines) e.run_before(std::numeric_limits<double>::infinity());
  return transferring;
}

/// The transfer and decode-queue statistics over the requests that went to a decode engine.
void summarize_handoffs(const std::vector<RequestRecord>& records, ServingSummary& s) {
  std::vector<double> transfer, queueing;
  for (const RequestRecord& r : records) {
    if (r.decode_replica < 0) continue;
    transfer.push_back(r.kv_transfer_s);
    queueing.push_back(r.decode_admitted_s - (r.first_token_s + r.kv_transfer_s));
  }
  s.kv_transfer = metric_stats(std::move(transfer));
  s.decode_queueing = metric_stats(std::move(queueing));
}

}  // namespace

ServingResult simulate_disaggregated(const std::vector<Request>& requests, const ServingConfig& config,
                                     const IterationCost& cost, std::vector<RequestRecord> records) {
  const Disaggregation& d = *config.disaggregation;
  const IterationCost& decode_cost = d.decode_cost ? d.decode_cost : cost;
  ServingResult out;
  out.records = std::move(records);
  std::vector<Handoff> pending;
  std::vector<Engine> prefill =
      make_engines(d.prefill_replicas, Role::prefill, config, cost, requests, out.records, &pending);
  std::vector<Engine> decode =
      make_engines(d.decode_replicas, Role::decode, config, decode_cost, requests, out.records, nullptr);
  const std::vector<Handoff> handoffs = run_prefill(prefill, requests, config.routing, pending);
  const double transferring = run_decode(decode, handoffs, d, requests, out.records);
  std::vector<Engine> all = std::move(prefill);
  for (Engine& e : decode) all.push_back(std::move(e));
  out.summary = summarize(out.records, all, transferring);
  summarize_handoffs(out.records, out.summary);
  return out;
}

}  // namespace stepsim::work::detail
