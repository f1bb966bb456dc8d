// A minimal synchronous signal: observers (cost meters, utilization, the trace writer)
// subscribe to model signals instead of models calling them (SimGrid's plugin signals).
//
// The order in which observers see an emit is stated, not incidental: each connection has
// an order (lower first; models/core/event_priorities.hpp names the model layer's), and only
// connections of equal order run in the order they were made. Connections are made and
// dropped outside emits (before the run, or from an event): connecting or disconnecting
// from inside an emit of the same signal would change the list being walked, and is
// refused (InternalError). Emitting allocates nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/check.hpp"

namespace gcsim::sim {

template <class... Args>
class Signal {
 public:
  using Slot = std::function<void(Args...)>;
  using Connection = std::uint64_t;  // what connect returns, for disconnect
  // The order of a connection made without one: after every ordered observer. For probes
  // (tests) and observers whose place among the others does not matter.
  static constexpr int LAST = std::numeric_limits<int>::max();

  Signal() = default;
  // A copy would carry the other's slots, whose captures point at the other's owner.
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  Connection connect(int order, Slot slot) {
    refuse_inside_emit("connect");
    const Connection id = next_id_++;
    // After every slot of the same or a lower order: equal orders keep connection order.
    auto at = slots_.begin();
    while (at != slots_.end() && at->order <= order) ++at;
    slots_.insert(at, Entry{order, id, std::move(slot)});
    return id;
  }
  Connection connect(Slot slot) { return connect(LAST, std::move(slot)); }

  // Removes a connection; false when it is not (or no longer) connected.
  bool disconnect(Connection id) {
    refuse_inside_emit("disconnect");
    for (auto it = slots_.begin(); it != slots_.end(); ++it)
      if (it->id == id) {
        slots_.erase(it);
        return true;
      }
    return false;
  }

  void emit(Args... args) const {
    const EmitScope scope(emitting_);
    for (const auto& e : slots_) e.slot(args...);
  }
  bool empty() const { return slots_.empty(); }
  std::size_t size() const { return slots_.size(); }

 private:
  struct Entry {
    int order;
    Connection id;
    Slot slot;
  };
  // Counts nested emits of this signal (an observer may emit it again), also when a slot throws.
  struct EmitScope {
    explicit EmitScope(int& depth) : depth_(depth) { ++depth_; }
    ~EmitScope() { --depth_; }
    EmitScope(const EmitScope&) = delete;
    EmitScope& operator=(const EmitScope&) = delete;
    int& depth_;
  };
  void refuse_inside_emit(const char* what) const {
    GCSIM_CHECK(emitting_ == 0, std::string("Signal: ") + what +
                                    " from inside an emit of the same signal (make connections before the run, "
                                    "or from an event: docs/engine.md, \"Controllers\")");
  }

  std::vector<Entry> slots_;
  Connection next_id_ = 0;
  mutable int emitting_ = 0;
};

}  // namespace gcsim::sim
