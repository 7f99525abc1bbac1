#pragma once
// A list-scheduling evaluator of pipeline schedules for tests: each rank runs its steps in order,
// one at a time, a step starting when its rank is free and what it receives has been produced
// (free communication). Costs are per model chunk: a forward F, a backward's data-gradient part
// Bd and weight-gradient part W (a backward that defers its weights costs Bd, its weight step W),
// an overlapped pair the sum of its two halves (no overlap).

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "workloads/step/pipeline_schedule.hpp"

namespace stepsim::work::testing {

struct UnitCosts {
  double f = 1.0, bd = 1.0, w = 1.0;
};

/// Per rank, when its last step ends. Stages: 1F1B's chunk 0 is the rank's stage; DualPipe's
/// chunk is the direction and DualPipeV's the half of its V (model_chunk).
inline std::vector<double> list_schedule(const std::vector<std::vector<PipeStep>>& sched,
                                         PipelineSchedule kind, UnitCosts c) {
  using Kind = PipeStep::Kind;
  const int pp = static_cast<int>(sched.size());
  const bool v_shape = kind == PipelineSchedule::dualpipev;
  const int stages = v_shape ? 2 * pp : pp;
  const auto stage = [&](int rank, int chunk) {
    return is_dualpipe(kind) ? model_chunk(kind, pp, rank, chunk) : rank;
  };
  std::map<std::tuple<int, int, int>, double> done;  // (kind, micro-batch, stage) -> end
  std::vector<double> clock(static_cast<std::size_t>(pp), 0.0);
  std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
  for (bool moved = true; moved;) {
    moved = false;
    for (int r = 0; r < pp; ++r) {
      const auto& steps = sched[static_cast<std::size_t>(r)];
      auto& i = next[static_cast<std::size_t>(r)];
      while (i < steps.size()) {
        const std::size_t n = steps[i].pair_with_next ? 2 : 1;
        double ready = clock[static_cast<std::size_t>(r)], cost = 0.0;
        bool waiting = false;
        for (std::size_t k = i; k < i + n && !waiting; ++k) {
          const PipeStep& s = steps[k];
          if (s.kind == Kind::weight) {
            cost += c.w;
            continue;
          }
          const int j = stage(r, s.chunk);
          const bool fwd = s.kind == Kind::forward;
          const int from = fwd ? j - 1 : j + 1;
          if (from >= 0 && from < stages) {
            const auto it = done.find({fwd ? 0 : 1, s.microbatch, from});
            if (it == done.end()) {
              waiting = true;
              break;
            }
            ready = std::max(ready, it->second);
          }
          cost += fwd ? c.f : c.bd + (s.defer_weights ? 0.0 : c.w);
        }
        if (waiting) break;
        const double end = ready + cost;
        for (std::size_t k = i; k < i + n; ++k)
          if (steps[k].kind != Kind::weight)
            done[{steps[k].kind == Kind::forward ? 0 : 1, steps[k].microbatch, stage(r, steps[k].chunk)}] =
                end;
        clock[static_cast<std::size_t>(r)] = end;
        i += n;
        moved = true;
      }
    }
  }
  for (int r = 0; r < pp; ++r)
    if (next[static_cast<std::size_t>(r)] < sched[static_cast<std::size_t>(r)].size())
      throw std::logic_error("list_schedule: the schedule deadlocks");
  return clock;
}

}  // namespace stepsim::work::testing
