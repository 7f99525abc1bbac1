#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "workloads/model/params.hpp"

using stepsim::work::Activation;
using stepsim::work::AttentionKind;
using stepsim::work::count_params;
using stepsim::work::ModelSpec;
using stepsim::work::NormKind;
using stepsim::work::PositionEmbedding;

namespace {

ModelSpec gpt3_175b() {
  ModelSpec m;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.head_dim = 128;
  m.ffn = 49152;
  m.vocab = 50257;
  m.activation = Activation::gelu;
  m.norm = NormKind::layernorm;
  m.position = PositionEmbedding::learned;
  m.max_positions = 2048;
  m.linear_bias = true;
  m.tied_embeddings = true;
  return m;
}

}  // namespace

TEST_CASE("Llama-2-7B count matches the checkpoint exactly") {
  const auto b = count_params(stepsim::test::llama2_7b());
  // embedding = head = 32000 x 4096 = 131,072,000
  CHECK(b.embedding == 131072000.0);
  CHECK(b.lm_head == 131072000.0);
  // attention per layer: Q, K, V, O = 4 x 4096^2 = 67,108,864; x 32 = 2,147,483,648
  CHECK(b.attention == 2147483648.0);
  // SwiGLU MLP per layer: 3 x 4096 x 11008 = 135,266,304; x 32 = 4,328,521,728
  CHECK(b.dense_mlp == 4328521728.0);
  // RMSNorm: 2 per layer x 4096 x 32 + final 4096 = 266,240
  CHECK(b.norms == 266240.0);
  // 131,072,000 x 2 + 2,147,483,648 + 4,328,521,728 + 266,240 = 6,738,415,616,
  // the parameter count of meta-llama/Llama-2-7b-hf.
  CHECK(b.total == 6738415616.0);
  CHECK(b.active == b.total);
}

TEST_CASE("GPT-3 175B: biases, LayerNorm, learned positions and tied embeddings") {
  const auto b = count_params(gpt3_175b());
  // per layer (h = 12288): attention 4h^2 + 4h = 604,028,928; MLP 8h^2 + 5h = 1,208,020,992;
  // two LayerNorms 4h = 49,152 -> 1,812,099,072 (Megatron's 12h^2 + 13h); x 96 = 173,961,510,912
  CHECK(b.attention + b.dense_mlp + b.norms - 2.0 * 12288 == 173961510912.0);
  // embedding 50257 x 12288 = 617,558,016; positions 2048 x 12288 = 25,165,824; tied head = 0
  CHECK(b.embedding == 617558016.0);
  CHECK(b.position == 25165824.0);
  CHECK(b.lm_head == 0.0);
  // total = 173,961,510,912 + 617,558,016 + 25,165,824 + final LayerNorm 24,576 = 174,604,259,328
  CHECK(b.total == 174604259328.0);
}

TEST_CASE("untying the head adds vocab x hidden, GELU and ReLU MLPs have two matrices") {
  ModelSpec m = gpt3_175b();
  const double tied = count_params(m).total;
  m.tied_embeddings = false;
  CHECK(count_params(m).total - tied == 50257.0 * 12288.0);
  m.activation = Activation::relu;
  const double relu = count_params(m).dense_mlp;
  m.activation = Activation::gelu;
  CHECK(count_params(m).dense_mlp == relu);
  m.activation = Activation::swiglu;
  // SwiGLU with biases: 3 h f + 2 f + h instead of 2 h f + f + h, per layer: extra h f + f
  CHECK(count_params(m).dense_mlp - relu == 96.0 * (12288.0 * 49152.0 + 49152.0));
}

TEST_CASE("grouped-query attention shrinks K and V only") {
  ModelSpec m = stepsim::test::llama2_7b();
  const double mha = count_params(m).attention;
  m.kv_heads = 8;
  // K and V go from 4096 x 4096 to 4096 x (8 x 128) each: saves 2 x 4096 x 3072 per layer
  CHECK(mha - count_params(m).attention == 32.0 * 2.0 * 4096.0 * 3072.0);
}

