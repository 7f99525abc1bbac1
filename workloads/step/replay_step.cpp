#include "workloads/step/replay_step.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/error.hpp"
#include "sim/replay.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/replay_fabric.hpp"

namespace stepsim::work {
namespace replay_step_detail {

/// Where the copies of a representative plan stand: every processor's pipeline stage (one simulated
/// rank per stage), the GPUs per stage, and the GPU copy j of a processor's program is.
struct CopyMap {
  RankLayout layout;
  std::vector<int> stage;  ///< per processor, -1 for none
  std::uint32_t width = 1;

  CopyMap(const JobSpec& job, const StepPlan& plan)
      : layout(job.parallel),
        stage(plan.graph.processor_count(), -1),
        width(static_cast<std::uint32_t>(layout.world() / job.parallel.pp)) {
    if (plan.ranks.size() != static_cast<std::size_t>(job.parallel.pp))
      throw std::logic_error("replay: the plan is not one simulated rank per pipeline stage");
    for (const SimRank& r : plan.ranks) stage[r.processor] = r.stage;
  }
  int gpu(sim::ProcessorId processor, std::uint32_t copy) const {
    return layout.stage_rank(stage[processor], static_cast<int>(copy));
  }
};

/// One comm op's groups as groups of copies (RankLayout::stage_index); groups whose members are
/// one copy (a pipeline pair, its two GPUs at one position of two stages) wait for nobody.
sim::ReplayLayout::Partition copy_groups(const CopyMap& map, const std::vector<std::vector<int>>& groups) {
  sim::ReplayLayout::Partition part;
  for (const std::vector<int>& group : groups) {
    std::vector<std::uint32_t> copies;
    for (const int rank : group) copies.push_back(static_cast<std::uint32_t>(map.layout.stage_index(rank)));
    std::sort(copies.begin(), copies.end());
    copies.erase(std::unique(copies.begin(), copies.end()), copies.end());
    if (copies.size() < 2) continue;
    part.members.insert(part.members.end(), copies.begin(), copies.end());
    part.offsets.push_back(static_cast<std::uint32_t>(part.members.size()));
  }
  return part;
}

/// The copies of a representative plan's ops: copy j of the stage-s program is the GPU
/// RankLayout::stage_rank(s, j), and copy j of an op between two stages joins their j-th GPUs
/// (they differ only in pp). Each comm op's recorded groups become groups of copies.
sim::ReplayLayout replay_layout(const CopyMap& map, const StepPlan& plan) {
  sim::ReplayLayout out;
  out.width = map.width;
  out.op_partition.assign(plan.graph.op_count(), sim::ReplayLayout::kNoPartition);
  // comm_groups index -> partition index, converted on first use.
  std::vector<std::uint32_t> converted(plan.comm_groups.size(), sim::ReplayLayout::kNoPartition);
  std::vector<std::uint8_t> done(plan.comm_groups.size(), 0);
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const OpInfo& info = plan.info[op];
    if (!info.is_comm) continue;
    const std::size_t g = info.comm_groups;
    if (g >= plan.comm_groups.size())
      throw std::logic_error("replay: " + plan.graph.describe(op) + " has no recorded groups");
    if (!done[g]) {
      done[g] = 1;
      sim::ReplayLayout::Partition part = copy_groups(map, plan.comm_groups[g]);
      if (part.group_count() > 0) {
        converted[g] = static_cast<std::uint32_t>(out.partitions.size());
        out.partitions.push_back(std::move(part));
      }
    }
    out.op_partition[op] = converted[g];
  }
  return out;
}

/// [variability] for a replay of `plan`: row p x width + j is the GPU map.gpu(p, j).
sim::Variation replay_variation(const VariabilitySpec& v, const StepPlan& plan, const CopyMap& map,
                                const std::vector<double>& gpu_factors) {
  // The per-processor figures (jitter, stall odds per kernel of a program), then one row per copy.
  const sim::Variation per_program = plan_variation(v, plan, {});
  sim::Variation out;
  out.jitter_sigma = per_program.jitter_sigma;
  out.wander_sigma = per_program.wander_sigma;  // keyed by row: each GPU wanders on its own
  out.wander_window = per_program.wander_window;
  out.stall = per_program.stall;
  const std::size_t rows = map.stage.size() * map.width;
  out.processor_factor.assign(rows, 1.0);
  if (!per_program.stall_probability.empty()) out.stall_probability.assign(rows, 0.0);
  for (std::size_t p = 0; p < map.stage.size(); ++p) {
    if (map.stage[p] < 0) continue;
    for (std::uint32_t j = 0; j < map.width; ++j) {
      const auto gpu = static_cast<std::size_t>(map.gpu(static_cast<sim::ProcessorId>(p), j));
      const std::size_t row = p * map.width + j;
      if (gpu < gpu_factors.size()) out.processor_factor[row] = gpu_factors[gpu];
      if (!out.stall_probability.empty()) out.stall_probability[row] = per_program.stall_probability[p];
    }
  }
  return out;
}

/// What one replayed step's critical chain waited on (as step_waits for a run of every rank).
StepWaits replay_waits(const StepPlan& plan, const CopyMap& map, const sim::Replay& replay,
                       const sim::ReplayResult& result, const sim::Variation* variation,
                       const std::vector<double>& gpu_factors, std::size_t top) {
  StepWaits w;
  std::map<int, double> per_gpu;
  for (const sim::ReplayLink& l : result.critical) {
    const sim::OpExec& e = plan.graph.exec(l.op);
    if (e.kind != sim::OpKind::compute && e.kind != sim::OpKind::memory) continue;
    const int gpu = map.gpu(e.aux, l.copy);
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

}  // namespace replay_step_detail

StepDistribution replay_steps(const JobSpec& job, const StepPlan& plan, const sim::RunResult& run, int count,
                              const topo::TransferTable& transfers,
                              std::shared_ptr<const topo::Topology> fabric, const topo::CommConfig& config) {
  using namespace replay_step_detail;
  const VariabilitySpec& v = job.variability;
  const CopyMap map(job, plan);
  sim::ReplayLayout copies = replay_layout(map, plan);
  const FabricScaling scaled =
      scale_degraded_transfers(job, plan, transfers, std::move(fabric), config, copies);
  sim::Replay replay(plan.graph, run, copies);
  const std::vector<double> factors = gpu_time_factors(v, plan.world, job.cluster.gpus_per_node);
  sim::Variation variation = replay_variation(v, plan, map, factors);
  const sim::Variation* varied = v.active() ? &variation : nullptr;
  StepDistribution out;
  out.replayed = true;
  out.nominal_s = to_seconds(run.makespan);
  for (int step = 0; step < std::max(1, count); ++step) {
    variation.seed = step_seed(v, static_cast<std::uint64_t>(step));
    const sim::ReplayResult r = replay.run(varied, true);
    out.instances += r.instances;
    record_step(out, variation.seed, to_seconds(r.makespan),
                replay_waits(plan, map, replay, r, varied, factors, 5));
  }
  out.replay_bytes = replay.memory_bytes();
  out.degraded_ops = scaled.ops;
  out.degraded_copies = scaled.copies;
  out.degraded_max_factor = scaled.max_factor;
  summarise_steps(out, factors);
  return out;
}

}  // namespace stepsim::work
