#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/model/kv.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {
ModelSpec with_kv_heads(int kv_heads) {
  ModelSpec m = test::llama_70b();
  m.kv_heads = kv_heads;
  return m;
}
}  // namespace

TEST_CASE("KV bytes per token follow 2 x L x kv_heads x d_head x bytes (reference.md examples)") {
  // L = 80, d_head = 128, bf16.
  CHECK(kv_bytes_per_token(with_kv_heads(64), 2.0) == 2'621'440.0);  // MHA: 2*80*64*128*2
  CHECK(kv_bytes_per_token(with_kv_heads(8), 2.0) == 327'680.0);     // GQA: 2*80*8*128*2
  CHECK(kv_bytes_per_token(with_kv_heads(1), 2.0) == 40'960.0);      // MQA: 2*80*1*128*2
  // MHA at 2,048 tokens: 2,621,440 * 2,048 = 5,368,709,120 B = 5.37 GB.
  KvQuery q;
  q.context = 2048;
  const KvReport r = size_kv(with_kv_heads(64), q);
  CHECK(r.bytes_per_sequence == 5'368'709'120.0);
  CHECK(r.bytes_per_sequence / 1e9 == Approx(5.37).margin(0.005));
  // fp8 cache halves it.
  CHECK(kv_bytes_per_token(with_kv_heads(8), 1.0) == 163'840.0);
}

TEST_CASE("MLA caches the latent and the decoupled RoPE key, not per-head K and V") {
  ModelSpec m;
  m.layers = 61;
  m.attention = AttentionKind::mla;
  m.mla.kv_lora_rank = 512;
  m.mla.qk_rope_head_dim = 64;
  m.heads = 128;
  // DeepSeek-V3: (512 + 64) * 61 layers * 2 B = 70,272 B/token.
  CHECK(kv_bytes_per_token(m, 2.0) == 70'272.0);
  // The latent is not split by heads: every TP rank keeps all 576 elements per layer.
  CHECK(kv_bytes_per_token_layer_rank(m, 2.0, 8) == 1'152.0);
}

TEST_CASE("Per-rank KV shards heads but never below one head") {
  // GQA 8 heads: tp 4 -> 2 heads: 2 * 2 * 128 * 2 B = 1,024 B per layer.
  CHECK(kv_bytes_per_token_layer_rank(with_kv_heads(8), 2.0, 4) == 1'024.0);
  // tp 16 > 8 heads: each rank still holds one head: 2 * 1 * 128 * 2 = 512 B (replicated).
  CHECK(kv_bytes_per_token_layer_rank(with_kv_heads(8), 2.0, 16) == 512.0);
  CHECK(kv_bytes_per_token_layer_rank(with_kv_heads(1), 2.0, 8) == 512.0);
}

TEST_CASE("size_kv: cache, fit, decode bandwidth and the largest batch and context") {
  KvQuery q = test::kv_70b_on_8_h200();
  q.target_tokens_per_s = 2000.0;
  const KvReport r = size_kv(with_kv_heads(8), q);
  CHECK(r.bytes_per_token == 327'680.0);
  CHECK(r.bytes_per_sequence == 2'684'354'560.0);     // 327,680 * 8,192
  CHECK(r.cache_bytes == Approx(103'079'215'104.0));  // 32 * 2,684,354,560 * 1.2
  CHECK(r.weights_bytes == 140e9);                    // 70e9 * 2 B
  CHECK(r.total_bytes == Approx(243'079'215'104.0));
  REQUIRE(r.capacity_bytes);
  CHECK(*r.capacity_bytes == 1128e9);  // 8 * 141 GB
  CHECK(*r.fits);
  // Per generated token: 140e9 / 32 + 8,192 * 327,680 = 4.375e9 + 2,684,354,560 = 7,059,354,560 B.
  CHECK(r.decode_bytes_per_token == Approx(7'059'354'560.0));
  CHECK(*r.decode_bandwidth_Bps == Approx(2000.0 * 7'059'354'560.0));
  // 8 * 4.8e12 * 0.75 / 7,059,354,560 = 4,079.69 tokens/s.
  CHECK(*r.max_tokens_per_s == Approx(4079.693));
  // Free: 1,128e9 - 140e9 = 988e9; a token of cache with overhead: 327,680 * 1.2 = 393,216 B.
  CHECK(*r.max_batch == 306);       // floor(988e9 / (8,192 * 393,216)) = floor(306.72)
  CHECK(*r.max_context == 78'519);  // floor(988e9 / (32 * 393,216)) = floor(78,519.19)
}

TEST_CASE("size_kv: weights that overflow leave no room for any sequence") {
  KvQuery q;
  q.context = 1024;
  q.params = 70e9;  // 140 GB of weights on one 80 GB GPU
  topo::GpuSpec g;
  g.hbm_capacity = units::bytes(80e9);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  q.gpu = g;
  const KvReport r = size_kv(with_kv_heads(8), q);
  CHECK_FALSE(*r.fits);
  CHECK(*r.max_batch == 0);
  CHECK(*r.max_context == 0);
}

TEST_CASE("size_kv rejects impossible queries") {
  KvQuery q;
  q.context = 0;
  CHECK_THROWS_AS(size_kv(with_kv_heads(8), q), UserError);
  q.context = 10;
  q.overhead = 0.9;
  CHECK_THROWS_WITH(size_kv(with_kv_heads(8), q), Catch::Contains("overhead"));
}
