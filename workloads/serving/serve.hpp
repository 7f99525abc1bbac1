#pragma once
// Continuous-batching serving of a model replica (workload.kind = "serve"), priced by the step model:
// the iteration cost the scheduler (workloads/serving/serving.hpp) asks for comes from decode and prefill
// steps simulated event by event on a grid of shapes and interpolated between them.
//
// The grid: decode steps at batch 1, 2, 4, ... up to max_batch, each at the shortest and the longest
// context and one between (step time is affine in the context: the weights cost the same, attention
// and the cache grow linearly); prefill steps of prompts of 32, 128, 512, ... tokens, several at once
// up to the token budget. An iteration that mixes prompt tokens with decodes (in-flight batching fuses
// them into one forward) costs the prefill part plus what the decodes add above a batch-1 decode at
// the shortest context: the weights are read once for both.

#include <optional>
#include <vector>

#include "workloads/serving/serving.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::work {

/// What a serving run is offered and how its engines schedule (the scenario's [serving] table).
struct ServeSpec {
  std::vector<Request> requests;           ///< the arrivals (Poisson draw or trace), in arrival order
  std::optional<PoissonWorkload> poisson;  ///< set when the requests were drawn (the SLO search redraws)
  ServingConfig config;                    ///< kv_capacity_tokens is derived (serve_cost_model)
  /// Fraction of the memory left beside the weights and the largest step's activations that the KV
  /// cache may take (TensorRT-LLM's kv_cache_free_gpu_mem_fraction, 0.9 by default).
  double kv_memory_fraction = 0.9;
  /// 0: every dp replica runs prefill and decode (colocated). Otherwise this many of the job's dp
  /// replicas run prefill only and the rest decode only, each request's KV cache moving between them
  /// over the GPUs' NICs (see simulate_serve). Must be below dp.
  int prefill_replicas = 0;
};

/// Step times on a grid of decode and prefill shapes, interpolated for any iteration.
class ServeCostModel {
 public:
  /// Simulates the grid for `job` (its workload kind ignored) and `spec`'s engine limits.
  ServeCostModel(const JobSpec& job, const ServeSpec& spec, const SimulateOptions& options = {});
  /// Seconds one iteration of `shape` takes.
  double operator()(const IterationShape& shape) const;
  /// A decode step of `batch` sequences whose caches hold `context` tokens each, on average.
  double decode_s(double batch, double context) const;
  /// A prefill of `tokens` prompt tokens in prompts of `prompt_len` tokens each (on average).
  double prefill_s(double tokens, double prompt_len) const;
  long long kv_capacity_tokens() const { return kv_capacity_tokens_; }
  double kv_bytes_per_token() const { return kv_bytes_per_token_; }
  int simulated_steps() const { return simulated_; }
  double weights_bytes() const { return weights_bytes_; }
  double capacity_bytes() const { return capacity_bytes_; }

 private:
  /// Prefill steps at one token count: prompt lengths and their step times.
  struct PrefillRow {
    std::vector<double> prompt_lens, step_s;
  };
  std::vector<double> batches_, contexts_;   ///< decode grid
  std::vector<std::vector<double>> decode_;  ///< [batch][context], seconds
  std::vector<double> prefill_tokens_;       ///< prefill grid: tokens per step
  std::vector<PrefillRow> prefill_;          ///< per token count
  long long kv_capacity_tokens_ = 0;
  double kv_bytes_per_token_ = 0.0, weights_bytes_ = 0.0, capacity_bytes_ = 0.0;
  double state_bytes_per_sequence_ = 0.0;  ///< hybrid models' Mamba state per running request
  int simulated_ = 0;
};

struct Serving {
  ServingResult result;
  ServingConfig config;  ///< as simulated (kv_capacity_tokens derived)
  int simulated_steps = 0;
  double kv_bytes_per_token = 0.0;  ///< on the binding GPU
  double weights_bytes = 0.0, capacity_bytes = 0.0;
  std::optional<SloSearchResult> slo;  ///< when an SLO was asked for
  std::optional<ServingSlo> slo_asked;
};

/// Serves `spec`'s requests on job.parallel.dp replicas of `job`'s model; with `slo`, also finds the
/// highest Poisson rate that meets it (the request lengths and count as drawn).
///
/// With spec.prefill_replicas > 0 the replicas are disaggregated (both kinds priced by the same cost
/// model). A request's KV transfer takes input_len x kv_bytes_per_token / (nic_bw_Bps x eff.nic) + 20 us:
/// each of a replica's tp x pp GPUs holds its own shard of the cache (kv_bytes_per_token is one GPU's)
/// and sends it over its own NIC to its peer, in parallel (as NIXL / UCX do in Dynamo); the 20 us per
/// transfer is an assumed setup latency. Transfers do not contend with each other or with the replicas'
/// own traffic. Throws UserError when prefill_replicas >= dp (no decode replica left) or is negative.
Serving simulate_serve(const JobSpec& job, const ServeSpec& spec, const std::optional<ServingSlo>& slo = {},
                       const SimulateOptions& options = {});

}  // namespace stepsim::work
