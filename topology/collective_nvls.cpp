// NVLink SHARP (NVLS) all-reduce inside one NVLink domain.
//
// Reduce-scatter by multimem loads: for its 1/p slice each GPU has the switch fetch that slice from
// all p GPUs and return the sum, so every GPU's uplink carries S (all slices) and its downlink S/p.
// All-gather by multimem stores: each GPU sends its reduced slice once (S/p up) and the switch
// multicasts it, so every downlink receives S. Per GPU and direction: S (1 + 1/p), at the GPU's
// NVLS efficiency; plus the fixed NVLS cost and one NVLink step for each half.
#include "topology/collective_plan.hpp"

namespace stepsim::topo {

Plan build_nvls_all_reduce(AlgoContext& ctx) {
  const double p = static_cast<double>(ctx.layouts[0].ranks);
  const double per_direction = 1.0 + 1.0 / p;
  double step = 0.0;
  for (const GroupLayout& layout : ctx.layouts)
    for (const auto& host : layout.hosts)
      for (GpuId g : host) {
        ctx.builder.add_link(ctx.topo.scaleup_up(g), per_direction, ctx.nvls_efficiency);
        ctx.builder.add_link(ctx.topo.scaleup_down(g), per_direction, ctx.nvls_efficiency);
        step = ctx.topo.link(ctx.topo.scaleup_up(g)).latency_s +
               ctx.topo.link(ctx.topo.scaleup_down(g)).latency_s;
      }
  PlanPhase phase;
  phase.latency_s = ctx.topo.spec().gpu.nvls_latency_s + 2.0 * step;
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::nvls, {std::move(phase)}};
}

}  // namespace stepsim::topo
