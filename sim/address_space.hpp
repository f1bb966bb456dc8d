// The process's address-space limit (`ulimit -v`, RLIMIT_AS): what the allocator's heap
// steps, the memory check's usable memory and the waiting queue's up-front reservation
// each bound themselves by.
#pragma once

#include <sys/resource.h>

#include <cstddef>

namespace gcsim::sim {

// The soft limit in bytes; 0 when there is none (or it cannot be read).
inline std::size_t address_space_limit_bytes() {
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<std::size_t>(as.rlim_cur);
}

}  // namespace gcsim::sim
