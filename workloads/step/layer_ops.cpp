#include "workloads/step/layer_ops.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "workloads/model/kv.hpp"

namespace stepsim::work {

using Handle = OpSink::Handle;

namespace {
/// Query/key/value/output widths of the whole layer.
void set_attention_widths(const ModelSpec& m, LayerDims& d) {
  d.heads = m.heads;
  d.mla = m.attention == AttentionKind::mla;
  d.mla_dims = m.mla;
  if (d.mla) {
    const double qk = double(m.mla.qk_nope_head_dim) + m.mla.qk_rope_head_dim;
    d.kv_heads = m.heads;
    d.q_dim = d.kv_dim = m.heads * qk;
    d.v_dim = d.o_dim = double(m.heads) * m.mla.v_head_dim;
    return;
  }
  const double head_dim = m.head_dim > 0 ? m.head_dim : static_cast<double>(m.hidden) / m.heads;
  d.kv_heads = m.kv_heads;
  d.q_dim = d.o_dim = m.heads * head_dim;
  d.kv_dim = d.v_dim = m.kv_heads * head_dim;
}
}  // namespace

double LayerDims::kv_cache_width() const {
  if (mla) return double(mla_dims.kv_lora_rank) + mla_dims.qk_rope_head_dim;
  const double head_dim = kv_dim / kv_heads;
  return 2.0 * std::max(1.0, kv_heads / tp) * head_dim;
}

LayerDims layer_dims(const JobSpec& job, double micro_batch) {
  const ModelSpec& m = job.model;
  LayerDims d;
  d.phase = job.workload.kind;
  const bool decode = d.phase == WorkloadKind::decode;
  d.b = micro_batch;
  // Decode: each sequence's one new token attends to its context and itself; context parallelism
  // does not split it (docs/model.md).
  d.s = decode ? job.workload.context_len + 1.0 : job.workload.seq_len;
  d.cp = decode ? 1 : job.parallel.cp;
  d.s_local = decode ? 1.0 : d.s / d.cp;
  d.causal = !decode;
  d.tokens = d.b * d.s_local;
  d.tp = job.parallel.tp;
  // Sequence parallelism is a training memory optimisation; inference keeps tokens whole.
  d.sp = job.parallel.sequence_parallel && d.tp > 1 && d.phase == WorkloadKind::train;
  d.h = m.hidden;
  set_attention_widths(m, d);
  d.ffn = m.ffn;
  d.mamba = m.mamba;
  d.gated_delta = m.gated_delta;
  d.attention_output_gate = m.attention_output_gate;
  d.qk_norm = m.qk_norm && m.attention != AttentionKind::mla;
  d.sandwich_norms = m.sandwich_norms;
  d.act_bytes = job.precision.activation_bytes;
  d.act_input_bytes = job.precision.activation_fp8_input_store && d.phase == WorkloadKind::train
                          ? std::min(1.0, d.act_bytes)
                          : d.act_bytes;
  d.param_bytes = job.precision.param_bytes;
  d.grad_bytes = job.precision.grad_bytes;
  d.kv_bytes = job.precision.kv_bytes;
  d.decode_kv_reads = decode_kv_reads(job);
  d.weight_quant = job.precision.weight_quant;
  d.precision = job.precision.other();
  d.linear = job.precision.compute;
  d.recipe = job.precision.recipe;
  d.fp8_attention = job.precision.fp8_attention;
  d.activation = m.activation;
  d.norm = m.norm;
  d.attention = job.workload.attention_impl;
  d.attention_kernel = job.workload.attention_kernel;
  d.eager_pointwise = job.workload.pointwise == Pointwise::eager;
  d.attention_unpad = job.workload.attention_unpad;
  d.document =
      d.phase == WorkloadKind::train || d.phase == WorkloadKind::prefill ? job.workload.document_tokens : 0.0;
  d.dropout = m.dropout && d.phase == WorkloadKind::train;
  // Serving engines fuse the rotation into their attention kernels (TensorRT-LLM's context and
  // generation attention, torch.compile in gpt-fast); training frameworks run it on its own, and
  // so does eager PyTorch in every phase.
  d.rope_kernels = (d.phase == WorkloadKind::train || d.eager_pointwise) &&
                   (d.mla || m.position == PositionEmbedding::rope);
  d.linear_bias = m.linear_bias;
  d.bias_grad_kernels =
      m.linear_bias && d.phase == WorkloadKind::train && job.workload.bias_grad == BiasGrad::separate;
  d.qkv_grad_concat = d.phase == WorkloadKind::train && job.workload.qkv_grad_concat;
  d.cross_entropy = loss_kernels(job.workload);
  // NeMo AutoModel's GPT-OSS over FlexAttention (components/attention/flex_attention.py) asks the
  // kernel for its log-sum-exp and rescales the output by sigmoid(lse - sink) outside it; kernels
  // with a sink term of their own (cuDNN, FlashAttention-3) and serving engines' decode kernels fold
  // it in.
  d.sink_rescale = m.attention_sinks && d.phase != WorkloadKind::decode &&
                   job.workload.attention_impl == AttentionImpl::flash &&
                   (job.workload.attention_kernel == topo::AttentionKernel::flex ||
                    job.workload.attention_kernel == topo::AttentionKernel::fa2 ||
                    job.workload.attention_kernel == topo::AttentionKernel::triton);
  d.parallel_block = m.parallel_block;
  d.grad_accumulation = job.workload.grad_accumulation;
  d.recompute = job.recompute_modules;
  d.tp_overlap = d.sp ? job.parallel.tp_comm_overlap : TpCommOverlap::off;
  d.rs_splits = job.parallel.tp_overlap_rs_splits;
  d.ub = job.parallel.ub_overlap;
  d.sms = job.cluster.gpu.sms;
  d.cp_comm = job.parallel.cp_comm;
  return d;
}

namespace {
topo::KernelWork gemm_in(const LayerDims& d, topo::Precision p, double m, double n, double k, double count) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::gemm;
  w.precision = p;
  w.flops = units::flops(2.0 * m * n * k * count);
  // FP8/FP4 operands are read in their own width; the product is written in the activations'.
  const bool low = p == topo::Precision::fp8 || p == topo::Precision::fp4;
  const double in = low ? topo::bytes_per_element(p) : d.act_bytes;
  w.hbm_bytes = units::bytes(count * (in * (m * k + k * n) + d.act_bytes * m * n));
  w.gemm_m = m;
  w.gemm_n = n;
  w.gemm_k = k;
  if (d.recipe == LowPrecisionRecipe::blockwise) w.scaling = topo::FP8Scaling::block;
  return w;
}
}  // namespace

