#include "output/sweep/sweep_eval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "output/common/format.hpp"
#include "workloads/bound/step_bound.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/explain.hpp"

namespace stepsim::out {
namespace {

constexpr double kEvalNaN = std::numeric_limits<double>::quiet_NaN();

const work::StepMetrics* metrics(const PointOutcome& o) {
  return o.simulation ? &o.simulation->metrics : nullptr;
}
double exposed(const PointOutcome& o, work::ParallelDim d) {
  return o.simulation ? o.simulation->report.mean.exposed_comm_s[static_cast<std::size_t>(d)] : kEvalNaN;
}
const work::MemoryPeak* peak(const PointOutcome& o) {
  return o.simulation ? &o.simulation->report.ranks[o.simulation->report.peak_rank].memory : nullptr;
}
/// USD per million tokens at `tokens_per_s` on the scenario's GPUs; NaN without a price or rate.
double usd_per_mtok(const PointOutcome& o, double tokens_per_s) {
  const auto& job = o.scenario.job;
  const double per_hour = job.cluster.gpu.price_per_hour * job.parallel.world();
  return tokens_per_s > 0 && per_hour > 0 ? per_hour / 3600.0 / tokens_per_s * 1e6 : kEvalNaN;
}

std::vector<std::string> recompute_names() {
  std::vector<std::string> out;
  for (const work::Recompute r : {work::Recompute::none, work::Recompute::selective, work::Recompute::full})
    out.emplace_back(work::name(r));
  return out;
}
std::vector<std::string> resource_names() {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < static_cast<std::size_t>(topo::Resource::count); ++r)
    out.emplace_back(topo::name(static_cast<topo::Resource>(r)));
  return out;
}

#define STEPSIM_INT(expr) [](const PointOutcome& o) -> Cell { return static_cast<std::int64_t>(expr); }
#define STEPSIM_REAL(expr) [](const PointOutcome& o) -> Cell { return static_cast<double>(expr); }
#define STEPSIM_TEXT(expr) [](const PointOutcome& o) -> Cell { return std::string(expr); }
#define STEPSIM_SIM(field) STEPSIM_REAL(metrics(o) ? metrics(o)->field : kEvalNaN)

const ResultColumn kResults[] = {
    {"gpus", ColumnType::int64, "GPUs of the job (dp x tp x pp x cp)",
     STEPSIM_INT(o.scenario.job.parallel.world())},
    {"dp", ColumnType::int64, "data-parallel size as resolved", STEPSIM_INT(o.scenario.job.parallel.dp)},
    {"tp", ColumnType::int64, "tensor-parallel size", STEPSIM_INT(o.scenario.job.parallel.tp)},
    {"pp", ColumnType::int64, "pipeline stages", STEPSIM_INT(o.scenario.job.parallel.pp)},
    {"cp", ColumnType::int64, "context-parallel size", STEPSIM_INT(o.scenario.job.parallel.cp)},
    {"ep", ColumnType::int64, "expert-parallel size", STEPSIM_INT(o.scenario.job.parallel.ep)},
    {"virtual_stages", ColumnType::int64, "interleaved chunks per pipeline rank",
     STEPSIM_INT(o.scenario.job.parallel.virtual_stages)},
    {"micro_batch", ColumnType::int64, "sequences per micro-batch",
     STEPSIM_INT(o.scenario.job.workload.micro_batch)},
    {"zero_stage", ColumnType::int64, "ZeRO stage", STEPSIM_INT(o.scenario.job.parallel.zero_stage)},
    {"recompute", ColumnType::text, "none, selective or full",
     STEPSIM_TEXT(work::name(o.scenario.job.recompute)), recompute_names},
    {"step_time_s", ColumnType::float64, "simulated step time", STEPSIM_SIM(step_time_s)},
    {"tokens_per_s", ColumnType::float64, "job-wide throughput", STEPSIM_SIM(tokens_per_s)},
    {"tokens_per_s_per_gpu", ColumnType::float64, "throughput per GPU", STEPSIM_SIM(tokens_per_s_per_gpu)},
    {"mfu", ColumnType::float64, "model FLOPs utilisation", STEPSIM_SIM(mfu)},
    {"hfu", ColumnType::float64, "hardware FLOPs utilisation (recompute counted)", STEPSIM_SIM(hfu)},
    {"model_tflops_per_gpu", ColumnType::float64, "model TFLOP/s per GPU", STEPSIM_SIM(model_tflops_per_gpu)},
    {"bottleneck", ColumnType::text, "resource that bounds most of the critical path",
     STEPSIM_TEXT(o.simulation ? topo::name(work::critical_bottleneck(o.simulation->report)) : ""),
     resource_names},
    {"compute_s", ColumnType::float64, "mean per rank: compute-bound kernels",
     STEPSIM_REAL(o.simulation ? o.simulation->report.mean.compute_s : kEvalNaN)},
    {"memory_bound_s", ColumnType::float64, "mean per rank: HBM-bound kernels",
     STEPSIM_REAL(o.simulation ? o.simulation->report.mean.memory_bound_s : kEvalNaN)},
    {"exposed_tp_s", ColumnType::float64, "exposed TP communication",
     STEPSIM_REAL(exposed(o, work::ParallelDim::tp))},
    {"exposed_cp_s", ColumnType::float64, "exposed CP communication",
     STEPSIM_REAL(exposed(o, work::ParallelDim::cp))},
    {"exposed_ep_s", ColumnType::float64, "exposed EP communication",
     STEPSIM_REAL(exposed(o, work::ParallelDim::ep))},
    {"exposed_pp_s", ColumnType::float64, "exposed PP communication",
     STEPSIM_REAL(exposed(o, work::ParallelDim::pp))},
    {"exposed_dp_s", ColumnType::float64, "exposed DP communication",
     STEPSIM_REAL(exposed(o, work::ParallelDim::dp))},
    {"bubble_s", ColumnType::float64, "pipeline bubble",
     STEPSIM_REAL(o.simulation ? o.simulation->report.mean.bubble_s : kEvalNaN)},
    {"host_bound_s", ColumnType::float64, "compute waiting for host kernel launches",
     STEPSIM_REAL(o.simulation ? o.simulation->report.mean.host_bound_s : kEvalNaN)},
    {"sm_clock", ColumnType::float64,
     "held SM clock over the short-run one (the GPU's clock at the step's duty)",
     STEPSIM_REAL(o.simulation ? o.simulation->clock.clock : kEvalNaN)},
    {"tensor_core_duty", ColumnType::float64,
     "share of the step the busiest GPU's tensor cores are busy (NaN: the GPU has one fixed clock)",
     STEPSIM_REAL(o.simulation&& o.simulation->clock.duty >= 0.0 ? o.simulation->clock.duty : kEvalNaN)},
    {"memory_peak_bytes", ColumnType::float64, "busiest GPU's memory peak",
     STEPSIM_REAL(peak(o) ? peak(o)->peak.value() : kEvalNaN)},
    {"memory_capacity_bytes", ColumnType::float64, "HBM per GPU that tensors can use",
     STEPSIM_REAL(o.scenario.job.cluster.gpu.usable_hbm().value())},
    {"fits", ColumnType::int64,
     "1 if the simulated peak fits in HBM, 0 if not (or if its lower bound does not), -1 not simulated",
     STEPSIM_INT(o.simulation ? (o.simulation->fits ? 1 : 0) : (o.memory_bound_bytes > 0.0 ? 0 : -1))},
    {"usd_per_million_tokens", ColumnType::float64, "GPU-hour price at the simulated rate",
     STEPSIM_REAL(usd_per_mtok(o, metrics(o) ? metrics(o)->tokens_per_s : 0.0))},
    {"est_step_time_s", ColumnType::float64, "closed-form estimate: step time",
     STEPSIM_REAL(o.estimate.step_time_s)},
    {"est_tokens_per_s_per_gpu", ColumnType::float64, "estimate: throughput per GPU",
     STEPSIM_REAL(o.estimate.tokens_per_s_per_gpu)},
    {"est_bound", ColumnType::text, "estimate: binding resource", STEPSIM_TEXT(topo::name(o.estimate.bound)),
     resource_names},
    {"est_mfu", ColumnType::float64, "estimate: MFU", STEPSIM_REAL(o.estimate.mfu)},
    {"est_memory_bytes", ColumnType::float64, "estimate: busiest GPU's memory",
     STEPSIM_REAL(o.estimate.memory ? o.estimate.memory->total().value() : kEvalNaN)},
    {"est_fits", ColumnType::int64, "estimate: 1 fits, 0 does not, -1 unknown",
     STEPSIM_INT(o.estimate.memory ? (o.estimate.memory->fits() ? 1 : 0) : -1)},
    {"est_usd_per_million_tokens", ColumnType::float64, "estimate: price at the bound rate",
     STEPSIM_REAL(usd_per_mtok(o, o.estimate.tokens_per_s_cluster))},
};

#undef STEPSIM_INT
#undef STEPSIM_REAL
#undef STEPSIM_TEXT
#undef STEPSIM_SIM

std::string gb(double bytes) {
  return format_bytes(bytes);
}

/// Fills status, message and results from a finished point.
void fill(Row& row, const SweepSchema& schema, const PointOutcome& o) {
  bool fits = true;
  std::string message;
  if (o.simulation) {
    fits = o.simulation->fits;
    if (!fits) {
      const auto& r = o.simulation->report.ranks[o.simulation->report.peak_rank];
      message = "memory peak " + gb(r.memory.peak.value()) + " on rank " + std::to_string(r.rank) +
                " (stage " + std::to_string(r.stage) + ") exceeds " + gb(o.simulation->usable_hbm.value()) +
                " of HBM";
    }
  } else if (o.memory_bound_bytes > 0.0) {
    fits = false;
    message = "memory peak at least " + gb(o.memory_bound_bytes) +
              " (static memory and the activations before the first backward step) exceeds " +
              gb(o.scenario.job.cluster.gpu.usable_hbm().value()) + " of HBM; not simulated";
  } else if (o.estimate.memory && !o.estimate.memory->fits()) {
    fits = false;
    message = "estimated memory " + gb(o.estimate.memory->total().value()) + " on stage " +
              std::to_string(o.estimate.memory->stage) + " exceeds " +
              gb(o.estimate.memory->capacity.value()) + " of HBM";
  }
  row[schema.first_result] = std::string(name(fits ? PointStatus::ok : PointStatus::out_of_memory));
  row[schema.first_result + 1] = std::move(message);
  std::size_t c = schema.first_result + 2;
  for (const ResultColumn& r : kResults) row[c++] = r.get(o);
}

}  // namespace

