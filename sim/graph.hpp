#pragma once
// The step graph: an immutable DAG of operations placed on streams.
//
// `sim` knows nothing about GPUs or transformers. An op is work on one or more streams; a stream
// belongs to a processor (a GPU, to the layers above). Ops on one stream run one at a time in the
// order they were added (like a CUDA stream); ops on different streams overlap. An op that lists
// several streams (a collective across represented ranks, a send/recv pair) starts only when it is
// at the head of every one of them and all its dependencies have finished: that is how collectives
// synchronise their ranks, and how the slowest rank delays its peers.
//
// Build with StepGraphBuilder, then call build() once; the resulting StepGraph never changes and
// can be shared by concurrent runs. Per-run state lives in the Engine.
//
// Storage is sized for millions of ops: a 16-byte execution view per op (all the engine reads)
// apart from a 24-byte info record (labels, figures); flat stream lists holding, per (op, stream)
// entry, the stream and the next op on it; explicit dependencies in a Boost compressed-sparse-row
// graph (bidirectional, 32-bit indices: 8 bytes per op and 12 per edge). Stream order follows
// insertion, which is op-id order, so it costs no dependency edges: 60 bytes per single-stream op
// plus 12 per dependency.

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
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
  copy,     ///< copy-engine channel: transfers here take no SMs, so compute keeps its speed
};

/// One operation, as the builder describes it. The streams it occupies are given to add_op.
struct Op {
  OpKind kind = OpKind::compute;
  BoundTag bound = kBoundNone;  ///< for compute/memory/delay ops: the builder's roofline verdict
  LabelId label = 0;            ///< index into the label table (names for traces); 0 = ""
  Time work{};                  ///< compute/memory/delay: duration at full processor speed (>= 0)
  std::uint32_t payload = 0;    ///< transfer: index into the network's transfer table; else unused
  std::uint32_t tag = 0;        ///< free for the builder (e.g. a packed op-class/layer code)
  double flops = 0.0;           ///< informational, for reports and traces
  double bytes = 0.0;           ///< informational: HBM bytes (compute/memory) or payload bytes (transfer)
  /// compute: the share of its processor the op leaves to others, [0, 1) (the builder's: SMs
  /// kept for communication kernels): it runs at most at 1 - sm_margin of full speed, and
  /// communication taking no more than that share does not slow it.
  double sm_margin = 0.0;
};

/// An SM margin's integer unit in OpExec (2^-16 of the SMs).
inline constexpr double kSmMarginUnit = 1.0 / 65536.0;

/// The part of an op the engine reads while running, 16 bytes, stored apart from the rest so
/// that the event loop's working set stays small.
struct OpExec {
  Time work{};
  std::uint32_t aux = 0;  ///< transfer: the payload; other kinds: the processor of the first stream
  OpKind kind = OpKind::compute;
  BoundTag bound = kBoundNone;
  std::uint16_t sm_margin = 0;  ///< Op::sm_margin in units of kSmMarginUnit
};
static_assert(sizeof(OpExec) == 16, "the event loop's per-op record stays 16 bytes");

/// The rest of an op: names and figures for reports, never read by the engine.
struct OpInfo {
  LabelId label = 0;
  std::uint32_t tag = 0;
  double flops = 0.0;
  double bytes = 0.0;
};

struct Processor {
  /// Fraction of compute throughput lost while at least one transfer runs on one of this processor's
  /// comm streams (SMs taken by communication kernels). 0 = no interference; must be in [0, 1).
  double comm_slowdown = 0.0;
  /// Compute ops of this processor's several compute streams share it: n running at once each
  /// progress at 1/n of its speed (two micro-batches' kernels sharing the SMs). false: compute
  /// streams are independent (one compute stream per processor, or streams that model no SMs).
  bool share_compute = false;
  /// The share comm_slowdown stands for is held for the whole run: compute runs at
  /// 1 - comm_slowdown whether or not a transfer runs (transfers re-time nothing unless
  /// comm_interference > 1 slows it further while they run).
  bool reserved_comm = false;
  /// Compute slows by this factor more while a transfer runs (contention beyond the SMs taken);
  /// >= 1, 1 = none. It applies only while a transfer runs, also when reserved_comm holds the SMs.
  double comm_interference = 1.0;
  /// The share taken by the communication kernels of streams marked `alt_comm` (a library that
  /// holds another number of SMs than the rest, DeepEP beside NCCL); < 0: those streams take
  /// comm_slowdown too. While transfers of both kinds run, the larger share holds.
  double alt_comm_slowdown = -1.0;
  /// Each transfer takes the share of the processor its own kernels hold (Network::sm_share), and
  /// transfers running at once add their shares: compute runs at
  /// (1 - the sum) / comm_interference. Transfers of unknown share take comm_slowdown, once however
  /// many of them run; those on alt_comm streams alt_comm_slowdown each. Not with reserved_comm.
  /// false: the share of the kind running, as above.
  bool transfer_shares = false;
};

