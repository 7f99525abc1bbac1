// torchtitan's per-op selective activation checkpointing (recompute_modules = ["alternate_mm"]), as
// its code runs it: models/llama3/parallelize_llama.py, _apply_ac_to_transformer_block with
// selective_ac_option = "op" (torchtitan e7c0cae, 2025-06). Each transformer block runs under
// torch.utils.checkpoint with a policy that keeps (MUST_SAVE) the outputs of SDPA's flash and
// memory-efficient kernels, of reduce-scatters, of `max`, and of every aten.mm but every second one
// (a counter per block's forward: the 2nd, 4th, 6th mm are replayed), and replays everything else
// (PREFER_RECOMPUTE). A Llama block's mms run wq, wk, wv, wo, w1, w3, w2, so wk, wo and w3 run
// again; w2's output is kept but nothing in the backward reads it.
//
// When: the block's backward starts by unpacking a saved tensor, which replays the forward from the
// block's input up to the last tensor the backward needs (the down projection's input; checkpoint's
// early stop), before any gradient kernel of the block. What runs again: both norms, wk, the
// rotation, the output's copy to wo's layout (eager), wo (its output feeds the residual that the
// second norm's backward needs), the residual add, w3 and the activation. A compiled block
// (torch.compile, pointwise = "fused") recomputes what the backward reads: the same without tensor
// parallelism, and without wo under it (op_sac_replay).
#include <optional>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

Handle DenseLayer::op_sac_replay(OpSink& sink, OpSink::Deps after) const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(), t = d_.tp, f = d_.ffn / t;
  Handle h = sink.kernel_after(
      "ln1.recompute", elementwise(d_, Tn * d_.h * norm_forward_bytes(d_), 8 * Tn * d_.h), after.span());
  // Tensor parallelism (torchtitan's plan: SequenceParallel norms, the attention's and the MLP's
  // inputs gathered by PrepareModuleInput): all_gather is not on the save list, so the replay
  // gathers the norm's output again, and the backward's weight gradients read that gathered copy.
  h = sp_gather_linear_input(sink, d_, "tp.ag_ln1.recompute", h, std::nullopt);
  h = linear_forward(sink, d_, "k_proj.recompute", T, d_.kv_dim / t, d_.h, h, QuantOperand::norm_output);
  h = rope(sink, h, ".recompute");
  if (!op_sac_keeps_attention()) {
    // cuDNN's SDPA is not on the save list: the kernel itself runs again (with eager's repeat_kv
    // and output copy around it).
    h = attention_core_forward(sink, h);
  } else if (d_.eager_pointwise) {
    // SDPA's inputs are the repeated keys and values (its backward reads them) and wo's input is
    // the output made contiguous: both copies run again from what was kept.
    if (d_.kv_dim < d_.q_dim) h = sink.kernel("repeat_kv.recompute", elementwise(d_, repeat_kv_bytes()), h);
    h = sink.kernel("attn_out_copy.recompute", elementwise(d_, 2 * E * T * d_.o_dim / t), h);
  }
  // wo's output feeds the residual the second norm reads. Under TP it reaches it through a
  // reduce-scatter, whose output is kept: eager replays wo anyway (the forward runs in order up to
  // the last tensor the backward needs), a compiled graph does not.
  if (d_.tp <= 1 || d_.eager_pointwise)
    h = linear_forward(sink, d_, "proj.recompute", T, d_.h, d_.o_dim / t, h);
  h = sink.kernel("bda1.recompute", elementwise(d_, 3 * Tn * d_.h * E, 3 * Tn * d_.h), h);
  h = norm_forward(sink, "ln2.recompute", Tn * d_.h, h);
  h = sp_gather_linear_input(sink, d_, "tp.ag_ln2.recompute", h, std::nullopt);
  // SwiGLU's up projection (w3, the 6th mm); GeLU's second mm is the down projection, whose output
  // the backward does not read, so only the activation runs again.
  if (d_.activation == Activation::swiglu)
    h = linear_forward(sink, d_, "mlp_up.recompute", T, f, d_.h, h, QuantOperand::norm_output);
  return sink.kernel("act.recompute", elementwise(d_, act_forward_bytes(d_) * T * f, 8 * T * f), h);
}

double DenseLayer::op_sac_stored_bytes() const {
  const double E = d_.act_bytes, T = d_.tokens, Tn = norm_tokens(), t = d_.tp, hl = d_.heads / t;
  const bool tp = d_.tp > 1;
  // The checkpoint's input (the block's input, a sequence shard under TP), and the kept mms'
  // outputs: wq, wv and w1 (SwiGLU's gate; GeLU's up projection), the rank's heads and columns.
  double kept = E * Tn * d_.h + E * T * (d_.q_dim + d_.v_dim + d_.ffn) / t;
  // SDPA's output and its fp32 log-sum-exp.
  if (op_sac_keeps_attention()) kept += E * T * d_.o_dim / t + 4 * T * hl;
  // Under TP the attention's reduce-scatter output (the residual's branch) is kept.
  if (tp) kept += E * Tn * d_.h;
  // Eager: the caching mode keeps every saved op's output, the 7th mm's (SwiGLU's w2, a partial sum
  // under TP) and the MLP's reduce-scatter output too, though nothing reads them; a compiled graph
  // keeps only what its backward reads.
  if (d_.eager_pointwise && d_.activation == Activation::swiglu) kept += E * T * d_.h;
  if (d_.eager_pointwise && tp) kept += E * Tn * d_.h;
  return kept;
}

}  // namespace stepsim::work
