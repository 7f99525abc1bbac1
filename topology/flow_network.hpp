#pragma once
// The flow-level network: sim::Network over a TransferTable and a max-min fair solver.
//
// Every link direction some pattern crosses is a solver constraint (capacity = line rate), one per
// set of twin links (TransferTable::solver_pattern: links every pattern crosses alike). Starting a
// transfer runs its phases in order: a latency timer, then one solver variable per bandwidth flow
// of the phase (a coupled collective is a single variable whose coefficients count its unit flows
// on each link). Rates stay constant between events, so each flow's completion time is known
// exactly; the network reports the earliest pending completion or timer to the engine.
//
// One FlowNetwork holds the state of one run; the table and topology are shared, read-only.
// Attribution: each phase's latency counts as Resource::latency; its bandwidth time goes to the
// resource of the link that limited its last-finishing flow, split by how long each link kind did.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/network.hpp"
#include "topology/maxmin.hpp"
#include "topology/resource.hpp"
#include "topology/topology.hpp"
#include "topology/transfer_table.hpp"

namespace stepsim::topo {

enum class LinkAccounting : std::uint8_t {
  off,     ///< no per-link bookkeeping (fastest)
  totals,  ///< bytes carried per link, including protocol overhead (link_bytes())
  /// totals, plus how loads change over time (timeline()): per tier, per watched link, and each
  /// link's peak and busy time. Costs a solver load query per link of each re-solved flow.
  timeline,
};

/// A link's load from `time` until its next change: the sum over the flows crossing it of
/// coefficient x rate, in line-rate bytes per second (protocol overhead included), so load /
/// Link::bw_Bps is its utilisation.
struct LinkLoadChange {
  Time time{};
  LinkId link = 0;
  double load_Bps = 0.0;
};

/// A link tier's load from `time` until its next change.
struct TierLoadChange {
  Time time{};
  LinkKind tier = LinkKind::nvlink;
  double load_Bps = 0.0;           ///< summed over the tier's links
  double busy_capacity_Bps = 0.0;  ///< line rate of the tier's links that carry any load
};

/// One link over a run.
struct LinkStats {
  double peak_load_Bps = 0.0;
  Time busy{};  ///< time with a non-zero load
};

/// What LinkAccounting::timeline records. Changes are in time order, at most one per (time, link)
/// or (time, tier); everything starts at zero load.
struct LinkTimeline {
  std::vector<TierLoadChange> tiers;
  std::vector<LinkLoadChange> watched;  ///< only FlowNetworkOptions::watched links
  std::vector<LinkStats> stats;         ///< per link (indexed by LinkId)
};

struct FlowNetworkOptions {
  LinkAccounting accounting = LinkAccounting::off;
};

class FlowNetwork final : public sim::Network {
 public:
  explicit FlowNetwork(std::shared_ptr<const TransferTable> table, FlowNetworkOptions options = {});

  void reserve(std::size_t ops, std::size_t transfers) override;
  void start(sim::OpId op, std::uint32_t payload, Time now) override;
  Time next_event_time() const override;
  void advance_to(Time now, std::vector<sim::OpId>& completed) override;
  void attribution(sim::OpId op, std::vector<sim::BoundShare>& out) const override;
  /// The running transfer's current phase: its latency, or its slowest flow's rate and limiter.
  std::string describe_transfer(sim::OpId op) const override;
  /// The transfer's kernel CTAs (TransferInfo::ctas) over the GPU's SMs; -1 where either is unknown.
  double sm_share(std::uint32_t payload) const override;

  /// Wire bytes each link has carried so far, indexed by LinkId (empty unless accounting is on).
  std::span<const double> link_bytes() const { return link_bytes_; }
  /// With timeline accounting, keeps every load change of these links as well (a full history of
  /// every link of a large cluster would be far bigger than the step graph). Call before start().
  void watch(std::span<const LinkId> links);
  /// The load history with every link's stats; the network must not run afterwards.
  LinkTimeline take_timeline();
  /// Transfers started and not yet completed.
  std::size_t active_transfers() const { return active_count_; }
  const TransferTable& table() const { return *table_; }

