#pragma once
// Large-array allocation hints. Step graphs and run state reach hundreds of MB; on Linux, first
// touching that memory page by page (4 KiB faults) can cost as much as the simulation itself.
// Asking for transparent huge pages before the first touch cuts that cost several-fold. Purely a
// performance hint: results never depend on it.

#include <cstddef>
#include <vector>

namespace stepsim::sim {

/// Advises the OS to back the whole 2 MiB pages inside [data, data + bytes) with huge pages.
/// No-op for small ranges, on systems without transparent huge pages, or outside Linux.
void advise_huge_pages(void* data, std::size_t bytes);

/// Asks the C allocator (glibc) to keep memory that simulations free for the next one instead of
/// returning it to the OS: sweeps, searches and advice run thousands of simulations in one process,
/// and re-faulting each one's tables cost a third of their CPU. Call once at program start.
void keep_freed_memory();

/// v.reserve(n), with huge pages advised for the new storage before anything touches it.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  if (n <= v.capacity()) return;
  std::vector<T> fresh;
  fresh.reserve(n);
  advise_huge_pages(fresh.data(), n * sizeof(T));
  fresh.insert(fresh.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  v.swap(fresh);
}

}  // namespace stepsim::sim