topo::KernelWork gemm(const LayerDims& d, double m, double n, double k, double count) {
  return gemm_in(d, d.precision, m, n, k, count);
}

topo::KernelWork linear_gemm(const LayerDims& d, double m, double n, double k, double count) {
  return gemm_in(d, d.linear, m, n, k, count);
}

double saved_linear_input_bytes(const LayerDims& d) {
  if (d.linear == topo::Precision::fp4) return 0.5 + 1.0 / 16.0;
  if (d.linear != topo::Precision::fp8) return d.act_bytes;
  switch (d.recipe) {
    case LowPrecisionRecipe::blockwise: return kFp8BlockBytes;
    case LowPrecisionRecipe::mxfp8: return 1.0 + 1.0 / 32.0;
    case LowPrecisionRecipe::delayed:
    case LowPrecisionRecipe::tensorwise:
    case LowPrecisionRecipe::nvfp4: break;
  }
  return 1.0;
}

topo::KernelWork linear_grad_gemm(const LayerDims& d, double m, double n, double k, double count) {
  topo::KernelWork w = gemm_in(d, d.linear, m, n, k, count);
  w.accumulation = topo::Accumulation::split;
  return w;
}

topo::KernelWork weight_gemm(const LayerDims& d, double m, double n, double k, double count) {
  topo::KernelWork w = linear_gemm(d, m, n, k, count);
  if (!d.low_precision_linears()) w.hbm_bytes += units::bytes((d.param_bytes - d.act_bytes) * count * k * n);
  if (d.weight_quant != WeightQuant::none) w.vector_ops = dequant_ops(d.weight_quant, m, n, k, count);
  return w;
}

