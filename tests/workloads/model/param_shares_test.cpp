#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "workloads/model/param_shares.hpp"
#include "workloads/model/params.hpp"

using namespace stepsim;
using namespace stepsim::work;

TEST_CASE("Parameter shares of a small GPT add up by hand") {
  const ParamShares p = param_shares(test::tiny_gpt());
  CHECK(p.attention == 16'777'216.0);  // 4 layers * 4 * 1024^2
  CHECK(p.dense_mlp == 33'554'432.0);  // 4 layers * 2 * 1024 * 4096
  CHECK(p.norms == 9'216.0);           // (4 layers * 2 + final) * 1024 (RMSNorm scale)
  CHECK(p.embedding == 32'768'000.0);  // 32,000 * 1024
  CHECK(p.lm_head == 32'768'000.0);    // untied
  CHECK(p.total() == 115'876'864.0);
  CHECK(p.active() == p.total());
  // Matrix products: the layers' projections and the head, not the lookup or norms:
  // 16,777,216 + 33,554,432 + 32,768,000 = 83,099,648.
  CHECK(p.active_matmul(false) == 83'099'648.0);
}

TEST_CASE("Tied embeddings keep the table as the output GEMM") {
  ModelSpec m = test::tiny_gpt();
  m.tied_embeddings = true;
  const ParamShares p = param_shares(m);
  CHECK(p.lm_head == 0.0);
  CHECK(p.total() == 115'876'864.0 - 32'768'000.0);
  CHECK(p.active_matmul(false) == 83'099'648.0);  // the one table still multiplies every token
}

TEST_CASE("Llama-3.1-70B counts 70.55B parameters") {
  // Per layer: attention 2*8192^2 + 2*8192*1024 = 150,994,944; SwiGLU 3*8192*28,672 = 704,643,072;
  // norms 2*8192. 80 layers + 2 * 128,256 * 8,192 + final norm = 70,553,706,496 (published 70.6B).
  CHECK(param_shares(test::llama_70b()).total() == 70'553'706'496.0);
}

TEST_CASE("MoE shares: routed experts apart, top_k of them active") {
  ModelSpec m = test::tiny_gpt();
  m.experts = 8;
  m.top_k = 2;
  m.shared_experts = 1;
  m.expert_ffn = 1024;
  m.dense_layers = 1;
  const ParamShares p = param_shares(m);
  const double expert = 2.0 * 1024 * 1024;  // GELU expert: up + down
  CHECK(p.expert() == expert);
  CHECK(p.routed_experts == 3 * 8 * expert);  // 3 MoE layers
  CHECK(p.shared_experts == 3 * expert);
  CHECK(p.routers == 3 * 1024.0 * 8);
  CHECK(p.dense_mlp == 2.0 * 1024 * 4096);  // the one dense layer
  CHECK(p.routed_active() == 3 * 2 * expert);
  CHECK(p.total() - p.active() == 3 * 6 * expert);  // the six experts a token skips per MoE layer
}

TEST_CASE("Shares add up to count_params for every catalog-shaped model") {
  // DeepSeek-V3: MLA, 256 routed experts (top 8), 1 shared, 3 dense layers, 1 MTP module.
  const ModelSpec m = test::deepseek_v3();
  const ParamShares s = param_shares(m);
  const ParamBreakdown b = count_params(m);
  CHECK(s.total() == Approx(b.total));
  CHECK(s.active() == Approx(b.main_active()));
  // Published: 671B total (main model), 37B activated. By hand from config.json:
  //  attention (MLA) per layer: q 7168 x 1536 + 1536 (norm) + 1536 x 128 x 192; kv 7168 x 576 + 512
  //  (norm) + 512 x 128 x 256; out 128 x 128 x 7168 = 187,107,328; x 61 = 11,413,547,008.
  //  norms 61 x 2 x 7168 + 7168 = 881,664; embedding = head = 129,280 x 7168 = 926,679,040;
  //  3 dense MLPs of 3 x 7168 x 18,432 = 1,189,085,184: common 14,456,871,936.
  //  An expert: 3 x 7168 x 2048 = 44,040,192; per MoE layer 256 routed + 1 shared + a router of
  //  256 x 7168 = 11,320,164,352, of which a token uses 8 + 1 + router = 398,196,736; 58 MoE layers.
  //  Total: 14,456,871,936 + 58 x 11,320,164,352 = 671,026,404,352 (671.0B).
  //  Active: 14,456,871,936 + 58 x 398,196,736 = 37,552,282,624 (37.6B).
  CHECK(s.total() - s.mtp == 671'026'404'352.0);
  CHECK(s.active() == 37'552'282'624.0);
}
