// Context parallelism's attention: the sequence split over cp ranks, each rank's attention over
// the whole context by one of the schedules Transformer Engine runs (all-gathered keys and
// values, all-to-all over heads, or ring passes of key/value blocks with their partial results
// merged), called by the attention block (workloads/step/layer_attention.cpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

double DenseLayer::ring_merge_tensor_bytes(bool backward) const {
  const double width = backward ? d_.q_dim + d_.kv_dim + d_.v_dim : d_.o_dim;
  return d_.act_bytes * d_.tokens * width / d_.tp;
}

Handle DenseLayer::cp_attention(OpSink& sink, Handle ready, const topo::KernelWork& whole,
                                std::string_view name, bool backward) const {
  if (d_.cp <= 1) return sink.kernel(name, whole, ready);
  switch (d_.cp_comm) {
    case CpComm::p2p: return ring_attention(sink, ready, whole, name, backward);
    case CpComm::all_gather: return gathered_kv_attention(sink, ready, whole, name, backward);
    case CpComm::a2a: return a2a_attention(sink, ready, whole, name, backward);
  }
  return ring_attention(sink, ready, whole, name, backward);
}

// All-gather context parallelism, as Transformer Engine's AttnFuncWithCPAndKVAllGather runs it
// (Megatron-Core --cp-comm-type allgather; Llama 3's long-context training): the keys and values of
// every chunk are gathered over the CP group (sbhd: along the first dimension, no copy before) on
// the compute stream, reordered from the ranks' load-balanced chunk order into sequence order
// (index_select: read and write the gathered tensor), and the rank's two query chunks (rank and
// 2 cp - 1 - rank) attend to the prefix each one sees, in two kernels on two streams: the same
// FLOPs as the whole causal share, nothing to merge. Nothing gathered is kept: backward gathers and
// reorders again, runs the two backward kernels into a zeroed full-length dK, dV (each chunk's
// gradient added over the prefix it saw: (2 cp + 1) / (2 cp) of the length on average), reorders
// them back and reduce-scatters them over the group.
Handle DenseLayer::gathered_kv_attention(OpSink& sink, Handle ready, const topo::KernelWork& whole,
                                         std::string_view name, bool backward) const {
  const double c = d_.cp;
  const double gathered = c * d_.tokens * (d_.kv_dim + d_.v_dim) / d_.tp * d_.act_bytes;
  Handle h =
      sink.comm("cp.kv_all_gather", CommOp{ParallelDim::cp, CollectiveKind::all_gather, gathered}, ready);
  h = sink.kernel("cp.kv_reorder", elementwise(d_, 2.0 * gathered), h);
  topo::KernelWork w = whole;
  w.launches = 2;  // the two query chunks, one kernel each
  h = sink.kernel(name, w, h);
  if (!backward) return h;
  const double adds = (2.0 * c + 1.0) / (2.0 * c);
  h = sink.kernel("cp.dkv_accumulate",
                  elementwise(d_, gathered * (1.0 + 3.0 * adds), gathered * adds / d_.act_bytes), h);
  h = sink.kernel("cp.dkv_reorder", elementwise(d_, 2.0 * gathered), h);
  return sink.comm("cp.dkv_reduce_scatter", CommOp{ParallelDim::cp, CollectiveKind::reduce_scatter, gathered},
                   h);
}

// All-to-all context parallelism (DeepSpeed-Ulysses), as Transformer Engine's
// AttnFuncWithCPAndQKVOA2A runs it (Megatron-Core --cp-comm-type a2a): the queries, keys and values
// move from sequence shards to head shards (an all-to-all each over the CP group: each rank keeps
// 1/cp and sends the rest), each rank attends the whole sequence on heads / cp of its TP rank's
// heads (the same FLOPs as its causal share under the ring), and the output moves back. Around each
// all-to-all the tensor is made contiguous and its sequence chunks reordered for the causal load
// balance (flash_attn_a2a_communicate: a copy before and after, 2 + 2 bytes per element moved).
// Backward: the output gradient goes to head shards, and the query, key and value gradients back.
Handle DenseLayer::a2a_attention(OpSink& sink, Handle ready, const topo::KernelWork& whole,
                                 std::string_view name, bool backward) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  const double qkv = E * T * (d_.q_dim + d_.kv_dim + d_.v_dim) / t, o = E * T * d_.o_dim / t;
  const auto exchange = [&](std::string_view what, double bytes, Handle dep) {
    Handle h =
        sink.kernel(std::string("cp.a2a_prepare ") + std::string(what), elementwise(d_, 2.0 * bytes), dep);
    h = sink.comm(std::string("cp.a2a ") + std::string(what),
                  CommOp{ParallelDim::cp, CollectiveKind::all_to_all, bytes}, h);
    return sink.kernel(std::string("cp.a2a_reorder ") + std::string(what), elementwise(d_, 2.0 * bytes), h);
  };
  Handle h = exchange(backward ? "dout" : "qkv", backward ? o : qkv, ready);
  h = sink.kernel(name, whole, h);
  return exchange(backward ? "dqkv" : "out", backward ? qkv : o, h);
}

Handle DenseLayer::ring_attention(OpSink& sink, Handle ready, const topo::KernelWork& whole,
                                  std::string_view name, bool backward) const {
  // Ring attention (context parallel): cp steps, each attending to one key/value block while the
  // next block travels from the neighbouring CP rank. Causal work is balanced across ranks, so each
  // step does 1/cp of this rank's attention.
  topo::KernelWork step = whole;
  step.flops /= d_.cp;
  step.hbm_bytes /= d_.cp;
  step.attention_keys /= d_.cp;  // one key/value block a step
  const double kv_block = d_.tokens * (d_.kv_dim + d_.v_dim) / d_.tp * d_.act_bytes;
  const double blocks_per_exchange = backward ? 2.0 : 1.0;  // backward: the blocks and their gradients
  // The merges (above): backward, after each step (the summed key/value gradients travel on with
  // the next exchange); forward, after the last step, one kernel per step and a log-sum-exp merge
  // per later step. Launched by the ring's own loop, inner launches.
  const auto merge = [&](double bytes, int kernels) {
    topo::KernelWork w = elementwise(d_, bytes, bytes / d_.act_bytes);
    w.launches = kernels;
    w.inner_launch = true;
    return w;
  };
  const double tensor = ring_merge_tensor_bytes(backward);
  const double first = 2.0 * tensor, later = 3.0 * 0.75 * tensor;  // per step, averaged over ranks
  Handle block = ready, out;
  for (int i = 0; i < d_.cp; ++i) {
    Handle next;
    if (i + 1 < d_.cp)
      next = sink.comm(
          "cp.kv_exchange",
          CommOp{ParallelDim::cp, CollectiveKind::ring_exchange, kv_block * blocks_per_exchange, 1}, block);
    out = sink.kernel(std::string(name) + " cp" + std::to_string(i), step, block);
    if (backward)  // dQ, dK, dV of this step into the accumulators: copied first, added after
      out = sink.kernel("cp.grad_merge", merge(i == 0 ? first : later, 3), out);
    block = next;
  }
  if (!backward) out = sink.kernel("cp.out_merge", merge(first + (d_.cp - 1) * later, 2 * d_.cp - 1), out);
  return out;
}

}  // namespace stepsim::work
