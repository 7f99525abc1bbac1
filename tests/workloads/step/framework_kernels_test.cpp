// The kernels a framework runs around the GEMMs (workload.pointwise) and the fused attention
// kernel it calls (workload.attention_kernel), derived by hand for one Llama 3.1 8B layer.
#include <catch2/catch.hpp>

#include "tests/support/fixtures.hpp"
#include "tests/workloads/counting_sink.hpp"
#include "topology/compute_model.hpp"
#include "workloads/step/layer_ops.hpp"
#include "workloads/step/model_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;
using work::fakes::CountingSink;

namespace framework_kernels_rows {
// Llama 3.1 8B: h = 4,096, 32 heads of 128, 8 KV heads (kv width 1,024), f = 14,336, SwiGLU,
// RMSNorm, rotary; one sequence of 8,192 tokens, TP 1, BF16 (E = 2).
JobSpec llama_8b(Pointwise pointwise, topo::AttentionKernel kernel = topo::AttentionKernel::cudnn) {
  JobSpec j;
  j.model = test::llama_8b();
  j.workload.seq_len = 8192;
  j.workload.pointwise = pointwise;
  j.workload.attention_kernel = kernel;
  j.precision.compute = topo::Precision::bf16;
  return j;
}
constexpr double T = 8192, h = 4096, f = 14336, q = 4096, kv = 1024, V = 128256;

double bytes_of(const CountingSink& s, const std::string& name) {
  double b = 0;
  for (const auto& o : s.ops)
    if (!o.is_comm && o.name == name) b += o.work.hbm_bytes.value();
  return b;
}

struct Layer {
  CountingSink fwd, bwd;
  explicit Layer(const JobSpec& j) {
    const DenseLayer layer(layer_dims(j, 1));
    layer.forward(fwd, {});
    layer.backward(bwd, {}, Recompute::none);
  }
};
}  // namespace framework_kernels_rows

TEST_CASE("eager PyTorch norms, SwiGLU and rotary move the bytes of their kernel lists") {
  using namespace framework_kernels_rows;
  const Layer fused(llama_8b(Pointwise::fused)), eager(llama_8b(Pointwise::eager));
  // RMSNorm forward, fused: read x, write y, 2 x 2 B per element. Eager: x.float() (2 + 4),
  // pow (4 + 4), mean (4), * rsqrt (4 + 4), * weight (4 + 4), .type_as (4 + 2) = 40 B.
  CHECK(bytes_of(fused.fwd, "ln1") == Approx(T * h * 4).epsilon(1e-12));
  CHECK(bytes_of(eager.fwd, "ln1") == Approx(T * h * 40).epsilon(1e-12));
  CHECK(bytes_of(eager.fwd, "ln2") == Approx(T * h * 40).epsilon(1e-12));
  // Backward with the residual gradient, fused: read x, dy, the residual's gradient, write dx:
  // 4 x 2 B. Eager: autograd's kernels 2E + 84 = 88 B and the residual gradient added in a kernel
  // of its own (read 2, read 2, write 2): 94 B.
  CHECK(bytes_of(fused.bwd, "ln1.bwd") == Approx(T * h * 8).epsilon(1e-12));
  CHECK(bytes_of(eager.bwd, "ln1.bwd") == Approx(T * h * 94).epsilon(1e-12));
  // SwiGLU forward per element of f, fused: read gate and up, write the product (3 x 2 B). Eager:
  // silu (2 + 2), then the product (2 + 2 + 2) = 10 B. Backward, fused: read gate, up, dy, write
  // both gradients (5 x 2 B); eager: the product's two gradients (2 x 6 B) and silu's (6 B) = 18 B.
  CHECK(bytes_of(fused.fwd, "act") == Approx(T * f * 6).epsilon(1e-12));
  CHECK(bytes_of(eager.fwd, "act") == Approx(T * f * 10).epsilon(1e-12));
  CHECK(bytes_of(fused.bwd, "act.bwd") == Approx(T * f * 10).epsilon(1e-12));
  CHECK(bytes_of(eager.bwd, "act.bwd") == Approx(T * f * 18).epsilon(1e-12));
  // Rotary on queries and keys (4,096 + 1,024 per token), fused: read and write, 4 B. Eager:
  // .float() (2 + 4), the complex product (4 + 4), .type_as (4 + 2) = 20 B; the same backward.
  CHECK(bytes_of(fused.fwd, "rope") == Approx(T * (q + kv) * 4).epsilon(1e-12));
  CHECK(bytes_of(eager.fwd, "rope") == Approx(T * (q + kv) * 20).epsilon(1e-12));
  CHECK(bytes_of(eager.bwd, "rope.bwd") == Approx(T * (q + kv) * 20).epsilon(1e-12));
  // repeat_kv: keys and values (1,024 each) read, written once per query head (4,096 each), 2 B;
  // its backward sums them back. The output, transposed back, copied contiguous: 2 x 2 B x 4,096.
  CHECK(bytes_of(fused.fwd, "repeat_kv") == 0.0);
  CHECK(bytes_of(eager.fwd, "repeat_kv") == Approx(T * 2 * (kv + kv + q + q)).epsilon(1e-12));
  CHECK(bytes_of(eager.bwd, "repeat_kv.bwd") == Approx(T * 2 * (kv + kv + q + q)).epsilon(1e-12));
  CHECK(bytes_of(eager.fwd, "attn_out_copy") == Approx(T * 4 * q).epsilon(1e-12));
  // The GEMMs and the attention kernel are the same.
  CHECK(eager.fwd.gemm_flops() == Approx(fused.fwd.gemm_flops()).epsilon(1e-12));
  CHECK(eager.bwd.flops(topo::OpClass::attention) ==
        Approx(fused.bwd.flops(topo::OpClass::attention)).epsilon(1e-12));
}