double dequant_ops(WeightQuant q, double m, double n, double k, double count) {
  // Mixed-input GEMMs (TensorRT-LLM's fpA_intB, Marlin) convert each weight tile to 16 bits in the
  // main loop, once per block of kDequantTileRows output rows: int8 costs a convert and a scale
  // multiply per weight, int4 an unpack, a convert and a scale multiply (assumed instruction counts).
  constexpr double kDequantTileRows = 64.0;
  const double ops = q == WeightQuant::int4 ? 3.0 : 2.0;
  return ops * count * k * n * std::ceil(m / kDequantTileRows);
}

topo::KernelWork quantize_work(const LayerDims& d, double elements, QuantOperand operand) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::elementwise;
  w.precision = d.precision;
  if (!d.low_precision_linears() || elements <= 0.0) return w;
  const double E = d.act_bytes, q = topo::bytes_per_element(d.linear);
  // Training needs the operand twice: row-wise for this GEMM and column-wise (transposed) for the
  // backward's other GEMM, since Hopper's FP8 tensor cores take only the TN layout and block
  // scales run along one axis. Inference needs one copy.
  const bool both = d.phase == WorkloadKind::train;
  const double copies = both ? 2.0 : 1.0;
  double scale_bytes = 0.0;  // per element: block recipes write one scale per block and copy
  double amax_pass = 0.0;    // per element: current scaling reads the tensor once for its amax
  bool fused_norm = false;   // the norm wrote the row-wise FP8 copy itself
  switch (d.recipe) {
    case LowPrecisionRecipe::delayed: fused_norm = true; break;
    case LowPrecisionRecipe::tensorwise: amax_pass = E; break;
    case LowPrecisionRecipe::blockwise: scale_bytes = kFp8BlockScaleBytes; break;  // fp32 per 1x128 tile
    case LowPrecisionRecipe::mxfp8: scale_bytes = 1.0 / 32.0; break;               // E8M0 per 32
    case LowPrecisionRecipe::nvfp4: scale_bytes = 1.0 / 16.0; break;               // E4M3 per 16
  }
  double bytes = amax_pass + E + copies * (q + scale_bytes);
  if (operand == QuantOperand::norm_output && fused_norm) {
    if (!both) return w;  // the norm's FP8 output is all the GEMM needs
    bytes = 2.0 * q;      // transpose the norm's FP8 output: read it, write the transposed copy
  }
  w.hbm_bytes = units::bytes(elements * bytes);
  w.flops = units::flops(2.0 * elements);  // scale and convert (plus the amax compare)
  // Transformer Engine's recipes cast inside the module's call (its quantizers, from the module's
  // forward and backward): a bare launch on the host. The block-wise recipe is DeepSeek-V3's, whose
  // framework launches each cast as a call of its own (its profile: 264 cast and transpose kernels
  // in 4 forward and 4 backward layers).
  w.inner_launch = d.recipe != LowPrecisionRecipe::blockwise;
  return w;
}

Handle emit_quantize(OpSink& sink, const LayerDims& d, std::string_view name, double elements,
                     QuantOperand operand, Handle dep) {
  const topo::KernelWork w = quantize_work(d, elements, operand);
  if (!(w.hbm_bytes.value() > 0.0)) return dep;
  return sink.kernel(std::string(name) + ".quantize", w, dep);
}

Handle linear_forward(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n, double k,
                      Handle dep, QuantOperand input) {
  const Handle q = emit_quantize(sink, d, name, m * k, input, dep);
  return sink.kernel(name, weight_gemm(d, m, n, k), q);
}

Handle linear_dgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n, double k,
                    Handle dep, double sm_margin) {
  const std::string_view base = name.substr(0, name.rfind(".dgrad"));
  const Handle q = emit_quantize(sink, d, std::string(base) + ".grad", m * n, QuantOperand::grad_output, dep);
  topo::KernelWork w = linear_grad_gemm(d, m, k, n);
  w.sm_margin = sm_margin;
  return sink.kernel(name, w, q);
}

const UbOverlap* ub_config(const LayerDims& d, UbGemm g) {
  if (d.tp_overlap != TpCommOverlap::userbuffers || !d.sp || d.tp <= 1) return nullptr;
  return &d.ub[static_cast<std::size_t>(g)];
}

