// Hybrid Mamba-Transformer models (Nemotron-H's M / * / - / E layers): parameter counts, a Mamba-2
// layer's kernels, the SSD scan's FLOPs, stored activations, decode state and the KV cache of the
// attention layers alone, each derived by hand; the closed-form estimate and the simulation agree
// on the step's FLOPs.
#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/model/params.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/gated_delta_layer.hpp"
#include "workloads/step/mamba_layer.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace hybrid_test {

/// h 1,024; layers M * - M; Mamba: 32 heads of 64 (d_inner 2,048), state 128, 4 groups, conv 4,
/// chunk 128; attention: 16 heads of 64, 4 KV heads; squared-ReLU MLP of 4,096; vocab 32,000.
ModelSpec tiny_hybrid() {
  ModelSpec m;
  m.id = "tiny-hybrid";
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 4;
  m.head_dim = 64;
  m.ffn = 4096;
  m.vocab = 32000;
  m.activation = Activation::relu;
  m.position = PositionEmbedding::none;
  m.hybrid_layers = {LayerKind::mamba, LayerKind::attention, LayerKind::mlp, LayerKind::mamba};
  m.layers = 4;
  m.mamba = MambaDims{32, 64, 128, 4, 4, 128};
  return m;
}

JobSpec train_job(int tp) {
  JobSpec j;
  j.model = tiny_hybrid();
  j.cluster.gpu = test::round_gpu();
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = tp;
  j.cluster.nvlink_domain = tp;
  j.parallel.tp = tp;
  j.workload.kind = WorkloadKind::train;
  j.workload.seq_len = 2048;
  j.workload.global_batch = 1;
  j.workload.micro_batch = 1;
  return j;
}

}  // namespace hybrid_test

using namespace hybrid_test;

TEST_CASE("hybrid model parameters by hand") {
  const ModelSpec m = tiny_hybrid();
  // Mamba mixer: in_proj 1,024 x (2 x 2,048 + 2 x 4 x 128 + 32) = 5,275,648; conv over 2,048 + 1,024
  // channels, 4 taps and a bias: 15,360; dt_bias, A_log, D: 96; gated norm 2,048; out_proj 2,097,152.
  CHECK(mamba_params(m) == 7'390'304.0);
  const ParamBreakdown b = count_params(m);
  CHECK(b.mamba == 2.0 * 7'390'304.0);
  // One attention layer: Q and O 1,024^2 each, K and V 1,024 x 256 each.
  CHECK(b.attention == 2'621'440.0);
  // One squared-ReLU MLP (two matrices), no MoE.
  CHECK(b.dense_mlp == 8'388'608.0);
  // One pre-norm per layer (4) and the final norm.
  CHECK(b.norms == 5.0 * 1024.0);
  CHECK(b.total == 14'780'608.0 + 2'621'440.0 + 8'388'608.0 + 5'120.0 + 2.0 * 32'000.0 * 1024.0);
}

