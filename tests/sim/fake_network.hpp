#pragma once
// A network for engine tests: each payload index names a fixed latency + body duration, and
// transfers never share anything. A payload whose duration is kTimeNever is "lost": it never
// completes (for deadlock tests). It checks the engine keeps the Network call contract.

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "sim/network.hpp"

namespace stepsim::test {

/// Bound tags the fake network attributes time to (sim gives them no meaning).
inline constexpr sim::BoundTag kTagLatency = 10;
inline constexpr sim::BoundTag kTagLink = 11;

struct FakeTransfer {
  Time latency{};
  Time body{};  ///< kTimeNever: the transfer is lost
};

class FakeNetwork : public sim::Network {
 public:
  explicit FakeNetwork(std::vector<FakeTransfer> table) : table_(std::move(table)) {}

  void start(sim::OpId op, std::uint32_t payload, Time now) override {
    if (now != clock_) throw std::logic_error("fake network: start() at a time it was not advanced to");
    const FakeTransfer& t = table_.at(payload);
    const Time end = t.body == kTimeNever ? kTimeNever : now + t.latency + t.body;
    active_.push_back({end, op, payload});
    ++starts;
  }

  Time next_event_time() const override {
    Time next = kTimeNever;
    for (const auto& a : active_) next = std::min(next, a.end);
    return next;
  }

  void advance_to(Time now, std::vector<sim::OpId>& completed) override {
    if (now < clock_ || now > next_event_time())
      throw std::logic_error("fake network: advance_to out of order");
    clock_ = now;
    // Completions in start order: deterministic, and what a real network would also promise.
    auto it = std::stable_partition(active_.begin(), active_.end(),
                                    [now](const Active& a) { return a.end != now; });
    for (auto done = it; done != active_.end(); ++done) {
      completed.push_back(done->op);
      finished_[done->op] = done->payload;
    }
    active_.erase(it, active_.end());
  }

  void attribution(sim::OpId op, std::vector<sim::BoundShare>& out) const override {
    const FakeTransfer& t = table_.at(finished_.at(op));
    out.push_back({kTagLatency, t.latency});
    out.push_back({kTagLink, t.body});
  }

  int starts = 0;

 private:
  struct Active {
    Time end;
    sim::OpId op;
    std::uint32_t payload;
  };
  std::vector<FakeTransfer> table_;
  std::vector<Active> active_;
  std::map<sim::OpId, std::uint32_t> finished_;
  Time clock_{};
};

}  // namespace stepsim::test
