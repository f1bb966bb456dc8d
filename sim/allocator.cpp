#include "sim/allocator.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gcsim::sim {

void tune_allocator() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // keep freed memory (also fixes the mmap threshold)
  // Grow the heap in big steps, but in no more than a sixteenth of an address-space limit
  // (`ulimit -v`): a step is asked for whole, so a 256 MiB step under a 256 MiB limit would
  // fail the first small allocation that grows the heap.
  std::size_t pad = std::size_t{256} << 20;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    pad = std::min<std::size_t>(pad, static_cast<std::size_t>(as.rlim_cur / 16));
  mallopt(M_TOP_PAD, static_cast<int>(pad));
#endif
}

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace gcsim::sim