TEST_CASE("eager PyTorch computes the loss on an fp32 copy of the logits") {
  using namespace framework_kernels_rows;
  const auto head = [](Pointwise p, CountingSink& fwd, CountingSink& bwd) {
    const JobSpec j = llama_8b(p);
    const LmHead lm(layer_dims(j, 1), j.model);
    lm.backward(bwd, lm.forward(fwd, {}));
  };
  CountingSink ff, fb, ef, eb;
  head(Pointwise::fused, ff, fb);
  head(Pointwise::eager, ef, eb);
  // Fused vocabulary-parallel cross-entropy: read the logits for the max (2 B), read them again and
  // write the fp32 softmax (2 + 4). Eager: logits.float() (2 + 4), log_softmax reading its input
  // twice and writing (12).
  CHECK(bytes_of(ff, "loss_max") + bytes_of(ff, "loss_softmax") == Approx(T * V * 8).epsilon(1e-12));
  CHECK(bytes_of(ef, "loss_cast") + bytes_of(ef, "loss_softmax") == Approx(T * V * 18).epsilon(1e-12));
  // Backward, fused: read the softmax (4), write the gradient (2). Eager: nll_loss fills an fp32
  // gradient (4), log_softmax's backward reads it and its output and writes (12), the cast back (4 + 2).
  CHECK(bytes_of(fb, "loss.bwd") == Approx(T * V * 6).epsilon(1e-12));
  CHECK(bytes_of(eb, "loss.bwd") == Approx(T * V * 22).epsilon(1e-12));
}

