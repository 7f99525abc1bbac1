// Context parallelism's three ways of sharing keys and values (parallelism.cp_comm): the ring
// (p2p), the all-gather and the all-to-all, as Transformer Engine's context_parallel.py runs them.
#include <catch2/catch.hpp>

#include "tests/workloads/counting_sink.hpp"
#include "workloads/model/names.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace cp_rows {

// A Llama-like layer: h = 4096, 32 query heads and 8 KV heads of 128, seq 8192, one sequence,
// TP 2 (SP) x CP 4, bf16: each rank holds T = 8192 / 4 = 2,048 query tokens.
JobSpec llama_like(CpComm comm) {
  JobSpec j;
  j.model.layers = 32;
  j.model.hidden = 4096;
  j.model.heads = 32;
  j.model.kv_heads = 8;
  j.model.head_dim = 128;
  j.model.ffn = 14336;
  j.model.vocab = 128256;
  j.workload.seq_len = 8192;
  j.parallel.tp = 2;
  j.parallel.cp = 4;
  j.parallel.cp_comm = comm;
  j.parallel.sequence_parallel = true;
  j.precision.compute = topo::Precision::bf16;
  return j;
}

constexpr double T = 2048, E = 2;
// Per TP rank: 16 query heads (2,048 columns), 4 KV heads (512 columns of K, 512 of V).
constexpr double q = 2048, kv = 512, o = 2048;

struct Passes {
  CountingSink fwd, bwd;
};

Passes run(CpComm comm) {
  Passes p;
  const DenseLayer layer(layer_dims(llama_like(comm), 1));
  layer.forward(p.fwd, {});
  layer.backward(p.bwd, {}, Recompute::none);
  return p;
}

}  // namespace cp_rows

TEST_CASE("every context-parallel method does the rank's causal share of attention") {
  using namespace cp_rows;
  // 4 b s^2 h / tp x 1/2 (causal) x 1/cp = 4 x 8192^2 x 4096 / 2 / 2 / 4 FLOPs forward.
  const double share = 4.0 * 8192 * 8192 * 4096 / 2 / 2 / 4;
  for (CpComm c : {CpComm::p2p, CpComm::all_gather, CpComm::a2a}) {
    INFO(name(c));
    const Passes p = run(c);
    CHECK(p.fwd.flops(topo::OpClass::attention) == Approx(share));
    CHECK(p.bwd.flops(topo::OpClass::attention) == Approx(2.5 * share));  // FlashAttention's backward
  }
}

TEST_CASE(
    "all-gather context parallelism gathers keys and values each pass and reduce-scatters their gradients") {
  using namespace cp_rows;
  const Passes p = run(CpComm::all_gather);
  // The gathered K and V: cp x T x (512 + 512) x 2 bytes = 4 x 2,048 x 1,024 x 2 = 16.78 MB per rank.
  const double gathered = 4 * T * (kv + kv) * E;
  const auto ag_f = p.fwd.comms(CollectiveKind::all_gather);
  std::vector<const work::fakes::Recorded*> cp_ag;
  for (const auto* r : ag_f)
    if (r->comm.dim == ParallelDim::cp) cp_ag.push_back(r);
  REQUIRE(cp_ag.size() == 1);
  CHECK(cp_ag[0]->comm.bytes == Approx(gathered));
  CHECK(p.fwd.comms(CollectiveKind::ring_exchange).empty());
  // Reordered into sequence order: read and write the gathered tensor.
  REQUIRE(p.fwd.find("cp.kv_reorder") != nullptr);
  CHECK(p.fwd.find("cp.kv_reorder")->work.hbm_bytes.value() == Approx(2 * gathered));
  // No partial results to merge: each query chunk sees its whole prefix in one kernel (two kernels).
  CHECK(p.fwd.find("cp.out_merge") == nullptr);
  CHECK(p.fwd.find("attn")->work.launches == 2);
  // Backward: gathered again, the two chunks' dK, dV added into a zeroed full-length buffer
  // (zero: 1 x gathered; adds over (2 cp + 1) / (2 cp) = 9/8 of it, 3 bytes moved per byte:
  // 1 + 27/8 = 4.375 x gathered), reordered back, reduce-scattered over the 4 ranks.
  bool gathered_again = false;
  for (const auto* r : p.bwd.comms(CollectiveKind::all_gather))
    gathered_again = gathered_again || (r->comm.dim == ParallelDim::cp && r->comm.bytes == Approx(gathered));
  CHECK(gathered_again);
  REQUIRE(p.bwd.find("cp.dkv_accumulate") != nullptr);
  CHECK(p.bwd.find("cp.dkv_accumulate")->work.hbm_bytes.value() == Approx(4.375 * gathered));
  const auto* rs = p.bwd.find("cp.dkv_reduce_scatter");
  REQUIRE(rs != nullptr);
  CHECK(rs->comm.kind == CollectiveKind::reduce_scatter);
  CHECK(rs->comm.bytes == Approx(gathered));
}

TEST_CASE("all-to-all context parallelism moves queries, keys and values to head shards and back") {
  using namespace cp_rows;
  const Passes p = run(CpComm::a2a);
  // Forward: Q, K, V of the rank's tokens, T x (2,048 + 512 + 512) x 2 = 12.58 MB, out; the
  // output, T x 2,048 x 2 = 8.39 MB, back. Backward mirrors it: dO out, dQ, dK, dV back.
  const double qkv = T * (q + kv + kv) * E, out = T * o * E;
  const auto f = p.fwd.comms(CollectiveKind::all_to_all);
  const auto b = p.bwd.comms(CollectiveKind::all_to_all);
  REQUIRE(f.size() == 2);
  REQUIRE(b.size() == 2);
  CHECK(f[0]->comm.bytes == Approx(qkv));
  CHECK(f[1]->comm.bytes == Approx(out));
  CHECK(b[0]->comm.bytes == Approx(out));
  CHECK(b[1]->comm.bytes == Approx(qkv));
  for (const auto* r : f) CHECK(r->comm.dim == ParallelDim::cp);
  // Each all-to-all is made contiguous before and reordered after (2 bytes moved per byte each).
  CHECK(p.fwd.find("cp.a2a_prepare qkv")->work.hbm_bytes.value() == Approx(2 * qkv));
  CHECK(p.fwd.find("cp.a2a_reorder out")->work.hbm_bytes.value() == Approx(2 * out));
  CHECK(p.fwd.comms(CollectiveKind::ring_exchange).empty());
  CHECK(p.fwd.find("cp.out_merge") == nullptr);
}

TEST_CASE("context parallelism's attention kernels carry their shapes: a ring step spans one key block") {
  using namespace cp_rows;
  // 16 query heads per TP rank x 2,048 query rows / 128 = 256 query tiles on every method.
  // The ring's steps each attend one block of 8,192 / 4 = 2,048 keys; the gathered kernels and the
  // all-to-all's (all 8,192 keys, heads / cp) span the whole sequence.
  const Passes ring = run(CpComm::p2p);
  const fakes::Recorded* step = ring.fwd.find("attn cp0");
  REQUIRE(step != nullptr);
  CHECK(step->work.attention_keys == 2048);
  CHECK(step->work.attention_tiles == 256);
  for (CpComm c : {CpComm::all_gather, CpComm::a2a}) {
    INFO(name(c));
    const Passes p = run(c);
    const fakes::Recorded* attn = p.fwd.find("attn");
    REQUIRE(attn != nullptr);
    CHECK(attn->work.attention_keys == 8192);
    CHECK(attn->work.attention_tiles == 256);
  }
}
