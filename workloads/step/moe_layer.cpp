#include "workloads/step/moe_layer.hpp"

#include <algorithm>
#include <cmath>

#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {

/// An expert GEMM as one grouped kernel: m tokens per expert, one group per expert.
topo::KernelWork grouped(topo::KernelWork w, double m) {
  w.grouped_rows = m;
  return w;
}

/// dgrad of Y[m x n] = X[m x k] W[k x n]: dX[m x k] = dY[m x n] W^T[n x k], grouped over the
/// experts (m tokens each).
topo::KernelWork dgrad(const LayerDims& d, double m, double n, double k, double count = 1.0) {
  return grouped(linear_grad_gemm(d, m, k, n, count), m);
}

double gate(const LayerDims& d) {
  return d.activation == Activation::swiglu ? 2.0 : 1.0;
}

/// Weight gradient of Y[m x n] = X[m x k] W[k x n], accumulated in the GEMM epilogue (experts are
/// Megatron-Core grouped GEMMs with fused accumulation).
topo::KernelWork wgrad_work(const LayerDims& d, double m, double n, double k, double count) {
  topo::KernelWork w = linear_grad_gemm(d, k, n, m, count);
  w.weight_grad = true;
  w.hbm_bytes += units::bytes(count * k * n * (2.0 * d.grad_bytes - d.act_bytes));
  return w;
}

/// Emits an expert kernel and records its cost under balanced routing.
Handle expert_kernel(OpSink& sink, std::string_view name, const topo::KernelWork& w,
                     const topo::KernelWork& balanced, Handle dep) {
  const Handle k = sink.kernel(name, w, dep);
  topo::KernelWork b = balanced;  // priced by the sink alone, without the name
  b.kind = kernel_kind(name, b.op_class);
  sink.balanced_kernel(k, b);
  return k;
}

}  // namespace

topo::KernelWork permute_work(const LayerDims& d, double tokens, double copies, double bytes) {
  return elementwise(d, (tokens + copies) * d.h * bytes);
}

topo::KernelWork unpermute_work(const LayerDims& d, double tokens, double copies, double probabilities,
                                bool weigh) {
  return elementwise(d, (copies + tokens) * d.h * d.act_bytes + (weigh ? 4.0 * probabilities : 0.0),
                     (weigh ? 2.0 : 1.0) * copies * d.h);
}

bool MoeLayer::sorts_by_local_expert() const {
  return !m_.permute_after_dispatch && m_.dispatcher != MoeDispatcher::low_latency && m_.experts > m_.ep;
}

Handle MoeLayer::local_sort(OpSink& sink, std::string_view name, const ExpertLoadPair& load, double bytes,
                            bool with_probs, Handle dep) const {
  if (!sorts_by_local_expert()) return dep;
  // Read and write every copy (a transpose copy when padded to capacity, sort_chunks_by_idxs
  // otherwise), and the fp32 routing probabilities that travel with the tokens when the experts
  // apply them.
  const auto work = [&](const Load& l) {
    const double probs = with_probs && m_.probs == MoeProbs::activation ? 2.0 * 4.0 * l.copies : 0.0;
    return elementwise(d_, 2.0 * l.copies * d_.h * bytes + probs);
  };
  return expert_kernel(sink, name, work(load.actual), work(load.balanced), dep);
}

MoeDims moe_dims(const JobSpec& job) {
  MoeDims m;
  m.experts = job.model.experts;
  m.top_k = job.model.top_k;
  m.shared_experts = job.model.shared_experts;
  m.expert_ffn = job.model.expert_ffn;
  m.ep = job.parallel.ep;
  m.expert_tp = job.parallel.expert_tp;
  m.shared_overlap = job.moe.shared_expert_overlap;
  m.fp8_dispatch = job.moe.fp8_dispatch;
  m.dispatcher = job.moe.dispatcher;
  m.probs = job.moe.probs;
  m.dropless = job.moe.capacity_factor <= 0.0;
  m.permute_after_dispatch = job.moe.max_nodes_per_token > 0 && job.moe.dispatcher == MoeDispatcher::normal;
  return m;
}

