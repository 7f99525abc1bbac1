#include "workloads/step/model_ops.hpp"

#include <algorithm>
#include <cmath>

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {
double norm_tokens(const LayerDims& d) {
  return d.sp ? d.tokens / d.tp : d.tokens;
}

Handle tp_collective(OpSink& sink, const LayerDims& d, std::string_view name, CollectiveKind kind,
                     double bytes, Handle dep) {
  if (d.tp <= 1) return dep;
  return sink.comm(name, CommOp{ParallelDim::tp, kind, bytes, 0}, dep);
}
}  // namespace

Handle Embedding::forward(OpSink& sink) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(d_);
  // Each TP rank looks up the tokens whose ids fall in its vocabulary shard and writes zeros
  // elsewhere: read the rows, write the T x h output; the partial outputs are then summed.
  Handle h = sink.kernel("embed", elementwise(d_, 2 * T * d_.h * E));
  h = tp_collective(sink, d_, "tp.reduce_embed",
                    d_.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, T * d_.h * E, h);
  double add = 0.0;
  if (model_.position == PositionEmbedding::learned) add += 3 * Tn * d_.h * E;  // read both, write sum
  if (d_.dropout) add += 2 * Tn * d_.h * E + Tn * d_.h;
  if (add > 0.0) h = sink.kernel("embed_pos_dropout", elementwise(d_, add, 2 * Tn * d_.h), h);
  return h;
}

Handle Embedding::backward(OpSink& sink, Handle grad) const {
  const double E = d_.act_bytes, T = d_.tokens;
  // With SP the gradient is gathered back to full sequences before the scatter-add.
  Handle h = d_.sp
                 ? tp_collective(sink, d_, "tp.ag_grad_embed", CollectiveKind::all_gather, T * d_.h * E, grad)
                 : grad;
  // Scatter-add into the table rows: read dY, read and write the gradient rows.
  return sink.kernel("embed.bwd", elementwise(d_, T * d_.h * (E + 2 * d_.grad_bytes), T * d_.h), h);
}

double Embedding::params_per_rank() const {
  double p = static_cast<double>(model_.vocab) * d_.h / d_.tp;
  if (model_.position == PositionEmbedding::learned) p += static_cast<double>(model_.max_positions) * d_.h;
  return p;
}

Handle LmHead::forward(OpSink& sink, Handle input) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(d_),
               v = model_.vocab / static_cast<double>(d_.tp);
  Handle h =
      sink.kernel("final_norm", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h), input);
  if (d_.sp) h = tp_collective(sink, d_, "tp.ag_final", CollectiveKind::all_gather, T * d_.h * E, h);
  h = sink.kernel("logits", gemm(d_, T, v, d_.h), h);
  return loss_forward(sink, h);
}

