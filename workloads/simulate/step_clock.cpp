#include "workloads/simulate/step_clock.hpp"

#include <algorithm>
#include <cmath>

#include "topology/compute_model.hpp"
#include "workloads/bound/step_bound.hpp"
#include "workloads/layout/topology_planner.hpp"
#include "workloads/step/inference_step.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

StepClock solve_step_clock(const topo::ClockCurve& curve, double at_clock, double tensor_s, double step_s) {
  if (curve.empty()) return {-1.0, at_clock};
  if (!(step_s > 0.0) || !(at_clock > 0.0)) return {0.0, curve.at(0.0)};  // no kernels: nothing busy
  StepClock c{0.0, at_clock};
  // g(c) = curve(duty(c)) rises with c at a slope well under 1 (duty moves by at most d(1 - d) per
  // relative change of c, the curve by 0.1-0.3 per unit of duty), so the rounds converge.
  for (int round = 0; round < 100; ++round) {
    const double tensor = tensor_s * at_clock / c.clock;
    const double step = step_s + tensor - tensor_s;
    c.duty = std::clamp(tensor / step, 0.0, 1.0);
    const double next = curve.at(c.duty);
    const bool settled = std::abs(next - c.clock) < 1e-12;
    c.clock = next;
    if (settled) break;
  }
  return c;
}

StepClock train_step_clock(const JobSpec& job) {
  const topo::GpuSpec& gpu = job.cluster.gpu;
  if (gpu.clock_duty.empty()) return {-1.0, gpu.sustained_clock};
  const JobSpec high = at_clock(job, {0.0, gpu.clock_duty.highest()});
  const StepBound b = bound_train_step(high);
  return solve_step_clock(gpu.clock_duty, high.cluster.gpu.sustained_clock, to_seconds(b.tensor),
                          to_seconds(b.step));
}

StepClock plan_step_clock(const JobSpec& job, const StepPlan& plan) {
  const topo::GpuSpec& gpu = job.cluster.gpu;
  if (gpu.clock_duty.empty()) return {-1.0, gpu.sustained_clock};
  const sim::BoundTag compute = topo::tag(topo::Resource::compute);
  double tensor = 0.0, kernels = 0.0;
  for (sim::OpId i = 0; i < plan.graph.op_count(); ++i) {
    const OpInfo& info = plan.info[i];
    if (info.rank != 0 || info.is_comm || info.is_host) continue;
    const sim::Op op = plan.graph.op(i);
    if (op.kind != sim::OpKind::compute && op.kind != sim::OpKind::memory) continue;
    const double s = to_seconds(op.work);
    kernels += s;
    const topo::Resource bound = op.bound == compute ? topo::Resource::compute : topo::Resource::hbm;
    if (op.kind == sim::OpKind::compute && topo::tensor_bound(info.op_class, bound)) tensor += s;
  }
  return solve_step_clock(gpu.clock_duty, gpu.sustained_clock, tensor, kernels);
}

StepClock step_clock(const JobSpec& job, const std::shared_ptr<const topo::Topology>& topology,
                     const topo::CommConfig& comm) {
  const topo::GpuSpec& gpu = job.cluster.gpu;
  if (gpu.clock_duty.empty()) return {-1.0, gpu.sustained_clock};
  if (job.workload.kind == WorkloadKind::train) return train_step_clock(job);
  const JobSpec high = at_clock(job, {0.0, gpu.clock_duty.highest()});
  TopologyPlanner probe(topology, comm, topo::FlowNetworkOptions{});
  return plan_step_clock(high, build_inference_step(high, probe, {RankMode::representative}));
}

JobSpec at_clock(const JobSpec& job, const StepClock& clock) {
  JobSpec out = job;
  out.cluster.gpu.sustained_clock = clock.clock;
  return out;
}

}  // namespace stepsim::work
