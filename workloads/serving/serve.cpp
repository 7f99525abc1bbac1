#include "workloads/serving/serve.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/error.hpp"
#include "workloads/model/attention_window.hpp"

namespace stepsim::work {
namespace {

/// Linear interpolation at x between the points at xs, extended linearly past both ends; the value at
/// point i is at(i), asked only of the two points around x (a grid row is interpolated only when used).
template <class At>
double interpolate_by(const std::vector<double>& xs, double x, const At& at) {
  if (xs.size() == 1) return at(0);
  std::size_t i = 1;
  while (i + 1 < xs.size() && xs[i] < x) ++i;
  const double f = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  const double lo = at(i - 1);
  return lo + f * (at(i) - lo);
}

double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  return interpolate_by(xs, x, [&ys](std::size_t i) { return ys[i]; });
}

/// 1, 2, 4, ... below `top`, then `top`.
std::vector<double> doubling(double first, double top) {
  std::vector<double> out;
  for (double x = first; x < top; x *= 2) out.push_back(x);
  out.push_back(top);
  return out;
}

JobSpec step_job(const JobSpec& job, WorkloadKind kind, int batch, int tokens) {
  JobSpec j = job;
  j.workload.kind = kind;
  j.workload.batch = batch;
  j.workload.output_len = 0;
  if (kind == WorkloadKind::decode)
    j.workload.context_len = tokens;
  else
    j.workload.seq_len = tokens;
  return j;
}

struct Limits {
  int min_input = 0, max_context = 0;
};

Limits limits_of(const std::vector<Request>& requests) {
  Limits l{requests.front().input_len, 0};
  for (const Request& r : requests) {
    l.min_input = std::min(l.min_input, r.input_len);
    l.max_context = std::max(l.max_context, r.input_len + r.output_len);
  }
  return l;
}

/// Memory a step needs beyond the weights and the KV cache on its busiest GPU.
double activation_bytes(const Simulation& s) {
  const auto& peak = s.report.ranks[s.report.peak_rank];
  return std::max(0.0, peak.memory.peak.value() - s.plan.static_memory[s.report.peak_rank].total());
}

/// The model's KV footprint per request (ServingConfig::kv_local_share): local layers keep at most their
/// window; every layer's token takes the same bytes, so the share is the local layers' count.
ServingConfig with_kv_footprint(ServingConfig c, const ModelSpec& m) {
  if (!m.has_local_attention()) return c;
  c.kv_local_share = double(m.local_attention_layers()) / m.layers;
  c.kv_window = m.attention_window;
  return c;
}

/// Assumed fixed cost of starting one KV transfer (connection setup, descriptors, completion).
constexpr double kv_transfer_latency_s = 20e-6;

/// spec.prefill_replicas of the dp replicas prefill, the rest decode; KV moves as simulate_serve says.
Disaggregation disaggregation(const JobSpec& job, const ServeSpec& spec, const ServeCostModel& cost,
                              const ServingConfig& config) {
  if (spec.prefill_replicas < 0 || spec.prefill_replicas >= job.parallel.dp)
    throw UserError(SourceLocation{}, "serving.prefill_replicas",
                    "must lie in [1, dp - 1] for disaggregated serving (at least one decode replica); got " +
                        std::to_string(spec.prefill_replicas) +
                        " with dp = " + std::to_string(job.parallel.dp));
  const double bytes_per_s = job.cluster.gpu.nic_bw.value() * job.cluster.gpu.eff.nic;
  if (!(bytes_per_s > 0.0))
    throw UserError(
        "serving: disaggregated serving moves KV caches over the NICs, but this GPU has no NIC "
        "bandwidth (nic_bw_Bps)");
  Disaggregation d;
  d.prefill_replicas = spec.prefill_replicas;
  d.decode_replicas = job.parallel.dp - spec.prefill_replicas;
  d.decode_routing = spec.config.routing;  // the same policy among decode replicas
  const double per_token_s = cost.kv_bytes_per_token() / bytes_per_s;
  // A prompt's cache: what its layers keep of it (all of it, but a local layer's window).
  d.kv_transfer = [per_token_s, config](int input_len) {
    return double(kv_need(config, input_len)) * per_token_s + kv_transfer_latency_s;
  };
  return d;
}

}  // namespace

