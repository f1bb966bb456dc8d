// The sequential discrete-event core. It knows nothing of GPUs: models schedule callbacks
// at instants and handle them. Events are ordered totally by (time, priority, sequence),
// the sequence a per-engine counter, so equal-time events run in the order they were
// scheduled within a priority (SimPy, ns-3, SST). Scheduled events can be cancelled
// (preemption needs it). The hot path does no allocation once the queue has grown to its
// working size: a callback is a plain function pointer with a context pointer and a
// 64-bit argument, not a std::function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "sim/resource_model.hpp"
#include "sim/time.hpp"

namespace gcsim::sim {

using EventFn = void (*)(void* context, std::uint64_t arg);

// Names one scheduled event. Stale after the event fires or is cancelled: cancel() of a
// stale id is a harmless no-op returning false, even if the slot was reused.
struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class Engine {
 public:
  Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  SimTime now() const { return now_; }

  // Schedules fn(context, arg) at time t (t >= now(); an earlier t throws InternalError, in
  // every build).
  // Lower priority values, in [-32768, 32767], run first among events at the same instant.
  // schedule_after saturates: a delay of SimTime::max() means "never".
  EventId schedule_at(SimTime t, EventFn fn, void* context, std::uint64_t arg = 0, int priority = 0);
  EventId schedule_after(SimTime delay, EventFn fn, void* context, std::uint64_t arg = 0,
                         int priority = 0) {
    return schedule_at(now_.saturating_add(delay), fn, context, arg, priority);
  }

  // Member-function convenience: engine.schedule_at<&Cluster::on_finish>(t, this, job_id).
  template <auto Method, class T>
  EventId schedule_at(SimTime t, T* object, std::uint64_t arg = 0, int priority = 0) {
    return schedule_at(t, &trampoline<Method, T>, object, arg, priority);
  }
  template <auto Method, class T>
  EventId schedule_after(SimTime delay, T* object, std::uint64_t arg = 0, int priority = 0) {
    return schedule_at(now_.saturating_add(delay), &trampoline<Method, T>, object, arg, priority);
  }

  // Cancels a pending event. Returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  bool is_pending(EventId id) const;

  // Rate-shared resource models consulted before each event (see resource_model.hpp).
  // Not owned; they must outlive the run.
  void add_resource_model(ResourceModel* model);

  // Runs events in order until the queue and all models are exhausted, stop() is called,
  // or the next event lies after `until`. now() ends at the last handled instant (or at
  // `until` if the run stopped because the next event lies beyond it and until != max()).
  //
  // Exceptions: whatever a handler or resource model throws, and InternalError from a
  // broken invariant, leave run() unchanged. The engine is then unusable (the event that
  // threw was half handled; a later run() throws InternalError) but its destruction is
  // clean, and it owns nothing outside itself, so the exception ends this run alone.
  void run(SimTime until = SimTime::max());
  // Makes run() return after the current event.
  void stop() { stop_requested_ = true; }
  // Makes run() return, before handling it, at the first event past `events` handled in
  // all (0: no limit): what a front end bounds a run by (gcsim's --max-events), so that an
  // event storm the estimate did not see ends instead of running for ever.
  // event_limit_reached() then says that events were left unhandled.
  void limit_events(std::uint64_t events) { event_limit_ = events; }
  bool event_limit_reached() const { return event_limit_reached_; }

  std::size_t pending() const;             // events scheduled and not cancelled
  std::uint64_t events_handled() const { return events_handled_; }
  void reserve(std::size_t events);        // pre-size the queue (benchmarks, big runs)

 private:
  template <auto Method, class T>
  static void trampoline(void* context, std::uint64_t arg) {
    (static_cast<T*>(context)->*Method)(arg);
  }

  // Hands out 64-byte aligned storage so that a 4-ary heap's sibling groups (4 x 16 bytes)
  // and the 32-byte slots each sit in one cache line.
  template <class T>
  struct CacheAligned {
    using value_type = T;
    CacheAligned() = default;
    template <class U>
    CacheAligned(const CacheAligned<U>&) {}
    T* allocate(std::size_t n) {
      return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64}));
    }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
    template <class U>
    bool operator==(const CacheAligned<U>&) const { return true; }
  };

  // 16 bytes: a sibling group of 4 is one cache line. The sequence that breaks (time,
  // priority) ties lives in the slot, read only on such ties.
  struct HeapEntry {
    std::int64_t time_ns;  // >= 0: the engine starts at zero and never schedules in the past
    std::uint64_t tag;     // (priority + 2^15) << 48 | slot
  };
  // 32 bytes, two to a cache line: everything an event touches outside the heap.
  struct Slot {
    EventFn fn;
    void* context;
    std::uint64_t arg;
    // sequence << 16 | state. The sequence orders ties and, cut to 32 bits, is the
    // EventId's generation: a reused slot matches an old id only if 2^32 events were
    // scheduled in between, and only if that one landed in the same slot.
    std::uint64_t sequence_state;
  };
  void run_events(SimTime until);
  void heap_push(const HeapEntry& e);
  void heap_pop();
  void sift_down_from(std::size_t start, HeapEntry e);
  void sift_up_from(std::size_t hole, HeapEntry e, std::size_t top);
  bool before(const HeapEntry& a, const HeapEntry& b) const;
  bool tie_before(const HeapEntry& a, const HeapEntry& b) const;
  HeapEntry* heap_root() { return heap_.data() + HEAP_PAD; }
  std::size_t heap_size() const { return heap_.size() - HEAP_PAD; }
  const Slot* likely_next_slot() const;
  void drop_consumed_top();
  void drop_cancelled_tops();
  void compact();
  void free_slot(std::uint32_t slot);
  SimTime earliest_model_time() const;

  // Entries sit HEAP_PAD places into heap_ so that every sibling group starts a cache line.
  static constexpr std::size_t HEAP_PAD = 3;

  SimTime now_ = SimTime::zero();
  std::vector<HeapEntry, CacheAligned<HeapEntry>> heap_;
  std::vector<Slot, CacheAligned<Slot>> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<ResourceModel*> models_;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_handled_ = 0;
  std::size_t live_events_ = 0;
  std::size_t cancelled_in_heap_ = 0;
  // The top entry is the event being (or last) handled, already removed logically. The
  // first schedule_at() from its handler overwrites it and sifts down once, instead of a
  // pop plus a push: "handle one, schedule the next" costs one pass over the heap.
  bool top_consumed_ = false;
  bool stop_requested_ = false;
  bool failed_ = false;  // an exception escaped run()
  std::uint64_t event_limit_ = 0;  // 0: none
  bool event_limit_reached_ = false;
};

}  // namespace gcsim::sim
