// FP8 linear layers as Transformer Engine runs them: which kernels run in FP8 and which stay 16-bit,
// the quantisation kernels' bytes per recipe, FP8 all-gathers with SP, and the FP8 weight copies.
#include <catch2/catch.hpp>
#include <map>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/model_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace fp8_recipe_rows {
// One Llama 3.1 8B layer: h 4096, 32 heads of 128, 8 KV heads, FFN 14336 (SwiGLU), RMSNorm.
JobSpec llama8b(int tp, topo::Precision compute, LowPrecisionRecipe recipe = LowPrecisionRecipe::delayed) {
  JobSpec j;
  j.model = test::llama_8b();
  j.workload.seq_len = 8192;
  j.parallel.tp = tp;
  j.parallel.sequence_parallel = tp > 1;
  j.precision.compute = compute;
  j.precision.recipe = recipe;
  return j;
}
constexpr double T = 8192, h = 4096, kv = 8 * 128, f = 14336;

std::map<std::string, const work::fakes::Recorded*> by_name(const CountingSink& s) {
  std::map<std::string, const work::fakes::Recorded*> m;
  for (const auto& o : s.ops) m[o.name] = &o;
  return m;
}
}  // namespace fp8_recipe_rows

TEST_CASE("the FP8 recipe of one Llama layer: linear GEMMs in FP8, attention and norms in BF16") {
  using namespace fp8_recipe_rows;
  CountingSink sink;
  const LayerDims d = layer_dims(llama8b(1, topo::Precision::fp8), 1);
  DenseLayer(d).forward(sink, {});
  DenseLayer(d).backward(sink, {OpSink::Handle{0}}, Recompute::none);
  const auto k = by_name(sink);
  // Forward: qkv, proj, mlp_up, mlp_down; backward: their dgrad and wgrad GEMMs. All FP8.
  for (const char* g : {"qkv", "proj", "mlp_up", "mlp_down", "qkv.dgrad", "proj.dgrad", "mlp_up.dgrad",
                        "mlp_down.dgrad", "qkv.wgrad", "proj.wgrad", "mlp_up.wgrad", "mlp_down.wgrad"}) {
    CAPTURE(g);
    REQUIRE(k.count(g));
    CHECK(k.at(g)->work.op_class == topo::OpClass::gemm);
    CHECK(k.at(g)->work.precision == topo::Precision::fp8);
  }
  // Forward GEMMs accumulate fast, gradient GEMMs in split (precise) mode (TE's _2X_ACC_*).
  CHECK(k.at("mlp_up")->work.accumulation == topo::Accumulation::fast);
  CHECK(k.at("mlp_up.dgrad")->work.accumulation == topo::Accumulation::split);
  CHECK(k.at("mlp_up.wgrad")->work.accumulation == topo::Accumulation::split);
  // The attention core and the element-wise kernels stay in BF16.
  CHECK(k.at("attn")->work.precision == topo::Precision::bf16);
  CHECK(k.at("attn.bwd")->work.precision == topo::Precision::bf16);
  CHECK(k.at("ln1")->work.precision == topo::Precision::bf16);
  // The quantisation kernels, one per GEMM operand that is not FP8 yet: forward inputs of proj and
  // mlp_down (cast + transpose), the transposes of the norms' FP8 outputs before qkv and mlp_up, and
  // the four output gradients before the dgrads.
  for (const char* q :
       {"qkv.quantize", "proj.quantize", "mlp_up.quantize", "mlp_down.quantize", "qkv.grad.quantize",
        "proj.grad.quantize", "mlp_up.grad.quantize", "mlp_down.grad.quantize"}) {
    CAPTURE(q);
    REQUIRE(k.count(q));
    CHECK(k.at(q)->work.op_class == topo::OpClass::elementwise);
  }
  int quantize = 0;
  for (const auto& o : sink.ops) quantize += o.name.find(".quantize") != std::string::npos;
  CHECK(quantize == 8);
  // In BF16 there is none.
  CountingSink bf16;
  DenseLayer(layer_dims(llama8b(1, topo::Precision::bf16), 1)).forward(bf16, {});
  for (const auto& o : bf16.ops) CHECK(o.name.find("quantize") == std::string::npos);
}

