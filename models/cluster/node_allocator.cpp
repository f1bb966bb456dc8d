// Nodes and GPU ownership (see node_allocator.hpp).
#include "models/cluster/node_allocator.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
constexpr std::uint32_t NO_JOB = 0xffffffffu;
}  // namespace

NodeAllocator::NodeAllocator(const ClusterSpec& cluster) {
  for (std::size_t t = 0; t < cluster.node_types.size(); ++t) {
    const auto& nt = cluster.node_types[t];
    // The scenario's nodes are up; the slots beyond them wait, released, for a request.
    for (int i = 0; i < nt.slots(); ++i) {
      NodeState node;
      node.type = static_cast<std::uint16_t>(t);
      node.gpus = nt.gpus;
      node.first_gpu = static_cast<std::uint32_t>(total_gpus_ + nt.gpus * i);
      const bool live = i < nt.count;
      if (!live) {
        node.phase = NodePhase::Released;
        node.up = node.billed = false;
      }
      nodes_.push_back(node);
      view_.push_back(NodeView{static_cast<std::uint16_t>(t), live ? nt.gpus : 0, live ? NodeStatus::Up : NodeStatus::Down});
      if (live) up_gpus_ += nt.gpus;
    }
    total_gpus_ += nt.gpus * nt.slots();
  }
  gpu_job_.assign(static_cast<std::size_t>(total_gpus_), NO_JOB);
  gpu_used_.assign(static_cast<std::size_t>(total_gpus_), 0);
  gpu_room_.assign(static_cast<std::size_t>(total_gpus_), 1000);
  for (const NodeState& node : nodes_)
    if (!node.up) std::fill_n(gpu_room_.begin() + node.first_gpu, node.gpus, std::uint16_t{0});
}

std::uint64_t NodeAllocator::lowest_free(const NodeState& node, int k) {
  std::uint64_t mask = 0;
  for (int g = 0, taken = 0; taken < k && g < node.gpus; ++g)
    if (!(node.busy_mask >> g & 1)) {
      mask |= std::uint64_t{1} << g;
      ++taken;
    }
  return mask;
}

void NodeAllocator::allocate(Job& j, const Placement& p, const Decisions& d, std::string_view policy) {
  // Messages are built only when a check fails: this runs at every start.
  auto who = [&] { return "policy '" + std::string(policy) + "', placement of job '" + j.name + "'"; };
  GCSIM_CHECK(p.count >= 1 && p.first <= d.nodes.size() && p.count <= d.nodes.size() - p.first,
              who() + ": nodes [" + std::to_string(p.first) + ", +" + std::to_string(p.count) + ") of a list of " +
                  std::to_string(d.nodes.size()));
  j.over_capacity = false;
  if (p.over_capacity) {
    allocate_over(j, p, d, policy);
    return;
  }
  if (j.shares_gpu()) {
    GCSIM_CHECK(p.count == 1 && p.gpus_per_node == 1 && p.first < d.nodes.size(),
                who() + ": a job sharing a GPU takes one GPU of one node, not " + std::to_string(p.count) + " x " +
                    std::to_string(p.gpus_per_node));
    allocate_share(j, p, d.nodes[p.first], policy);
    return;
  }
  GCSIM_CHECK(p.gpu < 0, who() + ": names GPU " + std::to_string(p.gpu) + ", but the job takes whole GPUs");
  GCSIM_CHECK(p.gpus_per_node >= 1 && static_cast<long>(p.gpus_per_node) * p.count >= j.gpus,
              who() + ": " + std::to_string(p.count) + " x " + std::to_string(p.gpus_per_node) +
                  " GPUs for a job of " + std::to_string(j.gpus));
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    GCSIM_CHECK(n < nodes_.size(), who() + ": no node " + std::to_string(n));
    GCSIM_CHECK(nodes_[n].type == p.node_type, who() + ": node " + std::to_string(n) + " is not of the type it names");
    GCSIM_CHECK(view_[n].gpus_free >= p.gpus_per_node,
                who() + ": node " + std::to_string(n) + " has " + std::to_string(view_[n].gpus_free) +
                    " GPUs free (down and noticed nodes have none), not " + std::to_string(p.gpus_per_node));
    for (std::uint32_t k = 0; k < i; ++k)
      GCSIM_CHECK(d.nodes[p.first + k] != n, who() + ": takes node " + std::to_string(n) + " twice");
    if (p.gpu_mask != 0) {
      // A strategy that follows GPUs planned which ones: the lowest free, as taken below.
      const std::uint64_t lowest = lowest_free(nodes_[n], p.gpus_per_node);
      GCSIM_CHECK(p.gpu_mask == lowest, who() + ": planned GPUs " + std::to_string(p.gpu_mask) + " of node " +
                                            std::to_string(n) + ", but its lowest free ones are " + std::to_string(lowest));
    }
  }
  j.node_type = p.node_type;
  j.gpus_per_node_held = p.gpus_per_node;
  j.nodes_offset = static_cast<std::uint32_t>(held_nodes_.size());
  j.nodes_count = p.count;
  j.gpu_mask = 0;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    NodeState& node = nodes_[n];
    // The lowest free GPUs; whole-node jobs take them all, so the mask is the same on every node.
    const std::uint64_t mask = lowest_free(node, p.gpus_per_node);
    node.busy_mask |= mask;
    for (int g = 0; g < node.gpus; ++g)
      if (mask >> g & 1) {
        gpu_job_[node.first_gpu + static_cast<std::uint32_t>(g)] = j.id;
        gpu_used_[node.first_gpu + static_cast<std::uint32_t>(g)] = 1000;
      }
    refresh_view(n);
    j.gpu_mask = mask;
    held_nodes_.push_back(n);
  }
  allocated_milli_ += 1000LL * j.gpus_held();
}

