#pragma once
// The engine: executes a StepGraph in simulated time, deterministically.
//
// Time advances from event to event. The engine's own events (fixed-duration ops finishing) sit in
// an EventQueue; transfers belong to the injected Network, which reports its next internal event.
// Each step the engine takes the earlier of the two, lets the network complete what finishes then,
// and pops its own events at that instant; finishing ops release their dependents and stream
// successors, which start at once. Equal-time events are ordered by sequence number, so two runs of
// the same graph and network produce identical records.
//
// Compute ops run at full speed unless a transfer is active on one of their processor's comm
// streams; then they run at (1 - comm_slowdown) / comm_interference (with reserved_comm, at
// 1 - comm_slowdown when none is; a stream marked alt_comm takes alt_comm_slowdown instead, and
// the larger share holds while both kinds run). A compute op with an SM margin m (Op::sm_margin)
// runs at most at 1 - m, and the communication share only slows it beyond m. When that activity
// switches on or off, every compute op running on the processor is re-timed: the work it has left
// is kept in double picoseconds, and its new completion is rounded up to the next picosecond.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/graph.hpp"
#include "sim/network.hpp"
#include "sim/observer.hpp"
#include "sim/run_result.hpp"
#include "sim/variation.hpp"

namespace stepsim::sim {

class Engine {
 public:
  /// `network` executes the transfer ops and is required iff the graph has any (std::logic_error
  /// otherwise). Neither graph nor network is owned; both must outlive the engine, and the network
  /// must be fresh (one Network instance holds the state of one run).
  explicit Engine(const StepGraph& graph, Network* network = nullptr);
  /// The engine keeps a reference: a temporary graph would dangle.
  Engine(StepGraph&& graph, Network* network = nullptr) = delete;

  /// Receives op starts and ends as they happen; null (the default) for none. Not owned.
  void set_observer(RunObserver* observer) { observer_ = observer; }
  /// Varies this run's kernel durations (sim/variation.hpp); null (the default) for none. Not owned.
  void set_variation(const Variation* variation) { variation_ = variation; }

  /// Executes the graph from time 0 to the last op's end. May be called once per Engine. Throws
  /// std::logic_error, naming stuck ops and their streams, if ops remain but nothing can happen, and
  /// time_range_error() (a UserError) if an op would end past kTimeRangeEnd (about 106 days).
  RunResult run();

 private:
  /// Per-op run state, 8 bytes, kept together because the event loop touches all of it at once.
  struct OpState {
    /// Before the op starts: its explicit dependencies not yet finished plus the streams where it
    /// is not yet at the head (it starts at 0); then kRunning, and kFinished once done. Nothing
    /// counts down a started op, so one word holds both.
    std::uint32_t waiting = 0;
    std::uint32_t generation = 0;  ///< bumping it cancels the op's queued end event
  };
  struct RunningCompute {
    OpId op = 0;
    double remaining_ps = 0.0;  ///< full-speed work left as of `since`
    Time since{};
    double rate = 1.0;    ///< the speed it progresses at since `since`
    double margin = 0.0;  ///< Op::sm_margin
  };
  struct ProcessorState {
    std::uint32_t active_transfers = 0;   ///< transfer ops occupying this processor's comm streams
    std::uint32_t active_alt = 0;         ///< those of them on alt_comm streams
    /// Processor::transfer_shares: the summed shares of the running transfers whose share is
    /// known, in units of kShareUnit (integers, so that adding and removing them is exact), and
    /// how many run whose share is not.
    bool transfer_shares = false;
    std::int64_t known_share_units = 0;
    std::uint32_t active_unknown = 0;
    double default_share = 0.0;  ///< Processor::comm_slowdown
    double alt_share = 0.0;      ///< Processor::alt_comm_slowdown (>= 0), or comm_slowdown
    double interference = 1.0;   ///< Processor::comm_interference
    /// Compute speed while communication runs: (1 - comm_slowdown) / comm_interference.
    double busy = 1.0;
    /// While only alt_comm streams' transfers run: (1 - alt_comm_slowdown) / comm_interference.
    double busy_alt = 1.0;
    /// Compute speed while none runs: 1, or 1 - comm_slowdown where the SMs stay reserved.
    double idle = 1.0;
    bool share = false;                   ///< Processor::share_compute
    std::vector<RunningCompute> running;  ///< only tracked when tracks()
    /// Whether communication starting or stopping changes the compute speed.
    bool comm_retimes() const { return busy != idle || busy_alt != idle || transfer_shares; }
    /// Whether its compute ops' speed can change while they run, so they are kept in `running`.
    bool tracks() const { return comm_retimes() || share; }
    /// The compute speed the running transfers leave: with transfer_shares their shares summed
    /// (unknown ones once); else the larger share holds when both kinds run.
    /// A kernel that leaves `margin` of the SMs to others (Op::sm_margin) runs on the rest: the
    /// transfers' share slows it only beyond the margin.
    double comm_rate(double margin = 0.0) const {
      if (active_transfers == 0) return std::min(idle, 1.0 - margin);
      if (transfer_shares) {
        const double share =
            static_cast<double>(known_share_units) * kShareUnit + (active_unknown > 0 ? default_share : 0.0);
        return (1.0 - std::min(std::max(share, margin), kMaxShare)) / interference;
      }
      const double r = active_alt == 0                  ? busy
                       : active_alt == active_transfers ? busy_alt
                                                        : std::min(busy, busy_alt);
      return margin > 0.0 ? std::min(r, (1.0 - margin) / interference) : r;
    }
    /// The speed a running compute op with SM margin `margin` progresses at now.
    double rate(double margin = 0.0) const {
      const double r = comm_rate(margin);
      return share && running.size() > 1 ? r / static_cast<double>(running.size()) : r;
    }
  };
  /// A share's integer unit (2^-24 of the SMs) and the most the summed shares may take (compute keeps
  /// at least 5% of its SMs whatever runs beside it).
  static constexpr double kShareUnit = 1.0 / 16777216.0;
  static constexpr double kMaxShare = 0.95;
  static constexpr std::uint32_t kRunning = 0;
  static constexpr std::uint32_t kFinished = 0xffffffffu;

