#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "tests/support/fixtures.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/model/params.hpp"
#include "workloads/simulate/explain.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// Llama-2-7B on one round GPU (test::round_gpu(), no launch overhead, so a kernel takes exactly its
/// roofline time): 1,000 TFLOP/s, 2 TB/s HBM at 0.85, 80 GB; FP32 60 TFLOP/s.
JobSpec inference(WorkloadKind kind, int batch) {
  JobSpec j;
  j.model = test::llama2_7b();
  j.cluster.gpu = test::round_gpu();
  j.cluster.gpu.fp32_peak = units::flops_per_s(60e12);
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 1;
  j.cluster.nvlink_domain = 1;
  j.workload.kind = kind;
  j.workload.batch = batch;
  j.workload.seq_len = 2048;
  j.workload.context_len = 1000;
  return j;
}

constexpr double kParams = 6'738'415'616.0;
constexpr double kEmbedding = 131'072'000.0;
constexpr double kKvPerToken = 2.0 * 32 * 32 * 128 * 2;  // 524,288 B: K and V, 32 layers, bf16

}  // namespace

TEST_CASE("the model's parameter count is what the inference test derives") {
  CHECK(count_params(test::llama2_7b()).total == kParams);
  CHECK(kv_bytes_per_token(test::llama2_7b(), 2.0) == kKvPerToken);
}

TEST_CASE("decode at batch 1 streams the weights and the cache: HBM-bound") {
  const Simulation s = simulate(inference(WorkloadKind::decode, 1));
  CHECK(critical_bottleneck(s.report) == topo::Resource::hbm);
  // Every weight but the input embedding (a lookup of one row) is read once, and the cache of
  // context + 1 = 1,001 tokens: (6,738,415,616 - 131,072,000) x 2 + 1,001 x 524,288 = 13,739,477,120 B
  // at 2 TB/s x 0.85 = 8.082 ms. Activations at batch 1 are a few MB more.
  const double bytes = (kParams - kEmbedding) * 2.0 + 1001 * kKvPerToken;
  const double expected = bytes / (2e12 * 0.85);
  CHECK(s.report.step_time_s == Approx(expected).epsilon(0.05));
  CHECK(s.report.step_time_s >= expected);
  // One token per step for one sequence.
  CHECK(s.metrics.latency_s == s.report.step_time_s);
  CHECK(s.metrics.tokens_per_s_per_replica == Approx(1.0 / s.report.step_time_s));
}

TEST_CASE("prefill of a large batch is compute-bound") {
  const Simulation s = simulate(inference(WorkloadKind::prefill, 8));
  CHECK(critical_bottleneck(s.report) == topo::Resource::compute);
  // 8 prompts of 2,048 tokens; the step is the time to the first token.
  CHECK(s.plan.tokens_per_step == 8.0 * 2048);
  CHECK(s.metrics.latency_s == s.report.step_time_s);
  // The prompt's keys and values stay in the cache: 8 x 2,048 x 524,288 B = 8.59 GB.
  CHECK(s.plan.static_memory[0].kv_cache == Approx(8.0 * 2048 * kKvPerToken));
}

TEST_CASE("the KV capacity limit is reference.md's formula") {
  // Largest batch at context T = floor((capacity - weights) / (T x KV bytes per token)):
  // (80e9 - 2 x 6,738,415,616) / (1,000 x 524,288) = 126.89 -> 126; the longest context at batch 4:
  // 66,523,168,768 / (4 x 524,288) = 31,720.6 -> 31,720.
  const Simulation s = simulate(inference(WorkloadKind::decode, 4));
  const double free = 80e9 - 2.0 * kParams;
  CHECK(s.plan.kv.max_batch == static_cast<long long>(std::floor(free / (1000 * kKvPerToken))));
  CHECK(s.plan.kv.max_batch == 126);
  CHECK(s.plan.kv.max_context == 31'720);
  // The KV calculator (stepsim kv) says the same for one GPU holding the whole model.
  KvQuery q;
  q.context = 1000;
  q.batch = 4;
  q.params = kParams;
  q.gpu = inference(WorkloadKind::decode, 4).cluster.gpu;
  CHECK(size_kv(test::llama2_7b(), q).max_batch == std::optional<long long>(s.plan.kv.max_batch));
  CHECK(size_kv(test::llama2_7b(), q).max_context == std::optional<long long>(s.plan.kv.max_context));
}

TEST_CASE("decode of an MoE model reads only the experts its tokens pick") {
  JobSpec job = inference(WorkloadKind::decode, 1);
  job.model.experts = 8;
  job.model.top_k = 2;
  job.model.expert_ffn = 1024;
  const Simulation s = simulate(job);
  // One token picks 2 of the 8 experts: the grouped up-projection reads 2 x 4096 x (2 x 1024)
  // weights of 2 B = 33,554,432 B, plus the token's activations (4096 in, 2 x 2 x 1024 out, 2 B).
  bool found = false;
  for (sim::OpId op = 0; op < s.plan.graph.op_count() && !found; ++op) {
    if (std::string(s.plan.graph.label(op)).find("experts_up") == std::string::npos) continue;
    found = true;
    const double weights = 2.0 * 4096 * 2048 * 2;
    CHECK(s.plan.graph.op(op).bytes == Approx(weights + 2.0 * (2 * 4096 + 2 * 2048)));
  }
  CHECK(found);
}
