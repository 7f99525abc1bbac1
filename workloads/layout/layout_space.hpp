#pragma once
// The parallel layouts a training job could use on its cluster: every rank grid of tensor,
// pipeline (with interleaved chunks), context, expert and data parallelism that divides the model,
// the batch and the GPUs evenly, times every value of the per-layout knobs (micro-batch size, ZeRO
// stage, recomputation). The layout search (output/search/layout_search.hpp) bounds and simulates them.
//
// Knobs are rows of one table (layout_space.cpp): how a value is named, written into a job and into
// a scenario, shown, and when it does nothing. Adding one (parallelism.tp_comm_overlap, an FSDP
// option) takes an entry in `Knob` and a row; enumeration, overrides, texts, merging of values
// that change nothing and the search's command-line options all follow from the row.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/model/job.hpp"

namespace stepsim::work {

/// The per-layout settings that leave the rank grid alone, in the order layouts vary them (the
/// last fastest).
enum class Knob : std::uint8_t { micro_batch, zero_stage, recompute, tp_comm_overlap, cp_comm };
inline constexpr std::size_t kKnobCount = 5;

/// What a knob is and how its values act. Values are ints: the number itself, or an enum's index
/// into `choices`.
struct KnobInfo {
  Knob knob;
  std::string_view name;    ///< JSON key: "micro_batch"
  std::string_view option;  ///< the search's command-line option listing values: "micro-batches"
  std::string_view key;     ///< the scenario key it sets: "workload.micro_batch"
  std::vector<std::string_view> choices;  ///< an enum's value names by index; empty: an integer knob
  int min = 0, max = 0;                   ///< an integer knob's accepted values
  std::vector<int> defaults;              ///< the values searched unless told otherwise
  /// true: the value changes only what the layer emitters emit (kernels, collectives, kept
  /// activations), so the step bound's program fingerprint tells when two values run the same step.
  bool emitters_only = false;
  void (*apply)(JobSpec& job, int value);
  /// Whether the value can run on the rank grid already applied to `job` (micro-batches must
  /// divide the batch per replica); null: always.
  bool (*admits)(const JobSpec& job, int value) = nullptr;
  /// The value that runs the same step as `value` in `job` (its layout applied), e.g. ZeRO-0 for
  /// any stage with one data-parallel replica; null: every value is its own.
  int (*canonical)(const JobSpec& job, int value) = nullptr;
  /// The compact form ("rc-sel"; "" for a plain value) per enum value, or an integer knob's one
  /// format with %d for the value ("mb%d").
  std::vector<std::string_view> labels;
  std::vector<std::string_view> texts;  ///< the long form, likewise: "selective recompute", "mb %d"

  /// "1", "\"selective\"": the value as TOML.
  std::string toml(int value) const;
  /// "mb2", "rc-sel", "" (the enum's plain value).
  std::string label(int value) const;
  /// "mb 2", "selective recompute".
  std::string text(int value) const;
  /// Parses one value as the command line writes it ("2", "selective"); throws UserError naming
  /// `option` otherwise.
  int parse(std::string_view word, std::string_view option) const;
};

/// Every knob, indexed by Knob.
std::span<const KnobInfo> knobs();
const KnobInfo& knob_info(Knob k);

/// One layout; dp is derived from the GPU count.
struct Layout {
  int tp = 1;
  int pp = 1;
  int virtual_stages = 1;
  int cp = 1;
  int ep = 1;
  int dp = 1;
  /// Uneven end stages kept from the base scenario (parallelism.first/last_stage_layers); 0: even.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  std::array<int, kKnobCount> knobs{1, 0, 0};  ///< by Knob: micro-batch 1, ZeRO-0, no recompute

  int knob(Knob k) const { return knobs[static_cast<std::size_t>(k)]; }
  int& knob(Knob k) { return knobs[static_cast<std::size_t>(k)]; }
  int micro_batch() const { return knob(Knob::micro_batch); }
  int zero_stage() const { return knob(Knob::zero_stage); }
  Recompute recompute() const { return static_cast<Recompute>(knob(Knob::recompute)); }
  /// "tp 8, pp 4 (v 5), dp 16, mb 1, zero 1, selective recompute" (cp, ep shown when > 1).
  std::string text() const;
  /// "TP8 PP4x5 DP16 mb1 Z1 rc-sel" (PP16[7..7] for uneven end stages).
  std::string compact() const;
  bool operator==(const Layout&) const = default;
};

/// Bounds of the space.
struct LayoutSpaceOptions {
  int max_tp = 0;  ///< 0: the scale-up (NVLink) domain, so TP collectives stay on NVLink
  int max_pp = 64;
  int max_virtual_stages = 8;
  int max_cp = 8;
  int min_cp_tokens = 2048;  ///< a context-parallel rank holds at least this many tokens of a sequence
  /// Values searched per knob (by Knob); an empty list: the knob's defaults.
  std::array<std::vector<int>, kKnobCount> knob_values;
  std::vector<int>& values(Knob k) { return knob_values[static_cast<std::size_t>(k)]; }
  const std::vector<int>& values(Knob k) const;
};

/// Every layout of `job`'s model, batch and GPU count within `options` that passes the divisibility
/// rules of docs/scenarios.md (heads and KV heads by tp; layers by pp x virtual stages; sequence by
/// cp, and by tp with sequence parallelism, which layouts use whenever tp > 1; experts by ep, ep
/// within dp x cp; the batch by micro-batch x dp) and every knob's own rule. When `job` has uneven
/// end stages (first/last_stage_layers), its pp is also offered with them (without interleaving).
/// Deterministic order: tp, pp, virtual stages, cp, ep, then the knobs.
std::vector<Layout> enumerate_layouts(const JobSpec& job, const LayoutSpaceOptions& options = {});

/// `job` with `layout` applied: parallel sizes (expert_tp 1), end stages, schedule (interleaved
/// when virtual stages > 1, else 1F1B), sequence parallelism (tp > 1) and every knob; a base
/// overlap_param_gather is turned off where the ZeRO stage has no distributed optimizer.
JobSpec with_layout(JobSpec job, const Layout& layout);

/// The scenario edits that load `layout` over the base scenario `base` was read from: keys to set
/// and base keys to drop, so that reading the edited file gives with_layout(base, layout).
struct LayoutOverrides {
  std::vector<std::string> set;    ///< "parallelism.tp=8", ...
  std::vector<std::string> unset;  ///< "parallelism.first_stage_layers", ...
};
LayoutOverrides layout_overrides(const JobSpec& base, const Layout& layout);

/// What applying layouts changes in `base` besides the layout keys, one sentence each (uneven end
/// stages kept for one pp and dropped for the rest, overlap_param_gather turned off, ...); empty
/// when nothing is adapted.
std::vector<std::string> layout_adaptations(const JobSpec& base);

/// `layout` with every knob at its canonical value in `job` (with_layout(base, layout)); knobs that
/// are emitters_only keep their value (the step bound's fingerprint judges those).
Layout canonical_layout(const JobSpec& job, Layout layout);

}  // namespace stepsim::work
