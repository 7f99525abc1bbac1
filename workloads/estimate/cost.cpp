// Prices per unit of each resource and per token.
#include <limits>

#include "sim/units.hpp"
#include "workloads/estimate/estimate_parts.hpp"

namespace stepsim::work {

namespace {

/// price / amount, or NaN ("not applicable") when the GPU lacks the resource.
double per(double price, double amount) {
  return amount > 0.0 ? price / amount : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

CostEstimate cost_lines(const JobSpec& job, double tokens_per_s_per_gpu) {
  const topo::GpuSpec& g = job.cluster.gpu;
  const double price = g.price_per_hour;
  CostEstimate c;
  c.per_gpu_hour = price;
  c.per_tflop_hour = per(price, units::in_tflops_per_s(g.peak_flops(job.precision.compute)));
  c.per_tb_s_hour = per(price, units::in_tb_per_s(g.hbm_bw));
  c.per_gb_hour = per(price, units::in_gb(g.hbm_capacity));
  c.per_gbps_hour = per(price, units::in_gbit_per_s(job.cluster.nic_bw()));
  // Dollars per hour over tokens per hour, per million tokens.
  c.per_million_tokens = per(price, tokens_per_s_per_gpu * 3600.0) * 1e6;
  c.cluster_per_hour = price * job.parallel.world();
  return c;
}

}  // namespace stepsim::work
