#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/model_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace layer_ops_rows {
// Megatron GPT 1.7B (Narayanan 2021 Table 1): h = 2304, 24 heads, f = 4h, GeLU, dropout, biases.
JobSpec gpt_1_7b(int tp, bool sp, AttentionImpl impl) {
  JobSpec j;
  j.model.layers = 24;
  j.model.hidden = 2304;
  j.model.heads = 24;
  j.model.kv_heads = 24;
  j.model.head_dim = 96;
  j.model.ffn = 4 * 2304;
  j.model.vocab = 51200;
  j.model.activation = Activation::gelu;
  j.model.norm = NormKind::layernorm;
  j.model.linear_bias = true;
  j.model.dropout = true;
  j.workload.seq_len = 2048;
  j.workload.attention_impl = impl;
  j.parallel.tp = tp;
  j.parallel.sequence_parallel = sp;
  j.precision.compute = topo::Precision::fp16;
  return j;
}
constexpr double b = 4, s = 2048, h = 2304, a = 24;
}  // namespace layer_ops_rows

TEST_CASE("dense layer forward GEMM FLOPs match Megatron's 24 b s h^2 (1 + s / 6h)") {
  using namespace layer_ops_rows;
  // QKV 6bsh^2 + QK^T 2bs^2h + PV 2bs^2h + proj 2bsh^2 + MLP 16bsh^2 = 24bsh^2 + 4bs^2h.
  const double expected = 24 * b * s * h * h * (1 + s / (6 * h));
  for (int tp : {1, 2, 8}) {
    CountingSink sink;
    DenseLayer(layer_dims(gpt_1_7b(tp, false, AttentionImpl::unfused), b)).forward(sink, {});
    CHECK(sink.gemm_flops() == Approx(expected / tp).epsilon(1e-12));
  }
}

TEST_CASE("backward runs twice the forward GEMM FLOPs") {
  using namespace layer_ops_rows;
  CountingSink fwd, bwd;
  const DenseLayer layer(layer_dims(gpt_1_7b(2, false, AttentionImpl::unfused), b));
  layer.forward(fwd, {});
  layer.backward(bwd, {}, Recompute::none);
  CHECK(bwd.gemm_flops() == Approx(2 * fwd.gemm_flops()).epsilon(1e-12));
}

TEST_CASE("selective recompute re-runs the whole attention core and nothing else") {
  using namespace layer_ops_rows;
  {
    CountingSink none, selective;
    const DenseLayer layer(layer_dims(gpt_1_7b(1, false, AttentionImpl::unfused), b));
    layer.backward(none, {}, Recompute::none);
    layer.backward(selective, {}, Recompute::selective);
    // Megatron's checkpoint of the core attention replays QK^T and the product with V:
    // 2 b s^2 h each (Korthikanti et al.'s 4 b s^2 h of selective recomputation).
    CHECK(selective.gemm_flops() - none.gemm_flops() == Approx(4 * b * s * s * h));
    CHECK(selective.find("attn_av") != nullptr);
  }
  {
    // With FlashAttention the checkpoint replays the fused forward: half of 4 b s^2 h (causal).
    CountingSink none, selective;
    const DenseLayer layer(layer_dims(gpt_1_7b(1, false, AttentionImpl::flash), b));
    layer.backward(none, {}, Recompute::none);
    layer.backward(selective, {}, Recompute::selective);
    CHECK(selective.gemm_flops() == Approx(none.gemm_flops()));
    CHECK(selective.flops(topo::OpClass::attention) - none.flops(topo::OpClass::attention) ==
          Approx(4 * b * s * s * h * 0.5));
  }
}

TEST_CASE("FlashAttention counts causal FLOPs: half of 4 b s^2 h forward, 2.5x that backward") {
  using namespace layer_ops_rows;
  CountingSink fwd, bwd;
  const DenseLayer layer(layer_dims(gpt_1_7b(4, false, AttentionImpl::flash), b));
  layer.forward(fwd, {});
  layer.backward(bwd, {}, Recompute::none);
  const double attn = 4 * b * s * s * h / 4 * 0.5;  // per TP rank of 4, causal
  CHECK(fwd.flops(topo::OpClass::attention) == Approx(attn));
  CHECK(bwd.flops(topo::OpClass::attention) == Approx(2.5 * attn));
  // Scores never reach HBM: the forward moves Q, K, V, O (2 bytes) and the fp32 log-sum-exp.
  const auto* k = fwd.find("attn");
  REQUIRE(k != nullptr);
  CHECK(k->work.hbm_bytes.value() == Approx(2 * (4 * b * s * h / 4) + 4 * b * s * a / 4));
}

