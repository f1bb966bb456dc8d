// The event loop and its queue: a 4-ary min-heap of 16-byte (time, priority|slot) entries
// over a table of 32-byte slots that hold the callbacks and sequences. Cancellation is
// lazy: cancel() marks the slot, and the stale entry is dropped (and its slot freed) when
// it reaches the top, or by a compaction once stale entries outnumber live ones.
// With 16-byte entries a sibling group is one cache line, so a 4-ary heap reads half as
// many lines as a binary one once the queue no longer fits in cache (docs/engine.md).
#include "sim/engine.hpp"

#include <limits>
#include <string>

#include "sim/check.hpp"

namespace gcsim::sim {
namespace {

constexpr std::size_t ARITY = 4;
constexpr int PRIORITY_BIAS = 1 << 15;
constexpr std::uint64_t SEQUENCE_LIMIT = std::uint64_t{1} << 48;
// Below this many stale entries a compaction costs more than the stale entries do.
constexpr std::size_t MIN_STALE_TO_COMPACT = 4096;

// Invariant violations are programming errors: GCSIM_CHECK throws InternalError, in every
// build type, because a simulation that goes on past one gives plausible but wrong
// numbers, and a sweep must lose only the run that failed. The message is built only on
// failure, by this cold out-of-line helper, so each check costs the hot path one
// predicted branch, as the abort() it replaces did.
[[gnu::cold, gnu::noinline]] std::string with_figures(const char* what, std::int64_t a, std::int64_t b) {
  return std::string(what) + " (" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

#define GCSIM_ENGINE_CHECK(cond, what, a, b) \
  GCSIM_CHECK(cond, with_figures(what, static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)))

constexpr std::uint64_t SLOT_MASK = 0xffffffffULL;
// Slot::sequence_state low bits. The sequence sits above them, so comparing whole words
// compares sequences.
constexpr std::uint64_t STATE_MASK = 0xffff;
constexpr std::uint64_t FREE = 0;
constexpr std::uint64_t LIVE = 1;
constexpr std::uint64_t CANCELLED = 2;  // its heap entry is stale; freed when it pops
constexpr std::uint64_t PRIORITY_MASK = 0xffffULL << 48;

// Times are never negative (see HeapEntry), so (time, priority) compares as one unsigned
// 128-bit key (a cmp/sbb pair). Equal keys fall back to the sequence.
__extension__ typedef unsigned __int128 Key;
template <class Entry>
inline Key key_of(const Entry& e) {
  return (static_cast<Key>(static_cast<std::uint64_t>(e.time_ns)) << 64) | (e.tag & PRIORITY_MASK);
}
template <class Entry>
inline std::uint32_t slot_of(const Entry& e) {
  return static_cast<std::uint32_t>(e.tag & SLOT_MASK);
}

}  // namespace

Engine::Engine() : heap_(HEAP_PAD, HeapEntry{0, 0}) {}

EventId Engine::schedule_at(SimTime t, EventFn fn, void* context, std::uint64_t arg, int priority) {
  GCSIM_ENGINE_CHECK(t >= now_, "schedule_at: time (ns) is before now (ns)", t.ns(), now_.ns());
  GCSIM_ENGINE_CHECK(priority >= -PRIORITY_BIAS && priority < PRIORITY_BIAS,
                     "schedule_at: priority outside [-32768, 32767]", priority, 0);
  GCSIM_ENGINE_CHECK(fn != nullptr, "schedule_at: null callback at time (ns)", t.ns(), 0);
  GCSIM_ENGINE_CHECK(next_sequence_ < SEQUENCE_LIMIT, "schedule_at: sequence space exhausted",
                     next_sequence_, 0);

  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    GCSIM_ENGINE_CHECK(slots_.size() < UINT32_MAX, "schedule_at: too many pending events",
                       slots_.size(), 0);
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(Slot{nullptr, nullptr, 0, FREE});
  }
  const std::uint64_t sequence = next_sequence_++;
  Slot& s = slots_[slot];
  s.fn = fn;
  s.context = context;
  s.arg = arg;
  s.sequence_state = (sequence << 16) | LIVE;

  const std::uint64_t tag = (static_cast<std::uint64_t>(priority + PRIORITY_BIAS) << 48) | slot;
  heap_push(HeapEntry{t.ns(), tag});
  ++live_events_;
  return EventId{slot, static_cast<std::uint32_t>(sequence)};
}

bool Engine::is_pending(EventId id) const {
  if (id.slot >= slots_.size()) return false;
  const std::uint64_t word = slots_[id.slot].sequence_state;
  return (word & STATE_MASK) == LIVE && static_cast<std::uint32_t>(word >> 16) == id.generation;
}

