// Memory per GPU: weights, gradients and optimizer state by ZeRO stage; activations by recompute
// mode following Korthikanti et al. 2022: per layer per micro-batch sbh(34 + 5as/h) without
// parallelism, sbh(10 + 24/t + 5as/(ht)) with TP, sbh/t (34 + 5as/h) with TP + SP, 34 sbh/t selective
// (with SP), 2 sbh per layer under full recompute.
#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/estimate/estimate_parts.hpp"

using namespace stepsim;
using namespace stepsim::work;

TEST_CASE("The generalised activation formula is Korthikanti's 34 + 5as/h for GPT shapes") {
  JobSpec j = test::tiny_training();                   // GELU FFN 4h, MHA: the paper's shape
  j.workload.attention_impl = AttentionImpl::unfused;  // the paper stores the attention scores
  j.parallel.tp = 1;
  j.parallel.dp = 8;
  const StepShape s = step_shape(j);
  // s b h = 2048 x 2 x 1024 = 4,194,304; 5as/h = 5 x 16 x 2048 / 1024 = 160.
  CHECK(layer_activation_bytes(j, s) == 4'194'304.0 * (34.0 + 160.0));
  j.parallel.tp = 2;
  j.parallel.dp = 4;
  CHECK(layer_activation_bytes(j, s) == 4'194'304.0 * (10.0 + 24.0 / 2 + 160.0 / 2));  // 427,819,008
  j.parallel.sequence_parallel = true;
  CHECK(layer_activation_bytes(j, s) == 4'194'304.0 / 2 * (34.0 + 160.0));
  j.recompute = Recompute::selective;
  CHECK(layer_activation_bytes(j, s) == 34.0 * 4'194'304.0 / 2);
  j.recompute = Recompute::full;
  CHECK(layer_activation_bytes(j, s) == 2.0 * 4'194'304.0 / 2);
  // FlashAttention never stores the scores: without recompute it keeps what selective keeps.
  j.recompute = Recompute::none;
  j.workload.attention_impl = AttentionImpl::flash;
  CHECK(layer_activation_bytes(j, s) == 34.0 * 4'194'304.0 / 2);
}

TEST_CASE("Selective recompute modules shrink the estimate's activations as the simulation's do") {
  JobSpec j = test::tiny_training();  // GPT shape, tp 2 with SP below: Korthikanti's 34 sbh / t
  j.parallel.tp = 2;
  j.parallel.dp = 4;
  j.parallel.sequence_parallel = true;
  j.recompute = Recompute::selective;
  const StepShape s = step_shape(j);
  const double sbh = 4'194'304.0;  // s b h = 2048 x 2 x 1024
  CHECK(layer_activation_bytes(j, s) == 34.0 * sbh / 2);
  // "layernorm" drops both norm outputs: 2 x 2 bytes x sbh / t.
  j.recompute_modules.layernorm = true;
  CHECK(layer_activation_bytes(j, s) == 30.0 * sbh / 2);
  // Without the attention core in the list, unfused attention keeps its scores again (5as/h = 160).
  j.workload.attention_impl = AttentionImpl::unfused;
  j.recompute_modules.core_attn = false;
  CHECK(layer_activation_bytes(j, s) == (30.0 + 160.0) * sbh / 2);
}

