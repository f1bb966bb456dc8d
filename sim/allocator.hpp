// Process-wide allocator settings for simulation runs. A run grows large arrays by doubling
// (jobs, queues, indexes, the event heap) and frees the old ones; by default glibc gives
// freed memory at the top of the heap back to the system and serves big blocks from fresh
// mappings, so every regrowth touches new pages, each a page fault (a costly one in a
// virtual machine). tune_allocator() keeps freed memory for reuse and grows the heap in
// 256 MiB steps (a sixteenth of an address-space limit, `ulimit -v`, when that is less). Measured on the scheduler benchmark (docs/scheduling.md, "Speed"); the
// gcsim front end and the benchmarks call it once at start. Elsewhere than glibc it does
// nothing.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
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

// Keeps the pages just past the written part of a growing block (a vector filled by
// push_back during a run: a streamed run's jobs, a saturated run's waiting queue) faulted in
// ahead of its writer, on a thread of its own, a window at a time: the writer's first write
// of each page is otherwise a page fault on its thread (a saturated million-job fifo run's
// event loop thread had 18% of its samples in the kernel, most of them such faults:
// docs/engine.md, "Pages faulted in ahead of a run"). A window, not the whole capacity:
// a vector reserved for every job of a workload whose horizon ends early would otherwise
// hold pages it never uses. MADV_POPULATE_WRITE as PrefaultPages; a page the writer
// reaches first is skipped, and a block given back while its window is being faulted in is
// no harm (the kernel maps pages and leaves every byte alone). Nothing is started for a
// block filled less than `start_bytes`, on a single hardware thread, an older kernel or
// another system. Not thread-safe: one writer per object.
class PrefaultAhead {
 public:
  explicit PrefaultAhead(std::size_t window_bytes = std::size_t{8} << 20, std::size_t start_bytes = std::size_t{4} << 20);
  // A copy (or a move) is a fresh helper with the same settings: the pages it keeps ahead
  // are its writer's alone, so the owner of a block can be copied as if this were no member.
  PrefaultAhead(const PrefaultAhead& other) : PrefaultAhead(other.window_, other.start_) {}
  PrefaultAhead& operator=(const PrefaultAhead&) { return *this; }
  ~PrefaultAhead();

  // `used` bytes of the block [begin, begin + capacity) are written. Cheap (a comparison)
  // until `used` passes the middle of the window asked for last, or the block moves.
  void advance(const void* begin, std::size_t used, std::size_t capacity) {
    if (begin == block_ && used < next_at_) return;
    ask(begin, used, capacity);
  }

 private:
  void ask(const void* begin, std::size_t used, std::size_t capacity);
  void work();

  std::size_t window_;
  std::size_t start_;
  const void* block_ = nullptr;  // the writer's thread
  std::size_t next_at_ = 0;
  bool usable_ = true;
  std::mutex mutex_;
  std::condition_variable asked_;
  std::uintptr_t from_ = 0;  // the pages asked for and not yet taken (whole pages)
  std::uintptr_t to_ = 0;
  bool stop_ = false;
  std::thread worker_;  // started at the first window asked for
};

}  // namespace gcsim::sim
