#include "output/run/run_figures.hpp"

#include <cctype>

#include "output/common/format.hpp"

namespace stepsim::out {

RunFigures run_figures(const work::JobSpec& job, const work::Simulation& s) {
  RunFigures f;
  const auto& m = s.metrics;
  f.step_time_s = m.step_time_s;
  f.tokens_per_s = m.tokens_per_s;
  f.tokens_per_s_per_gpu = m.tokens_per_s_per_gpu;
  f.mfu = m.mfu;
  // StepMetrics::mfu divides by the dense peak of the linear layers' precision.
  for (const char c : topo::name(job.precision.compute))
    f.mfu_peak += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  f.mfu_peak_flops = job.cluster.gpu.peak_flops(job.precision.compute).value();
  f.verdict = work::step_verdict(s.report);
  f.bottleneck = verdict_text(f.verdict);
  f.exposed_comm_s = s.report.mean.exposed_comm_s;
  f.host_busy_s = s.report.host_busy_s;
  f.fits = s.fits;
  f.peak_bytes = s.report.ranks[s.report.peak_rank].memory.peak.value();
  f.capacity_bytes = s.usable_hbm.value();
  f.headroom_bytes = f.capacity_bytes - f.peak_bytes;
  f.gpus = s.plan.world;
  f.cluster_per_hour = job.cluster.gpu.price_per_hour * s.plan.world;
  // Same formula as the JSON summary's cost.per_million_tokens.
  f.per_million_tokens = m.tokens_per_s > 0 ? f.cluster_per_hour / 3600.0 / m.tokens_per_s * 1e6 : 0.0;
  return f;
}

std::string verdict_text(const work::StepVerdict& v) {
  std::string s = v.primary.label + " (" + format_percent(v.primary_share) + " of the step)";
  if (v.secondary.seconds > 0.0)
    s += ", then " + v.secondary.label + " (" + format_percent(v.secondary_share) + ")";
  return s;
}

std::string feasibility_text(const RunFigures& f) {
  const std::string peak =
      "peak " + format_bytes(f.peak_bytes) + " of " + format_bytes(f.capacity_bytes) + " usable per GPU, ";
  return f.fits ? "fits: " + peak + format_bytes(f.headroom_bytes) + " headroom"
                : "DOES NOT FIT: " + peak + format_bytes(-f.headroom_bytes) + " over";
}

}  // namespace stepsim::out
