#pragma once
// `stepsim catalog`: the GPU and model presets as a table or JSON.

#include <string>
#include <vector>

#include "output/common/render_format.hpp"
#include "scenarios/catalog.hpp"

namespace stepsim::out {

/// GPUs: peaks, memory, links, price and the cost screens $/TFLOP-hour (BF16 dense) and
/// $/TB/s-hour (HBM), followed by each price's provenance. `only`: the catalog ids to list, in
/// catalog order (empty: every GPU).
std::string render_gpu_catalog(const scen::Catalog& catalog, RenderFormat format,
                               const std::vector<std::string>& only = {});
/// Every figure of every GPU (or of those `only` names) with its value and where it comes from
/// (datasheet, measured, derived, assumed, or a user's file), as `stepsim catalog gpus --provenance`
/// prints it.
std::string render_gpu_provenance(const scen::Catalog& catalog, RenderFormat format,
                                  const std::vector<std::string>& only = {});
/// Models: dimensions, computed total and active parameters beside the published figures.
std::string render_model_catalog(const scen::Catalog& catalog, RenderFormat format);
/// Named userbuffers configurations (NeMo 2's tp_comm_overlap_cfg): each GEMM's method, SMs,
/// splits and SM margin, and the source.
std::string render_tp_overlap_catalog(const scen::Catalog& catalog, RenderFormat format);

}  // namespace stepsim::out
