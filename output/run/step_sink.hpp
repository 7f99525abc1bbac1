#pragma once
// The seam between a simulated step and the files written from it (Chrome trace, HDF5).
//
// emit_step() walks a work::Simulation in a fixed order and hands a sink plain rows: the layout
// of the selected ranks and their streams, every op they ran, their memory in use over time, and
// the load of the network's links over time. Writers implement StepSink and never walk the
// simulation themselves, so each format is only formatting, and what a trace shows and what
// HDF5 stores come from one walk.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output/run/link_usage.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

/// One stream of a selected rank: a lane in a trace, a `stream` value in HDF5.
struct LaneRow {
  sim::StreamId stream = 0;
  std::uint16_t lane = 0;  ///< index among its rank's streams, in stream-id order
  std::string_view name;   ///< the stream's label without the "gpuN." prefix: "compute", "comm.tp"
};

/// One selected (simulated) rank and its streams.
struct RankRow {
  std::uint16_t sim_rank = 0;  ///< index into StepPlan::ranks
  int gpu = 0;                 ///< global rank
  int node = 0;
  int stage = 0;
  std::vector<LaneRow> lanes;
};

/// What the walk covers and what it left out.
struct StepLayout {
  std::vector<RankRow> ranks;  ///< selected ranks, in simulated-rank order
  std::size_t simulated_ranks = 0;
  std::size_t ops_selected = 0;
  std::size_t ops_total = 0;
};

/// One op of a selected rank, on the first stream it occupies.
struct OpRow {
  sim::OpId op = 0;
  const RankRow* rank = nullptr;
  const LaneRow* lane = nullptr;
  const work::OpInfo* info = nullptr;  ///< pass, layer, micro-batch, op class, comm group
  sim::OpKind kind = sim::OpKind::compute;
  topo::Resource bound = topo::Resource::none;
  Time start{}, end{};
  double flops = 0.0;
  double bytes = 0.0;  ///< HBM bytes of a kernel; payload bytes per rank of a communication op
  std::string label;   ///< the op's full name (work::op_label): "L12.fwd.mlp_up mb3"
  /// Other streams the op occupies ("gpu8.pp.recv_prev"): the peers of a send or a collective.
  std::vector<std::string_view> also_on;
  /// Those of them that belong to selected ranks (a trace draws the op there too).
  std::vector<std::pair<const RankRow*, const LaneRow*>> peer_lanes;
};

/// What an op is, for grouping its time: a kernel's class (topo::OpClass, in the same order), or
/// what runs outside the kernel classes. HDF5's `ops.op_class` and the trace's `class` argument.
enum class OpCategory : std::uint8_t {
  gemm,
  attention,
  elementwise,
  copy,        ///< a fixed-duration data movement (an HBM copy, a host offload)
  collective,  ///< communication of a TP, CP, EP or DP group
  p2p,         ///< pipeline sends and receives
  host,        ///< a host-side launch, synchronisation or wait (no GPU work)
  count
};
std::string_view name(OpCategory c);
OpCategory category_of(const work::OpInfo& info, sim::OpKind kind);
inline OpCategory category_of(const OpRow& row) {
  return category_of(*row.info, row.kind);
}

/// One op of the step's critical path (sim::CriticalPath), on any simulated rank.
struct CriticalStep {
  sim::OpId op = 0;
  int gpu = 0;                 ///< global rank that ran it
  std::uint16_t sim_rank = 0;  ///< index into StepPlan::ranks
  bool selected = false;       ///< its rank is among the selected ones (its op has an OpRow)
  OpCategory category = OpCategory::elementwise;
  topo::Resource bound = topo::Resource::none;
  Time start{}, end{};
  Time wait{};        ///< idle time between the previous step's end (or 0) and this start
  std::string label;  ///< work::op_label
};

/// A selected rank's memory in use from `time_s` on.
struct MemoryRow {
  const RankRow* rank = nullptr;
  double time_s = 0.0;
  double bytes = 0.0;
};

class StepSink {
 public:
  virtual ~StepSink() = default;
  virtual void begin(const StepLayout& layout) = 0;
  /// The critical path, in execution order (its last op ends at the step's end); before the ops.
  virtual void critical_path(const std::vector<CriticalStep>& path) = 0;
  /// Ops in op-id order.
  virtual void op(const OpRow& row) = 0;
  /// Rank by rank, in time order.
  virtual void memory(const MemoryRow& row) = 0;
  /// Per-tier utilisation, in time order (empty unless the run kept a link timeline).
  virtual void tier_load(const TierLoad& row) = 0;
  /// Load changes of the watched links (the simulated ranks' own), in time order (none unless the
  /// run kept a link timeline).
  virtual void link_load(const topo::LinkLoadChange& change) = 0;
  virtual void end() = 0;
};

/// Which global ranks to include: "0-15", "0,8,16-31", or empty for the default: simulated ranks
/// in order while they add up to at most kDefaultTraceOps ops (at least one rank) and at most
/// kDefaultTraceRanks ranks, which keeps a default trace well under 100 MB (about 250 bytes an op).
struct RankSelection {
  std::vector<std::pair<int, int>> ranges;  ///< inclusive [first, last]; empty = default
  static constexpr std::size_t kDefaultTraceRanks = 64;
  static constexpr std::size_t kDefaultTraceOps = 250'000;
  std::size_t max_ranks = kDefaultTraceRanks;  ///< default selection only
  std::size_t max_ops = kDefaultTraceOps;      ///< default selection only
  /// Parses the text; throws UserError naming the option for malformed ranges.
  static RankSelection parse(std::string_view text, std::string_view option);
  bool contains(int gpu) const;
};

/// The selected ranks of `s` and their lanes; throws UserError when the selection names no
/// simulated rank (the message lists the simulated ones).
StepLayout select_ranks(const work::Simulation& s, const RankSelection& selection);

/// Walks `s` into `sink`: begin, critical path, ops, memory, tier loads, link loads, end.
void emit_step(const work::Simulation& s, const StepLayout& layout, StepSink& sink);

}  // namespace stepsim::out
