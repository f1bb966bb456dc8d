#include "sim/allocator.hpp"

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gcsim::sim {

void tune_allocator() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // keep freed memory (also fixes the mmap threshold)
  mallopt(M_TOP_PAD, 256 << 20);       // grow the heap in big steps
#endif
}

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace gcsim::sim
