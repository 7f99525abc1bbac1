#include "sim/memory.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace stepsim::sim {

void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  // Failure (THP disabled, old kernel) only means the hint is ignored.
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

void keep_freed_memory() {
#if defined(__GLIBC__)
  // A fixed threshold at glibc's largest (32 MiB) instead of the adaptive one that starts at 128
  // KiB, and no trimming of the heap's top: a sweep's next point reuses the pages the last one
  // faulted in instead of mapping and zeroing new ones.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace stepsim::sim
