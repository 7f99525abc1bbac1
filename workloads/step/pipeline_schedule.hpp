#pragma once
// Pipeline schedules: the order in which each pipeline rank runs forward and backward passes of its
// micro-batches. The bubble is not computed from a formula: it emerges when the engine executes
// these orders with the dependencies between stages.

#include <cstdint>
#include <vector>

#include "workloads/model/job.hpp"

namespace stepsim::work {

struct PipeStep {
  /// forward or backward of one micro-batch through one model chunk; weight: the weight-gradient
  /// GEMMs a deferred backward left (DualPipe's zero-bubble W chunk, first in, first out).
  enum class Kind : std::uint8_t { forward, backward, weight };
  Kind kind = Kind::forward;
  int microbatch = 0;
  /// Model chunk on this rank: interleaved, virtual stage = chunk * pp + rank; DualPipe, the
  /// direction (0: micro-batches enter at rank 0, stage = rank; 1: they enter at rank pp - 1,
  /// stage = pp - 1 - rank); DualPipeV, the half of the V (0: stage = rank, 1: 2 pp - 1 - rank).
  int chunk = 0;
  /// Backward: its weight-gradient GEMMs wait for a later weight step (zero bubble).
  bool defer_weights = false;
  /// Forward: it and the backward after it are one overlapped chunk pair (DualPipe's F&B).
  bool pair_with_next = false;
};

/// Per pipeline rank, the ordered steps of one optimizer step.
/// GPipe: all forwards, then all backwards. 1F1B: (pp - rank - 1) warm-up forwards, then alternate,
/// then drain. Interleaved 1F1B (Megatron): `virtual_stages` chunks per rank, micro-batches in groups
/// of pp; requires microbatches % pp == 0 when virtual_stages > 1 (throws UserError otherwise).
/// DualPipe (deepseek-ai/DualPipe dualpipe.py, DualPipe.step): micro-batches 0 .. m/2 - 1 enter at
/// rank 0 and m/2 .. m - 1 at rank pp - 1; its eight phases per rank, with the zero-bubble weight
/// steps and the overlapped forward-backward pairs marked; needs pp even and m even, >= 2 pp.
/// DualPipeV (dualpipev.py, DualPipeV.step): the V of 2 pp stages, every micro-batch down the ranks
/// and back; needs virtual_stages = 2 and m >= 2 pp.
std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages);
/// The same for `flushes` schedules of microbatches / flushes micro-batches each, run one after the
/// other on every rank, each filled and drained (workload.local_batch; flushes must divide
/// microbatches).
std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages, int flushes);

/// torch.distributed.pipelining's time steps (PipelineScheduleMulti's pipeline_order, PyTorch up to
/// 2.8) for the interleaved schedule of pipeline_schedule(interleaved, pp, microbatches,
/// virtual_stages, flushes): per pipeline rank, the time step of each of its steps, in order.
/// ScheduleInterleaved1F1B builds one table for all ranks (_get_1f1b_rank_ops): `rank` empty steps,
/// the warm-up forwards, empty steps until the first backward can have arrived, then a forward and
/// a backward per two steps, then an empty step before each cool-down backward; at every step each
/// rank exchanges what it and its neighbours produced and waits for it before the next. Each flush
/// (schedule.step() call) numbers its steps after the previous flush's last.
std::vector<std::vector<int>> lockstep_time_steps(int pp, int microbatches, int virtual_stages, int flushes);

/// The schedule a job with `virtual_stages` chunks per rank runs: interleaved 1F1B whenever it has
/// several chunks, except DualPipeV, whose V is its two chunks.
inline PipelineSchedule run_schedule(PipelineSchedule asked, int virtual_stages) {
  return virtual_stages > 1 && asked != PipelineSchedule::dualpipev ? PipelineSchedule::interleaved : asked;
}

/// Model chunks each pipeline rank holds: both DualPipe directions' stages, DualPipeV's two halves,
/// interleaving's virtual_stages, else one.
inline int chunks_per_rank(PipelineSchedule kind, int virtual_stages) {
  return is_dualpipe(kind) ? 2 : virtual_stages;
}

/// The model chunk (virtual stage, of pp x chunks) that chunk `chunk` of pipeline rank `rank` runs
/// (see PipeStep::chunk): interleaved chunk x pp + rank; DualPipe rank, then pp - 1 - rank;
/// DualPipeV rank, then 2 pp - 1 - rank.
inline int model_chunk(PipelineSchedule kind, int pp, int rank, int chunk) {
  if (!is_dualpipe(kind) || chunk == 0) return chunk * pp + rank;
  return (kind == PipelineSchedule::dualpipev ? 2 * pp : pp) - 1 - rank;
}

/// The model chunks pipeline rank `rank` holds, chunk by chunk (model_chunk of each).
inline std::vector<int> model_chunks(PipelineSchedule kind, int pp, int virtual_stages, int rank) {
  std::vector<int> out;
  for (int c = 0; c < chunks_per_rank(kind, virtual_stages); ++c)
    out.push_back(model_chunk(kind, pp, rank, c));
  return out;
}

}  // namespace stepsim::work