// The vocabulary-parallel cross-entropy over the logits shard [T x v], per element (E the logits'
// bytes); the max, the sum of exponentials and the target logit are all-reduced across TP (fp32 per
// token). workload.cross_entropy:
//  - fused: one pass reads the logits and writes the fp32 softmax kept for the backward (E, then E + 4).
//  - megatron (Megatron's vocab_parallel_cross_entropy, cross_entropy_loss_fusion off; Megatron-Core
//    tensor_parallel/cross_entropy.py at core_r0.10.0, Megatron-LM's mpu/cross_entropy.py of 2021 on
//    output.float()): .float() (E, 4), max (4), -= max (4, 4), exp in place (4, 4), sum (4), three
//    all-reduces (max, target logit, sum), div_ by the sum (4, 4): E + 36 over six kernels.
//  - megatron_compiled (cross_entropy_loss_fusion on: fusions/fused_cross_entropy.py, each of its three
//    functions under jit_fuser, torch.compile from PyTorch 2.2): cast and max in one kernel that keeps
//    the fp32 copy (E, 4), subtract, exp and sum in one that writes the exponentials back (4, 4), the
//    target logit and the sum all-reduced together, div_ (4, 4): E + 20 over three kernels.
//  - pytorch (eager PyTorch, every pointwise = "eager" run; torchtitan's and NeMo AutoModel's
//    MaskedCrossEntropy: F.cross_entropy(logits.float(), labels) uncompiled): an fp32 copy of the
//    logits (read E, write 4), then log_softmax reads it twice and writes its output (12).
//  - pytorch_bf16 (AutoModel's MaskedCrossEntropy with fp32_upcast false): log_softmax on the 16-bit
//    logits, reading them twice and writing its 16-bit output (3E; it computes in fp32 inside).
// nll_loss reads one element per token. The TP collectives are vocab-parallel's in every case.
Handle LmHead::loss_forward(OpSink& sink, Handle h) const {
  const double E = d_.act_bytes, T = d_.tokens, v = model_.vocab / static_cast<double>(d_.tp), n = T * v;
  const auto all_reduce = [&](std::string_view name, double bytes, Handle dep) {
    return tp_collective(sink, d_, name, CollectiveKind::all_reduce, bytes, dep);
  };
  switch (d_.cross_entropy) {
    case CrossEntropy::fused:
      h = sink.kernel("loss_max", elementwise(d_, n * E, n), h);
      h = all_reduce("tp.loss_max", 4 * T, h);
      h = sink.kernel("loss_softmax", elementwise(d_, n * (E + 4), 4 * n), h);
      return all_reduce("tp.loss_sum", 8 * T, h);
    case CrossEntropy::pytorch:
      h = sink.kernel("loss_cast", elementwise(d_, n * (E + 4), n), h);
      h = all_reduce("tp.loss_max", 4 * T, h);
      h = sink.kernel("loss_softmax", elementwise(d_, n * 12, 4 * n), h);
      return all_reduce("tp.loss_sum", 8 * T, h);
    case CrossEntropy::pytorch_bf16:
      h = all_reduce("tp.loss_max", 4 * T, h);
      h = sink.kernel("loss_softmax", elementwise(d_, n * 3 * E, 4 * n), h);
      return all_reduce("tp.loss_sum", 8 * T, h);
    case CrossEntropy::megatron_compiled:
      h = sink.kernel("loss_max", elementwise(d_, n * (E + 4), n), h);
      h = all_reduce("tp.loss_max", 4 * T, h);
      h = sink.kernel("loss_exp_sum", elementwise(d_, 8 * n, 4 * n), h);
      h = all_reduce("tp.loss_sum", 8 * T, h);
      return sink.kernel("loss_div", elementwise(d_, 8 * n, n), h);
    case CrossEntropy::megatron: break;
  }
  h = sink.kernel("loss_cast", elementwise(d_, n * (E + 4), n), h);
  h = sink.kernel("loss_max", elementwise(d_, 4 * n, n), h);
  h = all_reduce("tp.loss_max", 4 * T, h);
  h = sink.kernel("loss_sub", elementwise(d_, 8 * n, n), h);
  h = sink.kernel("loss_exp", elementwise(d_, 8 * n, 4 * n), h);
  h = sink.kernel("loss_sum", elementwise(d_, 4 * n, n), h);
  h = all_reduce("tp.loss_target", 4 * T, h);
  h = all_reduce("tp.loss_sum", 4 * T, h);
  return sink.kernel("loss_div", elementwise(d_, 8 * n, n), h);
}

