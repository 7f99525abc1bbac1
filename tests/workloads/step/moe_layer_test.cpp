#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/model/params.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/moe_layer.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace {

JobSpec job(int tp, int ep, WorkloadKind kind = WorkloadKind::train) {
  JobSpec j;
  j.model = stepsim::test::deepseek_v3(0);
  j.workload.kind = kind;
  j.workload.seq_len = 4096;
  j.workload.context_len = 1023;
  j.parallel.tp = tp;
  j.parallel.ep = ep;
  j.parallel.dp = 64;
  j.parallel.sequence_parallel = tp > 1;
  return j;
}

/// A balanced routing of `tokens` per rank over `ep` ranks on one node.
LayerRouting balanced(int ep, double tokens) {
  RoutingInputs in;
  in.experts = 256;
  in.top_k = 8;
  in.tokens_per_rank = tokens;
  in.node_of.assign(static_cast<std::size_t>(ep), 0);
  in.vector_bytes = 7168 * 2.0;
  return route_layer(in, 0, HotRank::as_drawn);
}

/// Where the op named `name` sits in what `s` recorded; -1 if absent.
long op_index(const CountingSink& s, const std::string& name) {
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].name == name) return static_cast<long>(i);
  return -1L;
}

/// DeepSeek-V3's layer with 8 experts, top-2, over EP 8 in one node: one expert per rank.
JobSpec one_expert_per_rank() {
  JobSpec j = job(1, 8);
  j.parallel.dp = 8;
  j.model.experts = 8;
  j.model.top_k = 2;
  return j;
}

/// Its balanced routing of 4,096 tokens per rank.
LayerRouting one_expert_routing() {
  RoutingInputs in;
  in.experts = 8;
  in.top_k = 2;
  in.tokens_per_rank = 4096;
  in.node_of.assign(8, 0);
  in.vector_bytes = 7168 * 2.0;
  return route_layer(in, 0, HotRank::as_drawn);
}

}  // namespace

TEST_CASE("MLA attention holds the weights params.cpp counts") {
  // tp 1: the whole attention block plus its input norm (RMSNorm: h weights).
  const DenseLayer layer(layer_dims(job(1, 1), 1));
  CHECK(layer.attention_params_per_rank() == Approx(attention_params(stepsim::test::deepseek_v3(0)) + 7168));
  // tp 2 splits the up projections and the output projection; the down projections and norms are
  // duplicated: q_up 1536 x 128 x 192 and kv_up 512 x 128 x 256 and proj 128 x 128 x 7168 halve.
  const DenseLayer split(layer_dims(job(2, 1), 1));
  const double halved = (1536.0 * 128 * 192 + 512.0 * 128 * 256 + 128.0 * 128 * 7168) / 2;
  CHECK(layer.attention_params_per_rank() - split.attention_params_per_rank() == Approx(halved));
}

TEST_CASE("an MoE layer's weights: dense part over TP, experts over EP") {
  const ModelSpec m = stepsim::test::deepseek_v3(0);
  const ParamBreakdown p = count_params(m);
  const double moe_layers = m.layers - m.dense_layers;
  const LayerDims d = layer_dims(job(1, 8), 1);
  const MoeLayer layer(d, moe_dims(job(1, 8)));
  // Dense part: attention + 2 norms + router + shared expert, one layer's share.
  const double dense = attention_params(m) + 2 * 7168.0 + (p.routers + p.shared_experts) / moe_layers;
  CHECK(layer.dense_params_per_rank() == Approx(dense));
  // 256 experts / ep 8 = 32 experts of 3 x 7168 x 2048 = 44,040,192 each.
  CHECK(layer.expert_params_per_rank() == Approx(32 * 44'040'192.0));
  CHECK(layer.expert_params_per_rank() * 8 == Approx(p.routed_experts / moe_layers));
}