double MoeLayer::up_width() const {
  return gate(d_) * m_.expert_ffn / m_.expert_tp;
}

double MoeLayer::received_tokens(const MoeRank& r) const {
  const auto& delivered = r.routing->delivered;
  const auto i = static_cast<std::size_t>(r.ep_index);
  return (i < delivered.size() ? delivered[i] : 0.0) * m_.expert_tp;
}

MoeLayer::ExpertLoadPair MoeLayer::loads(const MoeRank& r) const {
  // With expert TP the rank computes a slice of its experts for every copy its expert-TP group
  // received: the group's EP groups route alike, so that is expert_tp times its own share.
  const auto& a = r.routing->ranks[static_cast<std::size_t>(r.ep_index)];
  const auto& b = r.balanced->ranks[static_cast<std::size_t>(r.ep_index)];
  return {{a.copies * m_.expert_tp, a.active_experts}, {b.copies * m_.expert_tp, b.active_experts}};
}

CommOp MoeLayer::all_to_all(const MoeRank& r, A2aPhase phase) const {
  const LayerRouting& l = *r.routing;
  const bool combine = phase == A2aPhase::combine;
  const CollectiveKind kind = m_.dispatcher == MoeDispatcher::low_latency
                                  ? CollectiveKind::all_to_all_low_latency
                                  : CollectiveKind::all_to_all;
  CommOp c{ParallelDim::ep, kind, 0.0, 0, CommScope::dense, {}, -1};
  // Bytes per rank: what it sends in total (a plain all-to-all), or the mean row of the matrix.
  c.bytes = combine ? l.mean_combine_bytes : l.mean_sent_bytes;
  if (!l.uniform) {
    c.pair_bytes =
        combine ? std::span<const double>(l.combine_bytes) : std::span<const double>(l.dispatch_bytes);
    c.pattern = r.pattern + (combine ? 1 : 0);
  }
  return c;
}

CommOp MoeLayer::balanced_all_to_all(const MoeRank& r, A2aPhase phase) const {
  MoeRank b = r;
  b.routing = r.balanced;
  b.pattern = r.balanced_pattern;
  return all_to_all(b, phase);
}

Handle MoeLayer::forward(OpSink& sink, OpSink::Deps input, const MoeRank& rank) const {
  const Handle h = attention_.attention_forward(sink, input);
  return ffn_forward(sink, h, rank);
}

Handle MoeLayer::backward(OpSink& sink, OpSink::Deps grad_output, Recompute recompute,
                          const MoeRank& rank) const {
  const Handle g = ffn_backward(sink, grad_output, rank, selective_modules(d_, recompute));
  return attention_.attention_backward(sink, g, recompute);
}