double ub_sm_margin(const LayerDims& d, UbGemm g) {
  const UbOverlap* c = ub_config(d, g);
  if (c == nullptr || !c->set_sm_margin || d.sms <= 0) return 0.0;
  // cuBLAS gets sms - num_sm as its SM count target (comm_gemm_overlap.cpp _math_sms).
  return static_cast<double>(std::min(c->num_sm, d.sms - 1)) / d.sms;
}

topo::KernelWork elementwise(const LayerDims& d, double bytes, double flops) {
  topo::KernelWork w;
  w.op_class = topo::OpClass::elementwise;
  w.precision = d.precision;
  w.flops = units::flops(flops);
  w.hbm_bytes = units::bytes(bytes);
  return w;
}

namespace {

Handle tp_comm(OpSink& sink, const LayerDims& d, std::string_view name, CollectiveKind kind, Handle dep,
               double element_bytes, int sms = 0) {
  if (d.tp <= 1) return dep;
  CommOp c{ParallelDim::tp, kind, d.tokens * d.h * element_bytes, 0};
  c.sms = sms;
  return sink.comm(name, c, dep);
}

/// Userbuffers' last pipelined reduce-scatter chunk runs on UB_MAX_SM CTAs whatever num_sm is
/// (comm_gemm_overlap.cpp split_overlap_rs: "Last communication chunk with max SM").
constexpr int kUbMaxSm = 32;

}  // namespace

/// The SMs userbuffers' kernels hold beside GEMM `g`; 0 (NCCL's channels) without one or without it.
int ub_sms(const LayerDims& d, std::optional<UbGemm> g) {
  const UbOverlap* c = g ? ub_config(d, *g) : nullptr;
  return c != nullptr ? c->num_sm : 0;
}

Handle tp_reduce(OpSink& sink, const LayerDims& d, std::string_view name, Handle dep,
                 std::optional<UbGemm> beside) {
  return tp_comm(sink, d, name, d.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, dep,
                 d.act_bytes, ub_sms(d, beside));
}

Handle sp_gather(OpSink& sink, const LayerDims& d, std::string_view name, Handle dep) {
  return d.sp ? tp_comm(sink, d, name, CollectiveKind::all_gather, dep, d.act_bytes) : dep;
}

Handle sp_gather_linear_input(OpSink& sink, const LayerDims& d, std::string_view name, Handle dep,
                              std::optional<UbGemm> beside) {
  return d.sp ? tp_comm(sink, d, name, CollectiveKind::all_gather, dep, d.gathered_operand_bytes(),
                        ub_sms(d, beside))
              : dep;
}

namespace {

/// Chunk `i` of a GEMM split inside one framework call: the call's loop launches every chunk
/// after the first.
topo::KernelWork inner_chunk(topo::KernelWork w, int i) {
  w.inner_launch = i > 0;
  return w;
}

}  // namespace

Handle gathered_gemm(OpSink& sink, const LayerDims& d, std::string_view gather_name, std::string_view name,
                     double m, double gathered_bytes, const RowGemm& rows, Handle dep, UbGemm ub) {
  if (!d.sp) return sink.kernel(name, rows(m), dep);
  if (d.tp_overlap == TpCommOverlap::off) {
    const Handle g =
        sink.comm(gather_name, CommOp{ParallelDim::tp, CollectiveKind::all_gather, gathered_bytes, 0}, dep);
    return sink.kernel(name, rows(m), g);
  }
  // Transformer Engine's ring_exchange method (CommOverlapP2P, num_splits = tp) and AsyncTP's
  // fused_all_gather_matmul: step i multiplies the chunk it holds while the copy engines send that
  // chunk on to the next rank, whose step i + 1 needs it. One framework call: its loop launches
  // the steps and the chunks after the first (inner launches). With userbuffers' aggregate
  // (split_overlap_ag's _aggregate), neighbours first swap their chunks, then tp / 2 steps each
  // multiply two chunks while the next two pass on.
  const UbOverlap* cfg = ub_config(d, ub);
  const bool aggregate = cfg != nullptr && cfg->aggregate && d.tp % 2 == 0;
  const int chunks = aggregate ? 2 : 1;
  const int steps = d.tp / chunks;
  const double margin = ub_sm_margin(d, ub);
  CommOp step{ParallelDim::tp, CollectiveKind::ring_exchange, chunks * gathered_bytes / d.tp, 1};
  step.copy_engine = true;
  step.inner_launch = true;
  Handle have = dep, out;
  if (aggregate) {
    CommOp swap = step;
    swap.bytes = gathered_bytes / d.tp;
    have = sink.comm(gather_name, swap, dep);
  }
  for (int i = 0; i < steps; ++i) {
    const Handle next = i + 1 < steps ? sink.comm(gather_name, step, have) : Handle{};
    topo::KernelWork w = inner_chunk(rows(chunks * m / d.tp), i);
    w.sm_margin = margin;
    out = sink.kernel(name, w, have);
    have = next;
  }
  return out;
}

