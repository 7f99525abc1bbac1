#pragma once
// A continuous-batching serving simulator: requests arrive, engine replicas schedule them iteration by
// iteration (Orca / vLLM / TensorRT-LLM in-flight batching) and the result is every request's timeline
// with TTFT, TPOT, latency and throughput statistics, plus a search for the highest arrival rate that
// meets a latency SLO.
//
// The simulator knows nothing about GPUs or models: what one engine iteration costs comes from an
// injected callback (IterationCost), so the step model, a roofline or a fixed number can price it.
// Times are seconds in doubles: arrivals come from traces and generators in seconds and the cost
// model returns seconds; the simulation only adds them, so no event ordering depends on rounding.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/stats.hpp"

namespace stepsim::work {

// ---- Requests -------------------------------------------------------------------------------------

/// One inference request: arrives at `arrival_s`, brings `input_len` prompt tokens and wants
/// `output_len` generated tokens (both at least 1).
struct Request {
  double arrival_s = 0.0;
  int input_len = 1;
  int output_len = 1;
};

/// Token lengths uniform over the integers [min_tokens, max_tokens]; fixed when they are equal.
struct LengthDistribution {
  int min_tokens = 1;
  int max_tokens = 1;
  /// Every request gets exactly `tokens`.
  static LengthDistribution fixed(int tokens) { return {tokens, tokens}; }
};

/// An open-loop Poisson workload: exponential inter-arrival gaps at `rate_per_s`, the first arrival
/// one gap after t = 0.
struct PoissonWorkload {
  double rate_per_s = 1.0;
  int requests = 1;
  LengthDistribution input = LengthDistribution::fixed(128);
  LengthDistribution output = LengthDistribution::fixed(128);
  std::uint64_t seed = 1;
};

/// Draws `w.requests` requests in arrival order. Deterministic for a seed on every standard library:
/// std::mt19937_64 is specified bit for bit, and the exponential (inverse CDF) and integer (rejection)
/// samplers are our own. Each request takes its gap, input and output draws in that order, so the same
/// seed at another rate gives the same lengths and the same arrival pattern scaled by 1 / rate.
/// Throws UserError on a non-positive rate or count, or lengths with min < 1 or min > max.
std::vector<Request> poisson_requests(const PoissonWorkload& w);

/// Parses a CSV trace: the header `arrival_s,input_len,output_len`, then one request per line
/// (spaces around fields and blank lines are allowed). Throws UserError "<source>:<line>: ..." on a
/// bad header, a malformed or non-positive field, or an arrival earlier than the one before.
std::vector<Request> parse_request_trace(std::string_view csv_text, std::string_view source_name = "trace");

// ---- The engine -----------------------------------------------------------------------------------

/// How requests are spread over replicas. round_robin: request i goes to replica i mod replicas.
/// least_loaded: to the replica with the fewest outstanding (routed, unfinished) requests at the
/// arrival instant, the lowest index on ties.
enum class Routing { round_robin, least_loaded };

/// The work of one engine iteration, for the cost model.
struct IterationShape {
  int decode_seqs = 0;                 ///< requests generating one token each
  double decode_context_tokens = 0.0;  ///< sum over them of tokens already in their cache
  int prefill_tokens = 0;              ///< prompt tokens processed this iteration
  /// Sum over prefill chunks of the prompt tokens cached before the chunk: a later chunk attends to
  /// the earlier ones. 0 without chunking.
  double prefill_context_tokens = 0.0;
  int prefill_seqs = 0;  ///< prompts (or prompt chunks) in the iteration
};

/// Seconds one iteration of `shape` takes; must be finite and > 0 (std::logic_error otherwise: a cost
/// model bug, not a user error).
using IterationCost = std::function<double(const IterationShape&)>;

/// Seconds to move one request's prompt KV cache (`input_len` tokens) from a prefill engine to a decode
/// engine; must be finite and >= 0 (std::logic_error otherwise, as for IterationCost).
using KvTransferCost = std::function<double(int input_len)>;

/// Prefill/decode disaggregation (DistServe, Splitwise, NVIDIA Dynamo, TensorRT-LLM disaggregated
/// serving): prefill engines run prompts only and hand each request, with its first token, to a decode
/// engine that generates the rest. Both kinds use ServingConfig's engine limits (max_batch,
/// max_num_tokens, kv_capacity_tokens, chunked_prefill); `replicas` is not used in this mode.
struct Disaggregation {
  int prefill_replicas = 1;
  int decode_replicas = 1;
  /// Among decode engines, decided when the request's KV transfer starts (least_loaded: fewest routed,
  /// unfinished requests there, counting those still in transfer). Prefill engines use `routing`.
  Routing decode_routing = Routing::round_robin;
  KvTransferCost kv_transfer;  ///< required
  /// Prices decode-engine iterations; empty: the same IterationCost as the prefill engines.
  IterationCost decode_cost;
};

/// One engine (model replica) and how many identical ones serve the request stream.
struct ServingConfig {
  int max_batch = 64;         ///< running requests (batch slots), as max_batch_size / max_num_seqs
  int max_num_tokens = 8192;  ///< tokens one iteration may process: decodes + prompt tokens
  long long kv_capacity_tokens = 1'000'000;  ///< KV-cache tokens one engine can reserve
  /// Models with local attention (attention_window.hpp): the share of a token's KV bytes in the
  /// local layers, which keep at most kv_window tokens of a request. A request of n tokens reserves
  /// kv_need(n) = ceil(n (1 - share) + min(n, window) share) tokens' worth; 0 = every layer global.
  double kv_local_share = 0.0;
  long long kv_window = 0;
  bool chunked_prefill = true;               ///< split prompts over iterations to fill the budget
  int replicas = 1;
  Routing routing = Routing::round_robin;
  /// Set: disaggregated prefill and decode engines (see Disaggregation); unset: colocated engines.
  std::optional<Disaggregation> disaggregation;
};

/// KV-cache tokens' worth a request of `tokens` tokens reserves (ServingConfig::kv_local_share).
long long kv_need(const ServingConfig& c, long long tokens);

// ---- Results --------------------------------------------------------------------------------------

/// One request's timeline; all times absolute seconds on the arrival clock.
struct RequestRecord {
  double arrival_s = 0.0;
  double admitted_s = 0.0;     ///< start of the iteration that gave it a slot and its KV reservation
  double first_token_s = 0.0;  ///< end of the iteration that finished its prefill
  double finish_s = 0.0;       ///< end of the iteration that produced its last token
  int input_len = 0;
  int output_len = 0;
  int replica = 0;  ///< the engine that admitted it (disaggregated: the prefill engine)
  /// Disaggregated only (otherwise 0, 0 and -1): seconds its KV transfer took, when a decode engine
  /// admitted it and which. Requests with output_len == 1 finish at their prefill and keep these unset.
  double kv_transfer_s = 0.0;
  double decode_admitted_s = 0.0;
  int decode_replica = -1;

