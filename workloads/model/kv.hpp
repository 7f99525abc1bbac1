#pragma once
// The KV-cache calculator: bytes per token and per sequence, memory for a serving batch, the
// bandwidth decode needs for a target rate, and the largest batch or context that fits beside the
// weights.

#include <optional>

#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::work {

/// KV-cache bytes one token adds across all layers: 2 (K and V) x layers x kv_heads x head_dim x
/// bytes; multi-head latent attention caches kv_lora_rank + qk_rope_head_dim per layer instead.
double kv_bytes_per_token(const ModelSpec& m, double bytes_per_element);

/// KV-cache bytes one token adds per layer on one tensor-parallel rank: heads split across `tp`
/// ranks, but a rank always holds at least one KV head (MQA/GQA replicate); MLA's latent is
/// replicated on every rank.
double kv_bytes_per_token_layer_rank(const ModelSpec& m, double bytes_per_element, int tp);

/// Elements of one Mamba-2 layer's decode state per sequence on one TP rank: the SSM state
/// (heads / tp x head_dim x state) and the causal convolution's last conv_kernel - 1 inputs.
double mamba_state_elements(const MambaDims& a, int tp);
/// Decode-state bytes of one sequence in one Gated DeltaNet layer on one TP rank: the delta rule's
/// key_dim x value_dim state per value head in fp32, the convolution's inputs in `bytes_per_element`.
double state_bytes_per_sequence_layer(const GatedDeltaDims& g, double bytes_per_element, int tp);
/// Decode-state bytes one sequence holds in the Mamba and Gated DeltaNet layers [begin, end) on one
/// TP rank (Mamba's in `bytes_per_element`, the activations' precision).
double state_bytes_per_sequence(const ModelSpec& m, double bytes_per_element, int tp, int begin, int end);

/// Decode: how many times the attention kernel reads each cached key and value per step
/// (LayerDims::decode_kv_reads): query heads per KV head on a rank for per-query-head kernels.
double decode_kv_reads(const JobSpec& job);

/// What to size.
struct KvQuery {
  int context = 0;                   ///< tokens per sequence (T)
  int batch = 1;                     ///< concurrent sequences (C)
  double overhead = 1.0;             ///< phi: allocator and fragmentation overhead on the cache (1.1-1.3)
  double kv_bytes = 2.0;             ///< bytes per cached element
  double weight_bytes = 2.0;         ///< bytes per weight
  double state_bytes = 2.0;          ///< bytes per Mamba state element and convolution input (16-bit)
  double params = 0.0;               ///< weights to hold beside the cache (total parameters)
  std::optional<topo::GpuSpec> gpu;  ///< for fit and bandwidth checks
  int gpus = 1;                      ///< GPUs holding one copy of the weights and the cache
  std::optional<double> target_tokens_per_s;  ///< aggregate decode rate of the whole batch
};

struct KvReport {
  double bytes_per_token = 0.0;
  double bytes_per_sequence = 0.0;  ///< bytes_per_token x T (local layers: at most their window) + state
  double state_bytes_per_sequence = 0.0;  ///< hybrid models: the Mamba / Gated DeltaNet layers' fixed state
  bool local_attention = false;     ///< the model's local layers keep and read at most their window
  double cache_bytes = 0.0;         ///< C x T x bytes_per_token x phi
  double weights_bytes = 0.0;
  double total_bytes = 0.0;  ///< weights + cache
  /// Decode reads every weight once per step and every cached token of every sequence:
  /// bytes per generated token = weights / C + T x bytes_per_token (phi is allocation, not traffic).
  double decode_bytes_per_token = 0.0;
  std::optional<double> decode_bandwidth_Bps;  ///< at the target rate
  // With a GPU:
  std::optional<double> capacity_bytes;  ///< gpus x HBM
  std::optional<bool> fits;
  std::optional<double> max_tokens_per_s;  ///< gpus x usable HBM B/s / decode bytes per token
  std::optional<long long> max_batch;      ///< at context T; 0 when the weights alone overflow
  std::optional<long long> max_context;    ///< at batch C
};

/// Sizes the cache of `m` for `q`. Throws UserError on a non-positive context, batch or overhead.
KvReport size_kv(const ModelSpec& m, const KvQuery& q);

}  // namespace stepsim::work
