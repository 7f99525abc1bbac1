#pragma once
// The engine's pending events: a 4-ary min-heap of small POD events ordered by (time, sequence).
//
// The sequence number is assigned at push, so events at equal times pop in push order and a run
// is deterministic without any tie-breaking on ids. Events are never removed early: the owner
// cancels one by bumping the target's generation number and skips stale events when they surface
// (lazy cancellation, as ns-3 and SimGrid do). No allocation per event, no std::function.

#include <cstdint>
#include <vector>

#include "sim/units.hpp"

namespace stepsim::sim {

enum class EventKind : std::uint8_t {
  op_end,  ///< a fixed-duration op (compute, memory, delay) finishes
};

/// 24 bytes: the kind shares a word with the sequence number, which still orders events first.
/// `Kind` is the owner's enum of event kinds (one byte): the engine's EventKind, or the network's.
template <class Kind>
struct BasicEvent {
  Time time{};
  std::uint64_t order = 0;  ///< sequence << 8 | kind
  std::uint32_t target = 0;
  std::uint32_t generation = 0;

  Kind kind() const { return static_cast<Kind>(order & 0xffu); }
  std::uint64_t sequence() const { return order >> 8; }
};

template <class Kind>
class BasicEventQueue {
 public:
  using Event = BasicEvent<Kind>;

  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The earliest event; the queue must not be empty.
  const Event& top() const { return heap_.front(); }

  /// Schedules an event; `time` may equal but should not precede the time of the last pop.
  void push(Time time, Kind kind, std::uint32_t target, std::uint32_t generation) {
    const Event e{time, (next_sequence_++ << 8) | static_cast<std::uint64_t>(kind), target, generation};
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  }

  /// Removes and returns the earliest event; the queue must not be empty.
  Event pop() {
    const Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return out;
  }

 private:
  static constexpr std::size_t kArity = 4;

  // Written as a conditional rather than `a < b || (a == b && ...)`: equal times are rare, and
  // this shape compiles to flag-based selects instead of hard-to-predict branches.
  static bool before(const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }

  // Hole-based sifting: move parents/children over the hole, write the element once.
  void sift_up(std::size_t hole, const Event& e) {
    Event* h = heap_.data();
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / kArity;
      if (!before(e, h[parent])) break;
      h[hole] = h[parent];
      hole = parent;
    }
    h[hole] = e;
  }

  void sift_down(const Event& e) {
    Event* h = heap_.data();
    const std::size_t n = heap_.size();
    std::size_t hole = 0;
    for (;;) {
      const std::size_t first = hole * kArity + 1;
      std::size_t best = first;
      if (first + kArity <= n) {
        // A full set of children: a two-round tournament the compiler turns into selects.
        const std::size_t a = first + (before(h[first + 1], h[first]) ? 1 : 0);
        const std::size_t b = first + 2 + (before(h[first + 3], h[first + 2]) ? 1 : 0);
        best = before(h[b], h[a]) ? b : a;
      } else if (first < n) {
        for (std::size_t c = first + 1; c < n; ++c) best = before(h[c], h[best]) ? c : best;
      } else {
        break;
      }
      if (!before(h[best], e)) break;
      h[hole] = h[best];
      hole = best;
    }
    h[hole] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

using Event = BasicEvent<EventKind>;
using EventQueue = BasicEventQueue<EventKind>;

}  // namespace stepsim::sim