Handle MoeLayer::ffn_forward(OpSink& sink, OpSink::Deps input, const MoeRank& rank) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), Tm = routed_tokens(), h = d_.h, X = m_.experts;
  const double sent = rank.routing->sent(rank.ep_index);  // hidden vectors this rank dispatches
  const Handle x =
      sink.kernel_after("ln2", elementwise(d_, Tn * h * norm_forward_bytes(d_), 8 * Tn * h), input.span());
  // Without overlap the shared experts finish before the router, so the dispatch waits for them.
  Handle shared = m_.shared_overlap ? Handle{} : shared_forward(sink, x);
  // Router: fp32 logits, then the score function and top-k selection over them.
  Handle g = sink.kernel_after("router", gemm(d_, Tm, X, h), std::array<Handle, 2>{x, shared});
  g = sink.kernel("router_topk", elementwise(d_, 8 * Tm * X + 4 * Tm * m_.top_k, 10 * Tm * X), g);
  // DeepEP's low-latency kernels need no counts: each rank writes its tokens into fixed slots of
  // every expert's buffer (num_max_dispatch_tokens_per_rank), the received counts stay on the GPU
  // for the masked grouped GEMM, and the host never waits (they run inside CUDA graphs).
  if (m_.dropless && m_.dispatcher != MoeDispatcher::low_latency) {
    // Dropless routing: how many tokens each rank receives is known only once every rank has
    // routed. Megatron-Core's all-to-all dispatcher gathers the per-expert counts over the EP group
    // and copies them to the host (its cuda_sync_point), as DeepEP's notify_dispatch makes the host
    // wait for the received counts: the host stops launching until the GPU gets here.
    const CommOp counts{ParallelDim::ep, CollectiveKind::all_gather, 8.0 * X, 0, CommScope::dense, {}, -1};
    g = sink.comm("ep.token_counts", counts, g);
    sink.host_sync(g, "host.sync tokens_per_expert");
  }
  // Permute: gather each routed copy into expert order (read the tokens, write the copies);
  // DeepEP sends the tokens as they are and its receiver permutes (below).
  const bool after = m_.permute_after_dispatch;
  if (!after) g = sink.kernel("permute", permute_work(d_, Tm, sent, E), g);
  // FP8 dispatch: the tokens are quantised before they leave.
  if (fp8_dispatch()) g = sink.kernel("dispatch.quantize", quantize_work(d_, Tm * h, QuantOperand::input), g);
  Handle e = sink.comm("ep.dispatch", all_to_all(rank, A2aPhase::dispatch), g);
  sink.balanced_comm(e, balanced_all_to_all(rank, A2aPhase::dispatch));
  if (m_.shared_overlap) shared = shared_forward(sink, x);  // runs while the dispatch is in flight
  const ExpertLoadPair load = loads(rank);
  const double n = load.actual.copies;
  if (m_.expert_tp > 1)
    e = sink.comm("etp.gather",
                  CommOp{ParallelDim::tp, CollectiveKind::all_gather, n * h * E, 0, CommScope::expert}, e);
  const bool weigh_here = m_.probs == MoeProbs::unpermute;
  const double got = received_tokens(rank);
  // FP8 dispatch: the tokens arrived quantised, and the copies stay so for the FP8 grouped GEMM.
  if (after) e = sink.kernel("permute", permute_work(d_, got, n, fp8_dispatch() ? kFp8BlockBytes : E), e);
  e = local_sort(sink, "permute_local", load, fp8_dispatch() ? kFp8BlockBytes : E, true, e);
  e = experts_forward(sink, e, load);
  e = local_sort(sink, "unpermute_local", load, E, false, e);
  if (m_.expert_tp > 1)
    e = sink.comm("etp.reduce_scatter",
                  CommOp{ParallelDim::tp, CollectiveKind::reduce_scatter, n * h * E, 0, CommScope::expert},
                  e);
  if (after) e = sink.kernel("unpermute", unpermute_work(d_, got, n, n, weigh_here), e);
  const Handle back = sink.comm("ep.combine", all_to_all(rank, A2aPhase::combine), e);
  sink.balanced_comm(back, balanced_all_to_all(rank, A2aPhase::combine));
  // Unpermute: read the returned copies (and their probabilities, unless the experts applied
  // them), write the (weighted) sum per token; DeepEP's combine sums the ranks' partial sums.
  Handle u =
      after ? back : sink.kernel("unpermute", unpermute_work(d_, Tm, sent, Tm * m_.top_k, weigh_here), back);
  if (d_.tp > 1 && !d_.sp)  // each TP rank routed a slice: gather the layer output back
    u = sink.comm("tp.ag_moe", CommOp{ParallelDim::tp, CollectiveKind::all_gather, d_.tokens * h * E, 0}, u);
  // Residual add (and the shared experts' output): read the inputs, write the sum.
  const double bda = (m_.shared_experts > 0 ? 4 : 3) * Tn * h * E + (d_.dropout ? Tn * h : 0.0);
  return sink.kernel_after("bda2", elementwise(d_, bda, 3 * Tn * h), std::array<Handle, 2>{u, shared});
}

