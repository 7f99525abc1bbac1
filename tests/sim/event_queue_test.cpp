#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/event_queue.hpp"

using namespace stepsim;
using namespace stepsim::sim;

TEST_CASE("events pop by time, equal times in push order") {
  EventQueue q;
  q.push(Time{30}, EventKind::op_end, 1, 0);
  q.push(Time{10}, EventKind::op_end, 2, 0);
  q.push(Time{30}, EventKind::op_end, 3, 7);
  q.push(Time{20}, EventKind::op_end, 4, 0);
  q.push(Time{10}, EventKind::op_end, 5, 0);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().target);
  // 10: targets 2 then 5 (pushed in that order); 20: 4; 30: 1 then 3.
  CHECK(order == std::vector<std::uint32_t>{2, 5, 4, 1, 3});
}

TEST_CASE("an event keeps its target, generation and kind") {
  EventQueue q;
  q.push(Time{5}, EventKind::op_end, 42, 9);
  const Event e = q.pop();
  CHECK(e.time == Time{5});
  CHECK(e.target == 42);
  CHECK(e.generation == 9);
  CHECK(e.kind() == EventKind::op_end);
  CHECK(e.sequence() == 0);
  CHECK(sizeof(Event) == 24);
}

TEST_CASE("interleaved pushes and pops match a sorted reference") {
  // Pseudo-random times with many ties; the reference orders by (time, push index).
  EventQueue q;
  std::vector<std::pair<std::int64_t, std::uint32_t>> pending;
  std::vector<std::uint32_t> got, want;
  std::uint64_t x = 12345;
  std::int64_t now = 0;
  std::uint32_t pushed = 0;
  for (int round = 0; round < 20000; ++round) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    if ((x >> 60) < 9 || q.empty()) {
      const std::int64_t t = now + static_cast<std::int64_t>((x >> 20) % 50);
      q.push(Time{t}, EventKind::op_end, pushed, 0);
      pending.emplace_back(t, pushed++);
    } else {
      const Event e = q.pop();
      got.push_back(e.target);
      REQUIRE(e.time.count() >= now);  // time never runs backwards
      now = e.time.count();
      const auto it = std::min_element(pending.begin(), pending.end());
      want.push_back(it->second);
      pending.erase(it);
    }
  }
  CHECK(got == want);
  CHECK(q.size() == pending.size());
}
