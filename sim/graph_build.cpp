// StepGraphBuilder::build(): freezes the accumulated tables into a StepGraph and proves it can run.
//
// Everything here is linear in ops + edges (counting sorts, one Kahn pass) so that graphs of
// millions of ops freeze in a fraction of a second.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/graph.hpp"

namespace stepsim::sim {

namespace {

/// Sorts edges by (before, after) and drops duplicates, in O(ops + edges): a counting sort by
/// source, then a sort of each (short) row.
void sort_unique_edges(std::vector<std::pair<OpId, OpId>>& edges, std::size_t op_count) {
  std::vector<std::uint32_t> row(op_count + 1, 0);
  for (const auto& e : edges) ++row[e.first + 1];
  for (std::size_t v = 0; v < op_count; ++v) row[v + 1] += row[v];
  std::vector<OpId> targets(edges.size());
  {
    std::vector<std::uint32_t> fill(row.begin(), row.end() - 1);
    for (const auto& e : edges) targets[fill[e.first]++] = e.second;
  }
  std::size_t out = 0;
  for (std::size_t v = 0; v < op_count; ++v) {
    const auto first = targets.begin() + row[v];
    const auto last = targets.begin() + row[v + 1];
    std::sort(first, last);
    const auto unique_end = std::unique(first, last);
    for (auto it = first; it != unique_end; ++it) edges[out++] = {static_cast<OpId>(v), *it};
  }
  edges.resize(out);
}

/// Stream order made explicit: for each (op, stream) entry the op that follows on that stream,
/// and each stream's first op, so that the engine finds an op's stream successors without any
/// per-stream cursor. One pass in op order, remembering each stream's latest entry.
void link_streams(StepGraph& g, std::vector<OpId>& next, std::vector<OpId>& first,
                  const std::vector<std::uint32_t>& op_stream_begin,
                  const std::vector<StreamId>& op_streams) {
  next.assign(op_streams.size(), StepGraph::kNoOp);
  first.assign(g.stream_count(), StepGraph::kNoOp);
  constexpr std::uint32_t kNone = 0xffffffffu;
  std::vector<std::uint32_t> last_entry(g.stream_count(), kNone);
  for (OpId op = 0; op < g.op_count(); ++op) {
    for (std::uint32_t e = op_stream_begin[op]; e < op_stream_begin[op + 1]; ++e) {
      std::uint32_t& last = last_entry[op_streams[e]];
      if (last != kNone)
        next[last] = op;
      else
        first[op_streams[e]] = op;
      last = e;
    }
  }
}

/// Kahn's algorithm over dependencies plus stream order, run exactly as the engine would run the
/// graph. Returns, per op, how many predecessors never finished (all zero iff the graph can run).
std::vector<std::uint32_t> unfinished_predecessors(const StepGraph& g) {
  const std::size_t n = g.op_count();
  std::vector<std::uint32_t> waiting(n);
  for (OpId v = 0; v < n; ++v)
    waiting[v] = g.dependency_in_degree(v) + static_cast<std::uint32_t>(g.streams_of(v).size());
  std::vector<OpId> runnable;
  const auto release = [&](OpId v) {
    if (--waiting[v] == 0) runnable.push_back(v);
  };
  for (StreamId s = 0; s < g.stream_count(); ++s)
    if (g.first_on(s) != StepGraph::kNoOp) release(g.first_on(s));
  while (!runnable.empty()) {
    const OpId u = runnable.back();
    runnable.pop_back();
    for (const OpId w : g.successors(u)) release(w);
    for (const OpId next : g.next_on_streams(u))
      if (next != StepGraph::kNoOp) release(next);
  }
  return waiting;
}

/// An unfinished predecessor of `v` (one always exists for an op Kahn could not release).
OpId stuck_predecessor(const StepGraph& g, const StreamPredecessors& before,
                       const std::vector<std::uint32_t>& waiting, OpId v, bool& via_stream) {
  OpId found = StepGraph::kNoOp;
  g.for_each_dependency(v, [&](OpId p) {
    if (found == StepGraph::kNoOp && waiting[p] > 0) found = p;
  });
  via_stream = found == StepGraph::kNoOp;
  for (const OpId p : before.of(v))
    if (found == StepGraph::kNoOp && p != StepGraph::kNoOp && waiting[p] > 0) found = p;
  return found;
}

/// Walks unfinished predecessors from the lowest stuck op until one repeats: that loop is a cycle.
[[noreturn]] void throw_cycle(const StepGraph& g, const std::vector<std::uint32_t>& waiting) {
  const auto stuck =
      static_cast<std::size_t>(std::count_if(waiting.begin(), waiting.end(), [](auto w) { return w > 0; }));
  OpId v = static_cast<OpId>(std::find_if(waiting.begin(), waiting.end(), [](auto w) { return w > 0; }) -
                             waiting.begin());
  std::vector<std::uint32_t> seen_at(g.op_count(), StepGraph::kNoOp);
  std::vector<OpId> walk;
  std::vector<bool> via_stream;
  const StreamPredecessors before(g);
  while (seen_at[v] == StepGraph::kNoOp) {
    seen_at[v] = static_cast<std::uint32_t>(walk.size());
    walk.push_back(v);
    bool stream_edge = false;
    v = stuck_predecessor(g, before, waiting, v, stream_edge);
    via_stream.push_back(stream_edge);
  }
  // walk[seen_at[v]..] is the cycle, each entry waiting on the next; print it in execution order.
  std::string msg = "step graph: dependencies and stream order form a cycle (" + std::to_string(stuck) +
                    " ops could never start): ";
  const std::size_t first = seen_at[v];
  const std::size_t last = walk.size() - 1;
  const std::size_t length = last - first + 1;
  constexpr std::size_t kMaxShown = 8;
  const std::size_t shown = std::min(length, kMaxShown);
  for (std::size_t k = 0; k < shown; ++k) {
    const std::size_t i = last - k;  // walk[i] runs before walk[i - 1]; walk[first] before walk[last]
    const bool stream_edge = via_stream[i > first ? i - 1 : last];
    msg += g.describe(walk[i]) + (stream_edge ? " -(stream order)-> " : " -(dependency)-> ");
  }
  msg += (shown < length ? "... -> " : "") + g.describe(walk[last]);
  throw std::logic_error(msg);
}

}  // namespace

StepGraph StepGraphBuilder::build() && {
  if (edges_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("step graph: more than 2^32 - 1 dependencies");
  StepGraph g;
  sort_unique_edges(edges_, exec_.size());
  const bool all_forward =
      std::all_of(edges_.begin(), edges_.end(), [](const auto& e) { return e.first < e.second; });
  g.deps_ = DependencyGraph(boost::edges_are_unsorted_multi_pass, edges_.begin(), edges_.end(),
                            static_cast<OpId>(exec_.size()));
  std::vector<std::pair<OpId, OpId>>().swap(edges_);
  g.transfer_count_ = static_cast<std::size_t>(std::count_if(
      exec_.begin(), exec_.end(), [](const OpExec& op) { return op.kind == OpKind::transfer; }));
  g.processors_ = std::move(processors_);
  g.streams_ = std::move(streams_);
  g.labels_ = std::move(labels_);
  g.exec_ = std::move(exec_);
  g.info_ = std::move(info_);
  g.op_stream_begin_ = std::move(op_stream_begin_);
  g.op_streams_ = std::move(op_streams_);
  link_streams(g, g.op_stream_next_, g.stream_first_, g.op_stream_begin_, g.op_streams_);
  label_index_.clear();

  // Stream order always runs from lower to higher ids, so a graph whose dependencies do too is
  // acyclic; only graphs with a dependency on a later-added op need the full check.
  if (!all_forward) {
    const auto waiting = unfinished_predecessors(g);
    if (std::any_of(waiting.begin(), waiting.end(), [](auto w) { return w > 0; })) throw_cycle(g, waiting);
  }
  return g;
}

}  // namespace stepsim::sim