Handle MoeLayer::experts_forward(OpSink& sink, Handle ready, const ExpertLoadPair& load) const {
  // Grouped GEMMs: `touched` experts, n / touched tokens each (MoE GEMMs are often small). Each
  // kernel also records its cost under balanced routing.
  const double f = m_.expert_ffn / m_.expert_tp, h = d_.h;
  const auto up = [&](const Load& l) {
    return grouped(weight_gemm(d_, l.per_expert(), up_width(), h, l.touched), l.per_expert());
  };
  // Weighted in the activation, each copy's output is scaled by its probability (4 bytes read).
  const double probs = m_.probs == MoeProbs::activation ? 4.0 : 0.0;
  const auto act = [&](const Load& l) {
    return elementwise(d_, act_forward_bytes(d_) * l.copies * f + probs * l.copies, 8 * l.copies * f);
  };
  const auto down = [&](const Load& l) {
    return grouped(weight_gemm(d_, l.per_expert(), h, f, l.touched), l.per_expert());
  };
  // FP8 grouped GEMMs quantise the dispatched tokens and the activation's output first.
  const auto q_in = [&](const Load& l) { return quantize_work(d_, l.copies * h, QuantOperand::input); };
  const auto q_mid = [&](const Load& l) { return quantize_work(d_, l.copies * f, QuantOperand::input); };
  Handle e = ready;
  // With FP8 dispatch the tokens arrive quantised row-wise, but the weight gradient needs them
  // column-wise: DeepSeek casts them back and quantises them again (the profile's cast_back and
  // per_channel_cast_and_transpose kernels), so the experts' quantisation stays.
  if (d_.low_precision_linears())
    e = expert_kernel(sink, "experts_up.quantize", q_in(load.actual), q_in(load.balanced), e);
  e = expert_kernel(sink, "experts_up", up(load.actual), up(load.balanced), e);
  e = expert_kernel(sink, "experts_act", act(load.actual), act(load.balanced), e);
  if (d_.low_precision_linears())
    e = expert_kernel(sink, "experts_down.quantize", q_mid(load.actual), q_mid(load.balanced), e);
  return expert_kernel(sink, "experts_down", down(load.actual), down(load.balanced), e);
}

