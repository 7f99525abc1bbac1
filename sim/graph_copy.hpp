#pragma once
// Copies of a frozen step graph inside a new one: several jobs' steps in one graph (each job's
// processors and streams added once), and a job's step repeated back to back on the same streams.

#include <span>
#include <string_view>
#include <vector>

#include "sim/graph.hpp"

namespace stepsim::sim {

/// Adds the processors and streams of `graph` to `builder` (stream labels prefixed with `prefix`);
/// returns the builder's stream for each of `graph`'s streams, indexed by its StreamId.
std::vector<StreamId> copy_streams(StepGraphBuilder& builder, const StepGraph& graph,
                                   std::string_view prefix);

/// Appends every op of `graph`, in order, on the streams `streams` maps them to (copy_streams), with
/// its dependencies; returns the id of the copy of op 0 (op i becomes first + i). Appending twice on
/// the same streams queues the second copy's ops behind the first's, as a CUDA stream would.
OpId append_ops(StepGraphBuilder& builder, const StepGraph& graph, std::span<const StreamId> streams);

/// The ops of `graph` that nothing follows: no dependent and last on each of their streams. Every
/// other op finishes before one of them does.
std::vector<OpId> final_ops(const StepGraph& graph);

}  // namespace stepsim::sim