void NodeAllocator::allocate_over(Job& j, const Placement& p, const Decisions& d, std::string_view policy) {
  auto who = [&] { return "policy '" + std::string(policy) + "', placement over capacity of job '" + j.name + "'"; };
  GCSIM_CHECK(p.gpu < 0 && p.gpu_mask == 0, who() + ": names GPUs, but it holds none");
  if (j.shares_gpu())
    GCSIM_CHECK(p.count == 1 && p.gpus_per_node == 1, who() + ": a job sharing a GPU takes one GPU of one node");
  else
    GCSIM_CHECK(p.gpus_per_node >= 1 && static_cast<long>(p.gpus_per_node) * p.count >= j.gpus,
                who() + ": " + std::to_string(p.count) + " x " + std::to_string(p.gpus_per_node) + " GPUs for a job of " +
                    std::to_string(j.gpus));
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    GCSIM_CHECK(n < nodes_.size(), who() + ": no node " + std::to_string(n));
    GCSIM_CHECK(nodes_[n].type == p.node_type, who() + ": node " + std::to_string(n) + " is not of the type it names");
    GCSIM_CHECK(view_[n].status == NodeStatus::Up, who() + ": node " + std::to_string(n) + " is not up (or is noticed)");
    for (std::uint32_t k = 0; k < i; ++k)
      GCSIM_CHECK(d.nodes[p.first + k] != n, who() + ": takes node " + std::to_string(n) + " twice");
  }
  const std::int64_t per_node = j.shares_gpu() ? j.gpu_milli : 1000LL * p.gpus_per_node;
  j.over_capacity = true;
  j.node_type = p.node_type;
  j.gpus_per_node_held = p.gpus_per_node;
  j.nodes_offset = static_cast<std::uint32_t>(held_nodes_.size());
  j.nodes_count = p.count;
  j.gpu_mask = 0;
  if (over_on_.empty()) over_on_.resize(nodes_.size());
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    nodes_[n].over_milli += per_node;
    held_nodes_.push_back(n);
    over_on_[n].push_back(j.id);
  }
  allocated_milli_ += per_node * p.count;
  ++over_runs_;
}

void NodeAllocator::release_over(const Job& j, double run_s) {
  const std::int64_t per_node = j.shares_gpu() ? j.gpu_milli : 1000LL * j.gpus_per_node_held;
  const auto held = nodes_of(j);
  for (std::uint32_t n : held)
    GCSIM_CHECK(nodes_[n].over_milli >= per_node && n < over_on_.size() &&
                    std::find(over_on_[n].begin(), over_on_[n].end(), j.id) != over_on_[n].end(),
                "job '" + j.name + "' releases a place over capacity on node " + std::to_string(n) + " it does not hold");
  for (std::uint32_t n : held) {
    nodes_[n].over_milli -= per_node;
    nodes_[n].busy_gpu_s += run_s * static_cast<double>(per_node) / 1000.0;
    // Swap and pop: the order of a node's list changes, deterministically.
    std::vector<std::uint32_t>& on = over_on_[n];
    *std::find(on.begin(), on.end(), j.id) = on.back();
    on.pop_back();
  }
  allocated_milli_ -= per_node * static_cast<std::int64_t>(held.size());
}

