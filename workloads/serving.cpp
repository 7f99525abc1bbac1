#include "workloads/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/error.hpp"

namespace stepsim::work {

namespace {

/// A running request: holds a batch slot and its whole-sequence KV reservation.
struct Slot {
  int request = 0;
  int input_len = 0;
  int output_len = 0;
  int prefilled = 0;  ///< prompt tokens in the cache
  int generated = 0;  ///< output tokens produced; > 0 exactly when the prefill is done
  int chunk = 0;      ///< prompt tokens scheduled in the current iteration
};

/// Run-time sums an engine keeps for the summary.
struct EngineTotals {
  double running_integral = 0.0;  ///< integral of the running count over time (request-seconds)
  double waiting_integral = 0.0;  ///< the same for arrived, unadmitted requests
  long long iterations = 0;
  long long peak_kv_reserved_tokens = 0;
};

/// One replica. Its requests are `assigned_` in arrival order; the FCFS queue is the slice
/// [admitted_, arrived_) of it, so queueing needs no container of its own, and `running_` keeps
/// admission order, which is the order prompts are prefilled in.
class Engine {
 public:
  Engine(int index, const ServingConfig& config, const IterationCost& cost,
         const std::vector<Request>& requests, std::vector<RequestRecord>& records)
      : index_(index), config_(config), cost_(cost), requests_(requests), records_(records) {
    running_.reserve(static_cast<std::size_t>(config.max_batch));
  }

  void assign(int request) { assigned_.push_back(request); }

  /// Runs every iteration that starts before `limit_s`. Iterations starting at `limit_s` wait: a request
  /// arriving then, not yet routed, may still join them.
  void run_before(double limit_s) {
    while (next_start(limit_s)) iterate();
  }

  /// Routed and unfinished at `t_s`. Only the last iteration can end after `t_s` (every earlier one ended
  /// before it started, before `t_s`), so only its finishes are still outstanding then.
  long long outstanding_at(double t_s) const {
    const long long finished = finished_ - (last_end_s_ > t_s ? last_finishes_ : 0);
    return static_cast<long long>(assigned_.size()) - finished;
  }

  const EngineTotals& totals() const { return totals_; }

 private:
  /// Moves the clock over idle time to the next arrival; whether an iteration starts before `limit_s`.
  bool next_start(double limit_s) {
    if (running_.empty() && admitted_ == arrived_) {
      if (arrived_ == assigned_.size()) return false;
      now_s_ = std::max(now_s_, requests_[assigned_[arrived_]].arrival_s);
    }
    return now_s_ < limit_s;
  }

  void iterate() {
    arrive();
    admit();
    const IterationShape shape = plan();
    if (shape.decode_seqs + shape.prefill_seqs == 0)
      throw std::logic_error("serving: an iteration with nothing to run (the fit checks should prevent it)");
    const double cost_s = cost_(shape);
    if (!(std::isfinite(cost_s) && cost_s > 0.0))
      throw std::logic_error("serving: the iteration cost must be finite and positive, got " +
                             std::to_string(cost_s) + " s");
    totals_.running_integral += static_cast<double>(running_.size()) * cost_s;
    totals_.waiting_integral += static_cast<double>(arrived_ - admitted_) * cost_s;
    now_s_ += cost_s;
    ++totals_.iterations;
    complete();
  }

  /// Requests that arrived by now join the queue; each waited in it since its arrival.
  void arrive() {
    while (arrived_ < assigned_.size() && requests_[assigned_[arrived_]].arrival_s <= now_s_) {
      totals_.waiting_integral += now_s_ - requests_[assigned_[arrived_]].arrival_s;
      ++arrived_;
    }
  }

  /// FCFS admission under the slot limit and the whole-sequence KV reservation (no eviction later).
  void admit() {
    while (admitted_ < arrived_ && static_cast<int>(running_.size()) < config_.max_batch) {
      const int id = assigned_[admitted_];
      const Request& r = requests_[id];
      const long long need = static_cast<long long>(r.input_len) + r.output_len;
      if (kv_reserved_ + need > config_.kv_capacity_tokens) break;
      kv_reserved_ += need;
      totals_.peak_kv_reserved_tokens = std::max(totals_.peak_kv_reserved_tokens, kv_reserved_);
      running_.push_back(Slot{id, r.input_len, r.output_len, 0, 0, 0});
      records_[id].admitted_s = now_s_;
      records_[id].replica = index_;
      ++admitted_;
    }
  }

