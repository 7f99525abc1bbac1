#pragma once
// Stable lower-case names of the workload enums, as scenarios spell them and JSON prints them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/compute_model.hpp"
#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::work {

std::string_view name(Activation a);
std::string_view name(WorkloadKind k);
std::string_view name(Recompute r);
std::string_view name(AttentionImpl k);
std::string_view name(Pointwise p);
std::string_view name(P2pMode m);
std::string_view name(LowPrecisionRecipe r);
std::string_view name(GradAccumulation g);
std::string_view name(BiasGrad b);
std::string_view name(CrossEntropy c);
std::string_view name(PipelineSchedule s);
std::string_view name(TpCommOverlap m);
std::string_view name(UbGemm g);
std::string_view name(UbMethod m);
std::string_view name(CpComm c);
std::string_view name(MoeRouting r);
std::string_view name(ParallelDim d);
/// The kind of a kernel from its op name as the step builders write it ("ln1", "bwd.experts_act",
/// "dispatch.quantize"; a pass prefix fwd./bwd./rc. is ignored): FP8 casts are `quantize` whatever
/// their op class, other non-element-wise ops are `other`. `stepsim profile` classes simulated ops
/// by it, and the GPU's per-kind HBM efficiencies price by it.
topo::KernelKind kernel_kind(std::string_view op_name, topo::OpClass op_class);
/// topo::kernel_time of a named kernel: with its kind (kernel_kind) where `gpu` has an HBM
/// efficiency per kind, as it comes otherwise (no name is looked at).
topo::KernelTime named_kernel_time(const topo::GpuSpec& gpu, std::string_view op_name,
                                   const topo::KernelWork& work);
/// Megatron-Core's hybrid layer pattern (--hybrid-override-pattern): M Mamba-2, * attention, - MLP,
/// E MoE, and stepsim's G for a Gated DeltaNet mixer; nullopt for any other character. `pattern_char` of a
/// transformer layer is 'T' (no pattern has it).
std::optional<LayerKind> layer_kind_of(char c);
char pattern_char(LayerKind k);
/// Reads `text` into `out`, one kind per character; returns the first character that is no kind, if
/// any (then `out` holds the kinds before it).
std::optional<char> parse_hybrid_pattern(std::string_view text, std::vector<LayerKind>& out);
/// A hybrid model's pattern, one character per layer ("" for a transformer).
std::string hybrid_pattern(const ModelSpec& m);
/// The pattern's characters, as errors name them.
inline constexpr std::string_view kHybridPatternHint =
    "one character per layer, as Megatron-Core's --hybrid-override-pattern: M (Mamba-2), * (attention), "
    "- (MLP), E (MoE), and G (Gated DeltaNet), e.g. \"M-M-M*-\"";
/// The Megatron-Core names of the modules `m` recomputes, in a fixed order.
std::vector<std::string_view> names(const RecomputeModules& m);

}  // namespace stepsim::work
