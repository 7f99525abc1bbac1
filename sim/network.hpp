#pragma once
// The engine's view of a bandwidth-sharing network.
//
// The Engine owns time; a Network owns the flows of transfer ops. The engine starts a transfer when
// its op becomes ready, asks for the network's next internal event (a flow finishing, a phase
// ending, a latency timer firing) and takes the earlier of that and its own next event, as
// SimGrid's EngineImpl::solve does. The network never reads a clock of its own.
//
// The transfer's shape (which links, how many bytes, which phases) is described by `payload`, an
// index the graph builder obtained from the concrete network's transfer table when it built the op;
// sim never interprets it. One Network instance holds the state of one run.
//
// The call pattern, which implementations may rely on:
//  - the engine calls reserve() once, before anything else;
//  - the engine calls advance_to(t) only for t <= next_event_time(), with t never decreasing;
//  - before start(..., now) the engine has advanced the network to `now`, so start() never needs
//    to move the network's own clock;
//  - attribution(op) may be called any time after op completed, until the Network is destroyed
//    (the engine calls it at completion, the critical path again after the run).

#include <cstdint>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "sim/units.hpp"

namespace stepsim::sim {

/// A share of an op's duration attributed to one resource (for the critical path).
struct BoundShare {
  BoundTag bound = kBoundNone;
  Time duration{};
};

class Network {
 public:
  virtual ~Network() = default;

  /// Sizes per-transfer state once: op ids will be below `ops`, and `transfers` ops will start.
  /// Optional (an estimate for a network driven without an engine); the default does nothing.
  virtual void reserve(std::size_t ops, std::size_t transfers) {
    (void)ops;
    (void)transfers;
  }

  /// Starts the transfer of op `op`, described by `payload`, at time `now`. `now` never decreases
  /// across calls.
  virtual void start(OpId op, std::uint32_t payload, Time now) = 0;

  /// The earliest time at which the network has something to do (a transfer or one of its phases
  /// completes, a latency timer expires); kTimeNever when idle.
  virtual Time next_event_time() const = 0;

  /// Advances the network to `now` (never beyond next_event_time()) and appends to `completed`
  /// the ops whose transfers finished exactly at `now`, in a deterministic order.
  virtual void advance_to(Time now, std::vector<OpId>& completed) = 0;

  /// After `op` completed: how its duration splits among resources (latency, the link tier that
  /// bottlenecked each phase, ...). Shares sum to the op's duration.
  virtual void attribution(OpId op, std::vector<BoundShare>& out) const = 0;

  /// The share of its processors the kernels of a transfer described by `payload` hold while it
  /// runs, in (0, 1]; negative when not known (a processor's default share applies,
  /// Processor::transfer_shares).
  virtual double sm_share(std::uint32_t payload) const {
    (void)payload;
    return -1.0;
  }

  /// For messages about a running transfer (one that would end past the time range): what its
  /// current phase waits for, e.g. "phase 1 of 2: 1e+12 us of latency"; "" when unknown.
  virtual std::string describe_transfer(OpId op) const {
    (void)op;
    return {};
  }
};

}  // namespace stepsim::sim