struct Stream {
  ProcessorId processor = 0;
  StreamRole role = StreamRole::compute;
  LabelId label = 0;      ///< e.g. "gpu3.compute", "gpu3.comm.tp"
  bool alt_comm = false;  ///< a comm stream whose transfers take the processor's alt_comm_slowdown
};

/// Explicit dependencies: an edge before -> after. Vertices are OpIds.
using DependencyGraph =
    boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property, boost::no_property,
                                       boost::no_property, OpId, std::uint32_t>;

class StepGraph;

/// Accumulates processors, streams, ops and dependencies; build() freezes them into a StepGraph.
/// Misuse (unknown ids, an op without streams, a slowdown outside [0, 1)) throws std::invalid_argument.
class StepGraphBuilder {
 public:
  StepGraphBuilder();

  /// Pre-sizes the tables for bulk building; optional.
  void reserve(std::size_t ops, std::size_t op_stream_entries, std::size_t dependencies);
  ProcessorId add_processor(Processor p);
  /// `alt_comm`: a comm stream of a processor with an alt_comm_slowdown whose transfers take that
  /// share (std::invalid_argument otherwise).
  StreamId add_stream(ProcessorId processor, StreamRole role, std::string_view label, bool alt_comm = false);
  /// Interns a label string; identical strings share one id. Label 0 is the empty string.
  LabelId intern(std::string_view label);
  /// Adds an op occupying `streams` (at least one, no repeats), appended at the tail of each
  /// stream's order. Ids are dense and increase in call order.
  OpId add_op(const Op& op, std::span<const StreamId> streams);
  /// Convenience for the common single-stream case.
  OpId add_op(const Op& op, StreamId stream) { return add_op(op, std::span<const StreamId>(&stream, 1)); }
  /// `after` may start only once `before` has finished. Self-edges and duplicates are ignored.
  void add_dependency(OpId before, OpId after);
  /// `after` depends on each op in `before`.
  void add_dependencies(std::span<const OpId> before, OpId after);

  std::size_t op_count() const { return exec_.size(); }
  std::size_t processor_count() const { return processors_.size(); }
  std::size_t stream_count() const { return streams_.size(); }

  /// Freezes the graph. Throws std::logic_error naming the ops of a cycle if dependencies and stream
  /// order together are not acyclic (such a graph could never finish).
  StepGraph build() &&;

 private:
  std::vector<Processor> processors_;
  std::vector<Stream> streams_;
  std::vector<std::string> labels_;
  /// Transparent hashing: `intern` looks a string_view up without building a std::string (one
  /// label per op is interned, most of them already known).
  struct LabelHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, LabelId, LabelHash, std::equal_to<>>
      label_index_;  // lookups only, never iterated
  std::vector<OpExec> exec_;
  std::vector<OpInfo> info_;
  std::vector<std::uint32_t> op_stream_begin_;  // ops + 1 offsets into op_streams_
  std::vector<StreamId> op_streams_;
  std::vector<std::pair<OpId, OpId>> edges_;  // before, after
};

/// The frozen step graph. Cheap to read from many threads at once.
class StepGraph {
 public:
  std::size_t op_count() const { return exec_.size(); }
  std::size_t stream_count() const { return streams_.size(); }
  std::size_t processor_count() const { return processors_.size(); }
  std::size_t dependency_count() const { return num_edges(deps_); }