  void initialise();
  void step(Time network_next);
  void start(OpId id);
  void finish(OpId id);
  void start_compute(OpId id, const OpExec& op, Time work);
  void untrack_compute(OpId id);
  void start_transfer(OpId id, const OpExec& op);
  void finish_transfer(OpId id);
  void change_comm_activity(OpId transfer, int delta);
  /// Re-times the running compute ops of `p`: each progressed at its own rate since it was last
  /// timed and progresses at p.rate(its margin) from now.
  void retime(ProcessorState& p);
  /// Brings the remaining work of `p`'s running compute ops to now, each at its own rate.
  void settle(ProcessorState& p);
  /// Schedules the end of each of `p`'s running compute ops at p.rate(its margin).
  void reschedule(ProcessorState& p);
  /// Queues the end of `id` after `duration`; an end past the time range is queued at
  /// kTimeRangeEnd, where run() stops with time_range_error() if it is still current then.
  void schedule(OpId id, Time duration) {
    queue_.push(saturating_add(now_, duration), EventKind::op_end, id, state_[id].generation);
  }
  /// run() reached kTimeRangeEnd: throws time_range_error() naming the op that would end past it,
  /// or returns after dropping cancelled events if nothing current waits there.
  void check_time_range(Time network_next);
  [[noreturn]] void throw_deadlock() const;
  std::string stuck_state(OpId id) const;

  const StepGraph& graph_;
  Network* network_;
  RunObserver* observer_ = nullptr;
  const Variation* variation_ = nullptr;
  bool ran_ = false;

  Time now_{};
  Time network_time_{};  ///< the last time the network was advanced to
  Time last_end_{};      ///< the latest op end so far: the makespan once the run is over
  EventQueue queue_;
  std::vector<OpRecord> records_;
  std::vector<OpState> state_;
  std::vector<ProcessorState> processors_;
  std::vector<OpId> completed_;     ///< scratch for Network::advance_to
  std::vector<BoundShare> shares_;  ///< scratch for Network::attribution
  std::size_t finished_ = 0;
  RunStats stats_;
};

/// Rounds a non-negative duration in (fractional) picoseconds up to Time, treating values within
/// floating-point noise of an integer as that integer (6e6 + 1e-9 ps is 6e6 ps, not 6e6 + 1).
/// Durations past the time range saturate at kTimeRangeEnd.
Time ceil_to_time(double ps);

}  // namespace stepsim::sim