TEST_CASE("Megatron's cross-entropy, op by op and compiled, moves the bytes of its kernel lists") {
  using namespace framework_kernels_rows;
  // Llama 3.1 8B at TP 2: each rank's logits shard is T x V / 2 (2 B each), the all-reduces carry
  // 4 B per token each (the compiled path sends the target logit and the sum together, 8 B).
  const auto head = [](CrossEntropy ce, CountingSink& fwd, CountingSink& bwd) {
    JobSpec j = llama_8b(Pointwise::fused);
    j.parallel.tp = 2;
    j.workload.cross_entropy = ce;
    const LmHead lm(layer_dims(j, 1), j.model);
    lm.backward(bwd, lm.forward(fwd, {}));
  };
  CountingSink ff, fb, mf, mb, cf, cb;
  head(CrossEntropy::fused, ff, fb);
  head(CrossEntropy::megatron, mf, mb);
  head(CrossEntropy::megatron_compiled, cf, cb);
  const double n = T * V / 2;
  const auto loss_bytes = [](const CountingSink& s) {
    double b = 0;
    for (const auto& o : s.ops)
      if (!o.is_comm && o.name.rfind("loss", 0) == 0) b += o.work.hbm_bytes.value();
    return b;
  };
  const auto loss_kernels = [](const CountingSink& s) {
    int k = 0;
    for (const auto& o : s.ops) k += !o.is_comm && o.name.rfind("loss", 0) == 0;
    return k;
  };
  const auto allreduce_bytes = [](const CountingSink& s) {
    std::vector<double> b;
    for (const auto* o : s.comms(CollectiveKind::all_reduce))
      if (o->name.rfind("tp.loss", 0) == 0) b.push_back(o->comm.bytes);
    return b;
  };
  // One pass (fused): the max reads the logits (2), the softmax reads them and writes fp32 (2 + 4).
  CHECK(loss_bytes(ff) == Approx(n * 8).epsilon(1e-12));
  CHECK(loss_kernels(ff) == 2);
  CHECK(allreduce_bytes(ff) == std::vector<double>{4 * T, 8 * T});
  // Op by op (cross_entropy.py): .float() (2 + 4), max (4), -= max (4 + 4), exp (4 + 4), sum (4),
  // div_ (4 + 4) = 38 B over six kernels; three all-reduces of 4 B per token.
  CHECK(loss_bytes(mf) == Approx(n * 38).epsilon(1e-12));
  CHECK(loss_kernels(mf) == 6);
  CHECK(bytes_of(mf, "loss_cast") == Approx(n * 6).epsilon(1e-12));
  CHECK(bytes_of(mf, "loss_div") == Approx(n * 8).epsilon(1e-12));
  CHECK(allreduce_bytes(mf) == std::vector<double>{4 * T, 4 * T, 4 * T});
  // Compiled (fused_cross_entropy.py): cast + max keeping the fp32 copy (2 + 4), subtract + exp +
  // sum writing the exponentials back (4 + 4), div_ (4 + 4) = 22 B over three kernels.
  CHECK(loss_bytes(cf) == Approx(n * 22).epsilon(1e-12));
  CHECK(loss_kernels(cf) == 3);
  CHECK(allreduce_bytes(cf) == std::vector<double>{4 * T, 8 * T});
  // Backward: fused reads the softmax and writes the 16-bit gradient (4 + 2); op by op mul_ in place
  // (4 + 4) and autograd's cast back (4 + 2) = 14; compiled reads the softmax, writes the product
  // back into it and the cast gradient (4 + 4 + 2) = 10.
  CHECK(loss_bytes(fb) == Approx(n * 6).epsilon(1e-12));
  CHECK(loss_bytes(mb) == Approx(n * 14).epsilon(1e-12));
  CHECK(loss_kernels(mb) == 2);
  CHECK(loss_bytes(cb) == Approx(n * 10).epsilon(1e-12));
  // The GEMMs are the same whatever the loss.
  CHECK(mf.gemm_flops() == Approx(ff.gemm_flops()).epsilon(1e-12));
  CHECK(cb.gemm_flops() == Approx(fb.gemm_flops()).epsilon(1e-12));
}

