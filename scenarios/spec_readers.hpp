#pragma once
// Readers for the GPU and model fields that catalog entries and scenario overrides share, and
// the checks that make a spec usable. Fields are applied onto an existing spec, so the same code
// reads a new catalog entry, a user override of a built-in one, and a scenario's overrides.

#include "scenarios/toml_reader.hpp"
#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::scen {

// Plausible physical ranges of hardware figures (docs/scenarios.md, "Plausible ranges"). Wide
// enough for any real or planned part with orders of magnitude to spare, narrow enough that a
// figure in the wrong unit (seconds for microseconds, bits for gigabits) is refused at its line,
// and that no step built from in-range figures comes near the simulator's time range (106 days).

/// Latencies and per-kernel costs, in microseconds: 0 (an ideal link) to 1 s.
inline constexpr RealRange kLatencyUs{
    0.0, 1e6, false,
    "microseconds; plausible range 0 to 1 s (1e6 us): real links and launches take 0.1 to 100 us"};
/// Bandwidths in GB/s per direction: 1 MB/s to 1 PB/s.
inline constexpr RealRange kBandwidthGBs{
    1e-3, 1e6, false,
    "GB/s per direction; plausible range 1 MB/s (0.001) to 1 PB/s (1e6): NVLink is 450, PCIe 64"};
/// Bandwidths in Gb/s (NICs) per direction: 1.25 MB/s to 1.25 PB/s.
inline constexpr RealRange kBandwidthGbps{
    1e-2, 1e7, false, "Gb/s (gigabits) per direction; plausible range 0.01 to 1e7: a ConnectX-7 NIC is 400"};
/// HBM bandwidth in TB/s: 1 GB/s to 1 PB/s.
inline constexpr RealRange kHbmTBs{1e-3, 1e3, false, "TB/s; plausible range 0.001 to 1000: an H100 has 3.35"};
/// Dense peaks in TFLOP/s: 1 GFLOP/s to 1 EFLOP/s per GPU.
inline constexpr RealRange kTflops{1e-3, 1e6, false,
                                   "TFLOP/s dense; plausible range 0.001 to 1e6: an H100 has 989 (BF16)"};
/// Memory sizes in GB or GiB: 1 MB to 1 PB per GPU.
inline constexpr RealRange kMemoryGB{1e-3, 1e6, false,
                                     "plausible range 0.001 to 1e6 (1 MB to 1 PB per GPU): an H100 has 80"};
/// Fractions of a peak rate (efficiencies): 1% to 100%. Below 1% a figure is a typo, not a kernel.
inline constexpr RealRange kEfficiency{0.01, 1.0, false,
                                       "a fraction of peak; plausible range 0.01 to 1, e.g. 0.8"};
/// GPU counts (nodes, GPUs per node, the total, NVLink domains): 1 to 2^24 = 16,777,216, above any
/// built or planned cluster and far from int's range, so products of two counts stay exact.
inline constexpr IntRange kGpuCount{1, 1 << 24};

/// Downlink:uplink ratio of a switch tier: 1 (non-blocking) to 1000.
inline constexpr RealRange kOversubscription{
    1.0, 1000.0, false,
    "downlink:uplink bandwidth ratio; 1 = non-blocking, plausible up to 1000 (real fabrics: 1 to 8)"};

/// Reads a figure where 0 means "none" (no NVLink, no FP8 support) and anything else must lie in
/// `range`: "must be 0 (none) or in [min, max]".
bool read_zero_or(TableReader& r, std::string_view key, double& out, const RealRange& range,
                  double scale = 1.0);

/// Throws the error of a required key `key` that `r` lacks, `what` saying what it holds, with the
/// hint to set it or start from a catalog preset.
[[noreturn]] void fail_missing(const TableReader& r, std::string_view key, std::string_view what);

/// Which keys a table may hold: catalog entries also carry aliases and published figures.
enum class FieldSet : std::uint8_t { catalog, scenario };

// The GPU entry (scenarios/gpu_reader.cpp).

/// Applies the GPU keys present in `r` to `gpu` (units converted: TFLOP/s, GB, TB/s, GB/s, Gb/s,
/// us) including the `efficiency` sub-table. Does not call finish().
void read_gpu_fields(TableReader& r, topo::GpuSpec& gpu);
/// Applies [efficiency]-style keys; `estimate` sets the three estimate_* factors at once.
void read_efficiency(TableReader& r, topo::Efficiency& eff);
/// Throws unless `gpu` has the figures every model needs (BF16 peak, HBM size and bandwidth) and
/// consistent links. Errors point at `r`'s table.
void validate_gpu(const topo::GpuSpec& gpu, const TableReader& r);

// The model entry and the switches of framework configs (scenarios/spec_readers.cpp).

/// A switch NeMo 1's YAML configs write as 0 / 1 and NeMo 2's as a bool: either is taken.
void read_switch(TableReader& r, std::string_view key, bool& out);
/// Applies the keys of one GEMM's userbuffers table (method, num_sm, set_sm_margin, num_splits,
/// aggregate, fp8_buf; cga_size accepted; atomic_gemm = true and a method Transformer Engine
/// refuses for the GEMM are errors) to `u`. Does not call finish().
void read_ub_gemm_fields(TableReader& c, work::UbGemm g, work::UbOverlap& u);

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
