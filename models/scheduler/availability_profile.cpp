// The availability profile of the backfilling policies (availability_profile.hpp).
#include "models/scheduler/availability_profile.hpp"

#include <limits>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

bool AvailabilityProfile::follow(const ClusterView& cluster, bool& rebuilt) {
  const NodeChanges* log = cluster.changes;
  const std::uint64_t total = log != nullptr ? log->total() : 0;
  const auto base_of = [&](std::uint32_t n) {
    return cluster.nodes[n].status == NodeStatus::Up ? cluster.nodes[n].gpus_free : 0;
  };
  bool holds = true;
  rebuilt = log == nullptr || !valid_ || base_.size() != cluster.nodes.size() || log->dropped > log_read_ ||
            log_read_ > total;
  if (rebuilt) {
    const std::size_t nodes = cluster.nodes.size();
    base_.resize(nodes);
    status_.resize(nodes);
    hist_first_.assign(cluster.types.size() + 1, 0);
    for (std::size_t t = 0; t < cluster.types.size(); ++t)
      hist_first_[t + 1] = hist_first_[t] + cluster.types[t].gpus_per_node + 1;
    hist_.assign(static_cast<std::size_t>(hist_first_.back()), 0);
    base_total_ = 0;
    for (std::uint32_t n = 0; n < nodes; ++n) {
      base_[n] = base_of(n);
      status_[n] = cluster.nodes[n].status;
      base_total_ += base_[n];
      ++hist_[static_cast<std::size_t>(hist_first_[cluster.nodes[n].type] + base_[n])];
    }
    scap_ = base_;
    rcap_ = base_;  // no release counted at rest
    rheld_.assign(nodes, 0);  // no hold
    sheld_.assign(nodes, 0);
    touched_flag_.assign(nodes, 0);
    touched_.clear();
    // nodes_ keeps its storage from here on (the strategy follows it through log_).
    nodes_.assign(cluster.nodes.begin(), cluster.nodes.end());
    for (std::uint32_t n = 0; n < nodes; ++n) nodes_[n].gpus_free = base_[n];
    dirty_.clear();
    dirty_flag_.assign(nodes, 0);
    need_.assign(cluster.types.size(), 0);
    log_.dropped += log_.nodes.size() + 1;  // the strategy compares every node at its next reset
    log_.nodes.clear();
    valid_ = true;
    holds = false;
  } else {
    for (std::size_t i = static_cast<std::size_t>(log_read_ - log->dropped); i < log->nodes.size(); ++i) {
      const std::uint32_t n = log->nodes[i];
      if (cluster.nodes[n].status != status_[n]) {
        status_[n] = cluster.nodes[n].status;
        nodes_[n].status = status_[n];
        holds = false;
      }
      const int b = base_of(n);
      if (b == base_[n]) continue;
      const int gained = b - base_[n];
      base_total_ += gained;
      base_[n] = b;
      rest_change(cluster, n, gained, 0);
    }
  }
  log_read_ = total;
  // Written nodes not yet read by the strategy (EASY plans in few passes): past one entry a
  // node, the strategy compares the view node by node at its next reset instead.
  if (log_.nodes.size() > nodes_.size() + 64) {
    log_.dropped += log_.nodes.size() + 1;
    log_.nodes.clear();
  }
  view_ = ClusterView{cluster.now, cluster.types, nodes_};
  view_.node_group = cluster.node_group;  // so a topology plan reserves what the pass would place
  view_.changes = &log_;
  return holds;
}

void AvailabilityProfile::set_view_node(std::uint32_t n, int gpus_free) {
  if (nodes_[n].gpus_free == gpus_free) return;
  nodes_[n].gpus_free = gpus_free;
  log_.nodes.push_back(n);
}

void AvailabilityProfile::change(const ClusterView& cluster, std::uint32_t n, int cap, int held) {
  if (!touched_flag_[n]) {
    touched_flag_[n] = 1;
    touched_.push_back(n);
  }
  if (!live_) {  // refresh() files it
    scap_[n] += cap;
    sheld_[n] += held;
    return;
  }
  const int before = std::max(0, scap_[n] - sheld_[n]);
  scap_[n] += cap;
  sheld_[n] += held;
  refile(cluster, n, before);
}

