#include "sim/allocator.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <system_error>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "sim/address_space.hpp"

namespace gcsim::sim {

void tune_allocator() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // keep freed memory (also fixes the mmap threshold)
  // Grow the heap in big steps, but in no more than a sixteenth of an address-space limit
  // (`ulimit -v`): a step is asked for whole, so a 256 MiB step under a 256 MiB limit would
  // fail the first small allocation that grows the heap.
  std::size_t pad = std::size_t{256} << 20;
  if (const std::size_t limit = address_space_limit_bytes(); limit > 0) pad = std::min(pad, limit / 16);
  mallopt(M_TOP_PAD, static_cast<int>(pad));
#endif
}

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

PrefaultPages::PrefaultPages([[maybe_unused]] const void* begin, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr std::size_t MIN_BYTES = std::size_t{4} << 20;
  if (bytes < MIN_BYTES || std::thread::hardware_concurrency() < 2) return;
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const auto page = static_cast<std::uintptr_t>(page_size);
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  // Whole pages inside the block only: the partial ones at its ends may hold other data.
  const std::uintptr_t first = (at + page - 1) & ~(page - 1);
  const std::uintptr_t end = (at + bytes) & ~(page - 1);
  if (end <= first) return;
  try {
    worker_ = std::jthread([first, end] {
      // Failure (EINVAL on a kernel before 5.14, ENOMEM) only leaves the faults to the caller.
      (void)madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
    });
  } catch (const std::system_error&) {
    // No thread to be had: the caller takes the faults, as without this.
  }
#endif
}

PrefaultAhead::PrefaultAhead(std::size_t window_bytes, std::size_t start_bytes)
    : window_(std::max<std::size_t>(window_bytes, 1)), start_(start_bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  usable_ = std::thread::hardware_concurrency() >= 2 && sysconf(_SC_PAGESIZE) > 0;
#else
  usable_ = false;
#endif
}

PrefaultAhead::~PrefaultAhead() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  asked_.notify_all();
  worker_.join();
}

void PrefaultAhead::ask(const void* begin, std::size_t used, std::size_t capacity) {
  block_ = begin;
  if (!usable_ || used < start_) {
    // Asked again once the block is filled to where a window is worth a thread.
    next_at_ = std::max(used + 1, start_);
    return;
  }
  const std::size_t end = std::min(capacity, used + window_);
  next_at_ = end >= capacity ? capacity + 1 : used + window_ / 2;  // a full block asks no more
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  // Whole pages past the written part only: the page being written is the writer's.
  const std::uintptr_t first = (at + used + page - 1) & ~(page - 1);
  const std::uintptr_t last = (at + end) & ~(page - 1);
  if (last <= first) return;
  try {
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  } catch (const std::system_error&) {
    usable_ = false;  // no thread to be had: the writer takes the faults, as without this
    return;
  }
  {
    std::lock_guard lock(mutex_);
    from_ = first;  // the newest window replaces one not yet taken
    to_ = last;
  }
  asked_.notify_one();
}

void PrefaultAhead::work() {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  std::unique_lock lock(mutex_);
  for (;;) {
    asked_.wait(lock, [this] { return stop_ || to_ > from_; });
    if (stop_) return;
    const std::uintptr_t first = from_;
    const std::uintptr_t last = to_;
    from_ = to_ = 0;
    lock.unlock();
    // Failure (EINVAL before Linux 5.14, ENOMEM for a block given back) only leaves the
    // faults to the writer.
    (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
    lock.lock();
  }
#endif
}

}  // namespace gcsim::sim