TEST_CASE("an MoE layer's expert GEMMs do k experts' work per routed token") {
  // tp 2 with SP: each rank routes 4,096 / 2 = 2,048 tokens, sends 2,048 x 8 copies and (balanced)
  // processes as many: 16,384 copies x 2 x 3 x 7168 x 2048 FLOPs (up 2 x 2048 wide, down 2048).
  const JobSpec j = job(2, 64);
  const MoeLayer layer(layer_dims(j, 1), moe_dims(j));
  REQUIRE(layer.routed_tokens() == 2048);
  const LayerRouting r = balanced(64, layer.routed_tokens());
  CountingSink sink;
  layer.forward(sink, {}, MoeRank{&r, &r, 0, 2, 0});
  double experts = 0.0;
  for (const auto& o : sink.ops)
    if (!o.is_comm && (o.name == "experts_up" || o.name == "experts_down")) experts += o.work.flops.value();
  CHECK(experts == Approx(16384.0 * 2 * 3 * 7168 * 2048));
  // Dispatch: 16,384 copies x 7,168 x 2 B = 234,881,024 bytes per rank; the combine returns them.
  const auto a2a = sink.comms(CollectiveKind::all_to_all);
  REQUIRE(a2a.size() == 2);
  for (const auto* c : a2a) CHECK(c->comm.bytes == Approx(234'881'024.0));
  // 32 local experts see 64 x 2,048 x 8 / 256 = 4,096 tokens each: [4096 x 7168] x [7168 x 4096]
  // up projections (n = 2 x 2,048 with SwiGLU's gate), and [4096 x 2048] x [2048 x 7168] down ones.
  const auto& up = sink.find("experts_up")->work;
  CHECK((up.gemm_m == 4096 && up.gemm_n == 4096 && up.gemm_k == 7168));
  const auto& down = sink.find("experts_down")->work;
  CHECK((down.gemm_m == 4096 && down.gemm_n == 7168 && down.gemm_k == 2048));
}

TEST_CASE("MLA decode reads the latent cache: 576 elements per token per layer") {
  // kv_lora 512 + rope 64 = 576 elements, replicated on every TP rank; batch 4 at context 1,023:
  // 4 x 1,024 keys x 576 x 2 B = 4,718,592 B of cache per layer, plus the latent queries and outputs.
  const LayerDims d = layer_dims(job(1, 1, WorkloadKind::decode), 4);
  CHECK(d.kv_cache_width() == 576);
  CountingSink sink;
  DenseLayer(d).attention_forward(sink, {});
  const auto* attn = sink.find("attn");
  REQUIRE(attn != nullptr);
  const double queries = 2.0 * 4 * 128 * (576 + 512);  // latent query in, latent output out, 2 B
  CHECK(attn->work.hbm_bytes.value() == Approx(4.0 * 1024 * 576 * 2 + queries));
  // Scores over 576 dims and values over 512, for 128 heads: 2 x 4,096 x 128 x (576 + 512) FLOPs.
  CHECK(attn->work.flops.value() == Approx(2.0 * 4096 * 128 * (576 + 512)));
  // The new token's latent is appended: read 576 elements, write 576 (2 B each), per sequence.
  CHECK(sink.find("kv_write")->work.hbm_bytes.value() == Approx(4.0 * 576 * 4));
}

TEST_CASE("Megatron-Core expert groups span the TP ranks of a stage") {
  // tp 2, pp 2, dp 4, ep 8, expert_tp 1, order tp, cp, pp, dp: stage 0 holds ranks
  // {0, 1, 4, 5, 8, 9, 12, 13} (rank = tp + 2 pp + 4 dp); its 8 ranks form one EP group.
  ParallelSpec p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 4;
  p.ep = 8;
  const RankLayout l(p);
  CHECK(l.ep_group(9) == std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13});
  CHECK(l.ep_index(9) == 5);
  CHECK(l.expert_dp_group(9) == std::vector<int>{9});
  // expert_tp 2, ep 4: expert-TP pairs are the TP pairs; EP groups take every other rank.
  p.ep = 4;
  p.expert_tp = 2;
  const RankLayout e(p);
  CHECK(e.expert_tp_group(9) == std::vector<int>{8, 9});
  CHECK(e.ep_group(9) == std::vector<int>{1, 5, 9, 13});
  CHECK(e.expert_dp_group(9) == std::vector<int>{9});
}

