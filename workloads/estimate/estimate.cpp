// Assembles the stepsim estimate: demands per resource, rates, the bound, memory, cost, sizing.
#include "workloads/estimate/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

#include "sim/units.hpp"
#include "workloads/estimate/estimate_parts.hpp"

namespace stepsim::work {

namespace {

/// The scale-up tier: NVLink where the GPU has it, otherwise PCIe between the GPUs of a node.
struct ScaleUp {
  topo::Resource resource = topo::Resource::nvlink;
  double bw_Bps = 0.0;
  int domain = 1;  ///< GPUs that share it
};

ScaleUp scale_up_of(const topo::ClusterSpec& c) {
  if (c.gpu.nvlink_bw.value() > 0.0 && c.nvlink_domain > 1)
    return {topo::Resource::nvlink, c.gpu.nvlink_bw.value(), c.nvlink_domain};
  if (c.gpu.pcie_bw.value() > 0.0 && c.gpus_per_node > 1)
    return {topo::Resource::pcie, c.gpu.pcie_bw.value(), c.gpus_per_node};
  return {c.gpu.nvlink_bw.value() > 0.0 ? topo::Resource::nvlink : topo::Resource::pcie, 0.0, 1};
}

ResourceRate make_rate(topo::Resource r, double demand, double usable, double stretch = 1.0) {
  const double tokens = demand > 0.0 ? usable / demand / stretch : std::numeric_limits<double>::infinity();
  return {r, demand, usable, tokens};
}

double pipeline_bubble(const JobSpec& job, const StepShape& s) {
  if (!s.training() || job.parallel.pp <= 1) return 0.0;
  // 1F1B and GPipe idle (p-1) micro-batch slots per step; interleaving divides that by v.
  // DualPipe idles (p/2 - 1)(F&B + B - 3W) against m (F + B) of work per rank (its README), which
  // with F = W = B/2 (the weight half of the backward) and a sequential F&B = F + B is 2(p/2 - 1)
  // of 3m units.
  if (job.parallel.schedule == PipelineSchedule::dualpipe)
    return 2.0 * (job.parallel.pp / 2.0 - 1.0) / (3.0 * s.micro_batches);
  // DualPipeV: the same over its 2p stages of half a rank's layers, 2m chunks per rank.
  if (job.parallel.schedule == PipelineSchedule::dualpipev)
    return (job.parallel.pp - 1.0) / (3.0 * s.micro_batches);
  const double v = job.parallel.schedule == PipelineSchedule::interleaved ? job.parallel.virtual_stages : 1.0;
  return (job.parallel.pp - 1.0) / (v * s.micro_batches);
}

/// Compute, HBM, the scale-up tier and the NIC, in that order (ties go to the earlier).
std::vector<ResourceRate> resource_rates(const JobSpec& job, const Estimate& e, const ScaleUp& up) {
  const topo::GpuSpec& g = job.cluster.gpu;
  const topo::Efficiency& eff = g.eff;
  double up_bytes = 0.0, out_bytes = 0.0;
  for (const NetworkTerm& t : e.network) {
    up_bytes += t.scale_up_bytes_per_token;
    out_bytes += t.scale_out_bytes_per_token;
  }
  const double peak = g.peak_flops(job.precision.compute).value();
  return {make_rate(topo::Resource::compute, e.flops.busiest_gpu, eff.estimate_compute * peak,
                    1.0 + e.pipeline_bubble),
          make_rate(topo::Resource::hbm, e.hbm.total(), eff.estimate_memory * g.hbm_bw.value()),
          make_rate(up.resource, up_bytes, eff.estimate_network * up.bw_Bps),
          make_rate(topo::Resource::nic, out_bytes, eff.estimate_network * job.cluster.nic_bw().value())};
}

/// Everything but sizing.
Estimate core(const JobSpec& job) {
  const StepShape s = step_shape(job);
  const ParamShares params = param_shares(job.model);
  const topo::GpuSpec& g = job.cluster.gpu;
  const ScaleUp up = scale_up_of(job.cluster);
  Estimate e;
  e.kind = s.kind;
  e.gpus = s.world;
  e.tokens_per_step = s.tokens_per_step;
  e.params = params.total();
  e.active_params = params.active();
  e.flops = flops_per_token(job, params, s);
  e.hbm = hbm_per_token(job, params, s);
  e.network = network_terms(job, params, s, up.domain);
  e.pipeline_bubble = pipeline_bubble(job, s);
  e.rates = resource_rates(job, e, up);
  const ResourceRate* best = &e.rates.front();
  for (const ResourceRate& r : e.rates)
    if (r.tokens_per_s < best->tokens_per_s) best = &r;
  e.bound = best->resource;
  e.tokens_per_s_per_gpu = best->tokens_per_s;
  e.tokens_per_s_cluster = e.tokens_per_s_per_gpu * e.gpus;
  e.step_time_s = e.tokens_per_step / e.tokens_per_s_cluster;
  const double peak = g.peak_flops(job.precision.compute).value();
  e.mfu = e.flops.model * e.tokens_per_s_per_gpu / peak;
  e.intensity_flops_per_byte = e.flops.busiest_gpu / e.hbm.total();
  e.ridge_flops_per_byte = peak / g.hbm_bw.value();
  e.memory = memory_per_gpu(job, params, s);
  e.cost = cost_lines(job, e.tokens_per_s_per_gpu);
  return e;
}

/// The job with `dp` replicas of the same model-parallel shape, on as many nodes as that needs.
JobSpec with_replicas(const JobSpec& job, int dp) {
  JobSpec j = job;
  j.parallel.dp = dp;
  const int gpus = j.parallel.world();
  j.cluster.nodes = (gpus + j.cluster.gpus_per_node - 1) / j.cluster.gpus_per_node;
  return j;
}

/// Replica counts sizing may use: multiples of `step` (ep x expert_tp must divide tp x cp x dp)
/// up to `max` (training: one micro-batch per replica at least).
struct ReplicaRange {
  int step = 1;
  int max = 1;
};

ReplicaRange replica_range(const JobSpec& job) {
  const ParallelSpec& par = job.parallel;
  ReplicaRange r;
  const int experts = par.ep * par.expert_tp;
  r.step = experts / std::gcd(experts, par.tp * par.cp);
  const bool training = job.workload.kind == WorkloadKind::train;
  const int most = training ? job.workload.global_batch / job.workload.micro_batch
                            : 1'000'000;  // replicas: far beyond any real cluster
  r.max = most / r.step * r.step;
  return r;
}

/// Smallest replica count reaching the target. The first guess ignores how data-parallel costs
/// grow (the per-GPU rate at the fewest replicas is the highest), so it is a lower bound; from it the
/// count doubles until the target is reached, then bisects back. Each probe re-estimates the whole
/// job. Where the cluster rate dips (a data-parallel group first leaving the NVLink domain) the
/// answer is the edge the bisection lands on: it always reaches the target. `found` is false when
/// even the most replicas do not.
int search_replicas(const JobSpec& job, double target, const ReplicaRange& range, Estimate& e, bool& found) {
  const int replica = job.parallel.world() / job.parallel.dp;
  auto round_up = [&](long long dp) {
    return static_cast<int>(
        std::clamp<long long>((dp + range.step - 1) / range.step * range.step, range.step, range.max));
  };
  auto reaches = [&](int replicas, Estimate& out) {
    out = core(with_replicas(job, replicas));
    return out.tokens_per_s_cluster >= target * (1.0 - 1e-9);
  };
  const Estimate smallest = core(with_replicas(job, range.step));
  int hi = round_up(ceil_count(target / (replica * smallest.tokens_per_s_per_gpu)));
  int lo = 0;  // largest count known to fall short
  while (!(found = reaches(hi, e)) && hi < range.max) {
    lo = hi;
    hi = round_up(2LL * hi);
  }
  if (!found) return hi;
  while (hi - lo > range.step) {  // invariant: hi reaches (e is its estimate), lo does not
    Estimate mid_e;
    const int mid = (lo + hi) / 2 / range.step * range.step;
    if (mid <= lo) break;
    if (reaches(mid, mid_e)) {
      hi = mid;
      e = mid_e;
    } else {
      lo = mid;
    }
  }
  return hi;
}

Sizing size_for_target(const JobSpec& job, double target) {
  Sizing z;
  z.target_tokens_per_s = target;
  const ReplicaRange range = replica_range(job);
  const bool training = job.workload.kind == WorkloadKind::train;
  if (range.max < range.step) {
    z.feasible = false;
    z.note = "the global batch is too small for even one group of expert-parallel replicas";
    return z;
  }
  Estimate e;
  bool found = false;
  const int dp = search_replicas(job, target, range, e, found);
  if (!found) {
    z.feasible = false;
    z.note = "the global batch of " + std::to_string(job.workload.global_batch) +
             " sequences allows at most " + std::to_string(range.max) +
             " replicas; more throughput needs a larger batch or more model parallelism";
  } else if (training && job.workload.global_batch % (dp * job.workload.micro_batch) != 0) {
    z.note = "global batch not divisible by dp x micro_batch at this size; micro-batches per rank averaged";
  }
  if (e.memory && !e.memory->fits())
    z.note += std::string(z.note.empty() ? "" : "; ") + "this layout does not fit in GPU memory at that size";
  z.dp_needed = dp;
  z.gpus_needed = dp * (job.parallel.world() / job.parallel.dp);
  z.tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
  z.cluster_cost_per_hour = z.gpus_needed * job.cluster.gpu.price_per_hour;
  z.cluster_hbm_Bps = target * e.hbm.total();
  return z;
}

std::string gb(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / units::kGB);
  return buf;
}

void add_notes(const JobSpec& job, Estimate& e) {
  if (e.memory && !e.memory->fits())
    e.notes.push_back("does not fit: the most loaded GPU needs " + gb(e.memory->total().value()) + " of " +
                      gb(e.memory->capacity.value()));
  if (job.workload.kind == WorkloadKind::decode && job.parallel.cp > 1)
    e.notes.push_back("context parallelism is not modelled for decode; cp only splits the work");
  if (job.parallel.expert_tp > 1)
    e.notes.push_back("expert tensor parallelism shards expert weights; its collectives are not priced");
  if (job.cluster.nvls)
    e.notes.push_back("NVLink SHARP (nvls) is not used by the estimate: all-reduces are priced as rings");
}

}  // namespace

Estimate estimate_stepsim(const JobSpec& job) {
  Estimate e = core(job);
  add_notes(job, e);
  if (job.estimate.target_tokens_per_s) e.sizing = size_for_target(job, *job.estimate.target_tokens_per_s);
  return e;
}

Estimate estimate(const JobSpec& job) {
  return job.estimate.formulas == EstimateFormulas::notebook ? estimate_notebook(job) : estimate_stepsim(job);
}

std::string_view name(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_gather: return "all_gather";
    case Collective::all_to_all: return "all_to_all";
    case Collective::send_recv: return "send_recv";
  }
  return "unknown";
}

}  // namespace stepsim::work
