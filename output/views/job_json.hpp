#pragma once
// JSON views of the specs a scenario resolves to. Keys mirror the struct fields, units in the
// names (flops_per_s, bytes, Bps, s), so JSON consumers see exactly what the simulator uses.

#include <nlohmann/json.hpp>
#include <string>

#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::out {

nlohmann::json gpu_json(const topo::GpuSpec& gpu);
/// Dimensions plus the computed parameter breakdown and the published figures.
nlohmann::json model_json(const work::ModelSpec& model);
nlohmann::json cluster_json(const topo::ClusterSpec& cluster);
nlohmann::json job_json(const work::JobSpec& job);
/// Userbuffers' settings of every GEMM, keyed by TE's GEMM names (the job's and the catalog's).
nlohmann::json ub_overlap_json(const std::array<work::UbOverlap, work::kUbGemms>& gemms);
/// The SMs the job's expert-parallel kernels hold and where the count comes from ("12 of 132 SMs
/// (DeepEP V2's count for this EP layout) while it runs"); empty when the job does not set them.
std::string ep_kernels_text(const work::JobSpec& job);

}  // namespace stepsim::out