TEST_CASE("Mamba-2 layer kernels by hand") {
  const JobSpec job = train_job(1);
  const LayerDims d = layer_dims(job, 1.0);
  const MambaLayer layer(d);
  CountingSink sink;
  layer.forward(sink, {});
  // in_proj: [2,048 tokens x 1,024] x [1,024 x 5,152].
  const auto* in = sink.find("mamba_in");
  REQUIRE(in != nullptr);
  CHECK(in->work.flops.value() == 2.0 * 2048 * 5152 * 1024);
  // SSD scan over 16 chunks of 128: chunk states 2 T H P N = 1,073,741,824; C B^T 2 T G Q N =
  // 268,435,456; chunk scan 2 T H P (Q / 2 + N) = 1,610,612,736.
  double scan = 0.0;
  for (const auto& op : sink.ops)
    if (op.name.rfind("ssd_", 0) == 0 && op.work.op_class == topo::OpClass::gemm)
      scan += op.work.flops.value();
  CHECK(scan == 1'073'741'824.0 + 268'435'456.0 + 1'610'612'736.0);
  CHECK(layer.scan_forward_flops() == scan);
  // The chunk scan is one product per chunk and head of K = 64 + 128.
  const auto* chunk_scan = sink.find("ssd_chunk_scan");
  REQUIRE(chunk_scan != nullptr);
  CHECK(chunk_scan->work.gemm_m == 128.0);
  CHECK(chunk_scan->work.gemm_n == 64.0);
  CHECK(chunk_scan->work.gemm_k == 192.0);
  // out_proj: [2,048 x 2,048] x [2,048 x 1,024].
  CHECK(sink.find("mamba_out")->work.flops.value() == 2.0 * 2048 * 1024 * 2048);

  // Tensor parallelism over 2 ranks halves the heads and groups: in_proj's output and the scan.
  const JobSpec job2 = train_job(2);
  const MambaLayer half(layer_dims(job2, 1.0));
  CountingSink sink2;
  half.forward(sink2, {});
  CHECK(sink2.find("mamba_in")->work.flops.value() == 2.0 * 2048 * 2576 * 1024);
  CHECK(half.scan_forward_flops() == scan / 2.0);
}

