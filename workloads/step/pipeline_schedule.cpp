#include "workloads/step/pipeline_schedule.hpp"

#include <algorithm>
#include <string>

#include "sim/error.hpp"

namespace stepsim::work {
namespace {

using Kind = PipeStep::Kind;

std::vector<PipeStep> gpipe(int microbatches) {
  std::vector<PipeStep> out;
  for (int m = 0; m < microbatches; ++m) out.push_back({Kind::forward, m, 0});
  for (int m = microbatches - 1; m >= 0; --m) out.push_back({Kind::backward, m, 0});
  return out;
}

std::vector<PipeStep> one_f_one_b(int pp, int rank, int microbatches) {
  const int warmup = std::min(pp - rank - 1, microbatches);
  std::vector<PipeStep> out;
  int next_fwd = 0, next_bwd = 0;
  for (; next_fwd < warmup; ++next_fwd) out.push_back({Kind::forward, next_fwd, 0});
  while (next_fwd < microbatches) {
    out.push_back({Kind::forward, next_fwd++, 0});
    out.push_back({Kind::backward, next_bwd++, 0});
  }
  while (next_bwd < microbatches) out.push_back({Kind::backward, next_bwd++, 0});
  return out;
}

/// Megatron's interleaved schedule: virtual micro-batch k maps to chunk (k / pp) % v and
/// micro-batch (k / (pp v)) pp + k % pp; backward visits chunks in reverse.
PipeStep virtual_step(Kind kind, int k, int pp, int v) {
  const int group = k / (pp * v);
  const int in_group = k % (pp * v);
  int chunk = in_group / pp;
  if (kind == Kind::backward) chunk = v - 1 - chunk;
  return {kind, group * pp + in_group % pp, chunk};
}

std::vector<PipeStep> interleaved(int pp, int rank, int microbatches, int v) {
  const int total = microbatches * v;
  const int warmup = std::min((pp - rank - 1) * 2 + (v - 1) * pp, total);
  std::vector<PipeStep> out;
  int f = 0, b = 0;
  for (; f < warmup; ++f) out.push_back(virtual_step(Kind::forward, f, pp, v));
  while (f < total) {
    out.push_back(virtual_step(Kind::forward, f++, pp, v));
    out.push_back(virtual_step(Kind::backward, b++, pp, v));
  }
  while (b < total) out.push_back(virtual_step(Kind::backward, b++, pp, v));
  return out;
}

/// deepseek-ai/DualPipe dualpipe.py, DualPipe.step, transcribed phase by phase. `phase` there is
/// the direction for the first half of the ranks and the other one for the second half. DualPipeV
/// (dualpipev.py, DualPipeV.step) is the same program over all its ranks, with its two V halves for
/// the phases, the last rank for the middle ones and every micro-batch through both halves.
std::vector<PipeStep> dualpipe(int pp, int rank, int microbatches, bool v_shape) {
  const int half_ranks = v_shape ? pp : pp / 2;
  const int half_rank = v_shape ? rank : std::min(rank, pp - 1 - rank);
  const int half_m = v_shape ? microbatches : microbatches / 2;
  const int second = !v_shape && rank >= half_ranks ? 1 : 0;
  const bool middle = v_shape ? rank == pp - 1 : rank == half_ranks - 1 || rank == half_ranks;
  const int first_id = v_shape ? 0 : half_m;  // micro-batch ids of direction 1 start here
  int next_f[2] = {0, 0}, next_b[2] = {0, 0};
  std::vector<PipeStep> out;
  const auto f = [&](int phase) {
    const int d = phase ^ second;
    out.push_back({Kind::forward, d * first_id + next_f[d]++, d});
  };
  const auto b = [&](int phase, bool zero_bubble) {
    const int d = phase ^ second;
    PipeStep s{Kind::backward, d * first_id + next_b[d]++, d};
    s.defer_weights = zero_bubble;
    out.push_back(s);
  };
  const auto w = [&] { out.push_back({Kind::weight, -1, 0}); };
  const auto fb = [&](int phase0, int phase1) {
    f(phase0);
    out.back().pair_with_next = true;
    b(phase1, false);
  };
  for (int i = 0; i < (half_ranks - half_rank - 1) * 2; ++i) f(0);  // 1: nF0
  for (int i = 0; i < half_rank + 1; ++i) {                         // 2: nF0F1
    f(0);
    f(1);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 3: nB1W1F1 (zero bubble)
    b(1, true);
    w();
    f(1);
  }
  for (int i = 0; i < half_m - 2 * half_ranks + half_rank + 1; ++i) {  // 4 (main): nF0B1F1B0
    if (i == 0 && middle) {
      f(0);  // "We don't overlap these two chunks to further reduce bubble size."
      b(1, false);
    } else {
      fb(0, 1);
    }
    fb(1, 0);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 5: nB1F1B0
    b(1, false);
    fb(1, 0);
  }
  bool zero_bubble = false;  // 6: nB1B0, the second half with zero bubble
  const int step6 = half_rank + 1;
  for (int i = 0; i < step6; ++i) {
    if (i == step6 / 2 && half_rank % 2 == 1) zero_bubble = true;
    b(1, zero_bubble);
    if (i == step6 / 2 && half_rank % 2 == 0) zero_bubble = true;
    b(0, zero_bubble);
  }
  for (int i = 0; i < half_ranks - half_rank - 1; ++i) {  // 7: nWB0 (zero bubble)
    w();
    b(0, true);
  }
  for (int i = 0; i < half_rank + 1; ++i) w();  // 8: nW
  return out;
}

}  // namespace

std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages) {
  if (pp < 1 || microbatches < 1 || virtual_stages < 1)
    throw UserError("pipeline schedule needs pp, micro-batches and virtual stages >= 1");
  if (kind == PipelineSchedule::dualpipev && (virtual_stages != 2 || microbatches < 2 * pp))
    throw UserError("the dualpipev schedule runs 2 model chunks per rank (virtual_stages = " +
                    std::to_string(virtual_stages) + ") and at least 2 x pp micro-batches per pipeline (" +
                    std::to_string(microbatches) + ")");
  if (virtual_stages > 1 && kind != PipelineSchedule::interleaved && kind != PipelineSchedule::dualpipev)
    throw UserError("virtual_stages = " + std::to_string(virtual_stages) +
                    " needs the interleaved schedule (parallelism.schedule = \"interleaved\")");
  if (kind == PipelineSchedule::interleaved && virtual_stages > 1 && microbatches % pp != 0)
    throw UserError("the interleaved schedule needs the number of micro-batches per pipeline (" +
                    std::to_string(microbatches) + ") to be a multiple of pp (" + std::to_string(pp) +
                    ")");
  if (kind == PipelineSchedule::dualpipe && (pp % 2 != 0 || microbatches % 2 != 0 || microbatches < 2 * pp))
    throw UserError("the dualpipe schedule needs an even pp (" + std::to_string(pp) +
                    ") and an even number of micro-batches per pipeline, at least 2 x pp (" +
                    std::to_string(microbatches) + ")");
  std::vector<std::vector<PipeStep>> out(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& steps = out[static_cast<std::size_t>(r)];
    if (kind == PipelineSchedule::gpipe)
      steps = gpipe(microbatches);
    else if (is_dualpipe(kind))
      steps = dualpipe(pp, r, microbatches, kind == PipelineSchedule::dualpipev);
    else if (kind == PipelineSchedule::interleaved && virtual_stages > 1)
      steps = interleaved(pp, r, microbatches, virtual_stages);
    else
      steps = one_f_one_b(pp, r, microbatches);
  }
  return out;
}

