#pragma once
// Every instance of a step graph replayed over one run of it: shared programs, per-instance time.
//
// A graph can stand for `width` identical copies of each processor's program, which differ only in
// where they sit (to the layers above: one simulated GPU per pipeline stage, copied to every GPU of
// the stage). The engine's run of the graph says how long each op took, contention with the copies
// included when the network carried their traffic. Replay gives every copy its own timeline over
// those durations: an op of copy j starts when its dependencies and stream predecessors of copy j
// have finished, and ops that synchronise copies (a collective of a group) start together, at the
// latest member's. That is the longest path through the graph, instance by instance, with no
// event queue: ops are visited once each in topological order and the copies of one op are
// contiguous, so the work is a few vectorisable passes over `width` times per op.
//
// What it keeps from the run: every op's duration. A Variation lengthens or shortens the compute
// and memory ops of single copies (a slow processor, jitter, host stalls); the layout's scales
// lengthen the transfers of single copies (a degraded link); everything else keeps its run's
// duration. With no variation the replay reproduces the run exactly (each op of
// each copy starts and ends where the run had it): the engine starts an op at the instant its
// last predecessor ends, which is the longest path. With variation it is the longest path over
// the run's transfer durations: how a slower copy shifts the overlap of its transfers with other
// traffic is not re-simulated (docs/simulation.md, "Every GPU replayed").
//
// Memory: one Time per copy of each op that is live (ended, with a successor not yet started) at
// one point of the order, reused; per synchronised op and group, its start; with the critical
// path, one byte per op per copy naming the predecessor that ended last; the graph's per-op tables
// once. No time of every op of every copy is ever held.

#include <cstdint>
#include <vector>

#include "sim/graph.hpp"
#include "sim/run_result.hpp"
#include "sim/units.hpp"
#include "sim/variation.hpp"

namespace stepsim::sim {

/// How copies of a graph's ops relate: `width` copies of every op, and per op the groups of copies
/// that start it together.
struct ReplayLayout {
  /// A partition of the copies [0, width) into groups that start together; groups of one copy are
  /// left out. members[offsets[g] .. offsets[g + 1]) is group g.
  struct Partition {
    std::vector<std::uint32_t> offsets{0};
    std::vector<std::uint32_t> members;
    std::size_t group_count() const { return offsets.size() - 1; }
  };
  static constexpr std::uint32_t kNoPartition = 0xffffffffu;

  std::uint32_t width = 1;
  std::vector<std::uint32_t> op_partition;  ///< per op: index into partitions, or kNoPartition
  std::vector<Partition> partitions;

  /// Copies of an op that take `factor` times the op's run duration (a transfer whose group a
  /// degraded link reaches, where the run priced a healthy group). Copies of one group that starts
  /// together carry the same factor.
  struct CopyScale {
    std::uint32_t copy = 0;
    double factor = 1.0;
  };
  /// Empty when no op is scaled; else op count + 1 offsets into `scales`, which lists op `op`'s
  /// scaled copies at [scale_begin[op], scale_begin[op + 1]).
  std::vector<std::uint32_t> scale_begin;
  std::vector<CopyScale> scales;
};

/// One op of one copy on a replayed critical path.
struct ReplayLink {
  OpId op = 0;
  std::uint32_t copy = 0;
  Time start{};
  Time end{};
  Time nominal{};  ///< the op's duration in the run
};

struct ReplayResult {
  Time makespan{};
  std::uint64_t instances = 0;  ///< op copies replayed
  /// The chain of op copies that made the makespan, first to last (empty unless asked for).
  std::vector<ReplayLink> critical;
};

/// A graph, one run of it and the layout of its copies, prepared for replaying many times.
/// `graph`, `run` and the layout must outlive it. Not thread-safe: one per thread.
class Replay {
 public:
  /// Throws std::invalid_argument when the layout does not fit the graph (op count, width, a
  /// partition naming a copy past the width) or the run is not of this graph.
  Replay(const StepGraph& graph, const RunResult& run, const ReplayLayout& layout);
  Replay(StepGraph&&, const RunResult&, const ReplayLayout&) = delete;

  /// Replays every copy. `variation` (null for none) varies the kernels of copy j of an op on
  /// processor p through row p x width + j of its per-processor tables; its draws are keyed by
  /// (op, copy). With `critical_path`, also walks back the chain that ended last.
  ReplayResult run(const Variation* variation, bool critical_path);

  /// The duration of op `op` of copy `copy` under `variation` (null: the run's): its run duration
  /// x the copy's row factor x its jitter x its row's clock wander in the window the op started in
  /// during the run, plus a stall if the copy draws one (Variation::stalls_of
  /// with key(op, copy)); a transfer's run duration x the layout's scale for the copy.
  Time duration(OpId op, std::uint32_t copy, const Variation* variation);
  std::uint32_t width() const { return width_; }
  /// The key of copy `copy` of op `op`'s stall draw (Variation::stalls_of).
  std::uint64_t key(OpId op, std::uint32_t copy) const {
    return static_cast<std::uint64_t>(op) * width_ + copy;
  }
  /// Copy `copy` of op `op`'s lognormal jitter factor (mean 1, sigma `sigma` of its log) in the run
  /// whose draws are seeded `seed`: entry (offset(op, seed) + copy) mod 2^20 of a table of the
  /// distribution's 2^20 quantiles at (i + 0.5) / 2^20, in a fixed shuffled order. Copies of one op
  /// take distinct quantiles; ops take independent offsets. The tail past the 1-in-2-million
  /// quantile (4.9 sigma) is not drawn.
  double jitter(OpId op, std::uint32_t copy, std::uint64_t seed, double sigma);
  static constexpr std::size_t kJitterTable = std::size_t{1} << 20;
  /// Ops whose times are held at once (the most that are live at one point of the order).
  std::size_t live_ops() const { return slot_count_; }
  /// Bytes the replay holds: its per-copy times, critical-predecessor marks and per-op tables.
  std::size_t memory_bytes() const;