ServeCostModel::ServeCostModel(const JobSpec& job, const ServeSpec& spec, const SimulateOptions& options) {
  if (spec.requests.empty()) throw UserError("serving: no requests to serve");
  const Limits lim = limits_of(spec.requests);
  // Before the topology: every step priced has the same estimated size (workloads/step/step_size.hpp).
  check_step_size(step_job(job, WorkloadKind::prefill, 1, 1), options.ranks, options.max_ops);
  const auto topology = std::make_shared<const topo::Topology>(job.cluster);
  const auto run = [&](WorkloadKind kind, int batch, int tokens) {
    ++simulated_;
    return simulate(step_job(job, kind, batch, tokens), topology, options);
  };
  batches_ = doubling(1, spec.config.max_batch);
  const double lo = std::max(1, lim.min_input), hi = std::max(lim.max_context, lim.min_input + 1);
  contexts_ = {lo, std::round((lo + hi) / 2), hi};
  // A grid point at a sliding window's bend keeps the interpolation exact in its local layers
  // (chunked layers are sampled as they fall).
  if (const auto bend = decode_cost_bend(job.model);
      bend && *bend > lo && *bend < hi && *bend != contexts_[1]) {
    contexts_.push_back(*bend);
    std::sort(contexts_.begin(), contexts_.end());
  }
  double workspace = 0.0;
  for (double b : batches_) {
    decode_.emplace_back();
    for (double c : contexts_) {
      const Simulation s = run(WorkloadKind::decode, int(b), int(c));
      decode_.back().push_back(s.metrics.step_time_s);
      workspace = std::max(workspace, activation_bytes(s));
      if (b == batches_.back() && c == contexts_.back()) {
        kv_bytes_per_token_ = s.plan.kv.bytes_per_token;
        state_bytes_per_sequence_ = s.plan.kv.state_bytes_per_sequence;
        weights_bytes_ = s.plan.static_memory[s.report.peak_rank].weights;
        capacity_bytes_ = s.usable_hbm.value();
      }
    }
  }
  // Prefill: at each token count, one prompt of that length and prompts of the shortest length.
  const double budget = spec.config.max_num_tokens, shortest = std::min(32.0, budget);
  for (double t : doubling(shortest, budget)) {
    PrefillRow row;
    for (double len : {shortest, t}) {
      if (!row.prompt_lens.empty() && len == row.prompt_lens.front()) continue;
      const Simulation s = run(WorkloadKind::prefill, int(std::round(t / len)), int(len));
      row.prompt_lens.push_back(len);
      row.step_s.push_back(s.metrics.step_time_s);
      workspace = std::max(workspace, activation_bytes(s));
    }
    prefill_tokens_.push_back(t);
    prefill_.push_back(std::move(row));
  }
  // A hybrid model's Mamba layers keep a fixed state per running request: engines set it aside for
  // every batch slot (vLLM's Mamba cache holds max_num_seqs states) before the KV blocks.
  const double free =
      capacity_bytes_ - weights_bytes_ - workspace - spec.config.max_batch * state_bytes_per_sequence_;
  kv_capacity_tokens_ =
      static_cast<long long>(std::floor(spec.kv_memory_fraction * free / kv_bytes_per_token_));
  if (kv_capacity_tokens_ < kv_need(with_kv_footprint(spec.config, job.model), lim.max_context))
    throw UserError(
        "serving: the KV cache holds " + std::to_string(std::max(0LL, kv_capacity_tokens_)) +
        " tokens per replica beside the weights and activations, fewer than the longest request's " +
        std::to_string(lim.max_context) +
        "; use more GPUs per replica (tp, pp), a smaller KV precision, or shorter requests");
}

double ServeCostModel::decode_s(double batch, double context) const {
  return interpolate_by(batches_, batch,
                        [&](std::size_t b) { return interpolate(contexts_, decode_[b], context); });
}

double ServeCostModel::prefill_s(double tokens, double prompt_len) const {
  // At each simulated token count the cost is affine in the prompt length (attention's keys per
  // query grow with it, the GEMMs do not); between token counts it is linear in the tokens. Below the
  // smallest count the step is bound by reading the weights, so it costs what that one costs.
  return interpolate_by(prefill_tokens_, std::max(tokens, prefill_tokens_.front()), [&](std::size_t t) {
    return interpolate(prefill_[t].prompt_lens, prefill_[t].step_s, prompt_len);
  });
}

double ServeCostModel::operator()(const IterationShape& s) const {
  const double decode =
      s.decode_seqs > 0 ? decode_s(s.decode_seqs, s.decode_context_tokens / s.decode_seqs) : 0.0;
  if (s.prefill_tokens == 0) return decode;
  // A chunk of t tokens after c cached ones sees c + t/2 keys per query on average, as a whole prompt
  // of t + 2c tokens does.
  const double len = (s.prefill_tokens + 2.0 * s.prefill_context_tokens) / std::max(1, s.prefill_seqs);
  const double prefill = prefill_s(s.prefill_tokens, len);
  if (s.decode_seqs == 0) return prefill;
  return prefill + std::max(0.0, decode - decode_s(1, contexts_.front()));
}

Serving simulate_serve(const JobSpec& job, const ServeSpec& spec, const std::optional<ServingSlo>& slo,
                       const SimulateOptions& options) {
  const ServeCostModel cost(job, spec, options);
  Serving out;
  out.config = with_kv_footprint(spec.config, job.model);
  out.config.kv_capacity_tokens = cost.kv_capacity_tokens();
  out.config.replicas = job.parallel.dp;
  if (spec.prefill_replicas != 0) out.config.disaggregation = disaggregation(job, spec, cost, out.config);
  const IterationCost price = [&cost](const IterationShape& s) { return cost(s); };
  out.result = simulate_serving(spec.requests, out.config, price);
  out.simulated_steps = cost.simulated_steps();
  out.kv_bytes_per_token = cost.kv_bytes_per_token();
  out.weights_bytes = cost.weights_bytes();
  out.capacity_bytes = cost.capacity_bytes();
  if (slo) {
    out.slo_asked = slo;
    // A trace is replayed faster or slower by scaling its arrival times; a Poisson draw is redrawn.
    const double span = std::max(spec.requests.back().arrival_s, 1e-9);
    const double base_rate = spec.poisson ? spec.poisson->rate_per_s : double(spec.requests.size()) / span;
    const RequestsAtRate at = [&](double rate) {
      if (spec.poisson) {
        PoissonWorkload w = *spec.poisson;
        w.rate_per_s = rate;
        return poisson_requests(w);
      }
      std::vector<Request> r = spec.requests;
      for (Request& x : r) x.arrival_s *= base_rate / rate;
      return r;
    };
    RateSearch search;
    search.start_rate_per_s = base_rate;
    search.min_rate_per_s = base_rate / 1024;
    search.max_rate_per_s = base_rate * 1024;
    out.slo = max_rate_meeting_slo(at, out.config, price, *slo, search);
  }
  return out;
}

}  // namespace stepsim::work