bool Engine::cancel(EventId id) {
  if (!is_pending(id)) return false;
  // The slot stays taken until its entry leaves the heap: the entry's place in the heap
  // was decided with this slot's sequence, which a reuse would overwrite.
  std::uint64_t& word = slots_[id.slot].sequence_state;
  word = (word & ~STATE_MASK) | CANCELLED;
  ++cancelled_in_heap_;
  --live_events_;
  if (cancelled_in_heap_ > live_events_ && cancelled_in_heap_ >= MIN_STALE_TO_COMPACT) compact();
  return true;
}

void Engine::free_slot(std::uint32_t slot) {
  std::uint64_t& word = slots_[slot].sequence_state;
  word = (word & ~STATE_MASK) | FREE;
  free_slots_.push_back(slot);
}

void Engine::add_resource_model(ResourceModel* model) {
  GCSIM_ENGINE_CHECK(model != nullptr, "add_resource_model: null model", 0, 0);
  models_.push_back(model);
}

std::size_t Engine::pending() const { return live_events_; }

void Engine::reserve(std::size_t events) {
  heap_.reserve(events + HEAP_PAD);
  slots_.reserve(events);
  free_slots_.reserve(events);
}

SimTime Engine::earliest_model_time() const {
  SimTime t = SimTime::max();
  for (const ResourceModel* m : models_) {
    const SimTime mt = m->next_event_time();
    if (mt < t) t = mt;
  }
  return t;
}

void Engine::run(SimTime until) {
  GCSIM_CHECK(!failed_, "run: the engine is unusable after an exception escaped an earlier run()");
  GCSIM_ENGINE_CHECK(until >= now_, "run: until (ns) is before now (ns)", until.ns(), now_.ns());
  // Zero-cost until something throws: only the unwinding path marks the engine.
  try {
    run_events(until);
  } catch (...) {
    failed_ = true;
    throw;
  }
}

void Engine::run_events(SimTime until) {
  stop_requested_ = false;
  while (!stop_requested_) {
    drop_consumed_top();
    drop_cancelled_tops();
    const std::int64_t next_ns =
        heap_size() == 0 ? std::numeric_limits<std::int64_t>::max() : heap_root()->time_ns;

    if (!models_.empty()) {
      const SimTime tm = earliest_model_time();
      // Models go first at equal instants: an event at t sees the rates as they are at t.
      if (!tm.is_max() && tm.ns() <= next_ns) {
        if (tm > until) {
          now_ = until;
          break;
        }
        GCSIM_ENGINE_CHECK(tm >= now_, "resource model reports a completion (ns) before now (ns)",
                           tm.ns(), now_.ns());
        now_ = tm;
        // Asked again per model: advancing one model may move another's next completion.
        // By index: an advance may register a model.
        for (std::size_t i = 0; i < models_.size(); ++i) {
          if (models_[i]->next_event_time() == tm) models_[i]->advance_to(tm);
        }
        continue;
      }
    }

    if (heap_size() == 0) break;
    if (next_ns > until.ns()) {
      now_ = until;  // until < next_ns <= max(), so until is not max()
      break;
    }
    if (events_handled_ == event_limit_ && event_limit_ != 0) [[unlikely]] {
      event_limit_reached_ = true;
      break;
    }

    const std::uint32_t slot = slot_of(*heap_root());
    top_consumed_ = true;
    // The prefetch is issued here, not in the helper: GCC deems a void function that only
    // reads and prefetches pure, and deletes the call.
    if (const Slot* next = likely_next_slot()) __builtin_prefetch(next);
    const Slot& s = slots_[slot];
    const EventFn fn = s.fn;
    void* const context = s.context;
    const std::uint64_t arg = s.arg;
    // Freed before the call so the handler sees its own id as no longer pending and the
    // event it schedules next reuses this (cached) slot.
    free_slot(slot);
    --live_events_;
    ++events_handled_;
    now_ = SimTime::from_ns(next_ns);
    fn(context, arg);
  }
}

// The next event to run is the smallest child of the top, unless the handler about to
// run schedules an earlier one. Its slot is a likely cache miss (slots are touched in
// time order, not memory order); fetching it before the handler runs lets the handler
// and the heap update hide the latency. The children share one cache line, already loaded.
const Engine::Slot* Engine::likely_next_slot() const {
  const std::size_t n = heap_size();
  if (n < 2) return nullptr;
  const HeapEntry* const c = heap_.data() + HEAP_PAD + 1;
  const std::size_t count = n - 1 < ARITY ? n - 1 : ARITY;
  std::size_t best = 0;
  Key best_key = key_of(c[0]);
  for (std::size_t j = 1; j < count; ++j) {  // branch-free: all in L1, nothing to speculate on
    const Key k = key_of(c[j]);
    const bool less = k < best_key;
    best = less ? j : best;
    best_key = less ? k : best_key;
  }
  return &slots_[slot_of(c[best])];
}

