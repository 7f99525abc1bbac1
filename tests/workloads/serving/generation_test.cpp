#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/fixtures.hpp"
#include "workloads/serving/generation.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// tiny_gpt on one round GPU: a static batch of 8 prompts of 512 tokens, generating `out` tokens.
JobSpec generation(int out) {
  JobSpec j = test::tiny_inference(WorkloadKind::generate);
  j.workload.output_len = out;
  return j;
}

}  // namespace

TEST_CASE("a static batch is its prefill plus every decode step over the growing cache") {
  const JobSpec job = generation(40);
  const Generation g = simulate_generation(job);
  // By hand: decode step k = 1..39 generates token k + 1 from a cache of 512 + k - 1 tokens; summing
  // every one of the 39 simulated steps is the exact decode time the sampling approximates.
  double exact = 0.0;
  for (int k = 1; k <= 39; ++k) exact += simulate(decode_job(job, 512 + k - 1)).metrics.step_time_s;
  CHECK(g.decode_s == Approx(exact).epsilon(1e-3));
  CHECK(std::abs(g.decode_s - exact) <= g.integration_error_s + 1e-3 * exact);
  CHECK(int(g.points.size()) < 39);  // fewer steps simulated than the batch has
  // TPOT is the decode time per generated token after the first; the prefill yields the first.
  CHECK(g.tpot_s == Approx(exact / 39).epsilon(1e-3));
  CHECK(g.ttft_s == simulate(prefill_job(job)).metrics.step_time_s);
  CHECK(g.total_s == g.ttft_s + g.decode_s);
  // 8 sequences x 40 tokens on one GPU over the whole batch's latency.
  CHECK(g.output_tokens_per_s_per_gpu == Approx(8.0 * 40 / g.total_s));
  // The cache grows by one token per sequence per step: batch x tokens x KV bytes per token.
  const DecodePoint& last = g.points.back();
  CHECK(last.context_tokens == 512 + 38);
  CHECK(last.output_position == 40);
  CHECK(g.points.front().kv_bytes_per_gpu < last.kv_bytes_per_gpu);
}

TEST_CASE("a sliding window's bend splits the integration, which stays within its stated error") {
  // Every layer slides over 530 tokens: a decode step's keys grow with the context up to 529 and stay
  // at the window after, a bend inside the 512 .. 550 contexts of the batch's 39 decode steps.
  JobSpec job = generation(40);
  job.model.attention_window = 530;
  const Generation g = simulate_generation(job);
  double exact = 0.0;
  for (int k = 1; k <= 39; ++k) exact += simulate(decode_job(job, 512 + k - 1)).metrics.step_time_s;
  CHECK(std::abs(g.decode_s - exact) <= g.integration_error_s + 1e-3 * exact);
  bool bend = false;  // the bend's step is one of those simulated
  for (const DecodePoint& p : g.points) bend = bend || p.context_tokens == 529;
  CHECK(bend);
  // The windowed steps are cheaper than the global ones past the bend.
  CHECK(g.decode_s < simulate_generation(generation(40)).decode_s);
}

TEST_CASE("one output token is the prefill alone") {
  const Generation g = simulate_generation(generation(1));
  CHECK(g.points.empty());
  CHECK_FALSE(g.last_decode);
  CHECK(g.total_s == g.ttft_s);
  CHECK(g.tpot_s == 0.0);
}

TEST_CASE("a per-query-head decode kernel reads a grouped cache once per query head") {
  JobSpec job = generation(2);
  job.model.kv_heads = 4;  // 16 query heads in 4 groups of 4
  job.workload.kind = WorkloadKind::decode;
  job.workload.context_len = 4096;
  CHECK(decode_kv_reads(job) == 1.0);
  job.workload.decode_attention = DecodeAttention::per_query_head;
  // 16 / 4 = 4 query heads per KV head on one GPU; with tp 2 each rank has 8 query heads and 2 KV
  // heads: still 4; with tp 8, 2 query heads share a replicated KV head: 2.
  CHECK(decode_kv_reads(job) == 4.0);
  job.parallel.tp = 2;
  CHECK(decode_kv_reads(job) == 4.0);
  job.parallel.tp = 8;
  CHECK(decode_kv_reads(job) == 2.0);
  // MHA has one query head per KV head: nothing changes.
  job.parallel.tp = 1;
  job.model.kv_heads = 16;
  CHECK(decode_kv_reads(job) == 1.0);
  // The attention kernel's cache reads grow by the factor: 8 sequences x 4,097 keys x (K + V of 4
  // heads x 64) x 2 B = 33.56 MB grouped, 4 x that per query head.
  job.model.kv_heads = 4;
  const auto attn_bytes = [](const JobSpec& j) {
    const Simulation s = simulate(j);
    for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op)
      if (std::string(s.plan.graph.label(op)).find(".attn") != std::string::npos)
        return s.plan.graph.op(op).bytes;
    return 0.0;
  };
  JobSpec grouped = job;
  grouped.workload.decode_attention = DecodeAttention::grouped;
  const double cache = 8.0 * 4097 * (2 * 4 * 64) * 2;
  const double io = attn_bytes(grouped) - cache;  // the queries and outputs the kernel also moves
  // 8 queries read and 8 outputs written, each 16 heads x 64 in bf16: 8 x (1024 + 1024) x 2 B.
  CHECK(io == 8.0 * (1024 + 1024) * 2);
  CHECK(attn_bytes(job) == Approx(io + 4 * cache));
}