TEST_CASE("Mamba-2 layer activations, weights and decode state by hand") {
  const JobSpec job = train_job(1);
  const MambaLayer layer(layer_dims(job, 1.0));
  // T = 2,048, 2-byte activations: norm input and output 4 x T x 1,024 = 8,388,608; in_proj output
  // 2 x T x 5,152 = 21,102,592; conv output 2 x T x 3,072 = 12,582,912; dt and dA's cumsum in fp32
  // 8 x T x 32 = 524,288; the scan output and out_proj's input 2 x (2 x T x 2,048) = 16,777,216.
  CHECK(layer.stored_activation_bytes(Recompute::none) == 59'375'616.0);
  CHECK(layer.stored_activation_bytes(Recompute::full) == 2.0 * 2048 * 1024);
  CHECK(layer.params_per_rank() == 7'390'304.0 + 1024.0);  // + its pre-norm
  // Decode state per sequence: 32 x 64 x 128 SSM + 3,072 x 3 conv = 271,360 elements, 2 bytes each.
  CHECK(layer.state_bytes_per_sequence() == 542'720.0);
  CHECK(state_bytes_per_sequence(job.model, 2.0, 1, 0, 4) == 2.0 * 542'720.0);
}

TEST_CASE("a hybrid model caches keys and values in its attention layers only") {
  const ModelSpec m = tiny_hybrid();
  // One attention layer: 2 x 4 KV heads x 64 x 2 bytes = 1,024 B per token.
  CHECK(kv_bytes_per_token(m, 2.0) == 1024.0);
  KvQuery q;
  q.context = 1000;
  q.batch = 8;
  const KvReport r = size_kv(m, q);
  // 1,000 tokens of one attention layer and the two Mamba layers' fixed state.
  CHECK(r.state_bytes_per_sequence == 2.0 * 542'720.0);
  CHECK(r.bytes_per_sequence == 1000.0 * 1024.0 + 2.0 * 542'720.0);
}

TEST_CASE("the estimate and the simulation count a hybrid step's FLOPs alike") {
  JobSpec job = train_job(1);
  const Estimate e = estimate(job);
  const Simulation s = simulate(job);
  const double tokens = 2048.0;
  // The estimate's per-token FLOPs (matmul parameters, attention, the scan) against the kernels the
  // simulation ran: they differ by the element-wise FLOPs the simulation also counts (norms, the
  // convolution, gates, the optimizer) and the few non-matmul weights the estimate multiplies (the
  // convolution taps), which together are under 2% of this step.
  CHECK(s.metrics.hardware_flops_per_step == Approx(e.flops.hardware * tokens).epsilon(0.02));
  CHECK(e.flops.scan_forward > 0.0);
  CHECK(s.report.step_time_s > 0.0);
}

namespace hybrid_test {

/// Gated DeltaNet on tiny_hybrid's dimensions: layers G * - G; 4 key heads and 8 value heads of 64,
/// conv 4, chunk 64; the attention layer gated (Qwen3-Next).
ModelSpec tiny_gated_delta() {
  ModelSpec m = tiny_hybrid();
  m.hybrid_layers = {LayerKind::gated_delta, LayerKind::attention, LayerKind::mlp, LayerKind::gated_delta};
  m.mamba = {};
  m.gated_delta = GatedDeltaDims{4, 8, 64, 64, 4, 64};
  m.attention_output_gate = true;
  return m;
}

}  // namespace hybrid_test

TEST_CASE("Gated DeltaNet parameters and the attention's output gate by hand") {
  const ModelSpec m = tiny_gated_delta();
  // in_proj 1,024 x (2 x 256 + 2 x 512 + 2 x 8) = 1,589,248; conv over 2 x 256 + 512 channels, 4 taps,
  // no bias: 4,096; dt_bias and A_log 16; the gated norm over one value head 64; out_proj 524,288.
  CHECK(gated_delta_params(m) == 2'117'712.0);
  const ParamBreakdown b = count_params(m);
  CHECK(b.linear_attention == 2.0 * 2'117'712.0);
  // Q, K, V and O as before (2,621,440) and the gate's half of q_proj, 1,024^2.
  CHECK(b.attention == 2'621'440.0 + 1'048'576.0);
  CHECK(b.mamba == 0.0);
}

TEST_CASE("Gated DeltaNet kernels, state and the estimate's FLOPs by hand") {
  JobSpec job = train_job(1);
  job.model = tiny_gated_delta();
  const LayerDims d = layer_dims(job, 1.0);
  const GatedDeltaLayer layer(d);
  CountingSink sink;
  layer.forward(sink, {});
  // in_proj: [2,048 x 1,024] x [1,024 x 1,552].
  CHECK(sink.find("gdn_in")->work.flops.value() == 2.0 * 2048 * 1552 * 1024);
  // The chunked rule over 32 chunks of 64, 8 value heads of 64 (K = V = 64, C = 64), per token and head:
  // K K^T 2CK = 8,192; w and u 2C(K + V) = 16,384; the state 4KV = 16,384; the output 2V(K + C/2) +
  // CK = 16,384; the triangular inverse 2C^2/3 = 2,730.67 (element-wise): 2,048 x 8 tokens-heads.
  double tensor = 0.0, solve = 0.0;
  for (const auto& op : sink.ops) {
    if (op.name.rfind("gdn_", 0) != 0 || op.name == "gdn_in" || op.name == "gdn_out") continue;
    if (op.work.op_class == topo::OpClass::gemm) tensor += op.work.flops.value();
    if (op.name == "gdn_solve_tril") solve = op.work.flops.value();
  }
  CHECK(tensor == Approx(2048.0 * 8 * (8192 + 16384 + 16384 + 16384)));
  CHECK(solve == Approx(2048.0 * 8 * 2.0 / 3.0 * 64 * 64));
  CHECK(layer.rule_forward_flops() == Approx(tensor + solve));
  // Decode state per sequence: 8 value heads x 64 x 64 in fp32 = 131,072 B, and the convolution's 3
  // last inputs of 1,024 channels in 16 bits = 6,144 B; two G layers.
  CHECK(state_bytes_per_sequence(job.model, 2.0, 1, 0, 4) == 2.0 * (131'072.0 + 6'144.0));
  // The attention's output gate: q_proj's output is 1,024 wider, and a gate kernel runs after the core.
  CountingSink attention;
  DenseLayer(d).attention_forward(attention, {});
  CHECK(attention.find("qkv")->work.gemm_n == 1024.0 + 256.0 + 256.0 + 1024.0);
  CHECK(attention.find("attn_gate") != nullptr);
  // The closed-form estimate and the simulation agree on the step's FLOPs (as for Mamba layers).
  const Estimate e = estimate(job);
  const Simulation s = simulate(job);
  CHECK(s.metrics.hardware_flops_per_step == Approx(e.flops.hardware * 2048.0).epsilon(0.02));
}
