#pragma once
// Internal to the serving simulator (serving.cpp, serving_disagg.cpp): one engine replica's iteration
// loop and the checks and summary both modes share. Not part of the public API.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/serving/serving.hpp"

namespace stepsim::work::detail {

/// What an engine runs. colocated: prefill and decode of its requests (in-flight batching). prefill:
/// prompts only; a request leaves at the end of the iteration that finishes its prefill. decode: requests
/// whose prompt KV cache is already in place; decode iterations only.
enum class Role { colocated, prefill, decode };

/// A running request: holds a batch slot and its KV reservation.
struct Slot {
  int request = 0;
  int input_len = 0;
  int output_len = 0;
  int prefilled = 0;  ///< prompt tokens in the cache
  int generated = 0;  ///< output tokens produced; > 0 exactly when the prefill is done
  int chunk = 0;      ///< prompt tokens scheduled in the current iteration
  long long kv = 0;   ///< tokens reserved: input + output, or input alone on a prefill engine
};

/// A request waiting for an engine: it may join the queue at ready_s (its arrival, or on a decode engine
/// the end of its KV transfer).
struct Queued {
  int request = 0;
  double ready_s = 0.0;
};

/// A request whose prefill finished on a prefill engine at at_s and that still has tokens to generate.
struct Handoff {
  int request = 0;
  double at_s = 0.0;
};

/// Run-time sums an engine keeps for the summary.
struct EngineTotals {
  double running_integral = 0.0;  ///< integral of the running count over time (request-seconds)
  double waiting_integral = 0.0;  ///< the same for arrived, unadmitted requests
  long long iterations = 0;
  long long peak_kv_reserved_tokens = 0;
};

/// One replica. Its requests are `assigned_` in ready order; the FCFS queue is the slice
/// [admitted_, arrived_) of it, so queueing needs no container of its own, and `running_` keeps
/// admission order, which is the order prompts are prefilled in.
class Engine {
 public:
  Engine(int index, Role role, const ServingConfig& config, const IterationCost& cost,
         const std::vector<Request>& requests, std::vector<RequestRecord>& records,
         std::vector<Handoff>* handoffs = nullptr)
      : index_(index),
        role_(role),
        config_(config),
        cost_(cost),
        requests_(requests),
        records_(records),
        handoffs_(handoffs) {
    running_.reserve(static_cast<std::size_t>(config.max_batch));
  }

  /// Queues `request`, ready at `ready_s`, behind every queued request ready at or before then. The caller
  /// has run this engine only through iterations starting before `ready_s`, so every request already in
  /// the queue was ready earlier and the order of [admitted_, arrived_) is kept.
  void assign(int request, double ready_s) {
    const auto later = std::upper_bound(assigned_.begin() + static_cast<long>(arrived_), assigned_.end(),
                                        ready_s, [](double t, const Queued& q) { return t < q.ready_s; });
    assigned_.insert(later, Queued{request, ready_s});
  }