 private:
  const StepGraph& graph_;
  const ReplayLayout& layout_;
  std::uint32_t width_ = 1;
  std::vector<OpId> order_;                ///< a topological order of the ops
  std::vector<std::uint32_t> pred_begin_;  ///< per op + 1: offsets into preds_
  std::vector<OpId> preds_;                ///< explicit dependencies and stream predecessors
  std::vector<Time> nominal_;              ///< per op: its duration in the run
  /// Per op: its start in the run, which picks the clock-wander window of every copy (a copy's own
  /// start differs by the delays variation added before it: a fraction of a window where the wander
  /// is small, and duration() stays a function of the op and copy that walk_back can invert).
  std::vector<Time> nominal_start_;
  std::vector<std::uint8_t> varies_;       ///< per op: a kernel (compute or memory), which variation scales
  std::vector<std::uint8_t> sink_;  ///< per op: nothing follows it (the makespan is the latest such end)
  /// Ends are held only while an op still has a successor to start: op `op` writes slot
  /// slot_[op], which ops later in the order reuse once its last successor has started.
  std::vector<std::uint32_t> slot_;
  std::size_t slot_count_ = 0;
  std::vector<Time> ends_;  ///< slot x copy, slot-major
  /// Per synchronised op (sync_begin_ offsets, one entry per group): the group's start and the
  /// member that was ready last, kept so that one copy's times can be computed again alone.
  std::vector<std::uint32_t> sync_begin_;
  std::vector<Time> sync_start_;
  std::vector<std::uint32_t> sync_member_;
  /// Per op x copy (op-major), when a run walks its critical path: which predecessor (its index in
  /// the op's list; kCritFar from 255 on) ended last. One byte per op per copy, allocated by the
  /// first such run and reused.
  std::vector<std::uint8_t> crit_;
  static constexpr std::uint8_t kCritFar = 255;
  /// Per partition, per copy: the group holding it, or kNoGroup.
  std::vector<std::vector<std::uint32_t>> group_of_copy_;
  static constexpr std::uint32_t kNoGroup = 0xffffffffu;
  std::vector<double> jitter_table_;  ///< kJitterTable factors for jitter_sigma_, shuffled
  double jitter_sigma_ = 0.0;
  void prepare_jitter(double sigma);
  std::size_t jitter_offset(OpId op, std::uint64_t seed) const {
    return static_cast<std::size_t>(mix_seed(seed, op)) & (kJitterTable - 1);
  }

  /// Every op's end for copy `copy` alone, from the synchronised starts of the last run.
  void copy_ends(std::uint32_t copy, const Variation* variation, std::vector<Time>& out);
  void collect_predecessors();
  /// Fills order_ and returns the successor lists (CSR) through `succ_begin` and `succ`.
  void order_ops(std::vector<std::uint32_t>& succ_begin, std::vector<OpId>& succ);
  void assign_slots(const std::vector<std::uint32_t>& succ_begin, const std::vector<OpId>& succ);
  void index_groups();
  /// The times of op `op`'s copies (its slot).
  Time::rep* ends_of(OpId op) {
    return reinterpret_cast<Time::rep*>(ends_.data()) + static_cast<std::size_t>(slot_[op]) * width_;
  }
  const Time::rep* ends_of(OpId op) const {
    return reinterpret_cast<const Time::rep*>(ends_.data()) + static_cast<std::size_t>(slot_[op]) * width_;
  }
  void ready_times(OpId op, Time::rep* e, std::uint8_t* crit) const;
  void synchronise(OpId op, Time::rep* e);
  void add_durations(OpId op, Time::rep* e, const Variation* variation, bool stalls);
  /// Per row (processor x width + copy), in a run with clock wander: the window of its last draw and
  /// the factor drawn, so that the kernels of one window take one draw (Variation::wander is a pure
  /// function of seed, row and window: the cache changes no result). Reset by every run.
  struct WanderDraw {
    std::uint64_t window = ~std::uint64_t{0};
    double factor = 1.0;
  };
  std::vector<WanderDraw> wander_cache_;
  double wander(const Variation& v, std::size_t row, Time at);
  /// Op `op`'s run duration for copy `copy`, with the layout's scale (ReplayLayout::scales).
  Time scaled_nominal(OpId op, std::uint32_t copy) const;
  std::vector<ReplayLink> walk_back(OpId op, std::uint32_t copy, Time end, const Variation* variation);
};

}  // namespace stepsim::sim
