#pragma once
// `stepsim run --advise`: the few changes to a scenario that help its step most, each one simulated.
//
// A change is a set of scenario edits (the `--set KEY=VALUE` a user would type), so every figure
// it reports is a real run of the edited scenario and the user can reproduce it. Three families:
//   - layout: a local search around the scenario's own parallel layout. Its neighbours differ in one
//     step of one dimension (TP, PP, interleaving, CP, EP: the next smaller or larger value the
//     divisibility rules allow, data parallelism taking the remaining GPUs), trade TP for PP at the
//     same model-parallel size, or change one per-layout knob (micro-batch, ZeRO stage, recompute,
//     TP overlap). The best fitting neighbour becomes the centre of the next round while it improves.
//   - runtime settings the scenario leaves off: gradient-reduction and parameter-gather overlap,
//     expert-parallel overlap, shared-expert overlap, CUDA graphs, FP8 linears;
//   - hardware: twice the NIC bandwidth, a non-blocking fabric.
// Changes that do not fit in memory, that the reader refuses, or that gain under 0.5% are kept in
// `tried` with the reason, never in `helpful`. When the scenario itself does not fit, every change
// that fits is helpful (fastest first): its own rate is not achievable, so it is no yardstick.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "output/search/layout_search.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"

namespace stepsim::out {

enum class ChangeFamily : std::uint8_t { layout, runtime, precision, hardware, combined };
std::string_view name(ChangeFamily f);

/// One change to the base scenario and what its simulation gave.
struct AdviceChange {
  ChangeFamily family = ChangeFamily::layout;
  std::string title;               ///< "TP 4 (DP 32)", "overlap the gradient reduction"
  std::vector<std::string> set;    ///< scenario edits, as --set takes them
  std::vector<std::string> unset;  ///< base keys the change removes
  std::string costs;               ///< what it costs besides time: hardware, numerics, memory
  bool simulated = false;
  std::string problem;  ///< why it was not simulated (the reader's or simulator's words)
  SimulatedFigures sim;
  /// Job tokens/s over the base's (> 1 is faster); 0 when not simulated. Tokens/s, not step time:
  /// an inference batch change alters the tokens a step makes.
  double gain = 0.0;
};

struct AdviceOptions {
  std::size_t top = 5;          ///< helpful changes kept, best first
  int rounds = 3;               ///< layout search rounds (each around the best layout so far)
  double headroom_bytes = 0.0;  ///< HBM a change must leave free to count as fitting
  double min_gain = 0.005;      ///< relative step-time gain below which a change does not help
  unsigned jobs = 1;            ///< simulations at once
  /// Changes whose step is estimated above this many ops are refused (workloads/step/step_size.hpp).
  std::uint64_t max_ops = work::kDefaultMaxOps;
  /// Called (serialised) after each simulation with (done, planned so far); optional.
  std::function<void(std::size_t, std::size_t)> progress;
};

struct Advice {
  SimulatedFigures base;
  std::string base_layout;            ///< the base's layout, compact ("TP8 PP4x5 DP16 mb1 Z1")
  double min_gain = 0.0;              ///< the options' min_gain
  std::vector<AdviceChange> helpful;  ///< fitting, faster by at least min_gain, best first, at most top
  std::vector<AdviceChange> tried;    ///< every change simulated or refused, in the order tried
};

/// Advises on the scenario at `path`, loaded with `load` (its --set edits) from `catalog`.
/// Training steps get every family; prefill and decode steps the runtime, precision and hardware
/// changes and TP / batch steps. Throws UserError for kinds it cannot advise on (serve, generate).
Advice advise(const std::filesystem::path& path, const scen::Catalog& catalog, const scen::LoadOptions& load,
              const AdviceOptions& options);
/// As above around a base already loaded (`job`, the scenario at `path` with `load`) and simulated
/// (`base_sim`): `stepsim run` has both, so the base step is not simulated twice. A single step only.
Advice advise(const std::filesystem::path& path, const scen::Catalog& catalog, const scen::LoadOptions& load,
              const work::JobSpec& job, const work::Simulation& base_sim, const AdviceOptions& options);

}  // namespace stepsim::out