TEST_CASE("tensor parallel communication per layer") {
  using namespace layer_ops_rows;
  const double bytes = b * s * h * 2;  // one hidden-sized fp16 activation per token
  SECTION("without sequence parallelism: two all-reduces forward, two backward") {
    CountingSink fwd, bwd;
    const DenseLayer layer(layer_dims(gpt_1_7b(8, false, AttentionImpl::unfused), b));
    layer.forward(fwd, {});
    layer.backward(bwd, {}, Recompute::none);
    REQUIRE(fwd.comms(CollectiveKind::all_reduce).size() == 2);
    REQUIRE(bwd.comms(CollectiveKind::all_reduce).size() == 2);
    for (const auto* c : fwd.comms(CollectiveKind::all_reduce)) CHECK(c->comm.bytes == Approx(bytes));
  }
  SECTION("with sequence parallelism: all-gather + reduce-scatter pairs replace them") {
    CountingSink fwd, bwd;
    const DenseLayer layer(layer_dims(gpt_1_7b(8, true, AttentionImpl::unfused), b));
    layer.forward(fwd, {});
    layer.backward(bwd, {}, Recompute::none);
    CHECK(fwd.comms(CollectiveKind::all_reduce).empty());
    CHECK(fwd.comms(CollectiveKind::all_gather).size() == 2);
    CHECK(fwd.comms(CollectiveKind::reduce_scatter).size() == 2);
    // Backward: gradient gathers (2), input-gradient reduce-scatters (2), and the re-gather of the
    // norm outputs for the weight gradients (2), as Megatron-LM does.
    CHECK(bwd.comms(CollectiveKind::all_gather).size() == 4);
    CHECK(bwd.comms(CollectiveKind::reduce_scatter).size() == 2);
  }
  SECTION("a single TP rank communicates nothing") {
    CountingSink fwd;
    DenseLayer(layer_dims(gpt_1_7b(1, false, AttentionImpl::unfused), b)).forward(fwd, {});
    for (const auto& o : fwd.ops) CHECK_FALSE(o.is_comm);
  }
}

TEST_CASE("stored activations follow Korthikanti et al. 2022 (16-bit, GeLU, dropout, f = 4h)") {
  using namespace layer_ops_rows;
  const double sbh = s * b * h;
  SECTION("no parallelism, no recompute: sbh (34 + 5 a s / h)") {
    const DenseLayer l(layer_dims(gpt_1_7b(1, false, AttentionImpl::unfused), b));
    CHECK(l.stored_activation_bytes(Recompute::none) == Approx(sbh * (34 + 5 * a * s / h)));
  }
  SECTION("tensor parallel t = 8: sbh (10 + 24 / t + 5 a s / (h t))") {
    const DenseLayer l(layer_dims(gpt_1_7b(8, false, AttentionImpl::unfused), b));
    CHECK(l.stored_activation_bytes(Recompute::none) == Approx(sbh * (10 + 24.0 / 8 + 5 * a * s / (h * 8))));
  }
  SECTION("tensor + sequence parallel: sbh / t (34 + 5 a s / h)") {
    const DenseLayer l(layer_dims(gpt_1_7b(8, true, AttentionImpl::unfused), b));
    CHECK(l.stored_activation_bytes(Recompute::none) == Approx(sbh / 8 * (34 + 5 * a * s / h)));
  }
  SECTION("selective recompute with SP: 34 sbh / t") {
    const DenseLayer l(layer_dims(gpt_1_7b(8, true, AttentionImpl::unfused), b));
    CHECK(l.stored_activation_bytes(Recompute::selective) == Approx(34 * sbh / 8));
  }
  SECTION("selective recompute of the norms too: (34 - 4) sbh / t") {
    // Megatron-Core's "layernorm" module drops both norm outputs: sbh / t elements each with SP, at
    // 2 bytes, so 2 x 2 sbh / t bytes of Korthikanti's 34 sbh / t.
    JobSpec j = gpt_1_7b(8, true, AttentionImpl::unfused);
    j.recompute_modules.layernorm = true;
    const DenseLayer l(layer_dims(j, b));
    CHECK(l.stored_activation_bytes(Recompute::selective) == Approx(30 * sbh / 8));
  }
  SECTION("full recompute keeps the layer input: 2 sbh") {
    const DenseLayer l(layer_dims(gpt_1_7b(8, false, AttentionImpl::unfused), b));
    CHECK(l.stored_activation_bytes(Recompute::full) == Approx(2 * sbh));
  }
}