// d(logits) = softmax - onehot, times the loss's gradient, cast back to the logits' precision.
// fused: read the fp32 softmax, write the gradient (4 + E). megatron: the target's entries updated in
// place (one per token), mul_ by the loss gradient (4, 4), then autograd casts the fp32 gradient to the
// logits' dtype (4, E): 12 + E over two kernels. megatron_compiled: one kernel reads the softmax, writes
// the product back into it (torch.compile keeps the in-place mutation of its input) and the cast
// gradient: 8 + E. pytorch: nll_loss's backward fills an fp32 gradient (4), log_softmax's reads it and
// its output and writes (12), and the cast back to 16 bits reads and writes (4 + E). pytorch_bf16: the
// same without the cast, in 16 bits: the filled gradient (E), then log_softmax's backward (3E).
Handle LmHead::loss_backward(OpSink& sink, Handle loss) const {
  const double E = d_.act_bytes, T = d_.tokens, v = model_.vocab / static_cast<double>(d_.tp), n = T * v;
  switch (d_.cross_entropy) {
    case CrossEntropy::pytorch: return sink.kernel("loss.bwd", elementwise(d_, n * (20 + E), n), loss);
    case CrossEntropy::pytorch_bf16: {
      const Handle h = sink.kernel("loss.bwd_nll", elementwise(d_, n * E, n), loss);
      return sink.kernel("loss.bwd", elementwise(d_, n * 3 * E, n), h);
    }
    case CrossEntropy::megatron: {
      const Handle h = sink.kernel("loss.bwd", elementwise(d_, 8 * n, n), loss);
      return sink.kernel("loss.bwd_cast", elementwise(d_, n * (4 + E), n), h);
    }
    case CrossEntropy::megatron_compiled:
      return sink.kernel("loss.bwd", elementwise(d_, n * (8 + E), n), loss);
    case CrossEntropy::fused: break;
  }
  return sink.kernel("loss.bwd", elementwise(d_, n * (4 + E), n), loss);
}

Handle LmHead::backward(OpSink& sink, Handle loss) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(d_),
               v = model_.vocab / static_cast<double>(d_.tp);
  Handle h = loss_backward(sink, loss);
  h = sink.kernel("logits.dgrad", gemm(d_, T, d_.h, v), h);
  // Megatron-Core's output layer is outside Transformer Engine's FP8 region: 16-bit like the logits.
  emit_wgrad(sink, d_.high_precision(), "logits.wgrad", T, v, d_.h);
  h = tp_collective(sink, d_, "tp.reduce_grad_logits",
                    d_.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, T * d_.h * E, h);
  return sink.kernel("final_norm.bwd",
                     elementwise(d_, Tn * d_.h * norm_backward_bytes(d_, false), 10 * Tn * d_.h), h);
}

double LmHead::params_per_rank() const {
  const double norm = hidden_norm_params(d_);
  return (model_.tied_embeddings ? 0.0 : static_cast<double>(model_.vocab) * d_.h / d_.tp) + norm;
}

double LmHead::stored_activation_bytes() const {
  return d_.tokens * model_.vocab / static_cast<double>(d_.tp) *
         loss_kept_bytes(d_.cross_entropy, d_.act_bytes);
}

double LmHead::loss_transient_bytes(bool backward) const {
  return d_.tokens * model_.vocab / static_cast<double>(d_.tp) *
         work::loss_transient_bytes(d_.cross_entropy, d_.act_bytes, backward);
}

Handle MtpGlue::forward(OpSink& sink, const Embedding& embed, Handle input) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(d_), h = d_.h;
  const Handle e = embed.forward(sink);
  // RMSNorm of each half: read and write Tn x h twice.
  Handle n = sink.kernel_after("mtp.norms", elementwise(d_, 2 * Tn * h * norm_forward_bytes(d_), 16 * Tn * h),
                               std::array<Handle, 2>{input, e});
  // The projection is tensor-parallel like a layer's: gather the 2h-wide input (SP), multiply,
  // reduce(-scatter) the output.
  if (d_.sp)
    n = sink.comm("tp.ag_mtp", CommOp{ParallelDim::tp, CollectiveKind::all_gather, 2 * T * h * E, 0}, n);
  // Megatron-Core's MTP projection is row-parallel like FC2: take FC2's userbuffers configuration.
  return reduced_linear_forward(sink, d_, "mtp.proj", "tp.reduce_mtp", T, h, 2 * h / d_.tp, n,
                                UbGemm::fc2_fprop);
}