TEST_CASE("selective recompute modules: what each drops from storage and adds to backward") {
  // DeepSeek-V3, tp 2 with SP, one sequence of 4,096 tokens, 2-byte activations.
  JobSpec j = job(2, 64);
  const double E = 2, T = 4096, Tn = T / 2, h = 7168;
  const auto layer_with = [&](RecomputeModules m) {
    j.recompute_modules = m;
    return MoeLayer(layer_dims(j, 1), moe_dims(j));
  };
  const LayerRouting r = balanced(64, 2048);
  const MoeRank rank{&r, &r, 0, 2, 0};
  const MoeLayer plain = layer_with({true, false, false, false});  // Megatron-Core's default
  const double base = plain.stored_activation_bytes(Recompute::selective, rank);
  CountingSink base_bwd;
  plain.backward(base_bwd, {}, Recompute::selective, rank);

  SECTION("layernorm: both norm outputs (Tn x h each) are recomputed") {
    const MoeLayer l = layer_with({true, true, false, false});
    CHECK(base - l.stored_activation_bytes(Recompute::selective, rank) == Approx(2 * E * Tn * h));
    CountingSink bwd;
    l.backward(bwd, {}, Recompute::selective, rank);
    REQUIRE(bwd.find("ln1.recompute") != nullptr);
    REQUIRE(bwd.find("ln2.recompute") != nullptr);
    CHECK(bwd.find("ln2.recompute")->work.hbm_bytes.value() == Approx(2 * E * Tn * h));  // read x, write y
    CHECK(bwd.gemm_flops() == Approx(base_bwd.gemm_flops()));
  }
  SECTION("mla_up_proj: Q, K and V are recomputed by the two up projections") {
    const MoeLayer l = layer_with({true, false, true, false});
    // Per TP rank: 64 heads x (Q 192 + K 192 + V 128) = 32,768 elements per token.
    CHECK(base - l.stored_activation_bytes(Recompute::selective, rank) ==
          Approx(E * T * 64 * (192 + 192 + 128)));
    CountingSink bwd;
    l.backward(bwd, {}, Recompute::selective, rank);
    // q_up 1536 -> 64 x 192 and kv_up 512 -> 64 x (128 + 128), 2 FLOPs per multiply-add.
    const double again = 2 * T * (1536.0 * 64 * 192 + 512.0 * 64 * 256);
    CHECK(bwd.gemm_flops() - base_bwd.gemm_flops() == Approx(again));
  }
  SECTION("moe_act: the activation output of every routed copy is recomputed") {
    const MoeLayer l = layer_with({true, false, false, true});
    // 16,384 copies (balanced) x 2,048 x 2 B.
    CHECK(base - l.stored_activation_bytes(Recompute::selective, rank) == Approx(E * 16384 * 2048));
    CountingSink bwd;
    l.backward(bwd, {}, Recompute::selective, rank);
    REQUIRE(bwd.find("experts_act.recompute") != nullptr);
    CHECK(bwd.find("experts_act.recompute")->work.flops.value() == Approx(8.0 * 16384 * 2048));
  }
  SECTION("modules apply only to selective recomputation") {
    const MoeLayer l = layer_with({true, true, true, true});
    CHECK(l.stored_activation_bytes(Recompute::none, rank) ==
          Approx(plain.stored_activation_bytes(Recompute::none, rank)));
    CountingSink bwd;
    l.backward(bwd, {}, Recompute::none, rank);
    CHECK(bwd.find("ln1.recompute") == nullptr);
    CHECK(bwd.find("experts_act.recompute") == nullptr);
  }
}