TEST_CASE("PyTorch's cross_entropy beside fused layers: on fp32 logits as eager runs it, or on 16-bit ones") {
  using namespace framework_kernels_rows;
  // NeMo AutoModel's MaskedCrossEntropy (F.cross_entropy uncompiled, its layers torch.compile'd):
  // fp32_upcast true is eager PyTorch's loss; false runs log_softmax on the 16-bit logits.
  const auto head = [](Pointwise p, CrossEntropy ce, CountingSink& fwd, CountingSink& bwd) {
    JobSpec j = llama_8b(p);
    j.workload.cross_entropy = ce;
    const LmHead lm(layer_dims(j, 1), j.model);
    lm.backward(bwd, lm.forward(fwd, {}));
    return lm;
  };
  CountingSink ef, eb, pf, pb, bf, bb;
  const LmHead eager = head(Pointwise::eager, CrossEntropy::fused, ef, eb);
  const LmHead torch32 = head(Pointwise::fused, CrossEntropy::pytorch, pf, pb);
  const LmHead torch16 = head(Pointwise::fused, CrossEntropy::pytorch_bf16, bf, bb);
  // fp32 upcast: the same kernels as eager PyTorch's loss, 18 B forward and 22 backward per logit.
  CHECK(bytes_of(pf, "loss_cast") + bytes_of(pf, "loss_softmax") == Approx(T * V * 18).epsilon(1e-12));
  CHECK(bytes_of(pb, "loss.bwd") == Approx(bytes_of(eb, "loss.bwd")).epsilon(1e-12));
  CHECK(torch32.stored_activation_bytes() == Approx(eager.stored_activation_bytes()).epsilon(1e-12));
  CHECK(torch32.loss_transient_bytes(true) == Approx(eager.loss_transient_bytes(true)).epsilon(1e-12));
  // 16 bits: log_softmax reads the logits twice and writes its output (3 x 2 B); backward, nll_loss
  // fills a dense gradient (2) and log_softmax's backward reads it and its output and writes (6).
  CHECK(bytes_of(bf, "loss_softmax") == Approx(T * V * 6).epsilon(1e-12));
  CHECK(bytes_of(bf, "loss_cast") == 0.0);
  CHECK(bytes_of(bb, "loss.bwd_nll") + bytes_of(bb, "loss.bwd") == Approx(T * V * 8).epsilon(1e-12));
  // It keeps its 16-bit output (2 B per logit, not the fp32 softmax's 4); the 16-bit logits beside it
  // in the forward, two 16-bit gradients in the backward.
  CHECK(torch16.stored_activation_bytes() == Approx(T * V * 2).epsilon(1e-12));
  CHECK(torch16.loss_transient_bytes(false) == Approx(T * V * 2).epsilon(1e-12));
  CHECK(torch16.loss_transient_bytes(true) == Approx(T * V * 4).epsilon(1e-12));
}

TEST_CASE("the attention kernel a job names sets the efficiency its attention runs at") {
  using namespace framework_kernels_rows;
  const Layer fa2(llama_8b(Pointwise::fused, topo::AttentionKernel::fa2));
  const auto* attn = fa2.fwd.find("attn");
  REQUIRE(attn != nullptr);
  CHECK(attn->work.attention_kernel == topo::AttentionKernel::fa2);
  // A compute-bound attention kernel takes flops / (peak x clock x efficiency): FlashAttention-2 at
  // 0.365 of peak takes 0.589 / 0.365 of cuDNN's time at 0.589 (fixed per-kernel costs set to 0).
  topo::GpuSpec g;
  g.bf16_peak = units::flops_per_s(989e12);
  g.hbm_bw = units::bytes_per_s(3.35e12);
  g.eff.attention = 0.589;
  g.eff.attention_fa2 = 0.365;
  g.kernel_gap_s = 0.0;
  g.attention_fixed_s = 0.0;
  topo::KernelWork w = attn->work;
  const double fa2_s = to_seconds(topo::kernel_time(g, w).duration);
  w.attention_kernel = topo::AttentionKernel::cudnn;
  const double cudnn_s = to_seconds(topo::kernel_time(g, w).duration);
  CHECK(fa2_s / cudnn_s == Approx(0.589 / 0.365).epsilon(1e-6));
  CHECK(g.eff.attention_of(topo::AttentionKernel::fa3) == 0.0);
  // FlexAttention takes its own figure: at 0.321 of peak, 0.589 / 0.321 of cuDNN's time.
  g.eff.attention_flex = 0.321;
  w.attention_kernel = topo::AttentionKernel::flex;
  CHECK(to_seconds(topo::kernel_time(g, w).duration) / cudnn_s == Approx(0.589 / 0.321).epsilon(1e-6));
  // Triton FlashAttention too: at 0.26 of peak (the A100's), 0.589 / 0.26 of cuDNN's time; none here.
  CHECK(g.eff.attention_of(topo::AttentionKernel::triton) == 0.0);
  g.eff.attention_triton = 0.26;
  w.attention_kernel = topo::AttentionKernel::triton;
  CHECK(to_seconds(topo::kernel_time(g, w).duration) / cudnn_s == Approx(0.589 / 0.26).epsilon(1e-6));
}