void NodeAllocator::allocate_share(Job& j, const Placement& p, std::uint32_t n, std::string_view policy) {
  auto who = [&] { return "policy '" + std::string(policy) + "', placement of job '" + j.name + "'"; };
  GCSIM_CHECK(n < nodes_.size(), who() + ": no node " + std::to_string(n));
  NodeState& node = nodes_[n];
  GCSIM_CHECK(node.type == p.node_type, who() + ": node " + std::to_string(n) + " is not of the type it names");
  GCSIM_CHECK(p.gpu >= 0 && p.gpu < node.gpus,
              who() + ": GPU " + std::to_string(p.gpu) + " of node " + std::to_string(n) + ", which has " +
                  std::to_string(node.gpus));
  const std::uint32_t g = node.first_gpu + static_cast<std::uint32_t>(p.gpu);
  GCSIM_CHECK(gpu_room_[g] >= j.gpu_milli,
              who() + ": GPU " + std::to_string(p.gpu) + " of node " + std::to_string(n) + " has " +
                  std::to_string(gpu_room_[g]) + " thousandths unheld (down and noticed nodes have none), not " +
                  std::to_string(j.gpu_milli));
  if (j.id >= next_sharer_.size()) next_sharer_.resize(std::max<std::size_t>(j.id + 1, 2 * next_sharer_.size()), NO_JOB);
  j.node_type = p.node_type;
  j.gpus_per_node_held = 1;
  j.nodes_offset = static_cast<std::uint32_t>(held_nodes_.size());
  j.nodes_count = 1;
  j.gpu_mask = std::uint64_t{1} << p.gpu;
  next_sharer_[j.id] = gpu_job_[g];
  gpu_job_[g] = j.id;
  gpu_used_[g] = static_cast<std::uint16_t>(gpu_used_[g] + j.gpu_milli);
  node.busy_mask |= j.gpu_mask;
  held_nodes_.push_back(n);
  refresh_view(n);
  allocated_milli_ += j.gpu_milli;
}

void NodeAllocator::release_share(const Job& j, double run_s) {
  const std::uint32_t n = nodes_of(j)[0];
  NodeState& node = nodes_[n];
  const std::uint32_t g = node.first_gpu + static_cast<std::uint32_t>(std::countr_zero(j.gpu_mask));
  // Its place in the GPU's list of jobs, found before anything changes.
  std::uint32_t* link = &gpu_job_[g];
  while (link != nullptr && *link != NO_JOB && *link != j.id)
    link = *link < next_sharer_.size() ? &next_sharer_[*link] : nullptr;
  GCSIM_CHECK(link != nullptr && *link == j.id && gpu_used_[g] >= j.gpu_milli,
              "job '" + j.name + "' releases a share of a GPU of node " + std::to_string(n) + " it does not hold");
  *link = next_sharer_[j.id];
  next_sharer_[j.id] = NO_JOB;
  gpu_used_[g] = static_cast<std::uint16_t>(gpu_used_[g] - j.gpu_milli);
  if (gpu_used_[g] == 0) node.busy_mask &= ~j.gpu_mask;
  node.busy_gpu_s += run_s * (j.gpu_milli / 1000.0);
  refresh_view(n);
  allocated_milli_ -= j.gpu_milli;
}

void NodeAllocator::release(const Job& j, double run_s) {
  if (j.over_capacity) {
    release_over(j, run_s);
    return;
  }
  if (j.shares_gpu()) {
    GCSIM_CHECK(j.nodes_count == 1 && std::popcount(j.gpu_mask) == 1,
                "job '" + j.name + "' releases a share of a GPU it does not hold");
    release_share(j, run_s);
    return;
  }
  const auto held = nodes_of(j);
  // Checked on every node before any is freed: a refused release changes nothing.
  for (std::uint32_t n : held) {
    const NodeState& node = nodes_[n];
    const std::uint32_t lowest = node.first_gpu + static_cast<std::uint32_t>(std::countr_zero(j.gpu_mask));
    GCSIM_CHECK(j.gpu_mask != 0 && (node.busy_mask & j.gpu_mask) == j.gpu_mask && gpu_job_[lowest] == j.id,
                "job '" + j.name + "' releases GPUs of node " + std::to_string(n) + " it does not hold");
  }
  GCSIM_CHECK(allocated_milli_ >= 1000LL * j.gpus_held(), "job '" + j.name + "': more GPUs released than taken");
  for (std::uint32_t n : held) {
    NodeState& node = nodes_[n];
    node.busy_gpu_s += run_s * j.gpus_per_node_held;
    node.busy_mask &= ~j.gpu_mask;
    for (int g = 0; g < node.gpus; ++g)
      if (j.gpu_mask >> g & 1) {
        gpu_job_[node.first_gpu + static_cast<std::uint32_t>(g)] = NO_JOB;
        gpu_used_[node.first_gpu + static_cast<std::uint32_t>(g)] = 0;
      }
    refresh_view(n);
  }
  allocated_milli_ -= 1000LL * j.gpus_held();
}