std::span<const ResultColumn> result_columns() {
  return kResults;
}

std::shared_ptr<const topo::Topology> TopologyCache::get(const std::string& key,
                                                         const topo::ClusterSpec& cluster) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = by_key_.find(key); it != by_key_.end()) return it->second;
  }
  // Built outside the lock: two threads may build the same one; the first stored wins.
  auto built = std::make_shared<const topo::Topology>(cluster);
  std::lock_guard lock(mutex_);
  auto [it, inserted] = by_key_.emplace(key, std::move(built));
  if (inserted) {
    order_.push_back(key);
    if (order_.size() > capacity_) {
      by_key_.erase(order_.front());
      order_.erase(order_.begin());
    }
  }
  return it->second;
}

PointEvaluator::PointEvaluator(const scen::Sweep& sweep, const scen::Catalog& catalog, std::uint64_t max_ops)
    : sweep_(sweep), scenarios_(sweep, catalog), schema_(sweep_schema(sweep)), max_ops_(max_ops) {}

std::string PointEvaluator::program_key(std::span<const std::uint32_t> steps) const {
  return scenarios_.program_key(scen::point_values(sweep_, steps));
}

double PointEvaluator::cost(std::span<const std::uint32_t> steps) const {
  if (sweep_.mode == scen::SweepMode::estimate) return 0.0;
  try {
    const scen::Scenario s = scenarios_.load(scen::point_values(sweep_, steps));
    if (s.job.workload.kind == work::WorkloadKind::generate ||
        s.job.workload.kind == work::WorkloadKind::serve)
      return 0.0;
    return work::step_size(s.job, work::SimulateOptions{}.ranks).ops();
  } catch (const std::exception&) {
    return 0.0;  // evaluate() records why
  }
}

