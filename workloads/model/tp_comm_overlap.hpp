#pragma once
// How tensor-parallel communication overlaps the GEMMs it feeds: the mode a job runs
// (ParallelSpec::tp_comm_overlap) and Transformer Engine userbuffers' per-GEMM configuration
// (ParallelSpec's per-GEMM table, scenarios' [parallelism.tp_overlap], scenarios/catalog/tp_overlap.toml).

#include <array>
#include <cstddef>
#include <cstdint>

namespace stepsim::work {

/// How a sequence-parallel layer's TP all-gathers and reduce-scatters meet the GEMMs they feed
/// (docs/model.md, "TP communication overlap"). Every mode overlaps the backward's all-gather of
/// the weight-gradient input with the data-gradient GEMM and the data gradient's reduce-scatter
/// with the weight-gradient GEMM, as Megatron-Core's and Transformer Engine's linears do.
enum class TpCommOverlap : std::uint8_t {
  off,          ///< the forward's gathers and reductions and the backward's gradient gather exposed
  userbuffers,  ///< Transformer Engine userbuffers (Megatron --tp-comm-overlap): tp-step ring
                ///< exchange under AG+GEMM on copy engines, GEMM+RS pipelined in chunks on SMs
  async_tp,     ///< PyTorch AsyncTP (torchtitan): AG+GEMM and GEMM+RS as tp copy-engine steps
};
/// The GEMMs of a transformer layer whose TP communication Transformer Engine's userbuffers overlap,
/// by TE's names (transformer_engine/pytorch/module/base.py initialize_ub): the projections into
/// attention (qkv), its output projection (proj), the MLP's up (fc1) and down (fc2) projections,
/// each in the forward (fprop) or as the backward's data (dgrad) or weight (wgrad) gradient.
enum class UbGemm : std::uint8_t {
  qkv_fprop,
  qkv_dgrad,
  qkv_wgrad,
  proj_fprop,
  proj_dgrad,
  fc1_fprop,
  fc1_dgrad,
  fc1_wgrad,
  fc2_fprop,
  fc2_dgrad,
};
inline constexpr std::size_t kUbGemms = 10;
/// How userbuffers overlaps one GEMM with its TP communication (TE's ub_cfgs entry).
enum class UbMethod : std::uint8_t {
  ring_exchange,  ///< tp steps, each GEMM chunk beside a peer-to-peer copy on the copy engines
  pipeline,       ///< the GEMM in num_splits chunks, each chunk's rows reduce-scattered on SMs
  bulk,           ///< a whole collective on SMs beside a GEMM it does not feed
};
struct UbOverlap {
  UbMethod method = UbMethod::ring_exchange;
  int num_sm = 1;              ///< CTAs (SMs) of the communication kernels
  bool set_sm_margin = false;  ///< the GEMM leaves num_sm SMs to them (cuBLAS's SM count target)
  int num_splits = 0;          ///< pipeline: GEMM chunks (0: ParallelSpec::tp_overlap_rs_splits)
  bool aggregate = false;      ///< ring_exchange all-gather: two chunks per step, tp / 2 steps
  bool fp8_buf = false;        ///< pipeline reduce-scatter of an FP8 GEMM's output in FP8
};
/// Transformer Engine's default per GEMM (initialize_ub's get_default_config): ring exchange on
/// the copy engines for the all-gathers, pipelined reduce-scatters of 4 chunks for the forward's
/// row-parallel GEMMs, bulk collectives beside the backward's column-parallel GEMMs, 16 SMs for
/// the last two. TE 2.x sets the SM margin for every method but ring exchange; 1.x for none.
inline std::array<UbOverlap, kUbGemms> default_ub_overlap(bool te1) {
  std::array<UbOverlap, kUbGemms> cfg{};
  for (std::size_t i = 0; i < kUbGemms; ++i) {
    const auto g = static_cast<UbGemm>(i);
    UbOverlap& c = cfg[i];
    if (g == UbGemm::proj_fprop || g == UbGemm::fc2_fprop)
      c.method = UbMethod::pipeline;
    else if (g == UbGemm::qkv_dgrad || g == UbGemm::qkv_wgrad || g == UbGemm::fc1_dgrad ||
             g == UbGemm::fc1_wgrad)
      c.method = UbMethod::bulk;
    c.num_sm = c.method == UbMethod::ring_exchange ? 1 : 16;
    c.set_sm_margin = !te1 && c.method != UbMethod::ring_exchange;
  }
  return cfg;
}
}  // namespace stepsim::work
