#include "workloads/model/job.hpp"

#include <algorithm>

namespace stepsim::work {

Recompute JobSpec::layer_recompute(int layer) const {
  if (recompute != Recompute::full || (recompute_layers <= 0 && recompute_every <= 0) ||
      layer >= model.layers)
    return recompute;
  const ParallelSpec& p = parallel;
  int begin = 0;
  for (int c = 0; c < p.pp * p.virtual_stages; ++c) {
    const int n = p.chunk_layers(c, model.layers);
    if (layer < begin + n) {
      if (recompute_layers > 0) return layer - begin < recompute_layers ? Recompute::full : Recompute::none;
      // The rank's layers before this one: its earlier chunks' and this chunk's.
      int local = layer - begin;
      for (int e = c % p.pp; e < c; e += p.pp) local += p.chunk_layers(e, model.layers);
      return (local + 1) % recompute_every == 0 ? Recompute::full : Recompute::none;
    }
    begin += n;
  }
  return recompute;
}

double JobSpec::full_recompute_share() const {
  if (recompute != Recompute::full || model.layers <= 0) return 0.0;
  if (recompute_layers <= 0 && recompute_every <= 0) return 1.0;
  const ParallelSpec& p = parallel;
  int n = 0;
  if (recompute_layers > 0) {
    // The first recompute_layers of each model chunk.
    for (int c = 0; c < p.pp * p.virtual_stages; ++c)
      n += std::min(recompute_layers, p.chunk_layers(c, model.layers));
  } else {
    // Every recompute_every-th of each pipeline rank's layers.
    for (int stage = 0; stage < p.pp; ++stage) n += p.stage_layers(stage, model.layers) / recompute_every;
  }
  return double(n) / model.layers;
}

}  // namespace stepsim::work
