// torchtitan's per-op selective checkpointing (recompute_modules = ["alternate_mm"]): what the
// backward replays and what the layer keeps (workloads/step/layer_op_sac.cpp).
#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace op_sac_rows {
// Llama 3.1 8B's block: h = 4096, 32 query heads and 8 key/value heads of 128, SwiGLU of 14,336.
JobSpec llama_8b(Pointwise pointwise, topo::AttentionKernel kernel) {
  JobSpec j;
  j.model = test::llama_8b();  // SwiGLU and RMSNorm, the defaults
  j.workload.seq_len = 8192;
  j.workload.attention_impl = AttentionImpl::flash;
  j.workload.attention_kernel = kernel;
  j.workload.pointwise = pointwise;
  j.recompute_modules = RecomputeModules{false, false, false, false, true};
  return j;
}
constexpr double b = 2, s = 8192, h = 4096, kv = 1024, f = 14336, heads = 32, E = 2;
}  // namespace op_sac_rows

TEST_CASE("torchtitan's per-op policy replays wk, wo and w3: 36.5% of a Llama 3.1 8B block's linear FLOPs") {
  using namespace op_sac_rows;
  for (const Pointwise p : {Pointwise::fused, Pointwise::eager}) {
    CountingSink none, sac, fwd;
    const DenseLayer layer(layer_dims(llama_8b(p, topo::AttentionKernel::fa2), b));
    layer.forward(fwd, {});
    layer.backward(none, {}, Recompute::none);
    layer.backward(sac, {}, Recompute::selective);
    // The block's mms in forward order: wq, wk, wv, wo, w1, w3, w2; the 2nd, 4th and 6th run again:
    // 2 b s (h kv + h h + h f) FLOPs.
    const double replayed = 2 * b * s * (h * kv + h * h + h * f);
    CHECK(sac.gemm_flops() - none.gemm_flops() == Approx(replayed));
    // Of the forward's 2 b s h (h + 2 kv + h + 3 f) linear FLOPs: 79.7 M of 218.1 M weights, 36.5%.
    CHECK(replayed / fwd.gemm_flops() == Approx(79.69 / 218.10).epsilon(1e-3));
    // SDPA's flash output is kept: the attention kernel does not run again.
    CHECK(sac.flops(topo::OpClass::attention) == Approx(none.flops(topo::OpClass::attention)));
    CHECK(sac.find("k_proj.recompute") != nullptr);
    CHECK(sac.find("proj.recompute") != nullptr);
    CHECK(sac.find("mlp_up.recompute") != nullptr);
    CHECK(sac.find("ln1.recompute") != nullptr);
    CHECK(sac.find("ln2.recompute") != nullptr);
  }
}

TEST_CASE("with cuDNN's attention the per-op policy replays the attention kernel too") {
  using namespace op_sac_rows;
  CountingSink none, sac;
  const DenseLayer layer(layer_dims(llama_8b(Pointwise::fused, topo::AttentionKernel::cudnn), b));
  layer.backward(none, {}, Recompute::none);
  layer.backward(sac, {}, Recompute::selective);
  // The save list names SDPA's flash and efficient kernels only: the causal forward, half of
  // 4 b s^2 h, runs again.
  CHECK(sac.flops(topo::OpClass::attention) - none.flops(topo::OpClass::attention) ==
        Approx(4 * b * s * s * h * 0.5));
}

TEST_CASE("the per-op policy keeps the block input, wq's, wv's, w1's and SDPA's outputs") {
  using namespace op_sac_rows;
  const double T = b * s;
  // Compiled: the input (h), wq (h), wv (kv), w1 (f), SDPA's output (h) in 16 bits, and its fp32
  // log-sum-exp per query head.
  const double compiled = E * T * (h + h + kv + f + h) + 4 * T * heads;
  const DenseLayer fused(layer_dims(llama_8b(Pointwise::fused, topo::AttentionKernel::fa2), b));
  CHECK(fused.stored_activation_bytes(Recompute::selective) == Approx(compiled));
  // Eager keeps every saved op's output, w2's (h) too.
  const DenseLayer eager(layer_dims(llama_8b(Pointwise::eager, topo::AttentionKernel::fa2), b));
  CHECK(eager.stored_activation_bytes(Recompute::selective) == Approx(compiled + E * T * h));
  // cuDNN's attention output is replayed, not kept.
  const DenseLayer cudnn(layer_dims(llama_8b(Pointwise::fused, topo::AttentionKernel::cudnn), b));
  CHECK(cudnn.stored_activation_bytes(Recompute::selective) == Approx(compiled - E * T * h - 4 * T * heads));
  // Less than what Megatron-Core's closest setting keeps (the attention core and the norms
  // recomputed): the Q, K, V, w3 and activation outputs are replayed instead.
  JobSpec megatron = llama_8b(Pointwise::fused, topo::AttentionKernel::fa2);
  megatron.recompute_modules = RecomputeModules{true, true, false, false, false};
  CHECK(DenseLayer(layer_dims(megatron, b)).stored_activation_bytes(Recompute::selective) > compiled);
}

TEST_CASE("under torchtitan's tensor parallelism the per-op policy gathers the norms' outputs again") {
  using namespace op_sac_rows;
  constexpr double t = 2;
  for (const Pointwise p : {Pointwise::fused, Pointwise::eager}) {
    JobSpec j = llama_8b(p, topo::AttentionKernel::fa2);
    j.parallel.tp = 2;
    j.parallel.sequence_parallel = true;
    CountingSink none, sac;
    const DenseLayer layer(layer_dims(j, b));
    layer.backward(none, {}, Recompute::none);
    layer.backward(sac, {}, Recompute::selective);
    // wk and w3 on the rank's columns; wo's output reaches the residual through a reduce-scatter
    // whose output is kept, so only eager replays it: 2 b s (h kv + h f) / t, + 2 b s h h / t eager.
    const bool eager = p == Pointwise::eager;
    const double replayed = 2 * b * s * (h * kv + h * f + (eager ? h * h : 0.0)) / t;
    CHECK(sac.gemm_flops() - none.gemm_flops() == Approx(replayed));
    // all_gather is not on the save list: both norm outputs are gathered again in the replay, and
    // the weight gradients read those copies instead of gathering their own.
    CHECK(sac.find("tp.ag_ln1.recompute") != nullptr);
    CHECK(sac.find("tp.ag_ln2.recompute") != nullptr);
    CHECK(sac.find("tp.ag_ln1_wgrad") == nullptr);
    CHECK(sac.find("tp.ag_ln2_wgrad") == nullptr);
    CHECK(none.find("tp.ag_ln1_wgrad") != nullptr);
    CHECK(sac.comms(CollectiveKind::all_gather).size() == none.comms(CollectiveKind::all_gather).size());
    // Kept per rank: the input and the attention's reduce-scatter output (sequence shards, T / t
    // tokens), wq's, wv's, w1's and SDPA's outputs on the rank's heads and columns, SDPA's
    // log-sum-exp; eager also w2's whole partial sum and the MLP's reduce-scatter output.
    const double T = b * s;
    const double kept = E * T / t * h * 2 + E * T * (h + kv + f + h) / t + 4 * T * heads / t +
                        (eager ? E * T * h + E * T / t * h : 0.0);
    CHECK(layer.stored_activation_bytes(Recompute::selective) == Approx(kept));
  }
}
