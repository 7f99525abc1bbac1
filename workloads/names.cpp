#include "workloads/names.hpp"

namespace stepsim::work {

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

std::string_view name(P2pMode m) {
  return m == P2pMode::blocking ? "blocking" : "overlapped";
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

std::string_view name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved: return "interleaved";
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

}  // namespace stepsim::work