TEST_CASE("eager autograd keeps the norms' fp32 tensors, SwiGLU's silu output and the repeated heads") {
  using namespace framework_kernels_rows;
  const DenseLayer fused(layer_dims(llama_8b(Pointwise::fused), 1)),
      eager(layer_dims(llama_8b(Pointwise::eager), 1));
  // Without recomputation, per layer: two norms' fp32 upcast input and normalised product
  // (2 x 8 B x T x h), the silu output (2 B x T x f), and SDPA's keys and values repeated to 32 heads
  // instead of 8 (2 B x T x (4,096 + 4,096 - 1,024 - 1,024)).
  const double extra = 2 * 8 * T * h + 2 * T * f + 2 * T * (q + q - kv - kv);
  CHECK(eager.stored_activation_bytes(Recompute::none) - fused.stored_activation_bytes(Recompute::none) ==
        Approx(extra).epsilon(1e-12));
  // Full recomputation keeps the layer input alone, eager or not.
  CHECK(eager.stored_activation_bytes(Recompute::full) == fused.stored_activation_bytes(Recompute::full));
}

TEST_CASE("unpadded FlashAttention: three unpads with two host waits each, the output padded back") {
  using namespace framework_kernels_rows;
  JobSpec j = llama_8b(Pointwise::fused, topo::AttentionKernel::fa2);
  const Layer plain(j);
  j.workload.attention_unpad = true;
  const Layer unpad(j);
  // Forward, per tensor (q 4,096 wide, k and v 1,024): sequence lengths and indices over the int64
  // mask (read 8 B, write 8 B per token), the longest length (read 8 B), the host waiting after
  // each, then the gather of the kept rows (read and write, 2 x 2 B per element).
  CHECK(bytes_of(unpad.fwd, "unpad.nonzero q") == Approx(T * 16).epsilon(1e-12));
  CHECK(bytes_of(unpad.fwd, "unpad.max_seqlen k") == Approx(T * 8).epsilon(1e-12));
  CHECK(bytes_of(unpad.fwd, "unpad.gather q") == Approx(T * 4 * q).epsilon(1e-12));
  CHECK(bytes_of(unpad.fwd, "unpad.gather k") == Approx(T * 4 * kv).epsilon(1e-12));
  CHECK(bytes_of(unpad.fwd, "unpad.gather v") == Approx(T * 4 * kv).epsilon(1e-12));
  REQUIRE(unpad.fwd.syncs.size() == 6);
  CHECK(plain.fwd.syncs.empty());
  // Each wait follows the kernel whose result the host reads.
  CHECK(unpad.fwd.ops[unpad.fwd.syncs[0].first].name == "unpad.nonzero q");
  CHECK(unpad.fwd.ops[unpad.fwd.syncs[5].first].name == "unpad.max_seqlen v");
  // The output scattered into zeros: write, read, write, 3 x 2 B per element of 4,096.
  CHECK(bytes_of(unpad.fwd, "pad.scatter") == Approx(T * 6 * q).epsilon(1e-12));
  // Backward: the output gradient gathered (2 x 2 B), the q, k, v gradients scattered into
  // zeros (3 x 2 B over 4,096 + 1,024 + 1,024); no host wait.
  CHECK(bytes_of(unpad.bwd, "pad.bwd") == Approx(T * 4 * q).epsilon(1e-12));
  CHECK(bytes_of(unpad.bwd, "unpad.bwd") == Approx(T * 6 * (q + kv + kv)).epsilon(1e-12));
  CHECK(unpad.bwd.syncs.empty());
  // The attention kernel and every other kernel are unchanged.
  CHECK(unpad.fwd.flops(topo::OpClass::attention) == Approx(plain.fwd.flops(topo::OpClass::attention)));
  CHECK(unpad.fwd.ops.size() == plain.fwd.ops.size() + 10);
  CHECK(unpad.bwd.ops.size() == plain.bwd.ops.size() + 2);
}

