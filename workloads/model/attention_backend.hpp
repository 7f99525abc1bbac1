#pragma once
// Which attention kernels a Transformer Engine release runs for a layer shape on a GPU generation,
// as its backend filter decides: the Python filter (get_attention_backend in
// transformer_engine/pytorch/.../dot_product_attention/utils.py) and cuDNN's support check
// (nvte_get_fused_attn_backend in transformer_engine/common/fused_attn/fused_attn.cpp). Only the
// rules with a measurable effect on a training step are kept (docs/model.md, "Attention backend").

#include <optional>
#include <string>

#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

/// "2.2", "2.2.0", "v2.3": the version, or nullopt when `text` is not a version.
std::optional<SoftwareVersion> parse_version(const std::string& text);

/// Query/key and value head widths of one attention head of `m` (MLA: nope + rope, and v).
struct HeadDims {
  int qk = 0;
  int v = 0;
};
HeadDims attention_head_dims(const ModelSpec& m);

/// The attention a training step runs under Transformer Engine `te` on `arch`, and why, when the
/// release cannot run a fused kernel for these head widths; nullopt when it runs one (FlashAttention
/// or cuDNN's fused attention: stepsim's "flash").
struct UnfusedReason {
  std::string why;
};
std::optional<UnfusedReason> te_training_attention_unfused(SoftwareVersion te, topo::GpuArch arch,
                                                           HeadDims dims);

}  // namespace stepsim::work