Row PointEvaluator::evaluate(std::uint64_t index, std::span<const std::uint32_t> steps,
                             work::StepProgram& program) const {
  const std::vector<const scen::SweepValue*> values = scen::point_values(sweep_, steps);
  Row row = empty_row(schema_, index, values);
  const auto fail = [&](PointStatus s, const std::string& what) {
    row = empty_row(schema_, index, values);
    row[schema_.first_result] = std::string(name(s));
    row[schema_.first_result + 1] = what;
  };
  try {
    const scen::Scenario s = scenarios_.load(values);
    if (s.job.workload.kind == work::WorkloadKind::generate ||
        s.job.workload.kind == work::WorkloadKind::serve)
      throw UserError(
          s.where("workload.kind"), "workload.kind",
          "sweeps evaluate one step per point, not a whole generation or a serving run",
          "sweep kind = \"decode\" or \"prefill\" steps, or run each generation with `stepsim run`");
    if (sweep_.mode == scen::SweepMode::estimate) {
      const work::Estimate e = work::estimate(s.job);
      fill(row, schema_, PointOutcome{s, nullptr, e});
    } else {
      work::SimulateOptions options;
      options.max_ops = max_ops_;
      // Before the topology is built: a point of ten million GPUs is refused, not built.
      work::check_step_size(s.job, options.ranks, options.max_ops);
      // A training step whose memory lower bound is over HBM cannot fit: its time is not a result
      // (its row says so), so it is not simulated. Sweeps of layouts are often half such points.
      if (s.job.workload.kind == work::WorkloadKind::train && !s.job.variability.active()) {
        const double bound = work::bound_train_step(s.job).memory_bytes;
        if (bound > s.job.cluster.gpu.usable_hbm().value()) {
          fill(row, schema_, PointOutcome{s, nullptr, work::estimate(s.job), bound});
          return row;
        }
      }
      work::Simulation sim =
          program.simulate(s.job, topologies_.get(scenarios_.cluster_key(values), s.job.cluster), options);
      fill(row, schema_, PointOutcome{s, &sim, sim.estimate});
      program.reclaim(std::move(sim));
    }
  } catch (const UserError& e) {
    fail(PointStatus::invalid, e.what());
  } catch (const std::exception& e) {
    fail(PointStatus::failed, std::string("internal error: ") + e.what());
  }
  return row;
}

}  // namespace stepsim::out
