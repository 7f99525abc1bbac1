#pragma once
// Pipeline schedules: the order in which each pipeline rank runs forward and backward passes of its
// micro-batches. The bubble is not computed from a formula: it emerges when the engine executes
// these orders with the dependencies between stages.

#include <cstdint>
#include <vector>

#include "workloads/model/job.hpp"

namespace stepsim::work {

struct PipeStep {
  enum class Kind : std::uint8_t { forward, backward };
  Kind kind = Kind::forward;
  int microbatch = 0;
  int chunk = 0;  ///< model chunk on this rank (virtual stage = chunk * pp + rank)
};

/// Per pipeline rank, the ordered forward/backward steps of one optimizer step.
/// GPipe: all forwards, then all backwards. 1F1B: (pp - rank - 1) warm-up forwards, then alternate,
/// then drain. Interleaved 1F1B (Megatron): `virtual_stages` chunks per rank, micro-batches in groups
/// of pp; requires microbatches % pp == 0 when virtual_stages > 1 (throws UserError otherwise).
std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages);

}  // namespace stepsim::work