TEST_CASE("a head narrower than the kernel's compiled width runs in the padded width") {
  using namespace framework_kernels_rows;
  // Heads of 80 (Phi-2's width) in FlashAttention-2, whose kernels come in multiples of 32: 96-wide
  // tiles, (80 + 80) / (96 + 96) = 0.833 of them used; the FLOPs stay the heads' own.
  JobSpec j = llama_8b(Pointwise::fused, topo::AttentionKernel::fa2);
  j.model.head_dim = 80;
  const AttentionShape fa2 = fused_attention_shape(layer_dims(j, 1));
  CHECK(fa2.width == Approx(160.0 / 192.0));
  const Layer layer(j);
  const auto* attn = layer.fwd.find("attn");
  REQUIRE(attn != nullptr);
  CHECK(attn->work.attention_width == Approx(160.0 / 192.0));
  // cuDNN has no published padding rule: its heads count as they are.
  j.workload.attention_kernel = topo::AttentionKernel::cudnn;
  CHECK(fused_attention_shape(layer_dims(j, 1)).width == 1.0);
  // Heads of 128 fill FlashAttention-2's 128-wide kernel.
  CHECK(fused_attention_shape(layer_dims(llama_8b(Pointwise::fused, topo::AttentionKernel::fa2), 1)).width ==
        1.0);
}

TEST_CASE("attention sinks: an eager rescale around a kernel without a sink term, none around cuDNN's") {
  using namespace framework_kernels_rows;
  // Llama 3.1 8B's layer with GPT-OSS-style sinks over FlexAttention, 8,192 tokens, E = 2: forward
  // (2 E + 8) B per output element and 16 B per row and head: 8,192 x (4,096 x 12 + 32 x 16) =
  // 406,847,488 B; backward (3 E + 12): 8,192 x (4,096 x 18 + 32 x 16) = 608,174,080 B.
  JobSpec j = llama_8b(Pointwise::fused, topo::AttentionKernel::flex);
  j.model.attention_sinks = true;
  const Layer flex(j);
  CHECK(bytes_of(flex.fwd, "attn_sink") == Approx(8192.0 * (4096 * 12 + 32 * 16)));
  CHECK(bytes_of(flex.bwd, "attn_sink.bwd") == Approx(8192.0 * (4096 * 18 + 32 * 16)));
  // cuDNN's kernel is taken to fold the sinks in: no op of their own.
  j.workload.attention_kernel = topo::AttentionKernel::cudnn;
  const Layer cudnn(j);
  CHECK(cudnn.fwd.find("attn_sink") == nullptr);
  CHECK(cudnn.bwd.find("attn_sink.bwd") == nullptr);
}