void AvailabilityProfile::refile(const ClusterView& cluster, std::uint32_t n, int before) {
  const int after = std::max(0, scap_[n] - sheld_[n]);
  if (before == after) return;
  const std::uint16_t t = cluster.nodes[n].type;
  GCSIM_CHECK(after <= cluster.types[t].gpus_per_node,
              "conservative backfill: node " + std::to_string(n) + " would have " + std::to_string(after) + " GPUs");
  const std::size_t first = static_cast<std::size_t>(hist_first_[t]);
  --hist_[first + static_cast<std::size_t>(before)];
  ++hist_[first + static_cast<std::size_t>(after)];
}

void AvailabilityProfile::refresh(const ClusterView& cluster) {
  // Every node touched so far is filed at rest (the search started there).
  for (const std::uint32_t n : touched_) refile(cluster, n, rest_avail(n));
  live_ = true;
}

void AvailabilityProfile::rest_change(const ClusterView& cluster, std::uint32_t n, int cap, int held) {
  const std::uint16_t t = cluster.nodes[n].type;
  const std::size_t first = static_cast<std::size_t>(hist_first_[t]);
  --hist_[first + static_cast<std::size_t>(rest_avail(n))];
  rcap_[n] += cap;
  rheld_[n] += held;
  scap_[n] = rcap_[n];
  sheld_[n] = rheld_[n];
  GCSIM_CHECK(rcap_[n] >= 0 && rcap_[n] <= cluster.types[t].gpus_per_node,
              "conservative backfill: node " + std::to_string(n) + " would have " + std::to_string(rcap_[n]) +
                  " GPUs back at rest");
  ++hist_[first + static_cast<std::size_t>(rest_avail(n))];
  set_view_node(n, rest_avail(n));
}

void AvailabilityProfile::refile_rest(const ClusterView& cluster) {
  std::fill(hist_.begin(), hist_.end(), 0);
  for (std::uint32_t n = 0; n < rheld_.size(); ++n) {
    sheld_[n] = rheld_[n];
    ++hist_[static_cast<std::size_t>(hist_first_[cluster.nodes[n].type] + rest_avail(n))];
    set_view_node(n, rest_avail(n));
  }
}

bool AvailabilityProfile::may_fit(const ClusterView& cluster, const QueuedJob& q) const {
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(q.eligible_types >> t & 1)) continue;
    const int per = cluster.types[t].gpus_per_node;
    const int* h = hist_.data() + hist_first_[t];
    if (q.gpus <= per) {
      for (int v = q.gpus; v <= per; ++v)
        if (h[v] > 0) return true;
    } else if (static_cast<long long>(h[per]) * per >= q.gpus) {
      return true;
    }
  }
  return false;
}

const ClusterView& AvailabilityProfile::sync_view(const ClusterView& cluster, const QueuedJob& q) {
  // A node whose free GPUs at t and in the view are both below what the job needs of one
  // node of its type (every node of a type it may not use) is no candidate either way:
  // every strategy chooses among the nodes with that many free GPUs or more (whole free
  // nodes for a job bigger than a node), so it keeps its value, and stays listed while
  // that is not its value at rest.
  for (std::size_t ty = 0; ty < cluster.types.size(); ++ty)
    need_[ty] = (q.eligible_types >> ty & 1) ? std::min(q.gpus, cluster.types[ty].gpus_per_node)
                                              : std::numeric_limits<int>::max();
  const auto write = [&](std::uint32_t n, int v) {
    const int p = nodes_[n].gpus_free;
    if (p != v && std::max(p, v) >= need_[cluster.nodes[n].type]) set_view_node(n, v);
  };
  std::size_t listed = 0;
  for (const std::uint32_t n : dirty_) {
    if (!touched_flag_[n]) write(n, rest_avail(n));
    if (touched_flag_[n] || nodes_[n].gpus_free != rest_avail(n))
      dirty_[listed++] = n;
    else
      dirty_flag_[n] = 0;
  }
  dirty_.resize(listed);
  for (const std::uint32_t n : touched_) {
    write(n, std::max(0, scap_[n] - sheld_[n]));
    if (!dirty_flag_[n] && nodes_[n].gpus_free != rest_avail(n)) {
      dirty_flag_[n] = 1;
      dirty_.push_back(n);
    }
  }
  return view_;
}

void AvailabilityProfile::end_search() {
  // Back to rest (the histogram as it was: a copy, where filing each node back would chain
  // increments through the same few counters).
  for (const std::uint32_t n : touched_) {
    scap_[n] = rcap_[n];
    sheld_[n] = rheld_[n];
    touched_flag_[n] = 0;
  }
  touched_.clear();
  std::copy(hist_saved_.begin(), hist_saved_.end(), hist_.begin());
  live_ = true;
}

}  // namespace gcsim::models
