#pragma once
// Lower bounds on what simulating one training step returns, from the step's program alone: no
// graph is built and nothing runs, so a layout search can bound thousands of layouts cheaply and
// simulate only those whose bound could beat what it has found.
//
// The time bound is a relaxation of the step graph (train_step.cpp, train_gradients.cpp): it keeps
// some of the graph's constraints, drops the rest, and gives every op a duration no longer than
// any run gives it. Taking each op as early as the kept constraints allow then gives start times
// no later than the simulation's (by induction over the graph's topological order: fewer
// constraints and shorter durations only move ops earlier), so the relaxed makespan is at most the
// simulated one. Kept:
//  - each simulated rank's compute stream: every kernel the rank emits is a compute op on its one
//    compute stream, in emission order (rank_sink.cpp); ops on a stream run one at a time, and a
//    compute op lasts at least its full-speed duration (communication only slows it: sim/engine.hpp);
//  - the dependencies the layer, embedding, head and optimizer emitters give their ops (within one
//    emitter call, and from one layer's output to the next layer's input);
//  - each collective's duration, at least CommBound's (workloads/bound/comm_bound.hpp), zero without one;
//  - the pipeline boundaries: a step that receives cannot start its first kernel before the sender's
//    output op ends and the transfer has run (the receiver's first op, or a ZeRO-3 or TP gather its
//    first kernel waits for, depends on the transfer, which depends on that op);
//  - the data-parallel channel: its ops (ZeRO-3 gathers and reduce-scatters, gradient buckets,
//    the updated weights' gathers) run one at a time; the optimizer waits for every bucket, the
//    last of which waits for the step's last gradient; the gathers wait for the optimizer.
// With parallelism.ep_overlap the time bound is only the busiest rank's kernel time (a pair's halves
// take turns in an order the emitters do not give, so the one-stream order does not hold).
// Left out (which can only make the bound smaller): host launches, every other stream's order,
// the MTP modules' gradient adds, the overlapped parameter gathers of the next step.
//
// The memory bound: a rank's memory peak is at least its static memory (weights, gradients,
// optimizer state) plus the activations of every forward step before its first backward step.
// Each forward step allocates its activations at the start of its first op (a kernel, or an op
// its kernels wait for), and they are freed at the end of the matching backward step's output
// op, which follows a kernel of that later step. So at the start of the last kernel of the last
// forward before the first backward, all those allocations have happened and none of their frees
// has; the other allocations (ZeRO-3 weights, recomputed activations) are freed only after they
// were made, so they never count below zero.
//
// The walk mirrors the builder: the same emitters for the same ranks in the same order.
// tests/workloads/bound/step_bound_test.cpp checks it against built and simulated steps; a builder change
// that adds constraints keeps the bound sound, one that removes some may need the walk changed.

#include <cstdint>

#include "sim/units.hpp"
#include "workloads/bound/comm_bound.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

struct StepBound {
  Time step{};                ///< <= the simulated step time (the makespan) in representative mode
  Time kernels{};             ///< the busiest simulated rank's kernel time at full speed (<= step)
  Time tensor{};              ///< of which its tensor-core-bound kernels' (topo::tensor_bound)
  int busiest_stage = 0;      ///< the pipeline stage that ends last in the relaxed schedule
  double memory_bytes = 0.0;  ///< <= the simulated memory peak of the busiest rank
  /// Fingerprint of the program: every kernel's work and every collective the layer, embedding, head
  /// and optimizer emitters emit, with their dependencies, the activations each step keeps, the
  /// static memory and the schedule's shape. Equal fingerprints of two jobs that differ only in
  /// what those emitters see (recomputation, say) mean the same step.
  std::uint64_t program = 0;
};

/// The bounds of `job`'s training step (kind train). Throws UserError for layouts the step builder
/// refuses (uneven batch or layer splits, interleaving with a micro-batch count pp does not divide).
/// `comm` bounds each collective's duration (null: collectives are taken as free, which still
/// bounds); it must describe the network the simulation runs on.
StepBound bound_train_step(const JobSpec& job, CommBound* comm = nullptr);

}  // namespace stepsim::work