Handle MoeLayer::ffn_backward(OpSink& sink, OpSink::Deps grad, const MoeRank& rank,
                              RecomputeModules rc) const {
  const double E = d_.act_bytes, Tn = norm_tokens(), Tm = routed_tokens(), h = d_.h, X = m_.experts;
  const double sent = rank.routing->sent(rank.ep_index);
  const Handle g = sink.kernel_after(
      "bda2.bwd", elementwise(d_, 2 * Tn * h * E + (d_.dropout ? Tn * h : 0.0)), grad.span());
  Handle shared = m_.shared_overlap ? Handle{} : shared_backward(sink, g);
  // Gradients of the copies travel back to the experts. Weighted here, the unpermute also
  // computes the probabilities' gradient, reading every kept copy (its dot with the token's
  // gradient); weighted in the experts' activation, that gradient is the activation's.
  const bool weigh_here = m_.probs == MoeProbs::unpermute;
  const bool after = m_.permute_after_dispatch;
  const double got = received_tokens(rank);
  // DeepEP: the combine's gradient travels per token and the expert rank expands it (below).
  const std::array<Handle, 2> ready{g, shared};
  Handle e;
  if (!after)
    e = sink.kernel_after("unpermute.bwd",
                          weigh_here
                              ? elementwise(d_, (Tm + 2 * sent) * h * E + 4 * Tm * m_.top_k, 2 * sent * h)
                              : elementwise(d_, (Tm + sent) * h * E, sent * h),
                          ready);
  // FP8 dispatch: the gradients travel to the experts quantised (report section 3.3.2).
  if (fp8_dispatch())
    e = e.valid()
            ? sink.kernel("combine.bwd.quantize", quantize_work(d_, Tm * h, QuantOperand::grad_output), e)
            : sink.kernel_after("combine.bwd.quantize", quantize_work(d_, Tm * h, QuantOperand::grad_output),
                                ready);
  // The combine's gradients travel the way the dispatch sent the tokens.
  e = e.valid() ? sink.comm("ep.combine.bwd", all_to_all(rank, A2aPhase::dispatch), e)
                : sink.comm_after("ep.combine.bwd", all_to_all(rank, A2aPhase::dispatch), ready);
  sink.balanced_comm(e, balanced_all_to_all(rank, A2aPhase::dispatch));
  if (m_.shared_overlap) shared = shared_backward(sink, g);  // runs while the gradients travel
  const ExpertLoadPair load = loads(rank);
  const double n = load.actual.copies;
  if (m_.expert_tp > 1)
    e = sink.comm("etp.gather.bwd",
                  CommOp{ParallelDim::tp, CollectiveKind::all_gather, n * h * E, 0, CommScope::expert}, e);
  // Expand each received token's gradient to its copies (reading the copies to weigh them); with
  // FP8 dispatch the gradients arrived quantised and are expanded so.
  const double gq = fp8_dispatch() ? kFp8BlockBytes : E;
  if (after)
    e = sink.kernel("unpermute.bwd",
                    weigh_here ? elementwise(d_, (got + n) * h * gq + n * h * E + 4 * n, 2 * n * h)
                               : elementwise(d_, (got + n) * h * gq, n * h),
                    e);
  // The combine's gradients arrive by source rank as the outputs left, and are sorted by local
  // expert again (the unsort's backward); the experts' input gradients are unsorted (the sort's).
  e = local_sort(sink, "unpermute_local.bwd", load, gq, false, e);
  // The grouped MLP's backward computes its weight gradients in the same autograd node as its data
  // gradients (Transformer Engine's GroupedLinear, Megatron-Core without delayed weight gradients),
  // so the collectives after it are issued once both are done.
  Handle wgrad;
  e = experts_backward(sink, e, load, rc.moe_act, wgrad);
  e = local_sort(sink, "permute_local.bwd", load, E, false, e);
  if (m_.expert_tp > 1)
    e = sink.comm_after(
        "etp.reduce_scatter.bwd",
        CommOp{ParallelDim::tp, CollectiveKind::reduce_scatter, n * h * E, 0, CommScope::expert},
        std::array<Handle, 2>{e, wgrad});
  // DeepEP: sum each received token's copies before its gradient goes back.
  if (after) e = sink.kernel("permute.bwd", elementwise(d_, (n + got) * h * E, n * h), e);
  // The dispatch's gradients go back to the routing ranks, as the combine did.
  e = sink.comm_after("ep.dispatch.bwd", all_to_all(rank, A2aPhase::combine),
                      std::array<Handle, 2>{e, wgrad});
  sink.balanced_comm(e, balanced_all_to_all(rank, A2aPhase::combine));
  // Sum each token's copies back (DeepEP's combine-direction kernel already has), then the
  // router's input gradient and weight gradient.
  Handle p = after ? e : sink.kernel("permute.bwd", elementwise(d_, (sent + Tm) * h * E, sent * h), e);
  // Selective "layernorm": the router's and shared experts' weight gradients need the norm output.
  if (rc.layernorm)
    p = sink.kernel("ln2.recompute", elementwise(d_, Tn * h * norm_forward_bytes(d_), 8 * Tn * h), p);
  // The router stays outside the FP8 region (Megatron-Core's TopKRouter is a plain 16-bit GEMM).
  p = sink.kernel("router.dgrad", gemm(d_, Tm, h, X), p);
  emit_wgrad(sink, d_.high_precision(), "router.wgrad", Tm, X, h);
  return sink.kernel_after("ln2.bwd", elementwise(d_, Tn * h * norm_backward_bytes(d_, true), 10 * Tn * h),
                           std::array<Handle, 2>{p, shared});
}

