#pragma once
// A static batch served start to finish (workload.kind = "generate"), as TensorRT-LLM's
// gptSessionBenchmark and offline batch inference run it: one prefill over every prompt, which yields
// each sequence's first token, then output_len - 1 decode steps, the k-th of them (k = 1, 2, ...)
// reading a cache of input_len + k - 1 tokens per sequence.
//
// Every decode step costs the same weight reads and collectives; only attention and the cache grow
// with the context, so the step time is a smooth, nearly linear function of the context. Instead of
// simulating all output_len - 1 steps, the generation simulates a few contexts and sums the
// piecewise-linear interpolation over every integer context, refining an interval at its midpoint
// until the refined sum moves by less than the tolerance. The reported integration error is the sum
// of those last moves: for a step time with bounded curvature the refined sum's error is about a
// quarter of its last move, so the figure is a conservative estimate, not a proof.

#include <optional>
#include <vector>

#include "workloads/model/job.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::work {

struct GenerationOptions {
  SimulateOptions simulate;
  /// Stop refining once every interval's refinement moves the decode total by less than this
  /// fraction of it (pro rata to the interval's share of the steps).
  double relative_tolerance = 1e-3;
  int max_decode_points = 33;  ///< decode steps simulated at most
};

/// One simulated decode step of the generation.
struct DecodePoint {
  int context_tokens = 0;          ///< tokens in each sequence's cache before the step
  int output_position = 0;         ///< the output token it generates (2 = the first decode step)
  double step_s = 0.0;             ///< the step time (TPOT at this position)
  double kv_bytes_per_gpu = 0.0;   ///< the busiest GPU's KV cache after the step
  double memory_peak_bytes = 0.0;  ///< the busiest GPU's memory peak over the step
};

struct Generation {
  Simulation prefill;  ///< the context phase: its step time is the time to first token
  /// The decode step at the longest context (memory, breakdown); none when output_len = 1.
  std::optional<Simulation> last_decode{};
  std::vector<DecodePoint> points{};  ///< the simulated decode steps, by context
  int batch = 0, input_len = 0, output_len = 0;
  double ttft_s = 0.0;               ///< the prefill's step time
  double decode_s = 0.0;             ///< the output_len - 1 decode steps together
  double total_s = 0.0;              ///< ttft_s + decode_s: the whole batch's latency
  double tpot_s = 0.0;               ///< decode_s / (output_len - 1); 0 when output_len = 1
  double integration_error_s = 0.0;  ///< estimated error of decode_s (see the file comment)
  double output_tokens_per_s = 0.0;  ///< every replica's output tokens / total_s
  double output_tokens_per_s_per_gpu = 0.0;
  bool fits = true;  ///< the prefill and the longest-context decode step both fit in HBM
};

/// The prefill of `generation` (kind generate): its prompts as one prefill step.
JobSpec prefill_job(const JobSpec& generation);
/// The decode step of `generation` whose caches hold `context_tokens` tokens per sequence.
JobSpec decode_job(const JobSpec& generation, int context_tokens);

/// Simulates the whole static batch of `job` (kind generate).
Generation simulate_generation(const JobSpec& job, const GenerationOptions& options = {});
/// As above on a topology built earlier for the same cluster.
Generation simulate_generation(const JobSpec& job, std::shared_ptr<const topo::Topology> topology,
                               const GenerationOptions& options = {});

}  // namespace stepsim::work