  /// The op as the builder described it (reassembled from the tables below).
  Op op(OpId id) const;
  /// What the engine needs to execute op `id`.
  const OpExec& exec(OpId id) const { return exec_[id]; }
  const OpInfo& info(OpId id) const { return info_[id]; }
  const Stream& stream(StreamId id) const { return streams_[id]; }
  const Processor& processor(ProcessorId id) const { return processors_[id]; }
  /// The processor an op's work is charged to: that of its first stream.
  ProcessorId processor_of(OpId id) const {
    return exec_[id].kind == OpKind::transfer ? streams_[op_streams_[op_stream_begin_[id]]].processor
                                              : exec_[id].aux;
  }

  /// The streams an op occupies, in the order given to add_op.
  std::span<const StreamId> streams_of(OpId id) const {
    return {op_streams_.data() + op_stream_begin_[id], op_streams_.data() + op_stream_begin_[id + 1]};
  }
  /// Parallel to streams_of(id): for each of those streams, the op after `id` on it, or kNoOp.
  std::span<const OpId> next_on_streams(OpId id) const {
    return {op_stream_next_.data() + op_stream_begin_[id], op_stream_next_.data() + op_stream_begin_[id + 1]};
  }
  /// The first op of a stream, or kNoOp if it has none.
  OpId first_on(StreamId id) const { return stream_first_[id]; }
  /// The op after `id` on `stream` (which `id` must occupy), or kNoOp.
  OpId next_on(OpId id, StreamId stream) const;
  /// The ops of a stream in execution order (increasing op id). Walks the stream: O(its length).
  std::vector<OpId> ops_on(StreamId id) const;

  /// Ops that explicitly depend on `id`, in ascending id order.
  std::span<const OpId> successors(OpId id) const {
    const auto [first, last] = adjacent_vertices(id, deps_);
    return {first, last};
  }
  std::uint32_t dependency_in_degree(OpId id) const { return in_degree(id, deps_); }
  /// Calls f(OpId) for each explicit dependency of `id`, in ascending id order.
  template <class F>
  void for_each_dependency(OpId id, F&& f) const {
    for (auto [it, end] = in_edges(id, deps_); it != end; ++it) f(static_cast<OpId>(source(*it, deps_)));
  }
  /// The dependency graph for Boost.Graph algorithms.
  const DependencyGraph& dependencies() const { return deps_; }

  std::string_view label(OpId id) const { return labels_[info_[id].label]; }
  std::string_view label_text(LabelId id) const { return labels_[id]; }
  std::size_t label_count() const { return labels_.size(); }
  /// `op 12 "L3.fwd.qkv mb0" on [gpu3.compute]`, for error messages.
  std::string describe(OpId id) const;

  bool has_transfers() const { return transfer_count_ > 0; }
  /// Ops of kind transfer.
  std::size_t transfer_count() const { return transfer_count_; }
  /// Bytes held by the graph's tables (capacity, not counting the vector headers).
  std::size_t memory_bytes() const;

  static constexpr OpId kNoOp = 0xffffffffu;

 private:
  friend class StepGraphBuilder;
  friend class StreamPredecessors;
  StepGraph() = default;

  std::vector<Processor> processors_;
  std::vector<Stream> streams_;
  std::vector<std::string> labels_;
  std::vector<OpExec> exec_;
  std::vector<OpInfo> info_;
  std::vector<std::uint32_t> op_stream_begin_;
  std::vector<StreamId> op_streams_;
  std::vector<OpId> op_stream_next_;  // parallel to op_streams_: the next op on that stream
  std::vector<OpId> stream_first_;    // per stream
  DependencyGraph deps_;
  std::size_t transfer_count_ = 0;
};

/// The op before each op on each of its streams, which the graph does not store (the engine only
/// walks forward). One pass over the graph; 4 bytes per (op, stream) entry.
class StreamPredecessors {
 public:
  /// `graph` must outlive this table.
  explicit StreamPredecessors(const StepGraph& graph);
  StreamPredecessors(StepGraph&& graph) = delete;
  /// Parallel to graph.streams_of(id): the op before `id` on each of its streams, or kNoOp.
  std::span<const OpId> of(OpId id) const {
    return {previous_.data() + begin_[id], previous_.data() + begin_[id + 1]};
  }

 private:
  const std::uint32_t* begin_;  // the graph's entry offsets (its buffer survives moves of the graph)
  std::vector<OpId> previous_;
};

}  // namespace stepsim::sim