TEST_CASE("FP8 linears keep their quantised inputs: Transformer Engine's saved activations") {
  // Transformer Engine's Linear and LayerNormLinear keep the quantised input (Q bytes per element)
  // for the weight gradient, not the 16-bit one (module/linear.py). Against 16 bits (E = 2) with
  // FlashAttention, t = 8 and SP (every term over t), per layer:
  //   the two norm outputs (QKV and MLP inputs): sbh / t each, 2 -> Q bytes;
  //   the GeLU's output (the down projection's input): 4h wide, sbh 4 / t, 2 -> Q;
  //   the attention output: FlashAttention keeps it at 2 bytes and the output projection its own
  //   Q-byte copy, + Q sbh / t.
  // Difference: ((Q - 2) (1 + 1 + 4) + Q) sbh / t = (7 Q - 12) sbh / t: -5 sbh / t with per-tensor
  // scales (Q = 1), (7 x 1.03125 - 12) sbh / t with DeepSeek's 1 x 128 blocks (an fp32 scale each).
  using namespace layer_ops_rows;
  const double sbh = s * b * h;
  const JobSpec bf16 = gpt_1_7b(8, true, AttentionImpl::flash);
  const double base = DenseLayer(layer_dims(bf16, b)).stored_activation_bytes(Recompute::none);
  for (const auto& [recipe, q] : {std::pair{LowPrecisionRecipe::delayed, 1.0},
                                  std::pair{LowPrecisionRecipe::blockwise, 1.0 + 4.0 / 128.0}}) {
    JobSpec fp8 = bf16;
    fp8.precision.compute = topo::Precision::fp8;
    fp8.precision.recipe = recipe;
    const double bytes = DenseLayer(layer_dims(fp8, b)).stored_activation_bytes(Recompute::none);
    CHECK(bytes - base == Approx((7 * q - 12) * sbh / 8));
  }
}

TEST_CASE("layer weights per TP rank: 12 h^2 + 13 h for a GPT layer") {
  using namespace layer_ops_rows;
  // QKV 3h^2 + 3h, projection h^2 + h, MLP 8h^2 + 5h, two layernorms 4h.
  const DenseLayer l1(layer_dims(gpt_1_7b(1, false, AttentionImpl::unfused), b));
  CHECK(l1.params_per_rank() == Approx(12 * h * h + 13 * h));
  // With t = 2 the matrices and the column-parallel biases split; the row-parallel biases (2h) and
  // the norms (4h) are replicated: 6h^2 + (3h + 4h)/2 + 2h + 4h.
  const DenseLayer l2(layer_dims(gpt_1_7b(2, false, AttentionImpl::unfused), b));
  CHECK(l2.params_per_rank() == Approx(6 * h * h + 3.5 * h + 6 * h));
}

TEST_CASE("the LM head runs 2 b s h V / t forward and twice that backward") {
  using namespace layer_ops_rows;
  JobSpec j = gpt_1_7b(4, false, AttentionImpl::unfused);
  const LmHead head(layer_dims(j, b), j.model);
  CountingSink fwd, bwd;
  head.forward(fwd, {});
  head.backward(bwd, {});
  const double logits = 2 * b * s * h * 51200 / 4;
  CHECK(fwd.gemm_flops() == Approx(logits));
  CHECK(bwd.gemm_flops() == Approx(2 * logits));
}