Handle MoeLayer::experts_backward(OpSink& sink, Handle ready, const ExpertLoadPair& load, bool recompute_act,
                                  Handle& wgrad) const {
  const double f = m_.expert_ffn / m_.expert_tp, h = d_.h, u = up_width();
  const auto down_d = [&](const Load& l) { return dgrad(d_, l.per_expert(), h, f, l.touched); };
  const auto down_w = [&](const Load& l) { return wgrad_work(d_, l.per_expert(), h, f, l.touched); };
  // Weighted in the activation: read the probabilities, write their gradients (4 bytes each).
  const double probs = m_.probs == MoeProbs::activation ? 8.0 : 0.0;
  const auto act = [&](const Load& l) {
    return elementwise(d_, act_backward_bytes(d_) * l.copies * f + probs * l.copies, 8 * l.copies * f);
  };
  const auto up_d = [&](const Load& l) { return dgrad(d_, l.per_expert(), u, h, l.touched); };
  const auto up_w = [&](const Load& l) { return wgrad_work(d_, l.per_expert(), u, h, l.touched); };
  // Selective "moe_act": the activation's output, which the down projection's weight gradient
  // reads, is computed again from the kept up-projection output.
  const auto act_again = [&](const Load& l) {
    return elementwise(d_, act_forward_bytes(d_) * l.copies * f, 8 * l.copies * f);
  };
  const auto q_dh = [&](const Load& l) { return quantize_work(d_, l.copies * h, QuantOperand::grad_output); };
  const auto q_du = [&](const Load& l) { return quantize_work(d_, l.copies * u, QuantOperand::grad_output); };
  if (recompute_act)
    ready =
        expert_kernel(sink, "experts_act.recompute", act_again(load.actual), act_again(load.balanced), ready);
  if (d_.low_precision_linears())
    ready = expert_kernel(sink, "experts_down.grad.quantize", q_dh(load.actual), q_dh(load.balanced), ready);
  Handle e = expert_kernel(sink, "experts_down.dgrad", down_d(load.actual), down_d(load.balanced), ready);
  expert_kernel(sink, "experts_down.wgrad", down_w(load.actual), down_w(load.balanced), Handle{});
  e = expert_kernel(sink, "experts_act.bwd", act(load.actual), act(load.balanced), e);
  if (d_.low_precision_linears())
    e = expert_kernel(sink, "experts_up.grad.quantize", q_du(load.actual), q_du(load.balanced), e);
  e = expert_kernel(sink, "experts_up.dgrad", up_d(load.actual), up_d(load.balanced), e);
  const Handle w = expert_kernel(sink, "experts_up.wgrad", up_w(load.actual), up_w(load.balanced), Handle{});
  // Weight gradients deferred to a weight step (DualPipe) run later: nothing may wait for them now.
  wgrad = sink.defers_weight_grads() ? Handle{} : w;
  return e;
}

Handle MoeLayer::shared_forward(OpSink& sink, Handle input) const {
  if (m_.shared_experts <= 0) return Handle{};
  const double T = d_.tokens, t = d_.tp, fs = m_.shared_experts * m_.expert_ffn / t;
  Handle s = sp_gather(sink, d_, "tp.ag_shared", input);
  s = linear_forward(sink, d_, "shared_up", T, gate(d_) * fs, d_.h, s);
  s = sink.kernel("shared_act", elementwise(d_, act_forward_bytes(d_) * T * fs, 8 * T * fs), s);
  s = linear_forward(sink, d_, "shared_down", T, d_.h, fs, s);
  return tp_reduce(sink, d_, "tp.reduce_shared", s);
}

Handle MoeLayer::shared_backward(OpSink& sink, Handle grad) const {
  if (m_.shared_experts <= 0) return Handle{};
  const double T = d_.tokens, t = d_.tp, fs = m_.shared_experts * m_.expert_ffn / t;
  Handle s = sp_gather(sink, d_, "tp.ag_grad_shared", grad);
  s = linear_dgrad(sink, d_, "shared_down.dgrad", T, d_.h, fs, s);
  emit_wgrad(sink, d_, "shared_down.wgrad", T, d_.h, fs);
  s = sink.kernel("shared_act.bwd", elementwise(d_, act_backward_bytes(d_) * T * fs, 8 * T * fs), s);
  s = linear_dgrad(sink, d_, "shared_up.dgrad", T, gate(d_) * fs, d_.h, s);
  const Handle reduced = tp_reduce(sink, d_, "tp.reduce_grad_shared", s);
  const Handle gathered = sp_gather(sink, d_, "tp.ag_shared_wgrad", s);
  emit_wgrad(sink, d_, "shared_up.wgrad", T, gate(d_) * fs, d_.h, d_.sp ? gathered : Handle{});
  return reduced;
}

