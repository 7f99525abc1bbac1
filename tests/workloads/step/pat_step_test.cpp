// A step's data-parallel collectives at one rank per node meet NCCL's PAT as the framework calls
// them: gathers may run PAT, reduce-scatters only when the framework sums (ReduceOp.AVG rules PAT
// out, NCCL's enqueue.cc), as ParallelSpec::average_in_collective says.
#include <catch2/catch.hpp>

#include "workloads/layout/comm_planner.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// ZeRO-3 over 8 nodes of 8 H100-like GPUs, TP 8 inside each node, so each data-parallel group
/// holds one rank per node. A layer of this small model is 4 x 512^2 + 3 x 512 x 1,024 = 2.62 M
/// parameters, 0.33 M per TP rank: gathers and gradient reductions of 0.66-1.3 MB, inside the range
/// where NCCL's model prefers PAT on 8 nodes (52 KB to 2.19 MB, tests/topology/nccl_pat_test.cpp).
JobSpec pat_job(bool average) {
  JobSpec j;
  j.model.layers = 4;
  j.model.hidden = 512;
  j.model.heads = 4;
  j.model.kv_heads = 4;
  j.model.head_dim = 128;
  j.model.ffn = 1024;
  j.model.vocab = 32000;
  j.model.activation = Activation::swiglu;
  j.workload.seq_len = 2048;
  j.workload.micro_batch = 1;
  j.workload.global_batch = 16;
  j.parallel.tp = 8;
  j.parallel.dp = 8;
  j.parallel.zero_stage = 3;
  j.parallel.average_in_collective = average;
  auto& g = j.cluster.gpu;
  g.id = "test-h100";
  g.arch = topo::GpuArch::hopper;
  g.bf16_peak = units::flops_per_s(989e12);
  g.fp32_peak = units::flops_per_s(67e12);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  g.hbm_capacity = units::bytes(80e9);
  g.nvlink_bw = units::bytes_per_s(450e9);
  g.nic_bw = units::bytes_per_s(50e9);
  g.eff.nic = 0.85;
  g.eff.nvlink = 0.82;
  g.kernel_gap_s = 4e-6;
  j.cluster.nodes = 8;
  j.cluster.gpus_per_node = 8;
  j.cluster.nvlink_domain = 8;
  j.cluster.fabric.kind = topo::FabricKind::rail_optimized;
  return j;
}

struct Algorithms {
  int gathers = 0, gathers_pat = 0, scatters = 0, scatters_pat = 0;
};

/// The gathers and reduce-scatters of the layers' weights and gradients (the embedding's and the
/// head's, 32,000 x 512 / 8 x 2 bytes = 4.1 MB, are beyond PAT's range and run the ring); the TP
/// collectives are all-reduces (no sequence parallelism).
Algorithms layer_algorithms(const Simulation& s) {
  Algorithms a;
  for (std::uint32_t i = 0; i < s.transfers->size(); ++i) {
    const topo::TransferInfo& t = s.transfers->info(i);
    const bool pat = t.algorithm == topo::CollectiveAlgorithm::pat;
    if (t.bytes > 2.19e6) {
      CHECK_FALSE(pat);
      continue;
    }
    if (t.op == topo::CollectiveOp::all_gather) ++a.gathers, a.gathers_pat += pat;
    if (t.op == topo::CollectiveOp::reduce_scatter) ++a.scatters, a.scatters_pat += pat;
  }
  return a;
}

}  // namespace

TEST_CASE("data-parallel reduce-scatters run PAT only when the framework sums them", "[collectives][pat]") {
  // The ZeRO-3 job's data-parallel collectives are the per-layer weight gathers and gradient
  // reduce-scatters; its tensor-parallel ones stay inside each node (8 ranks on one NCCL node).
  const Simulation sum = simulate(pat_job(false));
  const Algorithms s = layer_algorithms(sum);
  REQUIRE(s.gathers > 0);
  REQUIRE(s.scatters > 0);
  CHECK(s.gathers_pat == s.gathers);
  CHECK(s.scatters_pat == s.scatters);
  // FSDP2 or Megatron-Core with average_in_collective: ReduceOp.AVG, which NCCL runs without PAT.
  const JobSpec avg_job = pat_job(true);
  CHECK(averages_in_collective(avg_job, ParallelDim::dp, CollectiveKind::reduce_scatter));
  CHECK_FALSE(averages_in_collective(avg_job, ParallelDim::dp, CollectiveKind::all_gather));
  CHECK_FALSE(averages_in_collective(avg_job, ParallelDim::tp, CollectiveKind::reduce_scatter));
  const Simulation avg = simulate(avg_job);
  const Algorithms a = layer_algorithms(avg);
  CHECK(a.gathers_pat == a.gathers);
  CHECK(a.scatters == s.scatters);
  CHECK(a.scatters_pat == 0);
  // The ring is slower than PAT at these sizes (that is why NCCL's model picks PAT), so averaging
  // costs the step time on an exposed reduction, never gains it.
  CHECK(avg.metrics.step_time_s >= sum.metrics.step_time_s);
}
