// A minimal synchronous signal: observers (cost meters, utilization, the trace writer)
// subscribe to model signals instead of models calling them (SimGrid's plugin signals).
// Connections are made before the run; emitting allocates nothing.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace gcsim::sim {

template <class... Args>
class Signal {
 public:
  using Slot = std::function<void(Args...)>;
  void connect(Slot slot) { slots_.push_back(std::move(slot)); }
  void emit(Args... args) const {
    for (const auto& s : slots_) s(args...);
  }
  bool empty() const { return slots_.empty(); }

 private:
  std::vector<Slot> slots_;
};

}  // namespace gcsim::sim
