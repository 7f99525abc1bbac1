// Local attention (sliding windows and chunks): the pair counts, a layer's attention FLOPs, the keys a
// decode step reads and the KV cache a local layer keeps, each derived by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/estimate/estimate_parts.hpp"
#include "workloads/model/attention_window.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/model/params.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace {

const AttentionSpan kSliding4096{4096, AttentionWindowKind::sliding};
const AttentionSpan kChunks3000{3000, AttentionWindowKind::chunked};

/// Llama-2-7B decoding on one round GPU (no launch overheads: a kernel takes its roofline time).
JobSpec decode_job(int batch, int context) {
  JobSpec j;
  j.model = test::llama2_7b();
  j.cluster.gpu = test::round_gpu();
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 1;
  j.cluster.nvlink_domain = 1;
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = batch;
  j.workload.context_len = context;
  return j;
}

/// Training on one round GPU: seq 2048, one sequence per step.
JobSpec train_job(const ModelSpec& m) {
  JobSpec j;
  j.model = m;
  j.cluster.gpu = test::round_gpu();
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 1;
  j.cluster.nvlink_domain = 1;
  j.workload.kind = WorkloadKind::train;
  j.workload.seq_len = 2048;
  j.workload.global_batch = 1;
  j.workload.micro_batch = 1;
  return j;
}

/// Gemma-2-style alternation on Llama-2-7B: layers 0, 2, ... slide over 256 tokens, 1, 3, ... are global.
ModelSpec alternating(ModelSpec m, int window) {
  m.attention_window = window;
  m.global_attention_every = 2;
  return m;
}

constexpr double kLlama2Params = 6'738'415'616.0;
constexpr double kLlama2Embedding = 131'072'000.0;
constexpr double kKvLayerToken = 2.0 * 32 * 128 * 2;  // 16,384 B: K and V of 32 heads of 128, bf16

}  // namespace

TEST_CASE("causal pairs: s^2 / 2 globally, s w - w^2 / 2 sliding, whole chunks causal on their own") {
  CHECK(causal_pairs(8192, {}) == 8192.0 * 8192 / 2);
  // 8,192 x 4,096 - 4,096^2 / 2 = 33,554,432 - 8,388,608 = 25,165,824: 3/4 of the global 33,554,432.
  CHECK(causal_pairs(8192, kSliding4096) == 25'165'824.0);
  // Chunks of 3,000: two whole (2 x 3,000^2 / 2 = 9,000,000) and 2,192 left (2,192^2 / 2 = 2,402,432).
  CHECK(causal_pairs(8192, kChunks3000) == 11'402'432.0);
  // A window at least as long as the sequence changes nothing.
  CHECK(causal_pairs(4096, kSliding4096) == 4096.0 * 4096 / 2);
  CHECK(causal_pairs(3000, kChunks3000) == 3000.0 * 3000 / 2);
  // The newest of 5,000 tokens sees 4,096 keys through the window, 2,000 in its chunk (5,000 - 3,000).
  CHECK(attended_keys_at(5000, kSliding4096) == 4096.0);
  CHECK(attended_keys_at(5000, kChunks3000) == 2000.0);
  CHECK(attended_keys_at(3000, kChunks3000) == 3000.0);
  CHECK(attended_keys_at(3001, kChunks3000) == 1.0);
  CHECK(cached_tokens(5000, kSliding4096) == 4096.0);
}

/// Llama-2-7B at TP 4 with two sequences of 2,048 a micro-batch: one layer global, one through a
/// 512-token sliding window, each layer's forward recorded.
struct GlobalAndLocal {
  JobSpec job = train_job(test::llama2_7b());
  LayerDims global, local;
  CountingSink g, l;
  GlobalAndLocal() {
    job.parallel.tp = 4;
    global = layer_dims(job, 2);
    local = global;
    local.span = {512, AttentionWindowKind::sliding};
    DenseLayer(global).forward(g, {});
    DenseLayer(local).forward(l, {});
  }
};