  double ttft_s() const { return first_token_s - arrival_s; }
  double latency_s() const { return finish_s - arrival_s; }
  double queueing_s() const { return admitted_s - arrival_s; }
  /// Time per output token after the first; none when output_len == 1. Disaggregated, the span from the
  /// first token to the finish includes the KV transfer and the decode engine's queue, as a client sees it.
  std::optional<double> tpot_s() const {
    if (output_len < 2) return std::nullopt;
    return (finish_s - first_token_s) / (output_len - 1);
  }
};

// MetricStats, percentile and metric_stats: sim/stats.hpp (the step distribution uses them too).
using sim::metric_stats;
using sim::MetricStats;
using sim::percentile;

struct ServingSummary {
  int requests = 0;
  double duration_s = 0.0;  ///< first arrival to last finish
  double output_tokens_per_s = 0.0;
  double requests_per_s = 0.0;  ///< completed requests / duration
  double input_tokens_per_s = 0.0;
  MetricStats ttft;
  MetricStats tpot;  ///< over requests with output_len > 1
  MetricStats latency;
  MetricStats queueing;  ///< arrival to admission (disaggregated: on the prefill engine)
  /// Disaggregated only, over requests with output_len > 1 (all zero otherwise): the KV transfer, and the
  /// wait from its end to the decode engine's admission.
  MetricStats kv_transfer;
  MetricStats decode_queueing;
  /// Time averages over the duration, summed over replicas (divide by replicas for one engine):
  /// requests arrived and unfinished, and requests holding a batch slot (prefilling or decoding).
  /// Disaggregated, summed over prefill and decode engines; in system includes KV transfers.
  double mean_in_system = 0.0;
  double mean_running = 0.0;
  double mean_transferring = 0.0;         ///< requests in KV transfer (disaggregated only)
  long long iterations = 0;               ///< over all replicas
  long long peak_kv_reserved_tokens = 0;  ///< the most any one engine had reserved at once
};

struct ServingResult {
  std::vector<RequestRecord> records;  ///< indexed like the input requests
  ServingSummary summary;
};

/// Simulates `requests` (arrival order, non-decreasing) on `config.replicas` engines.
///
/// Each iteration of an engine, at its start time t: requests routed to it with arrival <= t join its
/// FCFS queue; the queue head is admitted while fewer than max_batch run and the reservation of
/// input + output tokens of every running request plus the head fits kv_capacity_tokens (TRT-LLM's
/// GUARANTEED_NO_EVICT: no preemption, so a blocked head blocks those behind it); every request past
/// its prefill decodes one token; the rest of the max_num_tokens budget goes to pending prompts in
/// admission order, in chunks (chunked_prefill) or whole prompts that fit (a prompt that does not fit
/// stops the pass, as vLLM's scheduler does). The iteration lasts cost(shape); finished requests free
/// their slot and reservation at its end. An engine with nothing to run idles until its next arrival.
///
/// Throws UserError on an invalid config (max_batch, max_num_tokens, kv_capacity_tokens or replicas
/// < 1, or max_num_tokens < max_batch: a full batch of decodes must fit the budget, vLLM's own rule),
/// no requests, lengths < 1, negative, non-finite or decreasing arrivals, and, before simulating, on a
/// request that can never run: input + output > kv_capacity_tokens, or input > max_num_tokens without
/// chunking.
///
/// With config.disaggregation: requests are routed (config.routing) to prefill engines, which admit them
/// FCFS reserving KV for the prompt only and run prefill-only iterations (decode_seqs = 0). The iteration
/// that finishes a prompt produces the first token (first_token_s) and frees its slot and reservation at
/// its end. A request with more to generate then starts its KV transfer, kv_transfer(input_len) seconds;
/// transfers are independent delays (they overlap freely, no link contention is modelled). Its decode
/// engine is chosen when the transfer starts (decode_routing); when the transfer ends the request joins
/// that engine's FCFS queue, ordered by transfer end, and is admitted under max_batch and the
/// whole-sequence reservation (input + output) with its prompt cached; decode engines run decode-only
/// iterations (prefill_tokens = 0). Handoffs that end at the same instant are routed in request order.
/// Throws UserError also on prefill_replicas or decode_replicas < 1 and on a missing kv_transfer.
ServingResult simulate_serving(const std::vector<Request>& requests, const ServingConfig& config,
                               const IterationCost& cost);

// ---- SLO search -----------------------------------------------------------------------------------

/// A latency objective on a percentile (0-100) of TTFT and/or TPOT; an unset bound is not checked.
struct ServingSlo {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  double percentile = 99.0;
};

/// Whether `result` meets `slo` (percentiles over the records as `percentile`).
bool meets_slo(const ServingResult& result, const ServingSlo& slo);

/// Produces the request set offered at a rate (requests per second).
using RequestsAtRate = std::function<std::vector<Request>(double rate_per_s)>;

/// Where the search starts, how far it may go and when it stops.
struct RateSearch {
  double start_rate_per_s = 1.0;
  double min_rate_per_s = 1e-3;  ///< halving below this gives up: nothing meets the SLO
  double max_rate_per_s = 1e6;   ///< doubling past this stops: everything tried meets it
  double relative_tolerance = 0.01;
};

enum class SloSearchOutcome {
  bracketed,  ///< rate meets, failing_rate fails, failing_rate <= rate (1 + tolerance)
  none_met,   ///< even min_rate_per_s (the rate reported) fails
  all_met,    ///< max_rate_per_s (the rate reported) still meets; no failing rate found
};

struct SloSearchResult {
  SloSearchOutcome outcome = SloSearchOutcome::none_met;
  double rate_per_s = 0.0;          ///< highest rate found meeting the SLO (lowest tried if none_met)
  double failing_rate_per_s = 0.0;  ///< lowest rate found failing it (0 when all_met)
  ServingResult result;             ///< the simulation at rate_per_s
  int simulations = 0;
};

/// The highest rate meeting `slo`: doubles or halves from the start rate until one rate meets and
/// its double fails, then bisects to the relative tolerance. Assumes meeting the SLO is monotone in
/// rate: give `requests_at` a fixed seed (poisson_requests scales one arrival pattern with the rate).
/// Above the engines' capacity the queue grows for as long as requests keep arriving, so TTFT grows
/// with the number of requests: the request count bounds each run and decides how sharply the SLO
/// fails past saturation. Throws UserError on a non-positive start, min > start, start > max, a
/// tolerance outside (0, 1), or an SLO with neither bound or its percentile outside [0, 100].
SloSearchResult max_rate_meeting_slo(const RequestsAtRate& requests_at, const ServingConfig& config,
                                     const IterationCost& cost, const ServingSlo& slo,
                                     const RateSearch& search = {});

}  // namespace stepsim::work
