#include "workloads/model/names.hpp"

#include <array>

namespace stepsim::work {

topo::KernelKind kernel_kind(std::string_view n, topo::OpClass op_class) {
  using topo::KernelKind;
  const auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
  for (std::string_view pass : {"fwd.", "bwd.", "rc."})
    if (starts(pass)) n.remove_prefix(pass.size());
  if (n.find("quantize") != std::string_view::npos || n.find("weight_cast") != std::string_view::npos)
    return KernelKind::quantize;
  if (op_class != topo::OpClass::elementwise) return KernelKind::other;
  // DeepSeek fuses the residual add into its RMSNorm kernel (DropoutAddLayerNormFn); stepsim's
  // bias-dropout-adds (bda) count with the norms so.
  for (std::string_view p :
       {"ln1", "ln2", "q_norm", "kv_norm", "bda1", "bda2", "final_norm", "ln_f", "mtp.norms", "ln_mamba",
        "bda_mamba", "mamba_norm", "ln_gdn", "bda_gdn", "gdn_norm"})
    if (starts(p)) return KernelKind::norm;
  for (std::string_view p : {"experts_act", "shared_act", "act"})
    if (starts(p)) return KernelKind::activation;
  for (std::string_view p : {"router_topk", "permute", "unpermute"})
    if (starts(p)) return KernelKind::routing;
  for (std::string_view p : {"adam", "optimizer", "grad_norm"})
    if (starts(p)) return KernelKind::optimizer;
  return KernelKind::other;
}

topo::KernelTime named_kernel_time(const topo::GpuSpec& gpu, std::string_view op_name,
                                   const topo::KernelWork& work) {
  if (!gpu.eff.has_hbm_kinds()) return topo::kernel_time(gpu, work);
  topo::KernelWork w = work;
  w.kind = kernel_kind(op_name, w.op_class);
  return topo::kernel_time(gpu, w);
}

std::string_view name(Activation a) {
  switch (a) {
    case Activation::gelu: return "gelu";
    case Activation::swiglu: return "swiglu";
    case Activation::relu: return "relu";
  }
  return "unknown";
}

std::string_view name(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::train: return "train";
    case WorkloadKind::prefill: return "prefill";
    case WorkloadKind::decode: return "decode";
    case WorkloadKind::generate: return "generate";
    case WorkloadKind::serve: return "serve";
  }
  return "unknown";
}

std::vector<std::string_view> names(const RecomputeModules& m) {
  std::vector<std::string_view> out;
  if (m.core_attn) out.emplace_back("core_attn");
  if (m.layernorm) out.emplace_back("layernorm");
  if (m.mla_up_proj) out.emplace_back("mla_up_proj");
  if (m.moe_act) out.emplace_back("moe_act");
  if (m.alternate_mm) out.emplace_back("alternate_mm");
  return out;
}

std::string_view name(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "unknown";
}

std::string_view name(Pointwise p) {
  return p == Pointwise::eager ? "eager" : "fused";
}

std::string_view name(AttentionImpl k) {
  switch (k) {
    case AttentionImpl::flash: return "flash";
    case AttentionImpl::unfused: return "unfused";
  }
  return "unknown";
}

std::string_view name(GradAccumulation g) {
  return g == GradAccumulation::separate ? "separate" : "fused";
}

std::string_view name(BiasGrad b) {
  return b == BiasGrad::separate ? "separate" : "fused";
}

std::string_view name(CrossEntropy c) {
  switch (c) {
    case CrossEntropy::megatron: return "megatron";
    case CrossEntropy::megatron_compiled: return "megatron_compiled";
    case CrossEntropy::pytorch: return "pytorch";
    case CrossEntropy::pytorch_bf16: return "pytorch_bf16";
    case CrossEntropy::fused: break;
  }
  return "fused";
}

std::string_view name(P2pMode m) {
  switch (m) {
    case P2pMode::blocking: return "blocking";
    case P2pMode::lockstep: return "lockstep";
    case P2pMode::overlapped: break;
  }
  return "overlapped";
}

std::string_view name(LowPrecisionRecipe r) {
  switch (r) {
    case LowPrecisionRecipe::delayed: return "delayed";
    case LowPrecisionRecipe::tensorwise: return "tensorwise";
    case LowPrecisionRecipe::blockwise: return "blockwise";
    case LowPrecisionRecipe::mxfp8: return "mxfp8";
    case LowPrecisionRecipe::nvfp4: return "nvfp4";
  }
  return "?";
}

std::string_view name(TpCommOverlap m) {
  switch (m) {
    case TpCommOverlap::off: return "off";
    case TpCommOverlap::userbuffers: return "userbuffers";
    case TpCommOverlap::async_tp: return "async_tp";
  }
  return "?";
}

std::string_view name(CpComm c) {
  switch (c) {
    case CpComm::p2p: return "p2p";
    case CpComm::all_gather: return "all_gather";
    case CpComm::a2a: return "a2a";
  }
  return "?";
}

std::string_view name(MoeRouting r) {
  switch (r) {
    case MoeRouting::random: return "random";
    case MoeRouting::round_robin: return "round_robin";
  }
  return "?";
}

std::string_view name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved: return "interleaved";
    case PipelineSchedule::dualpipe: return "dualpipe";
    case PipelineSchedule::dualpipev: return "dualpipev";
  }
  return "unknown";
}

std::string_view name(ParallelDim d) {
  switch (d) {
    case ParallelDim::tp: return "tp";
    case ParallelDim::cp: return "cp";
    case ParallelDim::ep: return "ep";
    case ParallelDim::pp: return "pp";
    case ParallelDim::dp: return "dp";
  }
  return "unknown";
}

std::optional<LayerKind> layer_kind_of(char c) {
  switch (c) {
    case 'M': return LayerKind::mamba;
    case '*': return LayerKind::attention;
    case '-': return LayerKind::mlp;
    case 'E': return LayerKind::moe;
    case 'G': return LayerKind::gated_delta;
    default: return std::nullopt;
  }
}

std::string_view name(UbGemm g) {
  static constexpr std::array<std::string_view, kUbGemms> kNames{
      "qkv_fprop", "qkv_dgrad", "qkv_wgrad", "proj_fprop", "proj_dgrad",
      "fc1_fprop", "fc1_dgrad", "fc1_wgrad", "fc2_fprop",  "fc2_dgrad"};
  return kNames[static_cast<std::size_t>(g)];
}

std::string_view name(UbMethod m) {
  switch (m) {
    case UbMethod::ring_exchange: return "ring_exchange";
    case UbMethod::pipeline: return "pipeline";
    case UbMethod::bulk: return "bulk";
  }
  return "?";
}

char pattern_char(LayerKind k) {
  switch (k) {
    case LayerKind::mamba: return 'M';
    case LayerKind::attention: return '*';
    case LayerKind::mlp: return '-';
    case LayerKind::moe: return 'E';
    case LayerKind::gated_delta: return 'G';
    case LayerKind::transformer: break;
  }
  return 'T';
}

std::optional<char> parse_hybrid_pattern(std::string_view text, std::vector<LayerKind>& out) {
  out.clear();
  for (char c : text) {
    const auto kind = layer_kind_of(c);
    if (!kind) return c;
    out.push_back(*kind);
  }
  return std::nullopt;
}

std::string hybrid_pattern(const ModelSpec& m) {
  std::string out;
  for (LayerKind k : m.hybrid_layers) out += pattern_char(k);
  return out;
}

}  // namespace stepsim::work
