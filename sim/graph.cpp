// StepGraphBuilder's accumulation side and StepGraph's read accessors. Freezing (build()) is in
// graph_build.cpp.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/graph.hpp"
#include "sim/memory.hpp"

namespace stepsim::sim {

namespace {
[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("step graph: " + what);
}

// Kept out of line: it is rare, and GCC 12 misreports a free-nonheap-object warning when the
// temporary vector is inlined into add_op.
[[gnu::noinline]] bool has_repeats_sorting(std::span<const StreamId> streams) {
  std::vector<StreamId> sorted(streams.begin(), streams.end());
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

bool has_repeats(std::span<const StreamId> streams) {
  constexpr std::size_t kQuadraticUpTo = 16;  // typical ops list 1-8 streams
  if (streams.size() > kQuadraticUpTo) return has_repeats_sorting(streams);
  for (std::size_t i = 0; i < streams.size(); ++i)
    for (std::size_t j = i + 1; j < streams.size(); ++j)
      if (streams[i] == streams[j]) return true;
  return false;
}

template <class T>
std::size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

StepGraphBuilder::StepGraphBuilder() {
  labels_.emplace_back();
  label_index_.emplace(std::string(), 0);
  op_stream_begin_.push_back(0);
}

void StepGraphBuilder::reserve(std::size_t ops, std::size_t op_stream_entries, std::size_t dependencies) {
  reserve_huge(exec_, ops);
  reserve_huge(info_, ops);
  reserve_huge(op_stream_begin_, ops + 1);
  reserve_huge(op_streams_, op_stream_entries);
  reserve_huge(edges_, dependencies);
}

ProcessorId StepGraphBuilder::add_processor(Processor p) {
  if (!(p.comm_slowdown >= 0.0 && p.comm_slowdown < 1.0))
    invalid("comm_slowdown must be in [0, 1), got " + std::to_string(p.comm_slowdown));
  if (!(p.comm_interference >= 1.0 && p.comm_interference <= 10.0))
    invalid("comm_interference must be in [1, 10], got " + std::to_string(p.comm_interference));
  if (std::isnan(p.alt_comm_slowdown) || p.alt_comm_slowdown >= 1.0)
    invalid("alt_comm_slowdown must be negative (none) or in [0, 1), got " +
            std::to_string(p.alt_comm_slowdown));
  processors_.push_back(p);
  return static_cast<ProcessorId>(processors_.size() - 1);
}

StreamId StepGraphBuilder::add_stream(ProcessorId processor, StreamRole role, std::string_view label,
                                      bool alt_comm) {
  if (processor >= processors_.size()) invalid("add_stream: unknown processor " + std::to_string(processor));
  if (alt_comm && (role != StreamRole::comm || processors_[processor].alt_comm_slowdown < 0.0))
    invalid("add_stream: an alt_comm stream must be a comm stream of a processor with an alt_comm_slowdown");
  streams_.push_back(Stream{processor, role, intern(label), alt_comm});
  return static_cast<StreamId>(streams_.size() - 1);
}

LabelId StepGraphBuilder::intern(std::string_view label) {
  // The map is never iterated, so its order cannot leak into results.
  if (const auto it = label_index_.find(label); it != label_index_.end()) return it->second;
  const auto id = static_cast<LabelId>(labels_.size());
  label_index_.emplace(std::string(label), id);
  labels_.emplace_back(label);
  return id;
}

OpId StepGraphBuilder::add_op(const Op& op, std::span<const StreamId> streams) {
  if (streams.empty()) invalid("add_op: an op needs at least one stream");
  if (op.label >= labels_.size()) invalid("add_op: unknown label " + std::to_string(op.label));
  if (op.work < Time::zero()) invalid("add_op: negative work");
  if (!(op.sm_margin >= 0.0 && op.sm_margin < 1.0)) invalid("add_op: sm_margin outside [0, 1)");
  if (op.sm_margin > 0.0 && op.kind != OpKind::compute) invalid("add_op: only compute ops take an sm_margin");
  if (exec_.size() >= StepGraph::kNoOp - 1) invalid("add_op: more than 2^32 - 2 ops");
  for (const StreamId s : streams)
    if (s >= streams_.size()) invalid("add_op: unknown stream " + std::to_string(s));
  // Occupying one stream twice would make the op wait on itself forever.
  if (has_repeats(streams)) invalid("add_op: a stream is listed twice");
  op_streams_.insert(op_streams_.end(), streams.begin(), streams.end());
  const std::uint32_t aux = op.kind == OpKind::transfer ? op.payload : streams_[streams.front()].processor;
  const auto margin = static_cast<std::uint16_t>(std::min(65535.0, std::round(op.sm_margin / kSmMarginUnit)));
  exec_.push_back({op.work, aux, op.kind, op.bound, margin});
  info_.push_back({op.label, op.tag, op.flops, op.bytes});
  op_stream_begin_.push_back(static_cast<std::uint32_t>(op_streams_.size()));
  return static_cast<OpId>(exec_.size() - 1);
}

void StepGraphBuilder::add_dependency(OpId before, OpId after) {
  if (before >= exec_.size() || after >= exec_.size())
    invalid("add_dependency: unknown op " + std::to_string(std::max(before, after)));
  if (before != after) edges_.emplace_back(before, after);
}

void StepGraphBuilder::add_dependencies(std::span<const OpId> before, OpId after) {
  for (const OpId b : before) add_dependency(b, after);
}

Op StepGraph::op(OpId id) const {
  const OpExec& x = exec_[id];
  const OpInfo& i = info_[id];
  return Op{x.kind, x.bound, i.label, x.work, x.kind == OpKind::transfer ? x.aux : 0,
            i.tag,  i.flops, i.bytes};
}

OpId StepGraph::next_on(OpId id, StreamId stream) const {
  const auto streams = streams_of(id);
  for (std::size_t k = 0; k < streams.size(); ++k)
    if (streams[k] == stream) return next_on_streams(id)[k];
  throw std::logic_error(describe(id) + " is not on stream " + std::to_string(stream));
}

std::vector<OpId> StepGraph::ops_on(StreamId id) const {
  std::vector<OpId> out;
  for (OpId op = stream_first_[id]; op != kNoOp; op = next_on(op, id)) out.push_back(op);
  return out;
}

StreamPredecessors::StreamPredecessors(const StepGraph& g)
    : begin_(g.op_stream_begin_.data()), previous_(g.op_streams_.size(), StepGraph::kNoOp) {
  // Stream order is op-id order: one pass remembering each stream's latest op.
  std::vector<OpId> last(g.stream_count(), StepGraph::kNoOp);
  for (OpId op = 0; op < g.op_count(); ++op) {
    for (std::uint32_t e = g.op_stream_begin_[op]; e < g.op_stream_begin_[op + 1]; ++e) {
      previous_[e] = last[g.op_streams_[e]];
      last[g.op_streams_[e]] = op;
    }
  }
}

std::string StepGraph::describe(OpId id) const {
  std::string out = "op " + std::to_string(id) + " \"" + std::string(label(id)) + "\" on [";
  bool first = true;
  for (const StreamId s : streams_of(id)) {
    if (!first) out += ", ";
    first = false;
    const std::string_view name = label_text(streams_[s].label);
    out += name.empty() ? "stream " + std::to_string(s) : std::string(name);
  }
  return out + "]";
}

std::size_t StepGraph::memory_bytes() const {
  std::size_t labels = capacity_bytes(labels_);
  for (const auto& l : labels_) labels += l.capacity() > 15 ? l.capacity() + 1 : 0;  // beyond SSO
  return labels + capacity_bytes(processors_) + capacity_bytes(streams_) + capacity_bytes(exec_) +
         capacity_bytes(info_) + capacity_bytes(op_stream_begin_) + capacity_bytes(op_streams_) +
         capacity_bytes(op_stream_next_) + capacity_bytes(stream_first_) +
         capacity_bytes(deps_.m_forward.m_rowstart) + capacity_bytes(deps_.m_forward.m_column) +
         capacity_bytes(deps_.m_backward.m_rowstart) + capacity_bytes(deps_.m_backward.m_column) +
         capacity_bytes(deps_.m_backward.m_edge_properties);
}

}  // namespace stepsim::sim
