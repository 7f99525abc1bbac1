// FLOPs and HBM bytes per token of the stepsim formulas, derived by hand for tiny_training():
// 4 layers, h 1024, 16 heads of 64, FFN 4096, vocab 32,000; seq 2048, global batch 64, micro-batch 2,
// dp 4 x tp 2 on one 8-GPU NVLink domain. m = 8 micro-batches per rank, 16,384 tokens per GPU per step.
#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/estimate/estimate_parts.hpp"

using namespace stepsim;
using namespace stepsim::work;

TEST_CASE("Step shape of a training job") {
  const StepShape s = step_shape(test::tiny_training());
  CHECK(s.micro_batches == 8.0);          // 64 / (4 dp * 2 per micro-batch)
  CHECK(s.tokens_per_step == 131'072.0);  // 64 * 2048
  CHECK(s.tokens_per_gpu == 16'384.0);    // / 8 GPUs
  CHECK(s.tokens_per_micro_batch == 4'096.0);
  CHECK(s.attended_keys == 1'024.0);  // causal: s / 2
}

TEST_CASE("FLOPs per token: 6N-style matmuls plus causal attention, recompute on top") {
  JobSpec j = test::tiny_training();
  Estimate e = estimate(j);
  // Matmul parameters 83,099,648 (layers' projections + head): 2 x = 166,199,296 per forward.
  CHECK(e.flops.matmul_forward == 166'199'296.0);
  // Attention: 2 FLOPs x 4 layers x 16 heads x (64 + 64) x 1,024 keys = 16,777,216 per forward.
  CHECK(e.flops.attention_forward == 16'777'216.0);
  CHECK(e.flops.model == 548'929'536.0);  // 3 x (166,199,296 + 16,777,216)
  CHECK(e.flops.hardware == e.flops.model);
  SECTION("selective recompute repeats the attention core") {
    j.recompute = Recompute::selective;
    e = estimate(j);
    CHECK(e.flops.recompute == 16'777'216.0);
    CHECK(e.flops.hardware == 565'706'752.0);
    CHECK(e.flops.model == 548'929'536.0);  // model FLOPs do not count recomputation
  }
  SECTION("full recompute repeats the whole forward") {
    j.recompute = Recompute::full;
    e = estimate(j);
    CHECK(e.flops.recompute == 182'976'512.0);
    CHECK(e.flops.hardware == 731'906'048.0);
  }
  SECTION("inference is one forward, the output head on each sequence's last token only") {
    j.workload.kind = WorkloadKind::prefill;
    j.workload.batch = 2;
    e = estimate(j);
    // The head's 32,000 x 1,024 = 32,768,000 weights run on 1 of each 2,048 tokens:
    // 166,199,296 - 2 x 32,768,000 x (1 - 1/2,048) = 100,695,296 matmul FLOPs per token.
    CHECK(e.flops.matmul_forward == 100'695'296.0);
    CHECK(e.flops.model == 117'472'512.0);  // + 16,777,216 attention
  }
}

TEST_CASE("HBM bytes per token: weights, gradients, optimizer on the rank's own tokens, activations") {
  JobSpec j = test::tiny_training();
  // Parameters per GPU: (16,777,216 + 33,554,432 + 9,216) / tp 2 + (embedding + head) / 2
  // = 25,170,432 + 32,768,000 = 57,938,432; in bf16 115,876,864 B.
  Estimate e = estimate(j);
  // Forward and backward read the shard once per micro-batch: 8 x 2 x 115,876,864 / 16,384 = 113,161.
  CHECK(e.hbm.weights == 113'161.0);
  // Gradient buffer: written once, then read+written 7 times: 15 x 115,876,864 / 16,384.
  CHECK(e.hbm.gradients == 106'088.4375);
  // ZeRO-0 Adam on all 57,938,432 params: grad 2 + state 2 x 12 + new weight 2 = 28 B each, over
  // the rank's 16,384 tokens (not the 131,072 of the global batch): 1,622,276,096 / 16,384.
  CHECK(e.hbm.optimizer == 99'015.875);
  // Activation elements per token forward: per layer norms/residuals 10h x tp 2 = 20,480, GEMM
  // edges 4h x 2 = 8,192, attention 2(q+k+v) + 2o = 8,192, FFN 2 x 4096 + 2 x 4096 = 16,384;
  // 4 layers = 212,992; embedding + head h + 2h + 2 x 32,000 = 67,072. Total 280,064 elements,
  // 2 B each, forward + 2 x backward: 1,680,384 B.
  CHECK(e.hbm.activations == 1'680'384.0);
  CHECK(e.hbm.total() == 1'998'649.3125);
  SECTION("ZeRO-1 updates only the rank's quarter of the optimizer state") {
    j.parallel.zero_stage = 1;
    e = estimate(j);
    // 57,938,432 / 4 x 26 B + 57,938,432 x 2 B (the all-gather rewrites every weight) = 492,476,672.
    CHECK(e.hbm.optimizer == 492'476'672.0 / 16'384.0);
  }
  SECTION("ZeRO-3 writes every gathered layer before reading it") {
    j.parallel.zero_stage = 3;
    e = estimate(j);
    CHECK(e.hbm.weights == 2 * 113'161.0);
    // Shard 14,484,608 x (26 + 2) B = 405,569,024 B.
    CHECK(e.hbm.optimizer == 405'569'024.0 / 16'384.0);
  }
  SECTION("selective recompute re-reads the attention core") {
    j.recompute = Recompute::selective;
    e = estimate(j);
    // + 4 layers x (q + k + v + o = 4,096) x 2 B = 32,768.
    CHECK(e.hbm.activations == 1'680'384.0 + 32'768.0);
  }
  SECTION("full recompute adds a forward of weights and activations") {
    j.recompute = Recompute::full;
    e = estimate(j);
    CHECK(e.hbm.weights == 169'741.5);        // 8 x 3 x 115,876,864 / 16,384
    CHECK(e.hbm.activations == 2'240'512.0);  // 280,064 x 2 B x 4 passes
  }
  SECTION("sequence parallelism shards norms and residuals") {
    j.parallel.sequence_parallel = true;
    e = estimate(j);
    // Norms/residuals drop from 10h x 2 to 10h: 4 layers x 10,240 fewer elements x 2 B x 3 passes.
    CHECK(e.hbm.activations == 1'680'384.0 - 245'760.0);
  }
}

TEST_CASE("Decode: weights once per step for the batch plus every sequence's KV cache") {
  JobSpec j = test::tiny_training();
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = 16;
  j.workload.context_len = 1000;
  const Estimate e = estimate(j);
  // Tokens per step: dp 4 x 16 = 64, 8 per GPU. Weights 115,876,864 B / 8 = 14,484,608 per token.
  CHECK(e.tokens_per_step == 64.0);
  CHECK(e.hbm.weights == 14'484'608.0);
  // KV per token: 2 x 4 layers x 16 heads x 64 x 2 B = 16,384 B; read 1,000 and write 1: 16,400,384.
  CHECK(e.hbm.kv_cache == 16'400'384.0);
  CHECK(e.hbm.activations == 560'128.0);  // 280,064 elements x 2 B, forward only
  // Attention over 1,000 cached keys: 2 x 4 x 16 x 128 x 1,000 = 16,384,000 FLOPs.
  CHECK(e.flops.attention_forward == 16'384'000.0);
  CHECK(e.bound == topo::Resource::hbm);
  // 0.8 x 2e12 / (14,484,608 + 16,400,384 + 560,128 = 31,445,120) = 50,882.30 tokens/s per GPU.
  CHECK(e.tokens_per_s_per_gpu == Approx(0.8 * 2e12 / 31'445'120.0).epsilon(1e-12));
  // Far below the ridge of 1,000 TFLOP/s / 2 TB/s = 500 FLOP/B: per token 2 x (attention 16,777,216 +
  // FFN 33,554,432 + head 32,768,000 weights; the embedding is a lookup) + 16,384,000 attention =
  // 182,583,296 FLOPs over 31,445,120 B = 5.806 FLOP/B.
  CHECK(e.ridge_flops_per_byte == 500.0);
  CHECK(e.intensity_flops_per_byte == Approx(182'583'296.0 / 31'445'120.0).epsilon(1e-12));
}