Handle reduced_gemm(OpSink& sink, const LayerDims& d, std::string_view name, std::string_view reduce_name,
                    double m, double out_bytes, const RowGemm& rows, Handle dep, UbGemm ub) {
  if (d.tp <= 1) return sink.kernel(name, rows(m), dep);
  const CollectiveKind kind = d.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  if (d.tp_overlap == TpCommOverlap::off) {
    const Handle g = sink.kernel(name, rows(m), dep);
    return sink.comm(reduce_name, CommOp{ParallelDim::tp, kind, out_bytes, 0}, g);
  }
  const UbOverlap* cfg = ub_config(d, ub);
  const double margin = ub_sm_margin(d, ub);
  if (d.tp_overlap == TpCommOverlap::userbuffers && (cfg == nullptr || cfg->method == UbMethod::pipeline)) {
    // TE's pipeline method (CommOverlap::split_overlap_rs): the GEMM in num_splits chunks along M,
    // on the SMs its margin leaves, each chunk's rows reduce-scattered by a userbuffers kernel on
    // num_sm SMs while the next chunk computes; the last reduction, on 32, is exposed. With
    // fp8_buf an FP8 GEMM writes its output in FP8 and the reduction moves that.
    const int parts = cfg != nullptr && cfg->num_splits > 0 ? cfg->num_splits : d.rs_splits;
    const double bytes = cfg != nullptr && cfg->fp8_buf && d.low_precision_linears()
                             ? out_bytes * topo::bytes_per_element(d.linear) / d.act_bytes
                             : out_bytes;
    CommOp reduce{ParallelDim::tp, kind, bytes / parts, 0};
    reduce.inner_launch = true;
    Handle r;
    for (int i = 0; i < parts; ++i) {
      topo::KernelWork w = inner_chunk(rows(m / parts), i);
      w.sm_margin = margin;
      const Handle g = sink.kernel(name, w, i == 0 ? dep : Handle{});
      reduce.sms = cfg == nullptr ? 0 : i + 1 < parts ? cfg->num_sm : kUbMaxSm;
      r = sink.comm(reduce_name, reduce, g);
    }
    return r;
  }
  // AsyncTP's fused_matmul_reduce_scatter and userbuffers' ring exchange (split_overlap_rs_p2p):
  // step i computes the rows another rank owns and the copy engines send that partial there; each
  // rank then sums the tp partials of its own rows.
  CommOp step{ParallelDim::tp, CollectiveKind::ring_exchange, out_bytes / d.tp, 1};
  step.copy_engine = true;
  step.inner_launch = true;
  Handle g, sent;
  for (int i = 0; i < d.tp; ++i) {
    topo::KernelWork w = inner_chunk(rows(m / d.tp), i);
    w.sm_margin = margin;
    g = sink.kernel(name, w, i == 0 ? dep : Handle{});
    if (i + 1 < d.tp) sent = sink.comm(reduce_name, step, g);
  }
  const double shard = out_bytes / d.tp;  // this rank's rows, in bytes
  topo::KernelWork sum = elementwise(d, shard * (d.tp + 1), (d.tp - 1) * shard / d.act_bytes);
  sum.inner_launch = true;
  const std::array<Handle, 2> both{g, sent};
  return sink.kernel_after(std::string(reduce_name) + ".sum", sum, both);
}