TEST_CASE("quantisation kernels move the bytes of their recipe") {
  using namespace fp8_recipe_rows;
  const auto bytes = [](LowPrecisionRecipe r, const char* name) {
    CountingSink sink;
    const LayerDims d = layer_dims(llama8b(1, topo::Precision::fp8, r), 1);
    DenseLayer(d).forward(sink, {});
    DenseLayer(d).backward(sink, {OpSink::Handle{0}}, Recompute::none);
    return by_name(sink).at(name)->work.hbm_bytes.value();
  };
  using R = LowPrecisionRecipe;
  // mlp_down's input, T x f BF16 activations: read 2 B, write the FP8 copy and its transpose (1 B each).
  CHECK(bytes(R::delayed, "mlp_down.quantize") == Approx(T * f * (2 + 1 + 1)));
  // Current scaling reads the tensor once more for its amax.
  CHECK(bytes(R::tensorwise, "mlp_down.quantize") == Approx(T * f * (2 + 2 + 1 + 1)));
  // Block scaling writes an FP32 scale per 128 elements with each copy; MXFP8 an E8M0 per 32.
  CHECK(bytes(R::blockwise, "mlp_down.quantize") == Approx(T * f * (2 + 2 * (1 + 4.0 / 128))));
  // The norm writes the FP8 copy of qkv's input itself (delayed scaling): only the transpose, read
  // 1 B and write 1 B per element of the T x h norm output.
  CHECK(bytes(R::delayed, "qkv.quantize") == Approx(T * h * 2));
  CHECK(bytes(R::tensorwise, "qkv.quantize") == Approx(T * h * (2 + 2 + 1 + 1)));
  // The output gradient of qkv, T x (q + 2 kv) = T x 6144, cast and transposed.
  CHECK(bytes(R::delayed, "qkv.grad.quantize") == Approx(T * (h + 2 * kv) * (2 + 1 + 1)));
}

TEST_CASE("FP8 GEMMs read one byte per operand element, and SP gathers move FP8") {
  using namespace fp8_recipe_rows;
  CountingSink sink;
  const LayerDims d = layer_dims(llama8b(4, topo::Precision::fp8), 1);
  DenseLayer(d).forward(sink, {});
  const auto k = by_name(sink);
  // mlp_down: [T x f/4] x [f/4 x h] in FP8, output T x h in BF16.
  const double fl = f / 4;
  CHECK(k.at("mlp_down")->work.hbm_bytes.value() == Approx(1.0 * (T * fl + fl * h) + 2.0 * T * h));
  // With SP the norm output is gathered quantised: T x h x 1 B (BF16 would be 2 B).
  CHECK(k.at("tp.ag_ln1")->comm.bytes == Approx(T * h * 1));
  CHECK(k.at("tp.ag_ln2")->comm.bytes == Approx(T * h * 1));
  // The reduce-scatters after the row-parallel GEMMs stay BF16.
  CHECK(k.at("tp.reduce_mlp")->comm.bytes == Approx(T * h * 2));
}

TEST_CASE("the LM head and the router stay outside the FP8 region") {
  using namespace fp8_recipe_rows;
  JobSpec j = llama8b(1, topo::Precision::fp8);
  const LayerDims d = layer_dims(j, 1);
  CountingSink sink;
  LmHead head(d, j.model);
  const auto out = head.forward(sink, {});
  head.backward(sink, out);
  const auto k = by_name(sink);
  CHECK(k.at("logits")->work.precision == topo::Precision::bf16);
  CHECK(k.at("logits.dgrad")->work.precision == topo::Precision::bf16);
  CHECK(k.at("logits.wgrad")->work.precision == topo::Precision::bf16);
}

TEST_CASE("FP8 weight copies and their per-step cast") {
  using namespace fp8_recipe_rows;
  PrecisionSpec p;
  p.compute = topo::Precision::fp8;
  // Hopper keeps the FP8 weight and its transpose: 2 B per parameter beside the BF16 weights.
  CHECK(low_precision_weight_bytes(p) == 2.0);
  p.fp8_params = true;  // the FP8 weight is the weight itself; only the transpose is extra
  CHECK(low_precision_weight_bytes(p) == 1.0);
  p.compute = topo::Precision::bf16;
  p.fp8_params = false;
  CHECK(low_precision_weight_bytes(p) == 0.0);
  // The cast after the optimizer: read the BF16 weights (2 B) and write both copies (2 B).
  CountingSink sink;
  PrecisionSpec fp8;
  fp8.compute = topo::Precision::fp8;
  const LayerDims d = layer_dims(llama8b(1, topo::Precision::fp8), 1);
  emit_optimizer(sink, d, fp8, OptimizerShard{8e9, 1e9, 7e9}, {});
  REQUIRE(sink.find("fp8.weight_cast") != nullptr);
  CHECK(sink.find("fp8.weight_cast")->work.hbm_bytes.value() == Approx(7e9 * (2 + 2)));
}
