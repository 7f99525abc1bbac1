// Rates, the bound, cost lines and sizing of the stepsim formulas.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/support/fixtures.hpp"
#include "workloads/estimate/estimate.hpp"

using namespace stepsim;
using namespace stepsim::work;

TEST_CASE("Rates per resource, the bound and the figures at the bound") {
  const Estimate e = estimate(test::tiny_training());
  REQUIRE(e.rates.size() == 4);
  CHECK(e.rates[0].resource == topo::Resource::compute);
  CHECK(e.rates[0].usable_per_s == 0.5e15);                          // 0.5 x 1,000 TFLOP/s
  CHECK(e.rates[0].tokens_per_s == Approx(0.5e15 / 548'929'536.0));  // 910,863.7
  CHECK(e.rates[1].resource == topo::Resource::hbm);
  CHECK(e.rates[1].tokens_per_s == Approx(1.6e12 / 1'998'649.3125));  // 800,540.6
  CHECK(e.rates[2].resource == topo::Resource::nvlink);
  CHECK(e.rates[3].resource == topo::Resource::nic);
  // The small model streams more bytes per FLOP than the ridge allows: HBM binds.
  CHECK(e.bound == topo::Resource::hbm);
  CHECK(e.tokens_per_s_per_gpu == e.rates[1].tokens_per_s);
  CHECK(e.tokens_per_s_cluster == 8 * e.tokens_per_s_per_gpu);
  CHECK(e.step_time_s == Approx(0.020466169));             // 131,072 / (8 x 800,540.64)
  CHECK(e.mfu == Approx(0.43944040));                      // 548,929,536 x 800,540.64 / 1e15
  CHECK(e.intensity_flops_per_byte == Approx(274.65025));  // 548,929,536 / 1,998,649.3125
  CHECK(e.ridge_flops_per_byte == 500.0);                  // 1e15 / 2e12
}

TEST_CASE("The pipeline bubble stretches the compute rate") {
  JobSpec j = test::tiny_training();
  j.parallel.pp = 2;
  j.parallel.dp = 2;
  const Estimate e = estimate(j);
  // Bubble (p-1)/m = 1/16: 0.5e15 / 548,929,536 / (1 + 1/16).
  CHECK(e.rates[0].tokens_per_s == Approx(0.5e15 / 548'929'536.0 / 1.0625));
}

TEST_CASE("Cost lines from the GPU's hourly price") {
  const Estimate e = estimate(test::tiny_training());
  CHECK(e.cost.per_gpu_hour == 2.0);
  CHECK(e.cost.per_tflop_hour == 0.002);  // $2 / 1,000 TFLOP/s
  CHECK(e.cost.per_tb_s_hour == 1.0);     // $2 / 2 TB/s
  CHECK(e.cost.per_gb_hour == 0.025);     // $2 / 80 GB
  CHECK(e.cost.per_gbps_hour == 0.005);   // $2 / 400 Gb/s
  // $2 / (800,540.64 tokens/s x 3,600 s) x 1e6 = $0.000694 per million tokens.
  CHECK(e.cost.per_million_tokens == Approx(0.00069397546));
  CHECK(e.cost.cluster_per_hour == 16.0);  // 8 GPUs
  JobSpec no_nic = test::tiny_training();
  no_nic.cluster.gpu.nic_bw = units::bytes_per_s(0.0);
  CHECK(std::isnan(estimate(no_nic).cost.per_gbps_hour));  // not applicable, not free
}

TEST_CASE("Sizing decode replicas for a target rate") {
  JobSpec j = test::tiny_training();
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = 16;
  j.workload.context_len = 1000;
  j.estimate.target_tokens_per_s = 1e6;
  const Estimate e = estimate(j);
  REQUIRE(e.sizing);
  // 50,882.30 tokens/s per GPU, 2 GPUs per replica: ceil(1e6 / 101,764.6) = 10 replicas = 20 GPUs.
  CHECK(e.sizing->feasible);
  CHECK(e.sizing->dp_needed == 10);
  CHECK(e.sizing->gpus_needed == 20);
  CHECK(e.sizing->cluster_cost_per_hour == 40.0);
}

TEST_CASE("Sizing training: the smallest replica count whose cluster rate meets the target") {
  JobSpec j = test::tiny_training();
  const double target = 1e7;
  j.estimate.target_tokens_per_s = target;
  const Estimate e = estimate(j);
  REQUIRE(e.sizing);
  REQUIRE(e.sizing->feasible);
  const int dp = e.sizing->dp_needed;
  CHECK(e.sizing->gpus_needed == 2 * dp);
  // Re-estimate at dp and dp - 1 replicas: the first meets the target, the second does not.
  auto cluster_rate = [&](int replicas) {
    JobSpec k = j;
    k.parallel.dp = replicas;
    k.cluster.nodes = (2 * replicas + 7) / 8;
    k.estimate.target_tokens_per_s.reset();
    return estimate(k).tokens_per_s_cluster;
  };
  CHECK(cluster_rate(dp) >= target);
  CHECK(cluster_rate(dp - 1) < target);
  // The optimizer's share per token grows with dp (each rank has fewer tokens): per-GPU rate falls.
  CHECK(e.sizing->tokens_per_s_per_gpu < e.tokens_per_s_per_gpu);
}

TEST_CASE("Sizing training beyond what the global batch allows is reported as infeasible") {
  JobSpec j = test::tiny_training();
  j.estimate.target_tokens_per_s = 1e12;
  const Estimate e = estimate(j);
  REQUIRE(e.sizing);
  CHECK_FALSE(e.sizing->feasible);
  CHECK(e.sizing->dp_needed == 32);  // 64 sequences / micro-batch 2
  CHECK_THAT(e.sizing->note, Catch::Contains("at most 32 replicas"));
}

TEST_CASE("estimate() follows the formulas the job asks for") {
  JobSpec j = test::tiny_training();
  j.estimate.notebook = {1e8, 6.0, 1.0, 16.0, 5.0, 131'072.0, 2.0, 4};
  CHECK(estimate(j).formulas == EstimateFormulas::stepsim);
  j.estimate.formulas = EstimateFormulas::notebook;
  const Estimate nb = estimate(j);
  CHECK(nb.formulas == EstimateFormulas::notebook);
  CHECK(nb.flops.hardware == 6e8);  // 1.0 x 6 x 1e8
  CHECK(nb.network.empty());
}

TEST_CASE("Sizing keeps expert parallelism valid: replicas in multiples of ep / gcd(ep, cp)") {
  JobSpec j = test::tiny_training();
  j.model.experts = 8;
  j.model.top_k = 2;
  j.model.expert_ffn = 1024;
  j.parallel.tp = 1;
  j.parallel.dp = 8;
  j.parallel.ep = 8;
  j.workload.global_batch = 256;  // up to 128 replicas of micro-batch 2
  j.estimate.target_tokens_per_s = 3e7;
  const Estimate e = estimate(j);
  REQUIRE(e.sizing);
  CHECK(e.sizing->feasible);
  CHECK(e.sizing->dp_needed % 8 == 0);  // ep 8 must divide dp x cp = dp
  CHECK(e.sizing->gpus_needed == e.sizing->dp_needed);
  j.parallel.cp = 2;  // ep 8 over dp x cp: dp in multiples of 8 / gcd(8, 2) = 4
  j.parallel.dp = 4;
  j.cluster.nodes = 1;
  const Estimate f = estimate(j);
  REQUIRE(f.sizing);
  CHECK(f.sizing->dp_needed % 4 == 0);
}
