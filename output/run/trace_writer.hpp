#pragma once
// A simulated step as a Chrome trace (the JSON trace-event format that ui.perfetto.dev and
// chrome://tracing open): a process per node, a thread per GPU stream, one complete event per op
// with its FLOPs, bytes and bounding resource, the critical path as a track of its own and as flow
// arrows between the selected ranks' ops on it, and counter tracks for memory in use per GPU and
// link utilisation per tier. Written as it goes through a small buffer, so traces larger than
// memory are fine; the same step gives the same bytes.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>

#include "output/run/step_sink.hpp"

namespace stepsim::out {

/// What the trace says about itself (its `otherData`).
struct TraceMeta {
  std::string scenario;
  std::string version;  ///< stepsim version
};

class ChromeTraceWriter final : public StepSink {
 public:
  /// Writes to `out`, which must outlive the writer; call emit_step() (or the sink calls) once.
  ChromeTraceWriter(std::ostream& out, const work::Simulation& s, TraceMeta meta);
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;
  ~ChromeTraceWriter() override;

  void begin(const StepLayout& layout) override;
  void critical_path(const std::vector<CriticalStep>& path) override;
  void op(const OpRow& row) override;
  void memory(const MemoryRow& row) override;
  void tier_load(const TierLoad& row) override;
  void link_load(const topo::LinkLoadChange&) override {}  // traces show tiers, not single links
  void end() override;

  /// Events written so far (metadata included).
  std::uint64_t events() const { return events_; }

 private:
  void event_begin();
  void write_other_data(const StepLayout& layout);
  void name_tracks(const StepLayout& layout);
  void slice_head(const RankRow& rank, const LaneRow& lane, const OpRow& row);
  void flush_if_full();
  void flush_all();
  void write_memory(const MemoryRow& row);
  void flush_memory();

  std::ostream& out_;
  const work::Simulation& sim_;
  TraceMeta meta_;
  std::string buf_;
  std::uint64_t events_ = 0;
  bool network_named_ = false;
  std::optional<MemoryRow> pending_memory_;
  /// Ops of the critical path that carry a flow arrow: the chain's id, and whether the arrow
  /// arrives at the op (flow_in) and leaves it (flow_out).
  struct Flow {
    std::uint32_t id = 0;
    bool in = false, out = false;
  };
  std::unordered_map<sim::OpId, Flow> flows_;
};

/// The trace of `s` for the ranks in `layout`, written to `out` in one call.
void write_chrome_trace(std::ostream& out, const work::Simulation& s, const StepLayout& layout,
                        const TraceMeta& meta);

}  // namespace stepsim::out