TEST_CASE("Memory of tiny_training by ZeRO stage") {
  JobSpec j = test::tiny_training();
  j.workload.attention_impl = AttentionImpl::unfused;  // Korthikanti's no-recompute case
  // 57,938,432 params on each GPU (see the HBM test).
  Estimate e = estimate(j);
  REQUIRE(e.memory);
  CHECK(e.memory->weights.value() == 115'876'864.0);    // x 2 B
  CHECK(e.memory->gradients.value() == 115'876'864.0);  // x 2 B
  CHECK(e.memory->optimizer.value() == 695'261'184.0);  // x 12 B
  // Activations: 4 layers x 427,819,008 (one micro-batch in flight) + the head's
  // 4 s b h / t (1 + v/h) = 4,096 x 4 x (1,024 + 32,000) / 2 = 270,532,608.
  CHECK(e.memory->activations.value() == 4 * 427'819'008.0 + 270'532'608.0);
  CHECK(e.memory->total().value() == 2'908'823'552.0);
  CHECK(e.memory->fits());
  CHECK(e.memory->shortfall().value() == 0.0);
  j.parallel.zero_stage = 1;
  e = estimate(j);
  CHECK(e.memory->optimizer.value() == 695'261'184.0 / 4);  // sharded over dp 4
  CHECK(e.memory->gradients.value() == 115'876'864.0);
  j.parallel.zero_stage = 2;
  e = estimate(j);
  CHECK(e.memory->gradients.value() == 115'876'864.0 / 4);
  CHECK(e.memory->weights.value() == 115'876'864.0);
  j.parallel.zero_stage = 3;
  e = estimate(j);
  CHECK(e.memory->weights.value() == 115'876'864.0 / 4);
}

TEST_CASE("Recompute modes shrink the activations") {
  JobSpec j = test::tiny_training();
  j.workload.attention_impl = AttentionImpl::unfused;
  j.recompute = Recompute::selective;
  // Per layer s b h (10 + 24/2) = 4,194,304 x 22 = 92,274,688.
  CHECK(estimate(j).memory->activations.value() == 4 * 92'274'688.0 + 270'532'608.0);
  j.recompute = Recompute::full;
  // Layer inputs 2 s b h = 8,388,608 each, plus one layer rebuilt in full (427,819,008).
  CHECK(estimate(j).memory->activations.value() == 4 * 8'388'608.0 + 427'819'008.0 + 270'532'608.0);
}

TEST_CASE("Pipeline schedules: micro-batches in flight on the first stage") {
  JobSpec j = test::tiny_training();
  j.workload.attention_impl = AttentionImpl::unfused;
  j.parallel.pp = 2;
  j.parallel.dp = 2;  // m = 64 / (2 x 2) = 16
  Estimate e = estimate(j);
  // 1F1B: p = 2 micro-batches alive, 2 layers per stage; no head on the first stage.
  CHECK(e.memory->micro_batches_in_flight == 2.0);
  CHECK(e.memory->activations.value() == 2 * 2 * 427'819'008.0);
  // Params: 50,340,864 / (2 x 2) + embedding 32,768,000 / 2 = 28,969,216.
  CHECK(e.memory->weights.value() == 2.0 * 28'969'216.0);
  j.parallel.schedule = PipelineSchedule::interleaved;
  j.parallel.virtual_stages = 2;
  e = estimate(j);
  CHECK(e.memory->micro_batches_in_flight == 2.5);  // p (1 + (p-1)/(p v)) = 2 x 1.25
  CHECK(e.pipeline_bubble == 1.0 / 32.0);           // (p-1) / (v m)
  j.parallel.schedule = PipelineSchedule::gpipe;
  j.parallel.virtual_stages = 1;
  CHECK(estimate(j).memory->micro_batches_in_flight == 16.0);  // all m
}

TEST_CASE("A 70B model with Adam does not fit one 80 GB GPU without sharding") {
  JobSpec j = test::tiny_training();
  j.model = test::llama_70b();
  j.parallel.tp = 1;
  j.parallel.dp = 8;
  j.workload.micro_batch = 1;
  j.workload.global_batch = 256;
  const Estimate e = estimate(j);
  // 16 B x 70,553,706,496 = 1,128,859,303,936 B of weights, gradients and Adam state alone.
  CHECK(e.memory->weights.value() + e.memory->gradients.value() + e.memory->optimizer.value() ==
        16.0 * 70'553'706'496.0);
  CHECK_FALSE(e.memory->fits());
  CHECK(e.memory->shortfall().value() == e.memory->total().value() - 80e9);
}

TEST_CASE("Decode memory: weights, the KV cache of the batch and one layer's working set") {
  JobSpec j = test::tiny_training();
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = 16;
  j.workload.context_len = 1000;
  const Estimate e = estimate(j);
  CHECK(e.memory->weights.value() == 115'876'864.0);
  CHECK(e.memory->optimizer.value() == 0.0);
  // 16 sequences x 1,001 tokens x (2 x 8 heads per rank x 64 x 2 B = 2,048) x 4 layers.
  CHECK(e.memory->kv_cache.value() == 16.0 * 1001 * 2048 * 4);
  CHECK(e.memory->activations.value() == 16.0 * (10'240 + 24'576 / 2));  // selective form, 16 tokens
}

TEST_CASE("Uneven pipeline stages: the fullest stage sets the pace and the memory") {
  JobSpec j = test::tiny_training();  // FlashAttention: no stored scores
  j.parallel.pp = 2;
  j.parallel.dp = 2;  // m = 16
  j.parallel.first_stage_layers = 1;
  j.parallel.last_stage_layers = 3;
  const Estimate e = estimate(j);
  // Compute: stage 1 has 3 of 4 layers, 1.5x the mean of 2.
  CHECK(e.flops.busiest_gpu == 1.5 * e.flops.hardware);
  // Stage 0: 50,340,864 x 1/4 / tp 2 + embedding 16,384,000 = 22,676,608 params;
  //          activations 1 layer x 92,274,688 x 2 in flight.
  // Stage 1: 50,340,864 x 3/4 / 2 + head 16,384,000 = 35,261,824 params;
  //          3 layers x 92,274,688 x 1 in flight + logits 4,096 x 4 x (1,024 + 32,000) / 2 = 270,532,608.
  // 16 B per param (ZeRO-0): stage 0 455,100,416 B, stage 1 1,111,545,856 B -> stage 1.
  REQUIRE(e.memory);
  CHECK(e.memory->stage == 1);
  CHECK(e.memory->micro_batches_in_flight == 1.0);
  CHECK(e.memory->weights.value() == 2.0 * 35'261'824.0);
  CHECK(e.memory->activations.value() == 3 * 92'274'688.0 + 270'532'608.0);
  CHECK(e.memory->total().value() == 1'111'545'856.0);
}

TEST_CASE("DualPipeV: the V's last chunk, with the output head and the loss, is on rank 0") {
  JobSpec j = test::tiny_training();  // FlashAttention: no stored scores
  j.parallel.pp = 2;
  j.parallel.dp = 2;  // m = 16
  j.parallel.schedule = PipelineSchedule::dualpipev;
  j.parallel.virtual_stages = 2;  // 4 chunks of 1 layer: rank 0 holds chunks 0 and 3, rank 1 1 and 2
  CHECK(j.parallel.loss_stage() == 0);
  const Estimate e = estimate(j);
  // Rank 0: 50,340,864 x 2/4 / tp 2 = 12,585,216 + embedding 16,384,000 + head 16,384,000
  //         = 45,353,216 params; rank 1: 12,585,216 -> rank 0 is the fuller.
  REQUIRE(e.memory);
  CHECK(e.memory->stage == 0);
  CHECK(e.memory->weights.value() == 2.0 * 45'353'216.0);
  // Activations on rank 0: 2 layers x 92,274,688 x (p + 0.5 = 2.5 chunks in flight) + the logits
  // 4,096 x 4 x (1,024 + 32,000) / 2 = 270,532,608.
  CHECK(e.memory->micro_batches_in_flight == 2.5);
  CHECK(e.memory->activations.value() == 2.0 * 92'274'688.0 * 2.5 + 270'532'608.0);
}

TEST_CASE("Eager PyTorch's kept tensors enter the estimate's activations as the simulation's") {
  JobSpec j = test::tiny_training();  // GPT shape (GELU, MHA): only the norms' fp32 tensors apply
  j.parallel.tp = 1;
  j.parallel.dp = 8;
  const StepShape s = step_shape(j);
  const double fused = layer_activation_bytes(j, s);
  j.workload.pointwise = Pointwise::eager;
  // s b = 2048 x 2 tokens, two norms of h = 1024 each keeping 8 B per element (fp32 upcast input and
  // normalised product): 4,096 x 2 x 8 x 1,024 = 67,108,864 B more per layer.
  CHECK(layer_activation_bytes(j, s) - fused == 4096.0 * 2 * 8 * 1024);
  // Recomputing the norms drops them again.
  j.recompute = Recompute::selective;
  j.recompute_modules.layernorm = true;
  const double eager_rc = layer_activation_bytes(j, s);
  j.workload.pointwise = Pointwise::fused;
  CHECK(eager_rc == layer_activation_bytes(j, s));
}