TEST_CASE("context parallelism splits attention into a ring of cp steps with KV exchanges and merges") {
  using namespace layer_ops_rows;
  JobSpec j = gpt_1_7b(2, false, AttentionImpl::flash);
  j.parallel.cp = 4;
  CountingSink fwd, bwd;
  const DenseLayer layer(layer_dims(j, b));
  layer.forward(fwd, {});
  layer.backward(bwd, {}, Recompute::none);
  // Each CP rank holds s / 4 queries that see the whole (causal) sequence: a quarter of the
  // attention FLOPs of one TP rank without CP, 4 b s^2 h / tp x 1/2 x 1/4.
  CHECK(fwd.flops(topo::OpClass::attention) == Approx(4 * b * s * s * h / 2 * 0.5 / 4));
  const auto ex_f = fwd.comms(CollectiveKind::ring_exchange);
  const auto ex_b = bwd.comms(CollectiveKind::ring_exchange);
  REQUIRE(ex_f.size() == 3);  // cp - 1 blocks arrive from the ring
  REQUIRE(ex_b.size() == 3);
  // A K and V block of the local tokens: 2 x b (s / 4) x h / tp x 2 bytes; backward adds dK, dV.
  const double block = 2 * b * (s / 4) * h / 2 * 2;
  CHECK(ex_f[0]->comm.bytes == Approx(block));
  CHECK(ex_b[0]->comm.bytes == Approx(2 * block));
  CHECK(ex_f[0]->comm.dim == ParallelDim::cp);

  // The ring merges its steps' partial results: outputs forward, gradients backward.
  // One CP rank's queries: T = b s / 4 tokens, h / tp = 1152 output columns, 2 bytes each.
  // Steps 1..3 are whole on the 4 - i ranks at or past them and half on the i before them:
  // (1 - 1/8) + (1 - 2/8) + (1 - 3/8) = 2.25 whole steps on average (0.75 (cp - 1)).
  // Forward (Transformer Engine's out corrections): the first step's output read and the result
  // written (2 x 2 bytes), each later step's output and the result read and the result written
  // (3 x 2 bytes): T x 1152 x (4 + 6 x 2.25) bytes in one op of 2 cp - 1 = 7 kernels.
  const double T = b * s / 4, cols = h / 2;
  const auto* out = fwd.find("cp.out_merge");
  REQUIRE(out != nullptr);
  CHECK(out->work.hbm_bytes.value() == Approx(T * cols * (4 + 6 * 2.25)));
  CHECK(out->work.launches == 7);
  CHECK(out->deps.size() == 1);
  CHECK(fwd.ops[out->deps[0]].name == "attn cp3");  // after the last step, before the projection
  // Backward: dQ, dK, dV (3 x 1152 columns with 24 KV heads) copied after the first step
  // (2 x 2 bytes), added after each later one (3 x 2 bytes, 2.25 whole steps over three merges).
  std::vector<double> merges;
  for (const auto& o : bwd.ops)
    if (o.name == "cp.grad_merge") merges.push_back(o.work.hbm_bytes.value());
  REQUIRE(merges.size() == 4);
  CHECK(merges[0] == Approx(T * 3 * cols * 4));
  for (int i = 1; i < 4; ++i) CHECK(merges[i] == Approx(T * 3 * cols * 6 * 2.25 / 3));
  // Without CP nothing is merged.
  CountingSink plain;
  DenseLayer(layer_dims(gpt_1_7b(2, false, AttentionImpl::flash), b)).forward(plain, {});
  CHECK(plain.find("cp.out_merge") == nullptr);
}

namespace rope_rows {
/// The bytes of the named kernels `sink` recorded.
double bytes_of(const CountingSink& sink, std::string_view name) {
  double sum = 0.0;
  for (const auto& o : sink.ops)
    if (!o.is_comm && o.name == name) sum += o.work.hbm_bytes.value();
  return sum;
}
}  // namespace rope_rows

TEST_CASE("training rotates queries and keys in kernels of their own, serving does not") {
  using namespace layer_ops_rows;
  using rope_rows::bytes_of;
  // GPT 1.7B with rotary positions at TP 2, b = 4: queries and keys of 24 heads x 96 read and
  // written once, 2 B each: 2 x 2 x (4 x 2048) x (2,304 + 2,304) / 2 = 75,497,472 B, forward; the
  // same on their gradients in the backward.
  const double expected = 2.0 * 2.0 * (b * s) * (h + h) / 2;
  const DenseLayer layer(layer_dims(gpt_1_7b(2, false, AttentionImpl::flash), b));
  CountingSink fwd, bwd;
  layer.forward(fwd, {});
  layer.backward(bwd, {}, Recompute::none);
  CHECK(bytes_of(fwd, "rope") == Approx(expected).epsilon(1e-12));
  CHECK(bytes_of(bwd, "rope.bwd") == Approx(expected).epsilon(1e-12));
  // Learned positions (Megatron's 2021 GPTs): none.
  JobSpec learned = gpt_1_7b(2, false, AttentionImpl::flash);
  learned.model.position = PositionEmbedding::learned;
  CountingSink none;
  DenseLayer(layer_dims(learned, b)).forward(none, {});
  CHECK(bytes_of(none, "rope") == 0.0);
  // Prefill: fused into the engine's attention.
  JobSpec prefill = gpt_1_7b(2, false, AttentionImpl::flash);
  prefill.workload.kind = WorkloadKind::prefill;
  CountingSink served;
  DenseLayer(layer_dims(prefill, b)).forward(served, {});
  CHECK(bytes_of(served, "rope") == 0.0);
}

