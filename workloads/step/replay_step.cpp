#include "workloads/step/replay_step.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/error.hpp"
#include "workloads/step/rank_sink.hpp"

namespace stepsim::work {
namespace {

/// Processor -> pipeline stage of a representative plan (one simulated rank per stage).
std::vector<int> processor_stages(const StepPlan& plan) {
  std::vector<int> stage(plan.graph.processor_count(), -1);
  for (const SimRank& r : plan.ranks) stage[r.processor] = r.stage;
  return stage;
}

std::uint32_t stage_width(const JobSpec& job) {
  return static_cast<std::uint32_t>(RankLayout(job.parallel).world() / job.parallel.pp);
}

}  // namespace

sim::ReplayLayout replay_layout(const JobSpec& job, const StepPlan& plan) {
  const RankLayout layout(job.parallel);
  if (plan.ranks.size() != static_cast<std::size_t>(job.parallel.pp))
    throw std::logic_error("replay: the plan is not one simulated rank per pipeline stage");
  sim::ReplayLayout out;
  out.width = stage_width(job);
  out.op_partition.assign(plan.graph.op_count(), sim::ReplayLayout::kNoPartition);
  // comm_groups index -> partition index (kNoPartition when every group is one copy).
  std::vector<std::uint32_t> converted(plan.comm_groups.size(), sim::ReplayLayout::kNoPartition);
  std::vector<std::uint8_t> done(plan.comm_groups.size(), 0);
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const OpInfo& info = plan.info[op];
    if (!info.is_comm) continue;
    if (info.comm_groups == OpInfo::kNoCommGroups || info.comm_groups >= plan.comm_groups.size())
      throw std::logic_error("replay: " + plan.graph.describe(op) + " has no recorded groups");
    const std::size_t g = info.comm_groups;
    if (!done[g]) {
      done[g] = 1;
      sim::ReplayLayout::Partition part;
      for (const std::vector<int>& group : plan.comm_groups[g]) {
        std::vector<std::uint32_t> copies;
        for (const int rank : group) copies.push_back(static_cast<std::uint32_t>(layout.stage_index(rank)));
        std::sort(copies.begin(), copies.end());
        copies.erase(std::unique(copies.begin(), copies.end()), copies.end());
        if (copies.size() < 2) continue;  // one GPU per stage of the group (a pipeline pair): no wait
        part.members.insert(part.members.end(), copies.begin(), copies.end());
        part.offsets.push_back(static_cast<std::uint32_t>(part.members.size()));
      }
      if (part.group_count() > 0) {
        converted[g] = static_cast<std::uint32_t>(out.partitions.size());
        out.partitions.push_back(std::move(part));
      }
    }
    out.op_partition[op] = converted[g];
  }
  return out;
}

int replay_gpu(const RankLayout& layout, const StepPlan& plan, sim::ProcessorId processor,
               std::uint32_t copy) {
  for (const SimRank& r : plan.ranks)
    if (r.processor == processor) return layout.stage_rank(r.stage, static_cast<int>(copy));
  throw std::logic_error("replay: processor " + std::to_string(processor) + " is no simulated rank's");
}

sim::Variation replay_variation(const VariabilitySpec& v, const StepPlan& plan, const RankLayout& layout,
                                std::uint32_t width, const std::vector<double>& gpu_factors) {
  // The per-processor figures (jitter, stall odds per kernel of a program), then one row per copy.
  const sim::Variation per_program = plan_variation(v, plan, {});
  sim::Variation out;
  out.jitter_sigma = per_program.jitter_sigma;
  out.stall = per_program.stall;
  const std::vector<int> stage = processor_stages(plan);
  const std::size_t rows = stage.size() * width;
  out.processor_factor.assign(rows, 1.0);
  if (!per_program.stall_probability.empty()) out.stall_probability.assign(rows, 0.0);
  for (std::size_t p = 0; p < stage.size(); ++p) {
    if (stage[p] < 0) continue;
    for (std::uint32_t j = 0; j < width; ++j) {
      const auto gpu = static_cast<std::size_t>(layout.stage_rank(stage[p], static_cast<int>(j)));
      const std::size_t row = p * width + j;
      if (gpu < gpu_factors.size()) out.processor_factor[row] = gpu_factors[gpu];
      if (!out.stall_probability.empty()) out.stall_probability[row] = per_program.stall_probability[p];
    }
  }
  return out;
}

StepWaits replay_waits(const StepPlan& plan, const RankLayout& layout, const sim::Replay& replay,
                       const sim::ReplayResult& result, const sim::Variation* variation,
                       const std::vector<double>& gpu_factors, std::size_t top) {
  StepWaits w;
  std::map<int, double> per_gpu;
  for (const sim::ReplayLink& l : result.critical) {
    const sim::OpExec& e = plan.graph.exec(l.op);
    if (e.kind != sim::OpKind::compute && e.kind != sim::OpKind::memory) continue;
    const int gpu = replay_gpu(layout, plan, e.aux, l.copy);
    const double d = to_seconds(l.end - l.start);
    per_gpu[gpu] += d;
    const double added = to_seconds(l.end - l.start - l.nominal);
    if (added > 0.0) {
      const std::size_t row = static_cast<std::size_t>(e.aux) * replay.width() + l.copy;
      const bool stalled = variation != nullptr && variation->stalls_of(replay.key(l.op, l.copy), row);
      w.ops.push_back({op_label(plan, l.op), gpu, d, added, stalled});
    }
  }
  for (const auto& [gpu, s] : per_gpu)
    w.ranks.push_back({gpu, s,
                       static_cast<std::size_t>(gpu) < gpu_factors.size()
                           ? gpu_factors[static_cast<std::size_t>(gpu)]
                           : 1.0});
  sort_waits(w, top);
  return w;
}

StepDistribution replay_steps(const JobSpec& job, const StepPlan& plan, const sim::RunResult& run,
                              int count) {
  if (!job.cluster.degraded.empty())
    throw UserError(
        "--ranks replay holds every collective at its representative duration, and a degraded link makes "
        "one group's collectives slower than the others': simulate every GPU (stepsim run --ranks all)");
  const VariabilitySpec& v = job.variability;
  const RankLayout layout(job.parallel);
  const sim::ReplayLayout copies = replay_layout(job, plan);
  sim::Replay replay(plan.graph, run, copies);
  const std::vector<double> factors = gpu_time_factors(v, plan.world, job.cluster.gpus_per_node);
  sim::Variation variation = replay_variation(v, plan, layout, copies.width, factors);
  const bool varies = v.active();
  StepDistribution out;
  out.replayed = true;
  out.nominal_s = to_seconds(run.makespan);
  const int n = std::max(1, count);
  for (int step = 0; step < n; ++step) {
    variation.seed = step_seed(v, static_cast<std::uint64_t>(step));
    const sim::ReplayResult r = replay.run(varies ? &variation : nullptr, true);
    out.instances += r.instances;
    StepWaits waits = replay_waits(plan, layout, replay, r, varies ? &variation : nullptr, factors, 5);
    record_step(out, variation.seed, to_seconds(r.makespan), std::move(waits));
  }
  out.replay_bytes = replay.memory_bytes();
  summarise_steps(out, factors);
  return out;
}

}  // namespace stepsim::work
