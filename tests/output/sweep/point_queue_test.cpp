// How a sweep's threads take its points: groups whole and in order, then joining the fullest
// group from its end; every point exactly once, whatever the threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <thread>

#include "output/sweep/point_queue.hpp"

using namespace stepsim::out;

namespace {

/// Every claim a thread takes until the queue is empty, starting after `last`.
std::vector<PointQueue::Claim> drain_queue(PointQueue& q, std::optional<PointQueue::Claim> last = {}) {
  std::vector<PointQueue::Claim> out;
  while ((last = q.next(last))) out.push_back(*last);
  return out;
}

}  // namespace

TEST_CASE("One thread takes the groups whole and in order") {
  PointQueue q({{0, 2, 4}, {1, 3}, {5}});
  std::vector<std::uint64_t> points;
  for (const auto& c : drain_queue(q)) {
    points.push_back(c.point);
    CHECK_FALSE(c.from_back);
  }
  CHECK(points == std::vector<std::uint64_t>{0, 2, 4, 1, 3, 5});
}

TEST_CASE("A thread with no group left joins the group with the most points left, from its end") {
  PointQueue q({{0, 1, 2, 3, 4}, {5, 6}});
  const auto a = q.next({});  // thread A takes group 0
  const auto b = q.next({});  // thread B takes group 1
  REQUIRE((a && b));
  CHECK(a->point == 0);
  CHECK(b->point == 5);
  const auto b2 = q.next(b);  // B finishes its group...
  REQUIRE(b2);
  CHECK(b2->point == 6);
  // ... and joins group 0, whose points 1 to 4 are left: it takes 4, then 3, while A takes 1, 2.
  const auto b3 = q.next(b2);
  REQUIRE(b3);
  CHECK(b3->group == 0);
  CHECK(b3->point == 4);
  CHECK(b3->from_back);
  const auto a2 = q.next(a);
  const auto b4 = q.next(b3);
  const auto a3 = q.next(a2);
  REQUIRE((a2 && b4 && a3));
  CHECK(a2->point == 1);
  CHECK(b4->point == 3);
  CHECK(a3->point == 2);
  CHECK_FALSE(q.next(a3));
  CHECK_FALSE(q.next(b4));
}

TEST_CASE("A closed queue hands out nothing more") {
  PointQueue q({{0, 1}, {2}});
  const auto a = q.next({});
  q.close();
  CHECK_FALSE(q.next(a));
  CHECK_FALSE(q.next({}));
}

TEST_CASE("Threads draining a queue take every point exactly once") {
  // 40 groups of 1 to 7 points: 4 threads, then check the union of their claims.
  std::vector<std::vector<std::uint64_t>> groups;
  std::uint64_t n = 0;
  for (int g = 0; g < 40; ++g) {
    groups.emplace_back();
    for (int k = 0; k < 1 + g % 7; ++k) groups.back().push_back(n++);
  }
  PointQueue q(groups);
  std::vector<std::vector<PointQueue::Claim>> taken(4);
  {
    std::vector<std::jthread> threads;
    for (auto& t : taken) threads.emplace_back([&q, &t] { t = drain_queue(q); });
  }
  std::vector<std::uint64_t> all;
  for (const auto& t : taken)
    for (const auto& c : t) {
      all.push_back(c.point);
      CHECK(std::find(groups[c.group].begin(), groups[c.group].end(), c.point) != groups[c.group].end());
    }
  std::sort(all.begin(), all.end());
  std::vector<std::uint64_t> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(all == expected);
}
