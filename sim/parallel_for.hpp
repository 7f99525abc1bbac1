#pragma once
// The one thread pool: runs fn(0) .. fn(n - 1) on `jobs` threads (the caller's thread among them),
// handing out indices in increasing order from a shared counter. The first exception stops
// further work and is rethrown; a caller that wants every index run catches inside `fn`.
// Sweeps, the layout search and the validation suite use it (each simulation on one thread).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace stepsim {

/// Calls fn(i) for every i in [0, n) on min(max(jobs, 1), n) threads; returns once all have ended.
template <class Fn>
void parallel_for(std::size_t n, unsigned jobs, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto work = [&] {
    try {
      for (std::size_t i; !stop && (i = next++) < n;) fn(i);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  {
    std::vector<std::jthread> threads;
    const unsigned extra =
        static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), std::max<std::size_t>(n, 1))) - 1;
    for (unsigned t = 0; t < extra; ++t) threads.emplace_back(work);
    work();
  }  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace stepsim
