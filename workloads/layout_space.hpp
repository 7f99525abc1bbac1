#pragma once
// The parallel layouts a training job could use on its cluster: every combination of tensor,
// pipeline (with interleaved chunks), context, expert and data parallelism, micro-batch size,
// ZeRO stage and recomputation that divides the model, the batch and the GPUs evenly. The layout
// search prunes this space with the closed-form estimate before simulating.

#include <string>
#include <vector>

#include "workloads/job.hpp"

namespace stepsim::work {

/// One layout; dp is derived from the GPU count.
struct Layout {
  int tp = 1;
  int pp = 1;
  int virtual_stages = 1;
  int cp = 1;
  int ep = 1;
  int dp = 1;
  int micro_batch = 1;
  int zero_stage = 0;
  Recompute recompute = Recompute::none;
  /// "tp 8, pp 4 (v 5), dp 16, mb 1, zero 1, selective recompute" (cp, ep shown when > 1).
  std::string text() const;
};

/// Bounds of the space.
struct LayoutSpaceOptions {
  int max_tp = 0;  ///< 0: the scale-up (NVLink) domain, so TP collectives stay on NVLink
  int max_pp = 64;
  int max_virtual_stages = 8;
  int max_cp = 8;
  int min_cp_tokens = 2048;  ///< a context-parallel rank holds at least this many tokens of a sequence
  std::vector<int> micro_batches{1, 2, 4, 8};
  std::vector<int> zero_stages{0, 1, 2, 3};
  std::vector<Recompute> recomputes{Recompute::none, Recompute::selective, Recompute::full};
};

/// Every layout of `job`'s model, batch and GPU count within `options` that passes the divisibility
/// rules of docs/scenarios.md (heads and KV heads by tp; layers by pp x virtual stages; sequence by
/// cp, and by tp with sequence parallelism, which layouts use whenever tp > 1; experts by ep, ep
/// within dp x cp; the batch by micro-batch x dp). Deterministic order.
std::vector<Layout> enumerate_layouts(const JobSpec& job, const LayoutSpaceOptions& options = {});

/// `job` with `layout` applied: parallel sizes, schedule (interleaved when virtual stages > 1),
/// sequence parallelism (tp > 1), micro-batch, ZeRO stage and recomputation.
JobSpec with_layout(JobSpec job, const Layout& layout);

/// The same layout as scenario overrides ("parallelism.tp=8", ...), for loading and validating it
/// through the scenario reader.
std::vector<std::string> layout_overrides(const Layout& layout);

}  // namespace stepsim::work
