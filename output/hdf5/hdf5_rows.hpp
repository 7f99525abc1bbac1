#pragma once
// The rows of stepsim's HDF5 tables and their compound types (docs/hdf5.md is the schema).
// Internal to output/: the writer fills these structs and HDF5 stores them field by field.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "output/hdf5/hdf5_table.hpp"

namespace stepsim::out::h5 {

struct FigureRow {  // /summary
  const char* name;
  double value;
};
struct TextRow {  // /summary_text
  const char* name;
  const char* value;
};
struct RankRowH5 {  // /ranks
  std::uint16_t sim_rank;
  std::int32_t gpu, node, stage;
  double compute_s, memory_bound_s, exposed_tp_s, exposed_cp_s, exposed_ep_s, exposed_pp_s, exposed_dp_s,
      bubble_s, host_bound_s;
  double static_bytes, activation_bytes, peak_bytes, peak_time_s;
};
inline constexpr std::size_t kStreamChars = 24;  ///< "pp.send_next", "comm.dp", ...
inline constexpr std::size_t kLabelChars = 64;   ///< "L125.bwd.tp.ag_grad_mlp mb1023" is 30
struct OpRowH5 {                                 // /ops
  std::uint32_t op;
  std::int32_t gpu;
  std::uint16_t sim_rank;
  std::int16_t stage;
  std::uint8_t kind, pass, group, op_class, bound;
  std::int16_t layer;
  std::int32_t microbatch;
  std::int64_t start_ps, end_ps;
  double start_s, end_s, flops, bytes;
  char stream[kStreamChars];  // fixed-length, NUL-padded: deflate compresses them with the rest
  char label[kLabelChars];
};
struct CriticalRowH5 {  // /critical_path
  std::uint32_t step, op;
  std::int32_t gpu;
  std::uint16_t sim_rank;
  std::uint8_t op_class, bound;
  std::int64_t start_ps, end_ps;
  double start_s, end_s, wait_s;
  char label[kLabelChars];
};
struct MemoryRowH5 {  // /memory
  std::int32_t gpu;
  std::uint16_t sim_rank;
  double time_s, bytes;
};
struct LinkRowH5 {  // /links
  std::uint32_t link;
  std::uint8_t kind;
  std::uint32_t from, to;
  double bw_Bps, latency_s, bytes, busy_s, mean_utilisation, peak_utilisation;
};
struct TierRowH5 {  // /link_tiers
  std::int64_t time_ps;
  double time_s;
  std::uint8_t tier;
  double mean_utilisation, in_use_utilisation;
};
struct LinkLoadRowH5 {  // /link_loads
  std::int64_t time_ps;
  double time_s;
  std::uint32_t link;
  double load_Bps, utilisation;
};

struct StepRowH5 {  // /steps/times: one row per step of `stepsim run --steps N`
  std::uint32_t step;
  std::uint64_t seed;
  double time_s;
  std::int32_t waited_on_gpu;  // -1 when the step's critical path ran no kernels
  double waited_on_s;
};
struct RankSlownessRowH5 {  // /steps/ranks: one row per GPU of the job
  std::int32_t gpu, node;
  std::int32_t sim_rank;  // -1 for a GPU that was not simulated (representative ranks)
  double time_factor;
  double busy_s, waiting_s, waiting_share;  // in the median step; NaN when not simulated
};
struct FailureRowH5 {      // goodput file: /failures
  std::uint8_t component;  // enum: the assessment's component names in order
  double count, mtbf_hours, failures_per_hour;
};
struct GoodputRowH5 {  // goodput file: /intervals
  std::int64_t interval_steps;
  double interval_compute_s;
  std::uint8_t finishes, best, young_daly, chosen;
  double goodput, p10_goodput, p50_goodput, p90_goodput, first_order_goodput;
  double mean_wall_s, stddev_wall_s, p10_wall_s, p50_wall_s, p90_wall_s;
  double mean_failures, useful_s, checkpoint_s, rework_s, restart_s;
};

/// Copies `text` into a fixed-length field, NUL-padded, cut at the field's size (before a UTF-8
/// continuation byte, so that a cut text still decodes).
template <std::size_t N>
void set_text(char (&field)[N], std::string_view text) {
  std::size_t n = text.size() < N ? text.size() : N;
  if (n < text.size())
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  for (std::size_t i = 0; i < N; ++i) field[i] = i < n ? text[i] : '\0';
}

/// Every leaf of a JSON summary under its slash-separated path: numbers (booleans as 0/1, null as
/// NaN) in the table `summary`, strings in `summary_text` (docs/hdf5.md).
void write_summary_tables(H5::H5File& file, const nlohmann::ordered_json& summary);

H5::CompType figure_type();
H5::CompType text_type();
H5::CompType rank_type();
H5::CompType op_type();
H5::CompType critical_type();
H5::CompType memory_type();
H5::CompType link_type();
H5::CompType tier_type();
H5::CompType link_load_type();
H5::CompType step_type();
H5::CompType rank_slowness_type();
/// `components`: the enum's names ("GPU", "node", "NIC", "switch"), in code order.
H5::CompType failure_type(const std::vector<std::string_view>& components);
H5::CompType goodput_type();

}  // namespace stepsim::out::h5
