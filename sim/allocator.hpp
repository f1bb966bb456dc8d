// Process-wide allocator settings for simulation runs. A run grows large arrays by doubling
// (jobs, queues, indexes, the event heap) and frees the old ones; by default glibc gives
// freed memory at the top of the heap back to the system and serves big blocks from fresh
// mappings, so every regrowth touches new pages, each a page fault (a costly one in a
// virtual machine). tune_allocator() keeps freed memory for reuse and grows the heap in
// 256 MiB steps (a sixteenth of an address-space limit, `ulimit -v`, when that is less). Measured on the scheduler benchmark (docs/scheduling.md, "Speed"); the
// gcsim front end and the benchmarks call it once at start. Elsewhere than glibc it does
// nothing.
#pragma once

namespace gcsim::sim {

void tune_allocator();

// Gives the memory freed so far back to the system (glibc's malloc_trim), for a front end
// between two phases of one process: with tune_allocator's settings nothing freed is given
// back on its own, and a block that fit in the heap's spare top (a run's jobs, under 256
// MiB) would otherwise stay resident under the next phase's allocations (`gcsim run`'s
// summary after its run: docs/engine.md, "A million jobs"). Elsewhere than glibc it does
// nothing.
void release_free_memory();

}  // namespace gcsim::sim
