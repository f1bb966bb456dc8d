// Process-wide allocator settings for simulation runs. A run grows large arrays by doubling
// (jobs, queues, indexes, the event heap) and frees the old ones; by default glibc gives
// freed memory at the top of the heap back to the system and serves big blocks from fresh
// mappings, so every regrowth touches new pages, each a page fault (a costly one in a
// virtual machine). tune_allocator() keeps freed memory for reuse and grows the heap in
// 256 MiB steps (a sixteenth of an address-space limit, `ulimit -v`, when that is less). Measured on the scheduler benchmark (docs/scheduling.md, "Speed"); the
// gcsim front end and the benchmarks call it once at start. Elsewhere than glibc it does
// nothing.
#pragma once

#include <cstddef>
#include <thread>

namespace gcsim::sim {

void tune_allocator();

// Gives the memory freed so far back to the system (glibc's malloc_trim), for a front end
// between two phases of one process: with tune_allocator's settings nothing freed is given
// back on its own, and a block that fit in the heap's spare top (a run's jobs, under 256
// MiB) would otherwise stay resident under the next phase's allocations (`gcsim run`'s
// summary after its run: docs/engine.md, "A million jobs"). Elsewhere than glibc it does
// nothing.
void release_free_memory();

// Faults in the pages of a large block just allocated and not yet written (a vector's
// reserved capacity) on a thread of its own, while the caller fills the block from the
// front: each first write of a page is otherwise a page fault on the caller's thread (the
// kernel zeroes the page), about a fifth of loading a million-job CSV (`gcsim validate`
// 0.46 s -> 0.38 s, docs/engine.md "A million jobs"). Linux's MADV_POPULATE_WRITE (5.14):
// the kernel maps the pages and leaves their bytes alone, so it is no data race with the
// caller's writes, and a page the caller reaches first is simply skipped. Blocks under 4
// MiB, a single hardware thread, an older kernel or another system: nothing is done.
// Joins on destruction (the caller's exceptions included).
class PrefaultPages {
 public:
  PrefaultPages(const void* begin, std::size_t bytes);
  PrefaultPages(const PrefaultPages&) = delete;
  PrefaultPages& operator=(const PrefaultPages&) = delete;
  ~PrefaultPages() = default;

 private:
  std::jthread worker_;
};

}  // namespace gcsim::sim