TEST_CASE("separate bias gradients: one reduction over the output gradient per biased linear") {
  // tiny_gpt with biases (GPT-2/3 style): h = 1,024, 16 heads of 64 (qkv width 3,072), FFN 4,096
  // (GELU, one up matrix), one sequence of 2,048 tokens, BF16 (E = 2).
  JobSpec j;
  j.model = test::tiny_gpt();
  j.model.linear_bias = true;
  j.workload.seq_len = 2048;
  j.precision.compute = topo::Precision::bf16;
  constexpr double T = 2048, h = 1024, f = 4096, qkv = 3072;
  const auto bwd = [&](int tp, bool sp, BiasGrad b) {
    JobSpec k = j;
    k.parallel.tp = tp;
    k.parallel.sequence_parallel = sp;
    k.workload.bias_grad = b;
    CountingSink s;
    DenseLayer(layer_dims(k, 1)).backward(s, {}, Recompute::none);
    return s;
  };
  const CountingSink fused = bwd(1, false, BiasGrad::fused), tp1 = bwd(1, false, BiasGrad::separate),
                     tp2 = bwd(2, true, BiasGrad::separate);
  using framework_kernels_rows::bytes_of;
  // Transformer Engine sums them inside its GEMMs and casts: no kernel of their own.
  for (const char* n : {"qkv.bgrad", "proj.bgrad", "mlp_up.bgrad", "mlp_down.bgrad"})
    CHECK(bytes_of(fused, n) == 0.0);
  // Each reduction reads the 16-bit output gradient (rows x cols x 2 B) and writes cols fp32 sums.
  // TP 1: every linear sums all 2,048 rows: qkv 3,072 wide, proj 1,024, up 4,096, down 1,024.
  CHECK(bytes_of(tp1, "qkv.bgrad") == Approx(T * qkv * 2 + 4 * qkv).epsilon(1e-12));
  CHECK(bytes_of(tp1, "proj.bgrad") == Approx(T * h * 2 + 4 * h).epsilon(1e-12));
  CHECK(bytes_of(tp1, "mlp_up.bgrad") == Approx(T * f * 2 + 4 * f).epsilon(1e-12));
  CHECK(bytes_of(tp1, "mlp_down.bgrad") == Approx(T * h * 2 + 4 * h).epsilon(1e-12));
  // TP 2 with sequence parallelism: the column-parallel biases (qkv, up) are half as wide over every
  // token; the row-parallel ones (proj, down), added after the reduce-scatter, sum the rank's 1,024
  // tokens of the full width.
  CHECK(bytes_of(tp2, "qkv.bgrad") == Approx(T * qkv / 2 * 2 + 4 * qkv / 2).epsilon(1e-12));
  CHECK(bytes_of(tp2, "mlp_up.bgrad") == Approx(T * f / 2 * 2 + 4 * f / 2).epsilon(1e-12));
  CHECK(bytes_of(tp2, "proj.bgrad") == Approx(T / 2 * h * 2 + 4 * h).epsilon(1e-12));
  CHECK(bytes_of(tp2, "mlp_down.bgrad") == Approx(T / 2 * h * 2 + 4 * h).epsilon(1e-12));
  // Nothing else changes: the GEMMs are the same.
  CHECK(tp1.gemm_flops() == Approx(fused.gemm_flops()).epsilon(1e-12));
}

TEST_CASE("a split QKV projection's gradients are concatenated back by a copy") {
  // MPT's qkv.split and Megatron-LM's split_tensor_along_last_dim hand attention views of the fused
  // projection's output, so autograd's split backward copies the query, key and value gradients into
  // one tensor: read and write T x (q + k + v) / t elements of 2 B. tiny_gpt: T = 2,048, qkv 3,072 wide.
  JobSpec j;
  j.model = test::tiny_gpt();
  j.workload.seq_len = 2048;
  j.precision.compute = topo::Precision::bf16;
  const auto bwd = [&](int tp, bool concat) {
    JobSpec k = j;
    k.parallel.tp = tp;
    k.workload.qkv_grad_concat = concat;
    CountingSink s;
    DenseLayer(layer_dims(k, 1)).backward(s, {}, Recompute::none);
    return s;
  };
  using framework_kernels_rows::bytes_of;
  constexpr double T = 2048, qkv = 3072;
  CHECK(bytes_of(bwd(1, false), "qkv_grad.concat") == 0.0);
  CHECK(bytes_of(bwd(1, true), "qkv_grad.concat") == Approx(2 * 2 * T * qkv).epsilon(1e-12));
  CHECK(bytes_of(bwd(2, true), "qkv_grad.concat") == Approx(2 * 2 * T * qkv / 2).epsilon(1e-12));
  // Inference has no backward to pay it in.
  JobSpec inf = j;
  inf.workload.kind = WorkloadKind::prefill;
  inf.workload.qkv_grad_concat = true;
  CHECK_FALSE(layer_dims(inf, 1).qkv_grad_concat);
}
