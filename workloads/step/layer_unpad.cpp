// Variable-length attention over unpadded tokens (workload.attention_unpad): the copies and host
// waits flash-attn's bert_padding helpers add around the attention kernel, forward and backward.
#include <string>
#include <utility>

#include "workloads/step/layer_ops.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

// flash-attn's bert_padding.unpad_input (LLM Foundry's flash_attn_fn, Hugging Face's FlashAttention-2
// path with an attention mask): per tensor, the sequence lengths (a sum over the int64 mask), the
// kept tokens' indices (`nonzero`: its size is data, so the host waits for it) and the longest
// sequence (`.item()`: the host waits again), then index_first_axis gathers the kept rows (read and
// write each). All tokens are kept when nothing is padded, as in packed pretraining: the copies and
// the waits remain.
Handle DenseLayer::unpad_forward(OpSink& sink, Handle qkv) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  Handle h = qkv;
  for (const auto& [name, width] :
       {std::pair{"q", d_.q_dim}, std::pair{"k", d_.kv_dim}, std::pair{"v", d_.v_dim}}) {
    const std::string n(name);
    // Read the int64 mask, write the int64 indices.
    h = sink.kernel("unpad.nonzero " + n, elementwise(d_, 8.0 * T + 8.0 * T), h);
    sink.host_sync(h, "host.sync unpad.nonzero " + n);
    h = sink.kernel("unpad.max_seqlen " + n, elementwise(d_, 8.0 * T), h);
    sink.host_sync(h, "host.sync unpad.max_seqlen " + n);
    h = sink.kernel("unpad.gather " + n, elementwise(d_, 2.0 * E * T * width / t), h);
  }
  return h;
}

// pad_input: a zeroed output (write) and index_put of the kernel's rows into it (read, write).
Handle DenseLayer::pad_forward(OpSink& sink, Handle out) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  return sink.kernel("pad.scatter", elementwise(d_, 3.0 * E * T * d_.o_dim / t), out);
}

// pad_input's backward gathers the output gradient's kept rows (read, write).
Handle DenseLayer::pad_backward(OpSink& sink, Handle grad) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  return sink.kernel("pad.bwd", elementwise(d_, 2.0 * E * T * d_.o_dim / t), grad);
}

// index_first_axis's backward scatters each gradient into a zeroed tensor (write, read, write).
Handle DenseLayer::unpad_backward(OpSink& sink, Handle grads) const {
  const double E = d_.act_bytes, T = d_.tokens, t = d_.tp;
  return sink.kernel("unpad.bwd", elementwise(d_, 3.0 * E * T * (d_.q_dim + d_.kv_dim + d_.v_dim) / t),
                     grads);
}

}  // namespace stepsim::work