Handle MtpGlue::backward(OpSink& sink, const Embedding& embed, Handle grad) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(d_), h = d_.h;
  Handle g = gathered_linear_dgrad(sink, d_, "tp.ag_grad_mtp", "mtp.proj.dgrad", T, h, 2 * h / d_.tp, grad,
                                   UbGemm::fc2_dgrad);
  emit_wgrad(sink, d_, "mtp.proj.wgrad", T, h, 2 * h / d_.tp);
  if (d_.sp)
    g = sink.comm("tp.rs_grad_mtp", CommOp{ParallelDim::tp, CollectiveKind::reduce_scatter, 2 * T * h * E, 0},
                  g);
  else if (d_.tp > 1)
    g = sink.comm("tp.reduce_grad_mtp", CommOp{ParallelDim::tp, CollectiveKind::all_reduce, 2 * T * h * E, 0},
                  g);
  g = sink.kernel("mtp.norms.bwd", elementwise(d_, 2 * Tn * h * norm_backward_bytes(d_, false), 20 * Tn * h),
                  g);
  embed.backward(sink, g);  // the lookup's gradient: scatter-add into the embedding copy
  return g;
}

double MtpGlue::params_per_rank() const {
  return 2 * d_.h + 2 * d_.h * d_.h / d_.tp;
}

double MtpGlue::stored_activation_bytes() const {
  // Both norm inputs and the (gathered, per TP rank) projection input.
  return d_.act_bytes * (2 * norm_tokens(d_) * d_.h + 2 * d_.tokens * d_.h / d_.tp);
}

double low_precision_weight_bytes(const PrecisionSpec& p) {
  if (!p.low_precision_linears()) return 0.0;
  const double q = topo::bytes_per_element(p.compute);
  // Row-wise and column-wise copies. With FP8 parameters the row-wise copy is the weight itself
  // (its 16-bit working copy is gone: see param_bytes), so only the transposed one is extra.
  return p.fp8_params ? q : 2.0 * q;
}

Handle emit_optimizer(OpSink& sink, const LayerDims& d, const PrecisionSpec& p, const OptimizerShard& s,
                      std::span<const Handle> after) {
  // Multi-tensor kernels (Transformer Engine's FusedAdam, apex's l2norm) launch once per 320 chunks
  // of 65,536 elements: about 21 M parameters per launch.
  constexpr double kElementsPerLaunch = 320.0 * 65536.0;
  const double launches = std::max(1.0, std::ceil(s.optimizer_params / kElementsPerLaunch));
  // Gradient norm for clipping: read every local gradient once.
  topo::KernelWork norm = elementwise(d, s.optimizer_params * p.grad_bytes, 2 * s.optimizer_params);
  norm.launches = launches;
  norm.inner_launch = true;
  Handle h = sink.kernel_after("grad_norm", norm, after);
  // Megatron reads the norm on the host (`.item()` in clip_grad_norm) before launching the clip
  // and the update: the host waits for the GPU here.
  sink.host_sync(h, "host.sync grad_norm");
  // Adam: read the gradient, read and write the fp32 master weights and both moments, write the
  // working-precision weights. About 12 FLOPs per parameter.
  const double bytes = s.optimizer_params * (p.grad_bytes + 2 * p.optimizer_bytes + p.param_bytes);
  topo::KernelWork adam = elementwise(d, bytes, 12 * s.optimizer_params);
  adam.launches = launches;
  adam.inner_launch = true;
  h = sink.kernel("adam", adam, h);
  if (!p.low_precision_linears() || s.linear_params <= 0.0) return h;
  // Transformer Engine casts each linear weight to FP8 (and its transpose) on the first
  // micro-batch of a step and caches it (is_first_microbatch): read the weight, write both copies.
  // With FP8 parameters the optimizer writes the FP8 weight itself; the transpose remains.
  const double cast = s.linear_params * (p.param_bytes + low_precision_weight_bytes(p));
  return sink.kernel("fp8.weight_cast", elementwise(d, cast, 2 * s.linear_params), h);
}

}  // namespace stepsim::work