TEST_CASE("where the routing probabilities weigh the copies, and the activation's FP8 input store") {
  // DeepSeek-V3, tp 2 with SP: 2,048 routed tokens per rank, 16,384 copies received (balanced),
  // 2-byte activations, SwiGLU experts of 2,048.
  JobSpec j = job(2, 64);
  const double E = 2, Tm = 2048, T = 4096, h = 7168, f = 2048, n = 16384;
  const LayerRouting r = balanced(64, 2048);
  const MoeRank rank{&r, &r, 0, 2, 0};
  const double sent = r.sent(0);  // hidden vectors this rank dispatches (one per destination GPU)
  REQUIRE(j.moe.probs == MoeProbs::activation);  // Megatron-Core 0.12.1 on
  const MoeLayer in_experts(layer_dims(j, 1), moe_dims(j));
  j.moe.probs = MoeProbs::unpermute;  // Megatron-Core up to 0.12
  const MoeLayer in_unpermute(layer_dims(j, 1), moe_dims(j));
  j.moe.probs = MoeProbs::activation;

  SECTION(
      "weighed in the unpermute, its backward keeps every returned copy; in the experts, the probabilities") {
    CHECK(in_unpermute.stored_activation_bytes(Recompute::none, rank) -
              in_experts.stored_activation_bytes(Recompute::none, rank) ==
          Approx(E * sent * h - 4 * n));
    CountingSink a, b;
    in_experts.backward(a, {}, Recompute::none, rank);
    in_unpermute.backward(b, {}, Recompute::none, rank);
    // The unpermute's backward reads dy (Tm x h) and writes the copies' gradients (sent x h); the
    // probabilities' gradient adds a read of every kept copy and of the probabilities (4 B x 8 per token).
    CHECK(a.find("unpermute.bwd")->work.hbm_bytes.value() == Approx((Tm + sent) * h * E));
    CHECK(b.find("unpermute.bwd")->work.hbm_bytes.value() == Approx((Tm + 2 * sent) * h * E + 4 * Tm * 8));
    // The weighted activation reads each copy's probability and writes its gradient (4 B each).
    CHECK(a.find("experts_act.bwd")->work.hbm_bytes.value() -
              b.find("experts_act.bwd")->work.hbm_bytes.value() ==
          Approx(8 * n));
  }
  SECTION("the FP8 input store keeps the SwiGLU inputs (gate and up) at one byte") {
    j.precision.activation_fp8_input_store = true;
    const MoeLayer stored(layer_dims(j, 1), moe_dims(j));
    // Routed experts: n x 2 x 2,048 elements; the shared expert: 4,096 tokens x 2 x 2,048 / tp 2.
    CHECK(in_experts.stored_activation_bytes(Recompute::none, rank) -
              stored.stored_activation_bytes(Recompute::none, rank) ==
          Approx((E - 1) * (n * 2 * f + T * 2 * f / 2)));
    CountingSink a, b;
    in_experts.forward(a, {}, rank);
    stored.forward(b, {}, rank);
    // The forward writes the FP8 copy of its two inputs: 2 bytes more per output element.
    CHECK(b.find("experts_act")->work.hbm_bytes.value() - a.find("experts_act")->work.hbm_bytes.value() ==
          Approx(2 * n * f));
    // A dense layer's MLP (DeepSeek-V3's first layers, FFN 18,432 split over tp 2) the same way.
    const DenseLayer dense(layer_dims(j, 1));
    j.precision.activation_fp8_input_store = false;
    const DenseLayer plain(layer_dims(j, 1));
    CHECK(plain.stored_activation_bytes(Recompute::none) - dense.stored_activation_bytes(Recompute::none) ==
          Approx((E - 1) * T * 2 * 18432 / 2));
  }
}