void Engine::drop_consumed_top() {
  if (top_consumed_) {
    top_consumed_ = false;
    heap_pop();
  }
}

void Engine::drop_cancelled_tops() {
  while (heap_size() != 0) {
    const std::uint32_t slot = slot_of(*heap_root());
    if ((slots_[slot].sequence_state & STATE_MASK) != CANCELLED) return;
    free_slot(slot);
    --cancelled_in_heap_;
    heap_pop();
  }
}

void Engine::heap_push(const HeapEntry& e) {
  if (top_consumed_) {
    top_consumed_ = false;
    sift_down_from(0, e);
  } else {
    heap_.push_back(e);
    sift_up_from(heap_size() - 1, e, 0);
  }
}

void Engine::heap_pop() {
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (heap_size() != 0) sift_down_from(0, last);
}

bool Engine::before(const HeapEntry& a, const HeapEntry& b) const {
  const Key ka = key_of(a);
  const Key kb = key_of(b);
  if (ka != kb) return ka < kb;
  return tie_before(a, b);
}

// For entries with equal (time, priority): the one scheduled first goes first.
bool Engine::tie_before(const HeapEntry& a, const HeapEntry& b) const {
  return slots_[slot_of(a)].sequence_state < slots_[slot_of(b)].sequence_state;
}

// Sifts `e` up from `hole`, never above `top` (heap construction sifts subtrees whose
// ancestors are not yet ordered).
void Engine::sift_up_from(std::size_t hole, HeapEntry e, std::size_t top) {
  HeapEntry* const h = heap_root();
  while (hole > top) {
    const std::size_t parent = (hole - 1) / ARITY;
    if (!before(e, h[parent])) break;
    h[hole] = h[parent];
    hole = parent;
  }
  h[hole] = e;
}

// Floyd's bottom-up variant: walk the hole down to a leaf along the smallest children,
// then sift `e` up from there. The entry being placed is usually a late time (the last
// leaf on a pop, a future event on a replace), so it belongs near the bottom and the
// walk saves the compare against `e` at every level.
//
// Once the heap outgrows the cache each level is a miss, and the next level's address
// depends on this level's compares. Prefetching the grandchildren (the 16 entries below
// the 4 children: 4 whole, aligned cache lines) overlaps those misses with the compares.
// The selection is left branchy on purpose: speculation down the predicted child beats
// a cmov chain that must wait for every load (measured; see docs/engine.md).
void Engine::sift_down_from(std::size_t start, HeapEntry e) {
  HeapEntry* const h = heap_root();
  const std::size_t n = heap_size();
  std::size_t hole = start;
  for (;;) {
    const std::size_t first = hole * ARITY + 1;
    if (first + ARITY <= n) {
      const std::size_t grandchildren = first * ARITY + 1;
      if (grandchildren < n) {
        const char* const g = reinterpret_cast<const char*>(h + grandchildren);
        for (std::size_t b = 0; b < ARITY * ARITY * sizeof(HeapEntry); b += 64) {
          __builtin_prefetch(g + b);
        }
      }
      const HeapEntry* const c = h + first;
      std::size_t best = 0;
      Key best_key = key_of(c[0]);
      for (std::size_t j = 1; j < ARITY; ++j) {
        const Key k = key_of(c[j]);
        if (k < best_key || (k == best_key && tie_before(c[j], c[best]))) {
          best = j;
          best_key = k;
        }
      }
      h[hole] = c[best];
      hole = first + best;
    } else {
      if (first < n) {
        std::size_t best = first;
        for (std::size_t c = first + 1; c < n; ++c) {
          if (before(h[c], h[best])) best = c;
        }
        h[hole] = h[best];
        hole = best;
      }
      break;
    }
  }
  sift_up_from(hole, e, start);
}

void Engine::compact() {
  drop_consumed_top();
  HeapEntry* const h = heap_root();
  const std::size_t n = heap_size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t slot = slot_of(h[i]);
    if ((slots_[slot].sequence_state & STATE_MASK) == CANCELLED) {
      free_slot(slot);
    } else {
      h[kept++] = h[i];
    }
  }
  cancelled_in_heap_ = 0;
  heap_.resize(kept + HEAP_PAD);
  if (kept < 2) return;
  // Floyd's heap construction, O(n): sift every internal node down, last one first.
  for (std::size_t i = (kept - 2) / ARITY + 1; i-- > 0;) {
    const HeapEntry e = h[i];
    sift_down_from(i, e);
  }
}

#undef GCSIM_ENGINE_CHECK

}  // namespace gcsim::sim