TEST_CASE("a local layer's fused attention skips the pairs outside its window, unfused attention does not") {
  GlobalAndLocal layers;
  JobSpec& job = layers.job;
  const LayerDims& local = layers.local;
  const CountingSink &g = layers.g, &l = layers.l;
  // 2 b pairs (d_qk + d_v) heads / tp: b = 2, 32 heads of 128 over tp = 4. Global pairs 2,048^2 / 2 =
  // 2,097,152; through a 512 window 2,048 x 512 - 512^2 / 2 = 917,504.
  const double per_pair = 2.0 * 2 * 256 * 32 / 4;
  CHECK(g.flops(topo::OpClass::attention) == Approx(per_pair * 2'097'152.0));
  CHECK(l.flops(topo::OpClass::attention) == Approx(per_pair * 917'504.0));
  CHECK(l.gemm_flops() == g.gemm_flops());  // the projections and the MLP do not change
  job.workload.attention_impl = AttentionImpl::unfused;
  LayerDims unfused = layer_dims(job, 2);
  unfused.span = local.span;
  CountingSink u, uw;
  DenseLayer(layer_dims(job, 2)).forward(u, {});
  DenseLayer(unfused).forward(uw, {});
  CHECK(uw.gemm_flops() == u.gemm_flops());  // every score computed, then masked
}

TEST_CASE("the estimate averages the keys a query sees over the layers") {
  JobSpec job = train_job(alternating(test::llama2_7b(), 512));
  // Global layers: 1,024 keys per query (s / 2); local: 917,504 / 2,048 = 448. Half of each: 736.
  CHECK(step_shape(job).attended_keys == Approx(736.0));
  job.workload.kind = WorkloadKind::decode;
  job.workload.batch = 1;
  job.workload.context_len = 1000;
  CHECK(step_shape(job).attended_keys == Approx((1000.0 + 512.0) / 2));
}

TEST_CASE("decode reads and keeps only the window of a local layer") {
  const JobSpec global = decode_job(4, 1000);
  JobSpec local = global;
  local.model = alternating(local.model, 256);
  const Simulation g = simulate(global);
  const Simulation s = simulate(local);
  // KV cache after the step: 16 global layers keep context + 1 = 1,001 tokens, 16 local ones 256:
  // 4 x (16 x 1,001 + 16 x 256) x 16,384 B = 1,318,060,032 B.
  CHECK(s.plan.static_memory[0].kv_cache == Approx(4.0 * (16 * 1001 + 16 * 256) * kKvLayerToken));
  CHECK(g.plan.static_memory[0].kv_cache == Approx(4.0 * 32 * 1001 * kKvLayerToken));
  // HBM-bound: every weight but the embedding once, then the keys each layer reads, at 2 TB/s x 0.85.
  const double bytes =
      (kLlama2Params - kLlama2Embedding) * 2.0 + 4.0 * (16 * 1001 + 16 * 256) * kKvLayerToken;
  CHECK(s.report.step_time_s == Approx(bytes / (2e12 * 0.85)).epsilon(0.05));
  CHECK(s.report.step_time_s < g.report.step_time_s);
  // Capacity: free = 80e9 - 2 x 6,738,415,616 = 66,523,168,768 B = 4,060,252 layer-tokens; a sequence at
  // context 1,000 takes 16 x 1,000 + 16 x 256 = 20,096 of them: 202 sequences. At batch 4, 1,015,063
  // each: beyond the window, 16 T + 16 x 256 <= 1,015,063 gives T = 63,185.
  const double layer_tokens = (80e9 - 2.0 * kLlama2Params) / kKvLayerToken;
  CHECK(s.plan.kv.max_batch == static_cast<long long>(std::floor(layer_tokens / 20'096.0)));
  CHECK(s.plan.kv.max_batch == 202);
  CHECK(s.plan.kv.max_context == static_cast<long long>(std::floor((layer_tokens / 4 - 16 * 256) / 16)));
  CHECK(s.plan.kv.max_context == 63'185);
  // The KV calculator (stepsim kv) agrees for one GPU holding the whole model.
  KvQuery q;
  q.context = 1000;
  q.batch = 4;
  q.params = kLlama2Params;
  q.gpu = global.cluster.gpu;
  const KvReport k = size_kv(local.model, q);
  CHECK(k.max_batch == std::optional<long long>(s.plan.kv.max_batch));
  CHECK(k.max_context == std::optional<long long>(s.plan.kv.max_context));
  CHECK(k.bytes_per_sequence == Approx((16 * 1000 + 16 * 256) * kKvLayerToken));
}

TEST_CASE("with pipeline stages, the stage whose layers keep the most binds the batch") {
  // Two stages of 16 layers: the first all global, the second all local (256-token window). At a
  // context of 1,000 the first keeps 16 x 1,000 layer-tokens per sequence, the second 16 x 256: the
  // first stage's GPU holds the fewest sequences, though the second has a little less free memory
  // (its LM head and final norm against the first's embedding).
  JobSpec job = decode_job(4, 1000);
  job.cluster.gpus_per_node = 2;
  job.cluster.nvlink_domain = 2;
  job.parallel.pp = 2;
  job.model.attention_window = 256;
  job.model.local_attention_pattern.assign(32, 0);
  for (int l = 16; l < 32; ++l) job.model.local_attention_pattern[static_cast<std::size_t>(l)] = 1;
  const Simulation s = simulate(job);
  REQUIRE(s.plan.static_memory.size() == 2);
  CHECK(s.plan.static_memory[0].kv_cache == Approx(4.0 * 16 * 1001 * kKvLayerToken));
  CHECK(s.plan.static_memory[1].kv_cache == Approx(4.0 * 16 * 256 * kKvLayerToken));
  CHECK(s.plan.static_memory[1].weights > s.plan.static_memory[0].weights);
  const double free = job.cluster.gpu.usable_hbm().value() - s.plan.static_memory[0].weights;
  CHECK(s.plan.kv.max_batch == static_cast<long long>(std::floor(free / kKvLayerToken / (16.0 * 1000))));
}

TEST_CASE("a window on every layer bounds the cache, so any context fits beside the weights") {
  ModelSpec m = test::llama2_7b();
  m.attention_window = 4096;  // Mistral 7B v0.1: every layer slides
  CHECK(m.local_attention_layers() == 32);
  CHECK(max_cached_context(m, 1e9, 0, m.layers) == kUnboundedContext);
  // Too little room for even the window: T = budget / 32 layers.
  CHECK(max_cached_context(m, 3200.0, 0, m.layers) == Approx(100.0));
}

TEST_CASE("a fused attention kernel carries its shape: the keys a row spans and its 128-row query tiles") {
  const GlobalAndLocal layers;
  const fakes::Recorded* ga = layers.g.find("attn");
  const fakes::Recorded* la = layers.l.find("attn");
  REQUIRE(ga != nullptr);
  REQUIRE(la != nullptr);
  // b = 2 sequences x 32 heads / tp 4 x 2,048 / 128 query tiles = 256; rows span the sequence, or the window.
  CHECK(ga->work.attention_keys == 2048);
  CHECK(ga->work.attention_tiles == 256);
  CHECK(la->work.attention_keys == 512);
  CHECK(la->work.attention_tiles == 256);
  // The backward kernel has the forward's shape.
  CountingSink gb;
  DenseLayer(layers.global).backward(gb, {}, Recompute::none);
  const fakes::Recorded* bwd = gb.find("attn.bwd");
  REQUIRE(bwd != nullptr);
  CHECK(bwd->work.attention_keys == 2048);
  CHECK(bwd->work.attention_tiles == 256);
}

TEST_CASE("packed documents: each document causal on its own, its length a row's keys") {
  // 8,192 tokens packed from documents of 2,048: 4 x 2,048^2 / 2 = 8,388,608 pairs, a quarter of
  // 8,192^2 / 2 = 33,554,432; a 1,024 window inside each: 4 x (2,048 x 1,024 - 1,024^2 / 2) =
  // 6,291,456; documents as long as the sequence, or none given: the sequence's own pairs.
  const AttentionSpan global{};
  const AttentionSpan sliding{1024, AttentionWindowKind::sliding};
  CHECK(causal_pairs_in_documents(8192, global, 2048) == Approx(8'388'608.0));
  CHECK(causal_pairs_in_documents(8192, sliding, 2048) == Approx(6'291'456.0));
  CHECK(causal_pairs_in_documents(8192, global, 0) == Approx(33'554'432.0));
  CHECK(causal_pairs_in_documents(8192, global, 8192) == Approx(33'554'432.0));
  // A layer of Llama-2-7B at 2,048 tokens packed from 512-token documents: a quarter of the
  // attention FLOPs (4 x 512^2 / 2 of 2,048^2 / 2 pairs), rows of 512 keys, the GEMMs unchanged.
  JobSpec job = train_job(test::llama2_7b());
  CountingSink whole, packed;
  DenseLayer(layer_dims(job, 1)).forward(whole, {});
  job.workload.document_tokens = 512;
  DenseLayer(layer_dims(job, 1)).forward(packed, {});
  CHECK(packed.flops(topo::OpClass::attention) == Approx(whole.flops(topo::OpClass::attention) / 4));
  CHECK(packed.gemm_flops() == whole.gemm_flops());
  const fakes::Recorded* attn = packed.find("attn");
  REQUIRE(attn != nullptr);
  CHECK(attn->work.attention_keys == 512);
  // The estimate's keys per query: 512 / 2 = 256 where the sequence's own are 1,024.
  CHECK(step_shape(job).attended_keys == Approx(256.0));
}