TEST_CASE("Mixtral 8x7B: total counts every expert, active only the top-2") {
  ModelSpec m = stepsim::test::llama2_7b();
  m.kv_heads = 8;
  m.ffn = 0;
  m.vocab = 32000;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn = 14336;
  const auto b = count_params(m);
  // per layer: attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; norms 8,192;
  // router 8 x 4096 = 32,768; one expert 3 x 4096 x 14336 = 176,160,768
  CHECK(b.routers == 32.0 * 32768.0);
  CHECK(b.routed_experts == 32.0 * 8.0 * 176160768.0);
  CHECK(b.dense_mlp == 0.0);
  // total: 32 x (41,943,040 + 8,192 + 8 x 176,160,768 + 32,768) + 2 x 131,072,000 + 4,096
  //      = 46,440,644,608 + 262,148,096 = 46,702,792,704 (Mistral: "46.7B")
  CHECK(b.total == 46702792704.0);
  // active: 32 x (41,943,040 + 8,192 + 2 x 176,160,768 + 32,768) + 262,148,096
  //       = 12,617,777,152 + 262,148,096 = 12,879,925,248 (Mistral: "12.9B")
  CHECK(b.active == 12879925248.0);
}

TEST_CASE("DeepSeek-V3: MLA, dense leading layers, shared experts and the MTP module") {
  const ModelSpec m = stepsim::test::deepseek_v3();
  // MLA per layer: W_DQ 7168 x 1536 = 11,010,048 + q norm 1,536 + W_UQ 1536 x 128 x 192 = 37,748,736
  //   -> 48,760,320; W_DKV 7168 x (512 + 64) = 4,128,768 + kv norm 512 + W_UKV 512 x 128 x 256 =
  //   16,777,216 -> 20,906,496; W_O 128 x 128 x 7168 = 117,440,512. Sum 187,107,328.
  CHECK(stepsim::work::attention_params(m) == 187107328.0);
  const auto b = count_params(m);
  // one expert: 3 x 7168 x 2048 = 44,040,192; 58 MoE layers x 256 routed
  CHECK(b.routed_experts == 58.0 * 256.0 * 44040192.0);
  CHECK(b.shared_experts == 58.0 * 44040192.0);
  // dense FFN: 3 layers x 3 x 7168 x 18432 = 3 x 396,361,728
  CHECK(b.dense_mlp == 3.0 * 396361728.0);
  // MTP: MoE layer (187,107,328 + 14,336 norms + 257 x 44,040,192 + router 1,835,008 =
  // 11,507,286,016) + eh_proj 2 x 7168^2 = 102,760,448 + 3 norms 21,504 = 11,610,067,968
  // (README_WEIGHTS: "11.5B unique parameters")
  CHECK(b.mtp == 11610067968.0);
  // main model: 58 x 11,507,286,016 + 3 x (187,121,664 + 396,361,728) + 2 x 926,679,040 + 7,168
  //           = 667,422,588,928 + 1,750,450,176 + 1,853,358,080 + 7,168 = 671,026,404,352 ("671B")
  CHECK(b.main_total() == 671026404352.0);
}

TEST_CASE("MoE layers interleaved with dense ones (moe_layer_freq) count each kind once") {
  // Mixtral's dimensions with a dense FFN of 14336 in every second layer: 16 dense and 16 MoE
  // layers. The counts depend on how many of each there are, not on their order, so the pattern
  // [0, 1] x 16, the integer form 2 (layers 0, 2, ... MoE) and 16 leading dense layers agree.
  ModelSpec m = stepsim::test::llama2_7b();
  m.kv_heads = 8;
  m.ffn = 14336;
  m.vocab = 32000;
  m.experts = 8;
  m.top_k = 2;
  m.expert_ffn = 14336;
  for (int i = 0; i < 32; ++i) m.moe_layer_pattern.push_back(i % 2);
  CHECK(m.moe_layers() == 16);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  const auto b = count_params(m);
  // one expert (and one dense MLP) 3 x 4096 x 14336 = 176,160,768; router 32,768
  CHECK(b.routed_experts == 16.0 * 8.0 * 176160768.0);
  CHECK(b.dense_mlp == 16.0 * 176160768.0);
  CHECK(b.routers == 16.0 * 32768.0);
  ModelSpec every_second = m;
  every_second.moe_layer_pattern.clear();
  every_second.moe_layer_freq = 2;
  CHECK(every_second.is_moe_layer(0));
  CHECK_FALSE(every_second.is_moe_layer(1));
  CHECK(count_params(every_second).total == b.total);
  ModelSpec leading = every_second;
  leading.moe_layer_freq = 1;
  leading.dense_layers = 16;
  CHECK(count_params(leading).total == b.total);
}
