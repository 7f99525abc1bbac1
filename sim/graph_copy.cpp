#include "sim/graph_copy.hpp"

#include <algorithm>
#include <string>

namespace stepsim::sim {

std::vector<StreamId> copy_streams(StepGraphBuilder& builder, const StepGraph& graph,
                                   std::string_view prefix) {
  std::vector<ProcessorId> processors(graph.processor_count());
  for (ProcessorId p = 0; p < processors.size(); ++p)
    processors[p] = builder.add_processor(graph.processor(p));
  std::vector<StreamId> streams(graph.stream_count());
  std::string label;
  for (StreamId s = 0; s < streams.size(); ++s) {
    const Stream& st = graph.stream(s);
    label.assign(prefix);
    label += graph.label_text(st.label);
    streams[s] = builder.add_stream(processors[st.processor], st.role, label);
  }
  return streams;
}

OpId append_ops(StepGraphBuilder& builder, const StepGraph& graph, std::span<const StreamId> streams) {
  std::vector<LabelId> labels(graph.label_count());
  for (LabelId l = 0; l < labels.size(); ++l) labels[l] = builder.intern(graph.label_text(l));
  const auto first = static_cast<OpId>(builder.op_count());
  std::vector<StreamId> on;
  for (OpId id = 0; id < graph.op_count(); ++id) {
    Op op = graph.op(id);
    op.label = labels[op.label];
    on.clear();
    for (StreamId s : graph.streams_of(id)) on.push_back(streams[s]);
    builder.add_op(op, on);
  }
  for (OpId id = 0; id < graph.op_count(); ++id)
    graph.for_each_dependency(id, [&](OpId before) { builder.add_dependency(first + before, first + id); });
  return first;
}

std::vector<OpId> final_ops(const StepGraph& graph) {
  std::vector<OpId> out;
  for (OpId id = 0; id < graph.op_count(); ++id) {
    const auto next = graph.next_on_streams(id);
    if (graph.successors(id).empty() &&
        std::all_of(next.begin(), next.end(), [](OpId n) { return n == StepGraph::kNoOp; }))
      out.push_back(id);
  }
  return out;
}

}  // namespace stepsim::sim