TEST_CASE("DeepEP permutes on the receiving side, Megatron's all-to-all before sending") {
  // DeepSeek-V3, tp 1, EP 8 in one node, 4,096 tokens per rank, balanced top-8 of 256 experts.
  // Megatron's all-to-all (max_nodes_per_token = 0): the permute reads the rank's tokens and writes
  // its T k = 32,768 copies before the dispatch, and the unpermute undoes it after the combine.
  // DeepEP's dispatch (node-limited): a token travels once per GPU, so the receiving rank expands
  // the tokens it got (LayerRouting::delivered) into its 32,768 copies after the dispatch, and sums
  // them back per token before the combine (Megatron-Core's flex dispatcher, DeepEP's own tests).
  const auto routed = [](int max_nodes) {
    RoutingInputs in;
    in.experts = 256;
    in.top_k = 8;
    in.tokens_per_rank = 4096;
    in.node_of.assign(8, 0);
    in.vector_bytes = 7168 * 2.0;
    in.moe.max_nodes_per_token = max_nodes;
    return route_layer(in, 0, HotRank::as_drawn);
  };
  const double E = 2, h = 7168, T = 4096, n = 32768;
  JobSpec j = job(1, 8);
  j.parallel.dp = 8;
  {
    const LayerRouting r = routed(0);
    const MoeRank rank{&r, &r, 0, 1, 0};
    const MoeLayer layer(layer_dims(j, 1), moe_dims(j));
    CountingSink s;
    layer.forward(s, {}, rank);
    CHECK(op_index(s, "permute") < op_index(s, "ep.dispatch"));
    CHECK(op_index(s, "unpermute") > op_index(s, "ep.combine"));
    CHECK(s.find("permute")->work.hbm_bytes.value() == Approx((T + n) * h * E));
  }
  j.moe.max_nodes_per_token = 1;
  const LayerRouting r = routed(1);
  const MoeRank rank{&r, &r, 0, 1, 0};
  const MoeLayer layer(layer_dims(j, 1), moe_dims(j));
  // Each of the 8 sources' 4,096 tokens reaches this rank unless all 8 copies miss its 32 of 256
  // experts: 8 x 4,096 x (1 - (224/256)^8) tokens delivered.
  const double got = 8 * T * (1 - std::pow(224.0 / 256.0, 8));
  REQUIRE(r.delivered[0] == Approx(got));
  CountingSink s;
  layer.forward(s, {}, rank);
  CHECK(op_index(s, "permute") > op_index(s, "ep.dispatch"));
  CHECK(op_index(s, "unpermute") < op_index(s, "ep.combine"));
  CHECK(s.find("permute")->work.hbm_bytes.value() == Approx((got + n) * h * E));
  CHECK(s.find("unpermute")->work.hbm_bytes.value() == Approx((n + got) * h * E));
  CountingSink b;
  layer.backward(b, {}, Recompute::none, rank);
  // Backward: the combine's token gradients arrive, are expanded to the copies, run through the
  // experts, and are summed per token before the dispatch's gradients go back.
  CHECK(op_index(b, "ep.combine.bwd") < op_index(b, "unpermute.bwd"));
  CHECK(op_index(b, "permute.bwd") < op_index(b, "ep.dispatch.bwd"));
  CHECK(b.find("unpermute.bwd")->work.hbm_bytes.value() == Approx((got + n) * h * E));
  CHECK(b.find("permute.bwd")->work.hbm_bytes.value() == Approx((n + got) * h * E));
}

