// What a market tells the cluster about its nodes (models/spot drives it; the cluster
// implements it). A node is either up (placeable, billed) or down (interrupted, waiting for
// capacity, or provisioning a replacement: not placeable, not billed).
//   notice(n, at):  node n will be taken at `at` (>= now); jobs on it get their notice.
//   down(n):        node n is gone now; jobs on it are preempted. Follows a notice, or not
//                   (a notice of zero).
//   up(n):          node n (a replacement in the same slot) is up and placeable now.
// Calls happen inside engine events; each call is O(jobs on the node).
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace gcsim::models {

class NodeEventSink {
 public:
  virtual ~NodeEventSink() = default;
  virtual void notice(std::uint32_t node, sim::SimTime down_at) = 0;
  virtual void down(std::uint32_t node) = 0;
  virtual void up(std::uint32_t node) = 0;
};

}  // namespace gcsim::models