  /// Decodes take one token each; prompts share what is left of the budget in admission order.
  IterationShape plan() {
    IterationShape s;
    for (Slot& slot : running_) {
      slot.chunk = 0;
      if (slot.generated == 0) continue;
      ++s.decode_seqs;
      // The prompt and every output token but the newest are cached; the newest is this step's input.
      s.decode_context_tokens += slot.input_len + slot.generated - 1;
    }
    int budget = config_.max_num_tokens - s.decode_seqs;
    for (Slot& slot : running_) {
      if (slot.generated > 0) continue;
      const int remaining = slot.input_len - slot.prefilled;
      const int chunk =
          config_.chunked_prefill ? std::min(remaining, budget) : (remaining <= budget ? remaining : 0);
      if (chunk == 0) break;  // strict FCFS: a later, shorter prompt does not overtake
      slot.chunk = chunk;
      budget -= chunk;
      s.prefill_tokens += chunk;
      s.prefill_context_tokens += slot.prefilled;
      ++s.prefill_seqs;
    }
    return s;
  }

  /// End of an iteration: decodes add a token, completed prefills give the first; finished requests
  /// free their slot and reservation (compacted in place, keeping admission order).
  void complete() {
    last_end_s_ = now_s_;
    last_finishes_ = 0;
    std::size_t kept = 0;
    for (Slot& slot : running_) {
      RequestRecord& rec = records_[slot.request];
      if (slot.generated > 0) {
        ++slot.generated;
      } else if (slot.chunk > 0) {
        slot.prefilled += slot.chunk;
        if (slot.prefilled == slot.input_len) {
          slot.generated = 1;
          rec.first_token_s = now_s_;
        }
      }
      if (slot.generated < slot.output_len) {
        running_[kept++] = slot;
        continue;
      }
      rec.finish_s = now_s_;
      kv_reserved_ -= static_cast<long long>(slot.input_len) + slot.output_len;
      ++finished_;
      ++last_finishes_;
    }
    running_.resize(kept);
  }

  int index_;
  const ServingConfig& config_;
  const IterationCost& cost_;
  const std::vector<Request>& requests_;
  std::vector<RequestRecord>& records_;
  std::vector<int> assigned_;
  std::size_t arrived_ = 0;
  std::size_t admitted_ = 0;
  std::vector<Slot> running_;
  long long kv_reserved_ = 0;
  double now_s_ = 0.0;
  double last_end_s_ = 0.0;
  long long finished_ = 0;
  long long last_finishes_ = 0;
  EngineTotals totals_;
};

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

/// A request that could never be admitted or prefilled would stall its engine forever.
void check_fits(const Request& r, std::size_t i, const ServingConfig& c) {
  const long long need = static_cast<long long>(r.input_len) + r.output_len;
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

std::size_t route(const ServingConfig& config, const std::vector<Engine>& engines, std::size_t i,
                  double t_s) {
  if (config.routing == Routing::round_robin) return i % engines.size();
  std::size_t best = 0;
  for (std::size_t e = 1; e < engines.size(); ++e)
    if (engines[e].outstanding_at(t_s) < engines[best].outstanding_at(t_s)) best = e;
  return best;
}

/// Throughput over the span from the first arrival to the last finish; metrics from the records; time
/// averages from the engines' own integrals (the Little's-law test checks the two agree).
ServingSummary summarize(const std::vector<RequestRecord>& records, const std::vector<Engine>& engines) {
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
  s.mean_in_system = (running + waiting) / s.duration_s;
  return s;
}

}  // namespace

ServingResult simulate_serving(const std::vector<Request>& requests, const ServingConfig& config,
                               const IterationCost& cost) {
  check_config(config);
  if (requests.empty()) throw UserError("serving: no requests to simulate");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    check_request(requests, i);
    check_fits(requests[i], i, config);
  }
  ServingResult out;
  out.records.resize(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    out.records[i].arrival_s = requests[i].arrival_s;
    out.records[i].input_len = requests[i].input_len;
    out.records[i].output_len = requests[i].output_len;
  }
  std::vector<Engine> engines;
  engines.reserve(static_cast<std::size_t>(config.replicas));
  for (int e = 0; e < config.replicas; ++e) engines.emplace_back(e, config, cost, requests, out.records);
  // Route in arrival order, each engine first brought up to the arrival so least_loaded sees its state.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (Engine& e : engines) e.run_before(requests[i].arrival_s);
    engines[route(config, engines, i, requests[i].arrival_s)].assign(static_cast<int>(i));
  }
  for (Engine& e : engines) e.run_before(std::numeric_limits<double>::infinity());
  out.summary = summarize(out.records, engines);
  return out;
}

}  // namespace stepsim::work