TEST_CASE("Qwen3's query and key norms: one kernel over every head, its weights and saved input") {
  using namespace layer_ops_rows;
  using rope_rows::bytes_of;
  // Qwen3-8B-shaped attention (32 query heads, 8 key-value heads of 128, h 4,096, RMSNorm) at TP 2,
  // b = 4 sequences of 2,048 tokens, 16-bit: the norms cover (4,096 + 1,024) / 2 = 2,560 query and
  // key elements per token and rank, 8,192 x 2,560 = 20,971,520 elements. Forward: read and write
  // each, 2 x 2 B = 4 B an element, 83,886,080 B; backward: read x and dy, write dx, 6 B an element,
  // 125,829,120 B. Their inputs stay for the backward: 2 B an element, 41,943,040 B more per layer.
  // Weights: q_norm and k_norm of 128 each, whole on every TP rank: 256 more.
  JobSpec j = gpt_1_7b(2, false, AttentionImpl::flash);
  j.model.hidden = 4096;
  j.model.heads = 32;
  j.model.kv_heads = 8;
  j.model.head_dim = 128;
  j.model.ffn = 12288;
  j.model.activation = Activation::swiglu;
  j.model.norm = NormKind::rmsnorm;
  j.model.linear_bias = false;
  j.model.dropout = false;
  const DenseLayer plain(layer_dims(j, b));
  j.model.qk_norm = true;
  const DenseLayer normed(layer_dims(j, b));
  const double elements = (b * s) * (4096.0 + 1024.0) / 2;
  CountingSink fwd, bwd;
  normed.forward(fwd, {});
  normed.backward(bwd, {}, Recompute::none);
  CHECK(elements == 20'971'520.0);
  CHECK(bytes_of(fwd, "qk_norm") == Approx(4.0 * elements).epsilon(1e-12));
  CHECK(bytes_of(bwd, "qk_norm.bwd") == Approx(6.0 * elements).epsilon(1e-12));
  CHECK(normed.stored_activation_bytes(Recompute::none) - plain.stored_activation_bytes(Recompute::none) ==
        Approx(2.0 * elements).epsilon(1e-12));
  CHECK(normed.params_per_rank() - plain.params_per_rank() == 256.0);
  // Without them, no such kernels.
  CountingSink none;
  plain.forward(none, {});
  CHECK(bytes_of(none, "qk_norm") == 0.0);
}

TEST_CASE("Gemma's norms of the attention and MLP outputs: two more norms a layer") {
  using namespace layer_ops_rows;
  using rope_rows::bytes_of;
  // GPT 1.7B's layer at TP 2 with sequence parallelism, b = 4 sequences of 2,048, 16-bit: each
  // norm covers the layer's tokens on this rank, 8,192 / 2 = 4,096, of h = 2,304: 9,437,184
  // elements. Forward: read and write each, 4 B: 37,748,736 B per norm; backward: read x and dy,
  // write dx, 6 B: 56,623,104 B. Each keeps its input (2 B an element: 18,874,368 B) and has h
  // scale and bias weights (LayerNorm: 2 x 2,304 = 4,608).
  JobSpec j = gpt_1_7b(2, true, AttentionImpl::flash);
  const DenseLayer plain(layer_dims(j, b));
  j.model.sandwich_norms = true;
  const DenseLayer sandwich(layer_dims(j, b));
  const double elements = (b * s) / 2 * h;
  CountingSink fwd, bwd;
  sandwich.forward(fwd, {});
  sandwich.backward(bwd, {}, Recompute::none);
  CHECK(elements == 9'437'184.0);
  for (const char* name : {"post_attn_norm", "post_mlp_norm"}) {
    INFO(name);
    CHECK(bytes_of(fwd, name) == Approx(4.0 * elements).epsilon(1e-12));
    CHECK(bytes_of(bwd, std::string(name) + ".bwd") == Approx(6.0 * elements).epsilon(1e-12));
  }
  CHECK(sandwich.stored_activation_bytes(Recompute::none) - plain.stored_activation_bytes(Recompute::none) ==
        Approx(2.0 * 2.0 * elements).epsilon(1e-12));
  CHECK(sandwich.params_per_rank() - plain.params_per_rank() == 2.0 * 2.0 * h);
}

