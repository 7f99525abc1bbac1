// The one thread pool (sim/parallel_for.hpp): every index once, on any number of threads, and the
// first exception stops the work and reaches the caller.
#include "sim/parallel_for.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

TEST_CASE("parallel_for calls fn once per index, whatever the number of threads") {
  for (const unsigned jobs : {0u, 1u, 3u, 64u}) {
    CAPTURE(jobs);
    std::vector<std::atomic<int>> calls(100);
    stepsim::parallel_for(calls.size(), jobs, [&](std::size_t i) { ++calls[i]; });
    for (const auto& c : calls) CHECK(c == 1);
  }
  int none = 0;
  stepsim::parallel_for(0, 4, [&](std::size_t) { ++none; });
  CHECK(none == 0);
}

TEST_CASE("parallel_for rethrows the first exception and stops handing out indices") {
  // One thread: indices run in order, so index 3 throws and 4..9 never start.
  std::vector<int> ran;
  CHECK_THROWS_WITH(stepsim::parallel_for(10, 1,
                                          [&](std::size_t i) {
                                            ran.push_back(static_cast<int>(i));
                                            if (i == 3) throw std::runtime_error("index 3");
                                          }),
                    "index 3");
  CHECK(ran == std::vector<int>{0, 1, 2, 3});
}
