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

}  // namespace

std::vector<std::vector<PipeStep>> pipeline_schedule(PipelineSchedule kind, int pp, int microbatches,
                                                     int virtual_stages) {
  if (pp < 1 || microbatches < 1 || virtual_stages < 1)
    throw UserError("pipeline schedule needs pp, micro-batches and virtual stages >= 1");
  if (virtual_stages > 1 && kind != PipelineSchedule::interleaved)
    throw UserError("virtual_stages = " + std::to_string(virtual_stages) +
                    " needs the interleaved schedule (parallelism.schedule = \"interleaved\")");
  if (kind == PipelineSchedule::interleaved && virtual_stages > 1 && microbatches % pp != 0)
    throw UserError("the interleaved schedule needs the number of micro-batches per pipeline (" +
                    std::to_string(microbatches) + ") to be a multiple of pp (" + std::to_string(pp) +
                    ")");
  std::vector<std::vector<PipeStep>> out(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& steps = out[static_cast<std::size_t>(r)];
    if (kind == PipelineSchedule::gpipe)
      steps = gpipe(microbatches);
    else if (kind == PipelineSchedule::interleaved && virtual_stages > 1)
      steps = interleaved(pp, r, microbatches, virtual_stages);
    else
      steps = one_f_one_b(pp, r, microbatches);
  }
  return out;
}

}  // namespace stepsim::work