std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages, int flushes) {
  if (flushes <= 1) return pipeline_schedule(kind, pp, microbatches, virtual_stages);
  if (microbatches % flushes != 0)
    throw UserError(std::to_string(flushes) +
                    " pipeline schedules per step (workload.local_batch) must divide the " +
                    std::to_string(microbatches) + " micro-batches per pipeline");
  const int each = microbatches / flushes;
  auto out = pipeline_schedule(kind, pp, each, virtual_stages);
  // Each schedule runs its own micro-batches after the one before it on every rank; no rank waits
  // for the others between them (only the data flow orders them).
  for (auto& steps : out) {
    const std::vector<PipeStep> one = steps;
    for (int f = 1; f < flushes; ++f)
      for (PipeStep step : one) {
        step.microbatch += f * each;
        steps.push_back(step);
      }
  }
  return out;
}

std::vector<std::vector<int>> lockstep_time_steps(int pp, int microbatches, int virtual_stages, int flushes) {
  const int m = microbatches / std::max(flushes, 1), v = virtual_stages;
  // ScheduleInterleaved1F1B: rounds of microbatches_per_round micro-batches (pp when pp divides m).
  const int per_round = m / std::max(1, m / pp);
  const int total = m * v;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(pp));
  int span = 0;  // time steps of one flush: the longest rank's
  for (int rank = 0; rank < pp; ++rank) {
    auto& steps = out[static_cast<std::size_t>(rank)];
    const int warmup = std::min((v - 1) * per_round + 2 * (pp - 1 - rank), total);
    // The earliest time step of the first backward, less the pre-padding and the warm-up.
    const int post_warmup = v * pp + 2 * (pp - 1 - rank) - (warmup + rank);
    int t = rank;  // pre-padding: `rank` empty steps
    // total_ops = warmup + (total - warmup) forward-backward pairs + warmup cool-down backwards.
    for (int op = 0; op < total + warmup; ++op) {
      if (op < warmup) {
        steps.push_back(t++);
        if (op == warmup - 1) t += std::max(post_warmup, 0);
      } else if (op < total) {  // a forward, then a backward
        steps.push_back(t++);
        steps.push_back(t++);
      } else {  // cool-down: an empty step, then a backward
        ++t;
        steps.push_back(t++);
      }
    }
    span = std::max(span, t);
  }
  for (auto& steps : out) {
    const std::vector<int> one = steps;
    for (int f = 1; f < flushes; ++f)
      for (const int t : one) steps.push_back(f * span + t);
  }
  return out;
}

}  // namespace stepsim::work
