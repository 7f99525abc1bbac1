#pragma once
// Readers for the GPU and model fields that catalog entries and scenario overrides share, and
// the checks that make a spec usable. Fields are applied onto an existing spec, so the same code
// reads a new catalog entry, a user override of a built-in one, and a scenario's overrides.

#include "scenarios/toml_reader.hpp"
#include "topology/gpu.hpp"
#include "workloads/model.hpp"

namespace stepsim::scen {

/// Which keys a table may hold: catalog entries also carry aliases and published figures.
enum class FieldSet : std::uint8_t { catalog, scenario };

/// Applies the GPU keys present in `r` to `gpu` (units converted: TFLOP/s, GB, TB/s, GB/s, Gb/s,
/// us) including the `efficiency` sub-table. Does not call finish().
void read_gpu_fields(TableReader& r, topo::GpuSpec& gpu);
/// Applies [efficiency]-style keys; `estimate` sets the three estimate_* factors at once.
void read_efficiency(TableReader& r, topo::Efficiency& eff);
/// Throws unless `gpu` has the figures every model needs (BF16 peak, HBM size and bandwidth) and
/// consistent links. Errors point at `r`'s table.
void validate_gpu(const topo::GpuSpec& gpu, const TableReader& r);

/// Prepares a model for field-by-field overrides: values that were derived (kv_heads == heads,
/// head_dim == hidden / heads) are reset so that they follow overridden heads or hidden.
void mark_derived_model_fields(work::ModelSpec& m);
/// Applies the model keys present in `r` (and its `mla` sub-table) to `m`. With
/// FieldSet::catalog, also reads published_params, published_active_params, published_tolerance.
void read_model_fields(TableReader& r, work::ModelSpec& m, FieldSet set);
/// Fills derived fields (kv_heads, head_dim) and throws if the dimensions are missing or
/// inconsistent (GQA groups, MoE keys without experts, MLA without its dimensions, ...).
void finalize_model(work::ModelSpec& m, const TableReader& r);

}  // namespace stepsim::scen