void NodeAllocator::jobs_on(std::uint32_t n, std::vector<std::uint32_t>& out) const {
  const NodeState& node = nodes_[n];
  out.clear();
  for (int g = 0; g < node.gpus; ++g) {
    const std::uint32_t gpu = node.first_gpu + static_cast<std::uint32_t>(g);
    // A GPU's jobs: one whole-GPU job (which has no sharer link), or those sharing it.
    for (std::uint32_t id = gpu_job_[gpu]; id != NO_JOB; id = id < next_sharer_.size() ? next_sharer_[id] : NO_JOB)
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  // Jobs over capacity here (rare: the `recorded` replay's), after the GPUs' own.
  if (nodes_[n].over_milli > 0)
    for (std::uint32_t id : over_on_[n])
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
}

bool NodeAllocator::transition(std::uint32_t n, NodePhase to, NodeReason why, sim::SimTime now, bool billed,
                               sim::SimTime down_at) {
  GCSIM_CHECK(n < nodes_.size(), "no node " + std::to_string(n));
  NodeState& node = nodes_[n];
  const NodePhase from = node.phase;
  if (from == to) return false;
  switch (to) {
    case NodePhase::Provisioning:
      if (from != NodePhase::Released && from != NodePhase::Down) return false;
      break;
    case NodePhase::Up:
      if (from == NodePhase::Released || from == NodePhase::Draining) return false;
      break;
    case NodePhase::Draining:
      if (from != NodePhase::Up) return false;
      break;
    case NodePhase::Down:
      if (from == NodePhase::Released) return false;
      break;
    case NodePhase::Released:
      break;
  }
  // A node leaving the running phases leaves no job behind: its jobs were stopped first.
  const bool was_up = node.up;
  const bool is_up = to == NodePhase::Up || to == NodePhase::Draining;
  GCSIM_CHECK(is_up || (node.busy_mask == 0 && node.over_milli == 0),
              "node " + std::to_string(n) + " leaves service with jobs on it");
  node.phase = to;
  node.reason = why;
  node.up = is_up;
  node.noticed = to == NodePhase::Draining;
  node.billed = is_up || (to == NodePhase::Provisioning && billed);
  node.down_at = to == NodePhase::Draining ? down_at : sim::SimTime::max();
  if (to == NodePhase::Up) node.up_since = now;
  if (was_up != is_up) up_gpus_ += is_up ? node.gpus : -node.gpus;
  refresh_view(n);
  return true;
}

std::int64_t NodeAllocator::released_slot(std::uint16_t type) const {
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].type == type && nodes_[n].phase == NodePhase::Released) return static_cast<std::int64_t>(n);
  return -1;
}

void NodeAllocator::refresh_view(std::uint32_t n) {
  const NodeState& node = nodes_[n];
  NodeView& v = view_[n];
  // Policies see three states: a draining node is noticed (no new jobs), one that is not up
  // (provisioning, down, released) is down.
  v.status = !node.up ? NodeStatus::Down : node.noticed ? NodeStatus::Noticed : NodeStatus::Up;
  v.gpus_free = v.status == NodeStatus::Up ? node.gpus - std::popcount(node.busy_mask) : 0;
  for (std::uint32_t g = node.first_gpu; g < node.first_gpu + static_cast<std::uint32_t>(node.gpus); ++g)
    gpu_room_[g] = v.status == NodeStatus::Up ? static_cast<std::uint16_t>(1000 - gpu_used_[g]) : 0;
  changes_.nodes.push_back(n);
}

}  // namespace gcsim::models
