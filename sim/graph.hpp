#pragma once
// The step graph: an immutable DAG of operations placed on streams.
//
// `sim` knows nothing about GPUs or transformers. An op is work on one or more streams; a stream
// belongs to a processor (a GPU, to the layers above). Ops on one stream run in the order they
// were added; ops on different streams overlap. An op that lists several streams (a collective
// across represented ranks, a send/recv pair) starts only when it is at the head of every one of
// them and all its dependencies have finished: that is how collectives synchronise their ranks.
//
// Build with StepGraphBuilder, then call build() once; the resulting StepGraph never changes and
// can be shared by concurrent runs. Per-run state lives in the Engine.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/units.hpp"

namespace stepsim::sim {

using OpId = std::uint32_t;
using StreamId = std::uint32_t;
using ProcessorId = std::uint32_t;
using LabelId = std::uint32_t;

/// A small resource tag saying what limited an op's duration. sim reserves kBoundDependency and
/// kBoundNone; the layers above define the rest (compute, HBM, NVLink, ...), see topology/resource.hpp.
using BoundTag = std::uint8_t;
inline constexpr BoundTag kBoundNone = 0;        ///< not yet known / zero work
inline constexpr BoundTag kBoundDependency = 1;  ///< waiting on another op (critical-path gaps)

enum class OpKind : std::uint8_t {
  compute,   ///< fixed work on a processor; slowed while communication runs on that processor
  memory,    ///< fixed-duration data movement (HBM copy, host offload); not slowed by communication
  transfer,  ///< network activity executed by the injected sim::Network; duration emerges from sharing
  delay,     ///< a fixed wait that uses no resource (launch gaps, host latency)
};

enum class StreamRole : std::uint8_t {
  compute,  ///< compute ops of a processor run here
  comm,     ///< communication channel: transfers placed here slow the processor's compute ops
};

/// One operation. Plain data; labels and stream lists are stored in the graph's side tables.
struct Op {
  OpKind kind = OpKind::compute;
  BoundTag bound = kBoundNone;  ///< for compute/memory/delay ops: the builder's roofline verdict
  Time work{};                  ///< compute/memory/delay: duration at full processor speed
  std::uint32_t payload = 0;    ///< transfer: index into the network's transfer table; else free for the builder
  LabelId label = 0;            ///< index into the label table (names for traces)
  std::uint32_t streams_begin = 0;  ///< first entry in the graph's op-stream table
  std::uint32_t streams_count = 0;  ///< number of streams this op occupies (>= 1)
  double flops = 0.0;               ///< informational, for reports and traces
  double bytes = 0.0;               ///< informational: HBM bytes (compute/memory) or payload bytes (transfer)
  std::uint32_t tag = 0;            ///< free for the builder (e.g. a packed op-class/layer code)
};

struct Processor {
  /// Fraction of compute throughput lost while at least one transfer runs on one of this processor's
  /// comm streams (SMs taken by communication kernels). 0 = no interference.
  double comm_slowdown = 0.0;
};

struct Stream {
  ProcessorId processor = 0;
  StreamRole role = StreamRole::compute;
  LabelId label = 0;  ///< e.g. "compute", "comm.tp"
};

class StepGraph;

/// Accumulates processors, streams, ops and dependencies; build() freezes them into a StepGraph.
class StepGraphBuilder {
 public:
  ProcessorId add_processor(Processor p);
  StreamId add_stream(ProcessorId processor, StreamRole role, std::string_view label);
  /// Interns a label string; identical strings share one id.
  LabelId intern(std::string_view label);
  /// Adds an op occupying `streams` (at least one), appended at the tail of each stream's order.
  OpId add_op(const Op& op, std::span<const StreamId> streams);
  /// Convenience for the common single-stream case.
  OpId add_op(const Op& op, StreamId stream);
  /// `after` may start only once `before` has finished. Self-edges and duplicates are ignored.
  void add_dependency(OpId before, OpId after);

  std::size_t op_count() const;
  /// Freezes the graph. Throws std::logic_error if a dependency cycle exists (the graph must be a DAG).
  StepGraph build() &&;

 private:
  friend class StepGraph;
  std::vector<Processor> processors_;
  std::vector<Stream> streams_;
  std::vector<std::string> labels_;
  std::vector<Op> ops_;
  std::vector<StreamId> op_streams_;
  std::vector<std::pair<OpId, OpId>> edges_;
  // label interning index lives in the .cpp (deterministic: lookups only, never iterated)
  struct LabelIndex;
  std::shared_ptr<LabelIndex> label_index_;
};

}  // namespace stepsim::sim