double MoeLayer::stored_activation_bytes(Recompute recompute, const MoeRank& rank) const {
  const double attention = attention_.attention_stored_bytes(recompute);
  if (recompute == Recompute::full) return attention;  // only the layer input
  return attention + ffn_stored_bytes(recompute, rank);
}

double MoeLayer::ffn_stored_bytes(Recompute recompute, const MoeRank& rank) const {
  if (recompute == Recompute::full) return d_.act_bytes * norm_tokens() * d_.h;  // only the block input
  const double E = d_.act_bytes, Tn = norm_tokens(), Tm = routed_tokens(), h = d_.h;
  const double n = loads(rank).actual.copies, f = m_.expert_ffn / m_.expert_tp;
  const double sent = rank.routing->sent(rank.ep_index);
  const RecomputeModules rc = selective_modules(d_, recompute);
  // Norm input and output (unless selective "layernorm"), routing probabilities (fp32), the
  // experts' inputs, inner activations (the up projection's output, as the activation keeps it, and
  // the activation's output unless "moe_act"), what the probabilities' gradient needs (below); the
  // shared experts' inner activations.
  // Linear inputs as the linears keep them (saved_linear_input_bytes): the experts' inputs and the
  // activation's output (the down projection's input) in Q bytes; the up projection's output, which
  // the activation's backward keeps, in E.
  const double Q = saved_linear_input_bytes(d_);
  const double inner = gate(d_) * d_.act_input_bytes + (rc.moe_act ? 0.0 : Q);
  // FP8 dispatch: the experts keep the FP8 tokens they received (and their scales) for the weight
  // gradient, as DeepSeek-V3 caches them (report section 3.3.2).
  const double in_bytes = fp8_dispatch() ? kFp8BlockBytes : Q;
  // The norm's output feeds the router, a 16-bit GEMM outside the FP8 region that keeps it (E),
  // and the shared experts' up projection, which keeps its own quantised copy in low precision.
  const double norm_out =
      rc.layernorm ? 0.0 : E + (m_.shared_experts > 0 && d_.low_precision_linears() ? Q : 0.0);
  // Weighted in the unpermute, its backward keeps every copy it weighs (h wide) for the
  // probabilities' gradient: the returned copies, or under DeepEP the expert rank's own before its
  // unpermute; weighted in the activation, that keeps the copies' probabilities.
  const double weighed = m_.permute_after_dispatch ? n : sent;
  const double weighing = m_.probs == MoeProbs::unpermute ? E * weighed * h : 4.0 * n;
  double bytes = (E + norm_out) * Tn * h + 4 * Tm * m_.experts + n * (in_bytes * h + inner * f) + weighing;
  if (m_.shared_experts > 0)
    bytes += (gate(d_) * d_.act_input_bytes + Q) * d_.tokens * m_.shared_experts * m_.expert_ffn / d_.tp;
  return bytes;
}

double MoeLayer::dense_params_per_rank() const {
  return attention_.attention_params_per_rank() + ffn_dense_params_per_rank();
}

double MoeLayer::ffn_dense_params_per_rank() const {
  // Norm, router (replicated on TP ranks), shared experts split by TP.
  const double norm = hidden_norm_params(d_);
  const double shared = m_.shared_experts * (gate(d_) + 1.0) * m_.expert_ffn * d_.h / d_.tp;
  return norm + double(m_.experts) * d_.h + shared;
}

double MoeLayer::expert_params_per_rank() const {
  const double one =
      (gate(d_) + 1.0) * m_.expert_ffn * d_.h + (d_.linear_bias ? gate(d_) * m_.expert_ffn + d_.h : 0.0);
  return double(m_.experts) / m_.ep * one / m_.expert_tp;
}

}  // namespace stepsim::work