Handle gathered_linear_forward(OpSink& sink, const LayerDims& d, std::string_view gather_name,
                               std::string_view name, double m, double n, double k, Handle dep, UbGemm ub,
                               QuantOperand input) {
  const double elem = d.gathered_operand_bytes();
  // Transformer Engine gathers the FP8 copy; with a fused norm the norm wrote it, so the
  // remaining transpose (training) waits for the gathered tensor, as before the GEMM.
  if (!d.sp) return linear_forward(sink, d, name, m, n, k, dep, input);
  if (d.tp_overlap == TpCommOverlap::off) {
    const Handle g =
        sink.comm(gather_name, CommOp{ParallelDim::tp, CollectiveKind::all_gather, m * k * elem, 0}, dep);
    return linear_forward(sink, d, name, m, n, k, g, input);
  }
  const Handle q = emit_quantize(sink, d, name, m * k, input, dep);
  return gathered_gemm(
      sink, d, gather_name, name, m, m * k * elem, [&](double rows) { return weight_gemm(d, rows, n, k); }, q,
      ub);
}

Handle reduced_linear_forward(OpSink& sink, const LayerDims& d, std::string_view name,
                              std::string_view reduce_name, double m, double n, double k, Handle dep,
                              UbGemm ub) {
  const Handle q = emit_quantize(sink, d, name, m * k, QuantOperand::input, dep);
  return reduced_gemm(
      sink, d, name, reduce_name, m, m * n * d.act_bytes,
      [&](double rows) { return weight_gemm(d, rows, n, k); }, q, ub);
}

Handle gathered_linear_dgrad(OpSink& sink, const LayerDims& d, std::string_view gather_name,
                             std::string_view name, double m, double n, double k, Handle dep, UbGemm ub) {
  if (!d.sp || d.tp_overlap == TpCommOverlap::off) {
    const Handle g = sp_gather(sink, d, gather_name, dep);
    return linear_dgrad(sink, d, name, m, n, k, g);
  }
  const std::string_view base = name.substr(0, name.rfind(".dgrad"));
  const Handle q = emit_quantize(sink, d, std::string(base) + ".grad", m * n, QuantOperand::grad_output, dep);
  // Userbuffers gathers the quantised gradient (fp8_buf); 16-bit otherwise.
  const double elem = d.gathered_operand_bytes();
  return gathered_gemm(
      sink, d, gather_name, name, m, m * n * elem,
      [&](double rows) { return linear_grad_gemm(d, rows, k, n); }, q, ub);
}

Handle emit_wgrad(OpSink& sink, const LayerDims& d, std::string_view name, double m, double n, double k,
                  Handle dep, double count, double sm_margin) {
  // dW[k x n] += X^T[k x m] dY[m x n].
  topo::KernelWork w = linear_grad_gemm(d, k, n, m, count);
  w.weight_grad = true;
  w.sm_margin = sm_margin;
  if (d.grad_accumulation == GradAccumulation::fused) {
    // Accumulating in the GEMM epilogue reads and writes the gradient buffer instead of writing dW.
    w.hbm_bytes += units::bytes(count * k * n * (2.0 * d.grad_bytes - d.act_bytes));
    return sink.kernel(name, w, dep);
  }
  const Handle g = sink.kernel(name, w, dep);
  // Read the fresh gradient, read and write the buffer.
  const double params = count * k * n;
  return sink.kernel(std::string(name) + ".accumulate",
                     elementwise(d, params * (d.act_bytes + 2.0 * d.grad_bytes), params), g);
}

Handle emit_bias_grad(OpSink& sink, const LayerDims& d, std::string_view linear, double rows, double cols,
                      Handle dep) {
  if (!d.bias_grad_kernels) return dep;
  // db[cols] = the column sums of dY[rows x cols] (PyTorch's sum_to_size of a broadcast bias,
  // Megatron-LM's grad_output.sum(dim=0)): read dY once, write the fp32 sums.
  sink.kernel(std::string(linear) + ".bgrad",
              elementwise(d, rows * cols * d.act_bytes + 4.0 * cols, rows * cols), dep);
  return dep;
}

}  // namespace stepsim::work