TEST_CASE("an all-to-all dispatcher sorts the copies by local expert around the grouped GEMMs") {
  // DeepSeek-V3, tp 1, EP 8: 256 / 8 = 32 experts per rank, 4,096 tokens per rank, balanced top-8.
  // The all-to-all delivers this rank's 4,096 x 8 = 32,768 copies grouped by source rank, then by
  // expert; Megatron-Core's alltoall dispatcher sorts them by local expert for the grouped GEMM
  // ("permutation 2") and unsorts the outputs before the combine: each pass reads and writes every
  // copy, n h E x 2 = 32,768 x 7,168 x 2 B x 2 = 939.5 MB, the dispatch's also the fp32 routing
  // probabilities that travel with the tokens (probs = "activation": 32,768 x 4 B x 2).
  const double E = 2, h = 7168, n = 32768;
  JobSpec j = job(1, 8);
  j.parallel.dp = 8;
  const LayerRouting r = balanced(8, 4096);
  const MoeRank rank{&r, &r, 0, 1, 0};
  const MoeLayer layer(layer_dims(j, 1), moe_dims(j));
  CountingSink s;
  layer.forward(s, {}, rank);
  REQUIRE(s.find("permute_local") != nullptr);
  CHECK(op_index(s, "ep.dispatch") < op_index(s, "permute_local"));
  CHECK(op_index(s, "permute_local") < op_index(s, "experts_up"));
  CHECK(op_index(s, "experts_down") < op_index(s, "unpermute_local"));
  CHECK(op_index(s, "unpermute_local") < op_index(s, "ep.combine"));
  CHECK(s.find("permute_local")->work.hbm_bytes.value() == Approx(2 * n * h * E + 2 * 4 * n));
  CHECK(s.find("unpermute_local")->work.hbm_bytes.value() == Approx(2 * n * h * E));
  // Backward: the combine's gradients arrive by source rank and are sorted again (the unsort's
  // backward) before the experts; their input gradients are unsorted (the sort's) before the
  // dispatch's gradients go back.
  CountingSink b;
  layer.backward(b, {}, Recompute::none, rank);
  CHECK(op_index(b, "ep.combine.bwd") < op_index(b, "unpermute_local.bwd"));
  CHECK(op_index(b, "unpermute_local.bwd") < op_index(b, "experts_down.dgrad"));
  CHECK(op_index(b, "experts_up.wgrad") < op_index(b, "permute_local.bwd"));
  CHECK(op_index(b, "permute_local.bwd") < op_index(b, "ep.dispatch.bwd"));
  CHECK(b.find("permute_local.bwd")->work.hbm_bytes.value() == Approx(2 * n * h * E));
  // One expert per rank (256 experts over EP 256 would need 256 ranks; 8 experts over EP 8 here):
  // the copies arrive in expert order already, and no sort runs.
  const JobSpec one = one_expert_per_rank();
  const LayerRouting r1 = one_expert_routing();
  const MoeRank rank1{&r1, &r1, 0, 1, 0};
  CountingSink s1;
  MoeLayer(layer_dims(one, 1), moe_dims(one)).forward(s1, {}, rank1);
  CHECK(s1.find("permute_local") == nullptr);
  CHECK(s1.find("unpermute_local") == nullptr);
}

TEST_CASE("the dispatch's backward all-to-all waits for the experts' weight gradients") {
  // Transformer Engine's GroupedLinear computes the data and weight gradients in one autograd node,
  // so the all-to-all after it is issued once both are done: with one expert per rank (no sort
  // kernel between them on the stream) ep.dispatch.bwd depends on experts_up.wgrad directly.
  const JobSpec j = one_expert_per_rank();
  const LayerRouting r = one_expert_routing();
  const MoeRank rank{&r, &r, 0, 1, 0};
  CountingSink b;
  MoeLayer(layer_dims(j, 1), moe_dims(j)).backward(b, {}, Recompute::none, rank);
  std::uint32_t wgrad = 0;
  for (std::size_t i = 0; i < b.ops.size(); ++i)
    if (b.ops[i].name == "experts_up.wgrad") wgrad = static_cast<std::uint32_t>(i);
  const auto* a2a = b.find("ep.dispatch.bwd");
  REQUIRE(a2a != nullptr);
  CHECK(std::find(a2a->deps.begin(), a2a->deps.end(), wgrad) != a2a->deps.end());
}