  /// Runs every iteration that starts before `limit_s`. Iterations starting at `limit_s` wait: a request
  /// ready then, not yet routed, may still join them.
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
  /// Moves the clock over idle time to the next ready request; whether an iteration starts before
  /// `limit_s`. The clock stays put when none does: a request routed later may be ready earlier.
  bool next_start(double limit_s) {
    if (running_.empty() && admitted_ == arrived_) {
      if (arrived_ == assigned_.size()) return false;
      const double start_s = std::max(now_s_, assigned_[arrived_].ready_s);
      if (!(start_s < limit_s)) return false;
      now_s_ = start_s;
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

  /// Requests ready by now join the queue; each waited in it since it became ready.
  void arrive() {
    while (arrived_ < assigned_.size() && assigned_[arrived_].ready_s <= now_s_) {
      totals_.waiting_integral += now_s_ - assigned_[arrived_].ready_s;
      ++arrived_;
    }
  }

  /// FCFS admission under the slot limit and the KV reservation (no eviction later).
  void admit() {
    while (admitted_ < arrived_ && static_cast<int>(running_.size()) < config_.max_batch) {
      const int id = assigned_[admitted_].request;
      const Request& r = requests_[id];
      const long long need =
          kv_need(config_, static_cast<long long>(r.input_len) + (role_ == Role::prefill ? 0 : r.output_len));
      if (kv_reserved_ + need > config_.kv_capacity_tokens) break;
      kv_reserved_ += need;
      totals_.peak_kv_reserved_tokens = std::max(totals_.peak_kv_reserved_tokens, kv_reserved_);
      if (role_ == Role::decode) {
        // The prompt's cache came over with the first token, which is this engine's first input.
        running_.push_back(Slot{id, r.input_len, r.output_len, r.input_len, 1, 0, need});
        records_[id].decode_admitted_s = now_s_;
        records_[id].decode_replica = index_;
      } else {
        running_.push_back(Slot{id, r.input_len, r.output_len, 0, 0, 0, need});
        records_[id].admitted_s = now_s_;
        records_[id].replica = index_;
      }
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

  /// Advances one slot over the iteration that just ended.
  void advance(Slot& slot) {
    if (slot.generated > 0) {
      ++slot.generated;
    } else if (slot.chunk > 0) {
      slot.prefilled += slot.chunk;
      if (slot.prefilled == slot.input_len) {
        slot.generated = 1;
        records_[slot.request].first_token_s = now_s_;
      }
    }
  }

  /// End of an iteration: decodes add a token, completed prefills give the first; requests done here
  /// (finished, or prefilled on a prefill engine) free their slot and reservation (compacted in place,
  /// keeping admission order); a prefilled request with tokens left is handed off.
  void complete() {
    last_end_s_ = now_s_;
    last_finishes_ = 0;
    std::size_t kept = 0;
    for (Slot& slot : running_) {
      advance(slot);
      const bool finished = slot.generated >= slot.output_len;
      if (!finished && !(role_ == Role::prefill && slot.generated > 0)) {
        running_[kept++] = slot;
        continue;
      }
      if (finished)
        records_[slot.request].finish_s = now_s_;
      else
        handoffs_->push_back(Handoff{slot.request, now_s_});
      kv_reserved_ -= slot.kv;
      ++finished_;
      ++last_finishes_;
    }
    running_.resize(kept);
  }

  int index_;
  Role role_;
  const ServingConfig& config_;
  const IterationCost& cost_;
  const std::vector<Request>& requests_;
  std::vector<RequestRecord>& records_;
  std::vector<Handoff>* handoffs_;
  std::vector<Queued> assigned_;
  std::size_t arrived_ = 0;
  std::size_t admitted_ = 0;
  std::vector<Slot> running_;
  long long kv_reserved_ = 0;
  double now_s_ = 0.0;
  double last_end_s_ = 0.0;
  long long finished_ = 0;  ///< left this engine: finished, or handed off by a prefill engine
  long long last_finishes_ = 0;
  EngineTotals totals_;
};

/// Checks every request's shape, order and fit and returns records with the request fields filled in.
std::vector<RequestRecord> checked_records(const std::vector<Request>& requests, const ServingConfig& config);

/// The engine chosen for request/handoff number `i` at `t_s` under `routing`.
std::size_t route(Routing routing, const std::vector<Engine>& engines, std::size_t i, double t_s);

/// Metrics from the records, time averages from the engines' integrals plus `extra_in_system_s`
/// (request-seconds spent outside any engine: KV transfers).
ServingSummary summarize(const std::vector<RequestRecord>& records, const std::vector<Engine>& engines,
                         double extra_in_system_s = 0.0);

/// The disaggregated mode of simulate_serving (config.disaggregation set, config and requests checked).
ServingResult simulate_disaggregated(const std::vector<Request>& requests, const ServingConfig& config,
                                     const IterationCost& cost, std::vector<RequestRecord> records);

}  // namespace stepsim::work::detail
