#include "output/run_figures.hpp"

#include "workloads/explain.hpp"

namespace stepsim::out {

RunFigures run_figures(const work::JobSpec& job, const work::Simulation& s) {
  RunFigures f;
  const auto& m = s.metrics;
  f.step_time_s = m.step_time_s;
  f.tokens_per_s = m.tokens_per_s;
  f.tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
  f.mfu = m.mfu;
  f.bottleneck = std::string(topo::name(work::critical_bottleneck(s.report)));
  f.exposed_comm_s = s.report.mean.exposed_comm_s;
  f.fits = s.fits;
  f.peak_bytes = s.report.ranks[s.report.peak_rank].memory.peak_bytes;
  f.capacity_bytes = s.capacity_bytes;
  f.gpus = s.plan.world;
  f.cluster_per_hour = job.cluster.gpu.price_per_hour * s.plan.world;
  // Same formula as the JSON summary's cost.per_million_tokens.
  f.per_million_tokens = m.tokens_per_s > 0 ? f.cluster_per_hour / 3600.0 / m.tokens_per_s * 1e6 : 0.0;
  return f;
}

}  // namespace stepsim::out