TEST_CASE("MLA rotates its rotary parts and assembles each head's query and key") {
  using rope_rows::bytes_of;
  // DeepSeek-V3 at TP 1, one 4,096-token micro-batch: 128 heads of 128 no-position + 64 rotary dims.
  // Rotation: the heads' rotary query parts and the one shared rotary key, read and written, 2 B:
  // 2 x 2 x 4,096 x (128 + 1) x 64 = 135,266,304 B. Assembly: queries read and written
  // (2 x 4,096 x 128 x 192), keys read from their parts (4,096 x (128 x 128 + 64)) and written
  // (4,096 x 128 x 192), at 2 B: 2 x 4,096 x (3 x 24,576 + 16,448) = 738,721,792 B.
  JobSpec j;
  j.model = stepsim::test::deepseek_v3(0);
  j.workload.seq_len = 4096;
  const DenseLayer layer(layer_dims(j, 1));
  CountingSink fwd, bwd;
  layer.forward(fwd, {});
  layer.backward(bwd, {}, Recompute::none);
  CHECK(bytes_of(fwd, "rope") == Approx(2.0 * 2 * 4096 * 129 * 64).epsilon(1e-12));
  CHECK(bytes_of(fwd, "qk_cat") == Approx(2.0 * 4096 * (3 * 24576 + 16448)).epsilon(1e-12));
  CHECK(bytes_of(bwd, "qk_cat.bwd") == bytes_of(fwd, "qk_cat"));
  // Selective "mla_up_proj" recomputes the up projections, and with them the rotation and assembly.
  CountingSink recomputed;
  j.recompute_modules.mla_up_proj = true;
  DenseLayer(layer_dims(j, 1)).backward(recomputed, {}, Recompute::selective);
  CHECK(bytes_of(recomputed, "qk_cat.recompute") == bytes_of(fwd, "qk_cat"));
}

TEST_CASE("MLA's unfused attention materialises scores of its 192-wide query/key heads") {
  // DeepSeek-V3 at TP 2 (64 heads per rank), one 4,096-token micro-batch, as Transformer Engine's
  // UnfusedDotProductAttention runs it (MLA on Blackwell before TE 2.5): every score, no causal skip.
  // Scores: 2 x 64 x 4,096^2 x 192 = 412,316,860,416 FLOPs; the product with V (128 wide):
  // 2 x 64 x 4,096^2 x 128 = 274,877,906,944 FLOPs. The softmax reads and writes the
  // 64 x 4,096^2 bf16 scores: 2 x 2 x 1,073,741,824 = 4,294,967,296 B.
  JobSpec j;
  j.model = stepsim::test::deepseek_v3(0);
  j.workload.seq_len = 4096;
  j.workload.attention_impl = AttentionImpl::unfused;
  j.parallel.tp = 2;
  j.parallel.sequence_parallel = true;
  const DenseLayer layer(layer_dims(j, 1));
  CountingSink fwd;
  layer.forward(fwd, {});
  const auto* scores = fwd.find("attn_scores");
  const auto* av = fwd.find("attn_av");
  const auto* softmax = fwd.find("softmax");
  REQUIRE(scores != nullptr);
  REQUIRE(av != nullptr);
  REQUIRE(softmax != nullptr);
  CHECK(scores->work.flops.value() == Approx(2.0 * 64 * 4096.0 * 4096 * 192));
  CHECK(av->work.flops.value() == Approx(2.0 * 64 * 4096.0 * 4096 * 128));
  CHECK(softmax->work.hbm_bytes.value() == Approx(2.0 * 2 * 64 * 4096.0 * 4096));
  CHECK(fwd.flops(topo::OpClass::attention) == 0.0);  // no fused attention kernel
  // Selective core_attn recomputation replays all three before the backward.
  CountingSink none, selective;
  layer.backward(none, {}, Recompute::none);
  j.recompute_modules = {};
  j.recompute_modules.core_attn = true;
  DenseLayer(layer_dims(j, 1)).backward(selective, {}, Recompute::selective);
  CHECK(selective.gemm_flops() - none.gemm_flops() ==
        Approx(scores->work.flops.value() + av->work.flops.value()));
}