 private:
  static constexpr std::size_t kResources = static_cast<std::size_t>(Resource::count);
  using Shares = std::array<Time, kResources>;
  // Events' target: the active slot, or the solver variable for flow_done, whose generation
  // matches Flow::generation while still valid. Equal times pop in push order (sim::EventQueue).
  enum class EventKind : std::uint8_t { phase_ready, flow_done, transfer_done };
  struct Active {
    sim::OpId op = 0;
    std::uint32_t payload = 0;
    std::uint32_t phase = 0;
    std::uint32_t flows_left = 0;
    Shares shares{};
    Shares last_flow{};  // time_by of the phase's most recently finished flow
  };
  struct Flow {
    std::uint32_t active = 0;
    std::uint32_t pattern = 0;
    double remaining = 0.0;
    double rate = 0.0;
    Time last{};
    std::uint32_t generation = 0;
    Resource limiter = Resource::none;
    Shares time_by{};
    bool alive = false;
  };

  void push(Time t, EventKind kind, std::uint32_t target, std::uint32_t generation = 0);
  void begin_phase(std::uint32_t slot, Time now);
  void start_flows(std::uint32_t slot, Time now);
  void finish_flow(std::uint32_t var, Time now);
  void end_phase(std::uint32_t slot, Time now);
  void progress(Flow& f, Time now);
  void settle(Time now);
  void drop_stale();
  void touch_links(std::uint32_t pattern);
  void record_loads(Time now);
  struct LinkState;
  void record_link(LinkId l, LinkState& st, double load, Time now);

  std::shared_ptr<const TransferTable> table_;
  FlowNetworkOptions options_;
  MaxMinSystem sys_;
  std::vector<Resource> link_resource_;
  std::vector<Active> actives_;
  std::vector<std::uint32_t> free_actives_;
  std::size_t active_count_ = 0;
  std::vector<Flow> flows_;  // indexed by solver variable id
  sim::BasicEventQueue<EventKind> events_;
  /// One resource's non-zero share of a completed transfer's time.
  struct CompletedShare {
    Time duration{};
    sim::OpId op = 0;
    Resource resource = Resource::none;
  };
  /// For attribution: completed transfers' shares in completion order, each transfer's together
  /// and by resource (two for most: latency and the links that limited it), and per op id where
  /// its shares begin (kNotCompleted for other ops). Sized once by reserve(): a hash map with a
  /// node per transfer cost a tenth of a DeepSeek-V3 step on 1,024 GPUs (allocating, probing,
  /// rehashing, freeing), for about the memory of this 4-byte index per op.
  std::vector<CompletedShare> completed_;
  std::vector<std::uint32_t> first_share_;
  static constexpr std::uint32_t kNotCompleted = 0xffffffffu;
  std::vector<double> link_bytes_;
  // Timeline accounting (link_state_ empty when off).
  struct LinkState {  // one cache line's worth per link: what record_loads() reads and writes
    double load = 0.0, peak = 0.0, bw = 0.0;
    Time since{}, busy{};
    std::uint32_t last_watched = MaxMinSystem::kNone;  // index of its latest record
    LinkKind kind = LinkKind::nvlink;
    bool watched = false, touched = false;
  };
  struct TierState {
    double load = 0.0, busy_capacity = 0.0;
    std::uint32_t busy_links = 0;
    std::uint32_t last = MaxMinSystem::kNone;  // index of its latest record
    bool touched = false;
  };
  std::vector<LinkState> link_state_;
  std::vector<LinkId> touched_;  // links whose load may have changed since record_loads()
  std::array<TierState, kLinkKindCount> tier_{};
  LinkTimeline timeline_;
};

/// Runs `payloads` (op ids 0, 1, ...) all started at `start` on `net`, with no engine: returns
/// each one's completion time. For tools and tests that exercise the network alone. Throws
/// time_range_error() if a transfer would end past the simulator's time range.
std::vector<Time> run_transfers(FlowNetwork& net, std::span<const std::uint32_t> payloads, Time start = {});

}  // namespace stepsim::topo
