// Placement strategies (see placement.hpp).
#include "models/scheduler/placement.hpp"

#include <algorithm>
#include <bit>

#include "sim/check.hpp"

namespace gcsim::models {

int node_type_on_idle_cluster(std::span<const NodeTypeView> types, const QueuedJob& job, Scheduler& policy,
                              const JobSpeeds* speeds) {
  std::vector<NodeView> nodes;
  for (std::size_t t = 0; t < types.size(); ++t)
    nodes.insert(nodes.end(), static_cast<std::size_t>(types[t].count),
                 NodeView{static_cast<std::uint16_t>(t), types[t].gpus_per_node});
  ClusterView idle{sim::SimTime::zero(), types, nodes};
  idle.speeds = speeds;
  std::vector<std::uint16_t> rooms;
  if (job.gpu_milli < 1000) {
    for (const NodeTypeView& t : types) rooms.insert(rooms.end(), static_cast<std::size_t>(t.count * t.gpus_per_node), 1000);
    idle.gpu_room = rooms;
  }
  WaitingJobs waiting;
  waiting.add(job);
  policy.job_waiting(job);
  Decisions d;
  policy.schedule(idle, waiting, d);
  policy.job_left(job.job);
  return d.placements.empty() ? -1 : d.placements.front().node_type;
}

void NodeSet::reset(std::size_t size) {
  words_.assign((size + 63) / 64, 0);
  summary_.assign((words_.size() + 63) / 64, 0);
  size_ = 0;
}

void NodeSet::insert(std::uint32_t i) {
  const std::uint32_t w = i >> 6;
  if (words_[w] == 0) summary_[w >> 6] |= std::uint64_t{1} << (w & 63);
  words_[w] |= std::uint64_t{1} << (i & 63);
  ++size_;
}

void NodeSet::erase(std::uint32_t i) {
  const std::uint32_t w = i >> 6;
  words_[w] &= ~(std::uint64_t{1} << (i & 63));
  if (words_[w] == 0) summary_[w >> 6] &= ~(std::uint64_t{1} << (w & 63));
  --size_;
}

std::uint32_t NodeSet::next(std::uint32_t from) const {
  std::uint32_t w = from >> 6;
  if (w >= words_.size()) return NONE;
  if (const std::uint64_t bits = words_[w] & (~std::uint64_t{0} << (from & 63)))
    return w << 6 | static_cast<std::uint32_t>(std::countr_zero(bits));
  // The next non-empty word, from the summary.
  ++w;
  for (std::uint32_t s = w >> 6; s < summary_.size(); ++s) {
    std::uint64_t bits = summary_[s];
    if (s == w >> 6) bits &= ~std::uint64_t{0} << (w & 63);
    if (bits) {
      const std::uint32_t word = s << 6 | static_cast<std::uint32_t>(std::countr_zero(bits));
      return word << 6 | static_cast<std::uint32_t>(std::countr_zero(words_[word]));
    }
  }
  return NONE;
}

void PlacementStrategy::reset(const ClusterView& cluster) {
  // The index stays usable on the storage it was built on, with the same node types. It
  // follows the cluster's log when this view has the log it read and none was dropped
  // unread; otherwise (a view built by hand, or a pass missed) it is compared with the
  // view node by node, which is still cheaper than a rebuild.
  const NodeChanges* log = cluster.changes;
  bool same = built_ && cluster.nodes.data() == log_nodes_ && cluster.nodes.size() == delta_.size() &&
              cluster.types.size() == layout_.size();
  for (std::size_t t = 0; same && t < layout_.size(); ++t)
    same = layout_[t].gpus_per_node == cluster.types[t].gpus_per_node && layout_[t].count == cluster.types[t].count &&
           layout_[t].first_node == cluster.types[t].first_node;
  const bool follow = same && log != nullptr && log == log_ && log->dropped <= seen_ &&
                      seen_ <= log->total();
  cluster_ = &cluster;
  for (std::uint32_t n : stale_) is_stale_[n] = 0;  // each path below refiles them (or rebuilds)
  stale_.clear();
  for (std::uint32_t n : touched_) delta_[n] = 0;
  if (follow) {
    for (std::uint32_t n : touched_) refile(n);
    for (std::size_t i = static_cast<std::size_t>(seen_ - log->dropped); i < log->nodes.size(); ++i)
      refile(log->nodes[i]);
  } else if (same) {
    for (std::uint32_t n = 0; n < cluster.nodes.size(); ++n)
      if (filed_[n] != cluster.nodes[n].gpus_free) refile(n);
  } else {
    built_ = false;
    if (delta_.size() != cluster.nodes.size()) delta_.assign(cluster.nodes.size(), 0);
  }
  touched_.clear();
  reset_rooms(same, follow);
  log_ = log;
  log_nodes_ = cluster.nodes.data();
  seen_ = log != nullptr ? log->total() : 0;
}

void PlacementStrategy::build() const {
  const auto& types = cluster_->types;
  buckets_.resize(types.size());
  filed_.resize(cluster_->nodes.size());
  for (std::uint32_t n : stale_) is_stale_[n] = 0;
  stale_.clear();
  is_stale_.resize(cluster_->nodes.size());
  layout_.assign(types.begin(), types.end());
  for (std::size_t t = 0; t < types.size(); ++t) {
    buckets_[t].resize(static_cast<std::size_t>(types[t].gpus_per_node) + 1);
    for (NodeSet& s : buckets_[t]) s.reset(static_cast<std::size_t>(types[t].count));
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(types[t].count); ++i) {
      const std::uint32_t n = types[t].first_node + i;
      const int f = free(n);
      GCSIM_CHECK(f >= 0 && f <= types[t].gpus_per_node,
                  "node " + std::to_string(n) + " has " + std::to_string(f) + " free GPUs of " +
                      std::to_string(types[t].gpus_per_node));
      buckets_[t][static_cast<std::size_t>(f)].insert(i);
      filed_[n] = f;
    }
  }
  built_ = true;
}

void PlacementStrategy::refile(std::uint32_t n) const {
  const int f = free(n);
  if (filed_[n] == f) return;
  const NodeTypeView& type = cluster_->types[cluster_->nodes[n].type];
  GCSIM_CHECK(f >= 0 && f <= type.gpus_per_node,
              "node " + std::to_string(n) + " has " + std::to_string(f) + " free GPUs of " +
                  std::to_string(type.gpus_per_node));
  auto& b = buckets_[cluster_->nodes[n].type];
  b[static_cast<std::size_t>(filed_[n])].erase(n - type.first_node);
  b[static_cast<std::size_t>(f)].insert(n - type.first_node);
  filed_[n] = f;
}

void PlacementStrategy::change(std::uint32_t node, int gpus) {
  if (delta_[node] == 0) touched_.push_back(node);  // may list a node twice: reset handles it twice
  delta_[node] += gpus;
  if (built_ && !is_stale_[node]) {
    is_stale_[node] = 1;
    stale_.push_back(node);
  }
}

const NodeSet& PlacementStrategy::with_free(std::size_t t, int f) const {
  if (!built_) {
    build();
  } else if (!stale_.empty()) {
    for (std::uint32_t n : stale_) {
      is_stale_[n] = 0;
      refile(n);
    }
    stale_.clear();
  }
  return buckets_[t][static_cast<std::size_t>(f)];
}

int PlacementStrategy::tightest(std::size_t t, int gpus) const {
  for (int f = gpus; f <= cluster_->types[t].gpus_per_node; ++f)
    if (!with_free(t, f).empty()) return f;
  return -1;
}

int PlacementStrategy::loosest(std::size_t t, int gpus) const {
  for (int f = cluster_->types[t].gpus_per_node; f >= gpus; --f)
    if (!with_free(t, f).empty()) return f;
  return -1;
}

// Over every eligible type whose nodes are big enough: the fewest free GPUs, ties by the
// lowest index (an earlier type's nodes come first).
PlacementStrategy::NodeChoice PlacementStrategy::tightest_node(const QueuedJob& job) const {
  NodeChoice best;
  int best_free = 0;
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    if (!fits_one_node(job, t)) continue;
    const int f = tightest(t, job.gpus);
    if (f >= 0 && (best.node < 0 || f < best_free)) {
      best = NodeChoice{static_cast<int>(cluster_->types[t].first_node + with_free(t, f).first()), static_cast<int>(t)};
      best_free = f;
    }
  }
  return best;
}

int PlacementStrategy::whole_free(std::size_t t) const { return with_free(t, cluster_->types[t].gpus_per_node).size(); }

bool PlacementStrategy::could_fit(int gpus) const {
  if (could_share(gpus)) return true;
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    const int per = cluster_->types[t].gpus_per_node;
    if (gpus > per) {
      if (static_cast<long long>(whole_free(t)) * per >= gpus) return true;
    } else if (loosest(t, gpus) >= 0) {
      return true;
    }
  }
  return false;
}

bool PlacementStrategy::try_place(const QueuedJob& job, Decisions& out) {
  if (cluster_->admission != nullptr && !cluster_->admission->admits(job)) return false;
  return place(job, out);
}

bool PlacementStrategy::place(const QueuedJob& job, Decisions& out) {
  if (job.gpu_milli < 1000) return place_share(job, out);
  const NodeChoice c = choose_node(job);
  if (c.node < 0) return place_whole_nodes(job, out);
  const std::uint64_t mask = take(static_cast<std::uint32_t>(c.node), job.gpus);
  out.placements.push_back(Placement{job.job, static_cast<std::uint32_t>(out.nodes.size()), 1, job.gpus, c.type, -1, 1000, mask});
  out.nodes.push_back(static_cast<std::uint32_t>(c.node));
  return true;
}

bool PlacementStrategy::reserve(const QueuedJob& job) {
  scratch_.clear();
  return place(job, scratch_);
}


// A job bigger than one node of its type: whole free nodes of one type, or nothing.
bool PlacementStrategy::place_whole_nodes(const QueuedJob& job, Decisions& out) {
  const auto& types = cluster_->types;
  std::uint64_t fits = 0;
  for (std::size_t t = 0; t < types.size() && t < 64; ++t) {
    const int per = types[t].gpus_per_node;
    if (!(job.eligible_types >> t & 1) || job.gpus <= per) continue;
    if (whole_free(t) >= (job.gpus + per - 1) / per) fits |= std::uint64_t{1} << t;
  }
  if (fits == 0) return false;
  const int t = choose_type(job, fits);
  const int per = types[static_cast<std::size_t>(t)].gpus_per_node;
  const int needed = (job.gpus + per - 1) / per;
  const std::uint32_t first = static_cast<std::uint32_t>(out.nodes.size());
  choose_whole_nodes(static_cast<std::size_t>(t), needed, out.nodes);
  std::uint64_t mask = 0;
  for (std::uint32_t i = first; i < out.nodes.size(); ++i) mask = take(out.nodes[i], per);  // all of each node's
  out.placements.push_back(Placement{job.job, first, static_cast<std::uint32_t>(needed), per, t, -1, 1000, mask});
  return true;
}

int PlacementStrategy::choose_type(const QueuedJob&, std::uint64_t fits) const { return std::countr_zero(fits); }

void PlacementStrategy::choose_whole_nodes(std::size_t t, int needed, std::vector<std::uint32_t>& out) const {
  const NodeSet& whole = with_free(t, cluster_->types[t].gpus_per_node);
  std::uint32_t i = whole.first();
  for (int k = 0; k < needed; ++k, i = whole.next(i + 1)) out.push_back(cluster_->types[t].first_node + i);
}

PlacementStrategy::NodeChoice BestFitPlacement::choose_node(const QueuedJob& job) const { return tightest_node(job); }

PlacementStrategy::NodeChoice FirstFitPlacement::choose_node(const QueuedJob& job) const {
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    if (!fits_one_node(job, t)) continue;
    std::uint32_t lowest = NodeSet::NONE;
    for (int f = job.gpus; f <= cluster_->types[t].gpus_per_node; ++f) lowest = std::min(lowest, with_free(t, f).first());
    if (lowest != NodeSet::NONE)
      return NodeChoice{static_cast<int>(cluster_->types[t].first_node + lowest), static_cast<int>(t)};
  }
  return {};
}

// The fullest node after placing: the least free fraction (f - gpus) / gpus_per_node,
// compared exactly as (f1 - g) * p2 < (f2 - g) * p1; ties by the lowest index. Within a
// type that is the fewest free GPUs, as best-fit; across types of different sizes it
// prefers the bigger node left with the same fraction.
PlacementStrategy::NodeChoice PackPlacement::choose_node(const QueuedJob& job) const {
  NodeChoice best;
  long long best_left = 0, best_per = 1;
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    if (!fits_one_node(job, t)) continue;
    const int f = tightest(t, job.gpus);
    if (f < 0) continue;
    const long long left = f - job.gpus, per = cluster_->types[t].gpus_per_node;
    if (best.node < 0 || left * best_per < best_left * per) {
      best = NodeChoice{static_cast<int>(cluster_->types[t].first_node + with_free(t, f).first()), static_cast<int>(t)};
      best_left = left;
      best_per = per;
    }
  }
  return best;
}

// The type that needs the fewest whole nodes; ties in type order.
int PackPlacement::choose_type(const QueuedJob& job, std::uint64_t fits) const {
  int best = -1, best_needed = 0;
  for (std::uint64_t f = fits; f != 0; f &= f - 1) {
    const int t = std::countr_zero(f);
    const int per = cluster_->types[static_cast<std::size_t>(t)].gpus_per_node;
    const int needed = (job.gpus + per - 1) / per;
    if (best < 0 || needed < best_needed) {
      best = t;
      best_needed = needed;
    }
  }
  return best;
}

// The most free GPUs, ties by the lowest index.
PlacementStrategy::NodeChoice SpreadPlacement::choose_node(const QueuedJob& job) const {
  NodeChoice best;
  int best_free = 0;
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    if (!fits_one_node(job, t)) continue;
    const int f = loosest(t, job.gpus);
    if (f >= 0 && (best.node < 0 || f > best_free)) {
      best = NodeChoice{static_cast<int>(cluster_->types[t].first_node + with_free(t, f).first()), static_cast<int>(t)};
      best_free = f;
    }
  }
  return best;
}

PlacementStrategy::NodeChoice TopologyPlacement::choose_node(const QueuedJob& job) const { return tightest_node(job); }

// One leaf (group) when one has `needed` whole free nodes: the one with the fewest that
// suffice, ties by the lowest group (Slurm's topology/tree best fit of leaf switches).
// Else the fewest leaves: the leaves with the most whole free nodes first (ties by the
// lowest group), the last one again the tightest that holds what is left. Inside a leaf,
// its lowest-index whole free nodes.
void TopologyPlacement::choose_whole_nodes(std::size_t t, int needed, std::vector<std::uint32_t>& out) const {
  const auto& group = cluster_->node_group;
  if (group.empty()) {
    PlacementStrategy::choose_whole_nodes(t, needed, out);
    return;
  }
  const NodeTypeView& type = cluster_->types[t];
  const NodeSet& whole = with_free(t, type.gpus_per_node);
  groups_.clear();
  for (std::uint32_t i = whole.first(); i != NodeSet::NONE; i = whole.next(i + 1)) {
    const std::uint32_t g = group[type.first_node + i];
    if (g >= count_.size()) {
      count_.resize(g + 1, 0);
      take_.resize(g + 1, 0);
    }
    if (count_[g]++ == 0) groups_.push_back(g);
  }
  // Most whole free nodes first, ties by the lowest group.
  std::sort(groups_.begin(), groups_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return count_[a] != count_[b] ? count_[a] > count_[b] : a < b;
  });
  // Take the biggest leaves while the rest does not fit in one; the last leaf is the one
  // with the fewest whole free nodes that hold the remainder.
  std::size_t first_left = 0;
  int left = needed;
  while (count_[groups_[first_left]] < left) left -= count_[groups_[first_left++]];
  std::size_t last = first_left;
  for (std::size_t k = first_left + 1; k < groups_.size() && count_[groups_[k]] >= left; ++k)
    if (count_[groups_[k]] < count_[groups_[last]] ||
        (count_[groups_[k]] == count_[groups_[last]] && groups_[k] < groups_[last]))
      last = k;
  for (std::size_t k = 0; k < first_left; ++k) take_[groups_[k]] = count_[groups_[k]];
  take_[groups_[last]] = left;
  const std::size_t from = out.size();
  for (std::uint32_t i = whole.first(); i != NodeSet::NONE; i = whole.next(i + 1)) {
    const std::uint32_t g = group[type.first_node + i];
    if (take_[g] > 0) {
      --take_[g];
      out.push_back(type.first_node + i);
    }
  }
  GCSIM_CHECK(static_cast<int>(out.size() - from) == needed, "topology placement: chose " +
                  std::to_string(out.size() - from) + " whole nodes of " + std::to_string(needed));
  for (std::uint32_t g : groups_) count_[g] = take_[g] = 0;
}

}  // namespace gcsim::models

namespace gcsim::models {

// --- Shares of a GPU -------------------------------------------------------------------

void PlacementStrategy::reset_rooms(bool same, bool follow) {
  const ClusterView& cluster = *cluster_;
  for (const auto& [node, g] : gtouched_) gdelta_[g] = 0;
  if (!tracks_gpus()) {
    rooms_built_ = false;
    gtouched_.clear();
    return;
  }
  // The GPU numbering the view's gpu_room follows: each type's GPUs after the earlier types'.
  std::uint32_t gpus = 0;
  for (const NodeTypeView& t : cluster.types) {
    GCSIM_CHECK(t.first_gpu == gpus, "placement: node type GPUs numbered from " + std::to_string(t.first_gpu) +
                                         ", after " + std::to_string(gpus) + " GPUs of the earlier types");
    gpus += static_cast<std::uint32_t>(t.count * t.gpus_per_node);
  }
  GCSIM_CHECK(cluster.gpu_room.size() == gpus, "placement: the view's gpu_room has " +
                  std::to_string(cluster.gpu_room.size()) + " GPUs, its node types " + std::to_string(gpus));
  if (gdelta_.size() != gpus) {
    gdelta_.assign(gpus, 0);
    rooms_built_ = false;
  }
  const bool rooms_same = rooms_built_ && same && cluster.gpu_room.data() == log_rooms_;
  if (rooms_same && follow) {
    for (const auto& [node, g] : gtouched_) refile_gpus(node);
    for (std::size_t i = static_cast<std::size_t>(seen_ - cluster.changes->dropped); i < cluster.changes->nodes.size(); ++i)
      refile_gpus(cluster.changes->nodes[i]);
  } else if (rooms_same) {
    for (std::uint32_t n = 0; n < cluster.nodes.size(); ++n) refile_gpus(n);
  } else {
    rooms_built_ = false;
  }
  gtouched_.clear();
  log_rooms_ = cluster.gpu_room.data();
}

void PlacementStrategy::build_rooms() const {
  const auto& types = cluster_->types;
  rooms_.resize(types.size());
  room_used_.assign(types.size(), {});
  gfiled_.assign(cluster_->gpu_room.size(), 0);
  for (std::size_t t = 0; t < types.size(); ++t) {
    rooms_[t].resize(1000);
    for (NodeSet& s : rooms_[t]) s.reset(static_cast<std::size_t>(types[t].count * types[t].gpus_per_node));
  }
  rooms_built_ = true;
  for (std::uint32_t n = 0; n < cluster_->nodes.size(); ++n) refile_gpus(n);
}

void PlacementStrategy::refile_gpus(std::uint32_t n) const {
  if (!rooms_built_) return;
  const std::size_t t = cluster_->nodes[n].type;
  const NodeTypeView& type = cluster_->types[t];
  for (int local = 0; local < type.gpus_per_node; ++local)
    refile_gpu(gpu_index(n, local), t, (n - type.first_node) * static_cast<std::uint32_t>(type.gpus_per_node) +
                                           static_cast<std::uint32_t>(local));
}

void PlacementStrategy::refile_gpu(std::uint32_t g, std::size_t t, std::uint32_t local_in_type) const {
  const int r = room(g);
  GCSIM_CHECK(r >= 0 && r <= 1000, "GPU " + std::to_string(g) + " has " + std::to_string(r) + " thousandths unheld");
  const std::uint16_t want = r >= 1 && r <= 999 ? static_cast<std::uint16_t>(r) : 0;
  const std::uint16_t had = gfiled_[g];
  if (had == want) return;
  if (had != 0) {
    NodeSet& s = rooms_[t][had];
    s.erase(local_in_type);
    if (s.empty()) room_used_[t][had >> 6] &= ~(std::uint64_t{1} << (had & 63));
  }
  if (want != 0) {
    rooms_[t][want].insert(local_in_type);
    room_used_[t][want >> 6] |= std::uint64_t{1} << (want & 63);
  }
  gfiled_[g] = want;
}

void PlacementStrategy::change_room(std::uint32_t node, int local, int milli) {
  const std::uint32_t g = gpu_index(node, local);
  const int before = room(g);
  if (gdelta_[g] == 0) gtouched_.emplace_back(node, g);
  gdelta_[g] += milli;
  const int after = room(g);
  GCSIM_CHECK(after >= 0 && after <= 1000, "placement: GPU " + std::to_string(local) + " of node " +
                  std::to_string(node) + " would have " + std::to_string(after) + " thousandths unheld");
  if (before == 1000 && after < 1000) change(node, -1);
  if (before < 1000 && after == 1000) change(node, +1);
  if (rooms_built_) {
    const std::size_t t = cluster_->nodes[node].type;
    const NodeTypeView& type = cluster_->types[t];
    refile_gpu(g, t, (node - type.first_node) * static_cast<std::uint32_t>(type.gpus_per_node) + static_cast<std::uint32_t>(local));
  }
}

std::uint64_t PlacementStrategy::take(std::uint32_t node, int gpus) {
  if (!tracks_gpus()) {
    change(node, -gpus);
    return 0;
  }
  // The lowest free GPUs, as the cluster's allocator gives them.
  const int per = cluster_->types[cluster_->nodes[node].type].gpus_per_node;
  std::uint64_t mask = 0;
  for (int local = 0, taken = 0; taken < gpus && local < per; ++local)
    if (room(gpu_index(node, local)) == 1000) {
      change_room(node, local, -1000);
      mask |= std::uint64_t{1} << local;
      ++taken;
    }
  return mask;
}

void PlacementStrategy::take_placed(const Placement& p, std::span<const std::uint32_t> nodes) {
  if (p.gpu >= 0) {
    if (tracks_gpus()) change_room(nodes[p.first], p.gpu, -p.gpu_milli);
    else change(nodes[p.first], -1);
    return;
  }
  for (std::uint32_t i = p.first; i < p.first + p.count; ++i) {
    if (p.gpu_mask != 0 && tracks_gpus()) {
      for (int local = 0; local < 64; ++local)
        if (p.gpu_mask >> local & 1) change_room(nodes[i], local, -1000);
    } else {
      take(nodes[i], p.gpus_per_node);
    }
  }
}

void PlacementStrategy::give_back(const RunningPlace& place) { give_back(place, 1); }

void PlacementStrategy::give_back(const RunningPlace& place, int sign) {
  if (!tracks_gpus()) {
    // A share gives back no whole GPU: others may hold the rest of it.
    if (place.gpu < 0)
      for (std::uint32_t n : place.nodes) change(n, sign * place.gpus_per_node);
    return;
  }
  if (place.gpu >= 0) {
    for (std::uint32_t n : place.nodes) change_room(n, place.gpu, sign * place.gpu_milli);
    return;
  }
  // Following GPUs, a run gives back the GPUs it holds, which it must say (the cluster's
  // RunningPlace and this strategy's placements do).
  GCSIM_CHECK(place.gpu_mask != 0, "placement: a run given back without its GPUs, in a view that follows GPUs");
  for (std::uint32_t n : place.nodes) {
    const int per = cluster_->types[cluster_->nodes[n].type].gpus_per_node;
    for (int local = 0; local < per; ++local)
      if (place.gpu_mask >> local & 1) change_room(n, local, sign * 1000);
  }
}

int PlacementStrategy::lowest_free_gpu(std::uint32_t n) const {
  const int per = cluster_->types[cluster_->nodes[n].type].gpus_per_node;
  for (int local = 0; local < per; ++local)
    if (room(gpu_index(n, local)) == 1000) return local;
  return -1;
}

namespace {
// The lowest (or highest) value >= from set in a 1000-bit set, or -1.
int lowest_at_least(const std::array<std::uint64_t, 16>& bits, int from) {
  for (int w = from >> 6; w < 16; ++w) {
    std::uint64_t b = bits[static_cast<std::size_t>(w)];
    if (w == from >> 6) b &= ~std::uint64_t{0} << (from & 63);
    if (b) return w << 6 | std::countr_zero(b);
  }
  return -1;
}
int highest_at_least(const std::array<std::uint64_t, 16>& bits, int from) {
  for (int w = 15; w >= from >> 6; --w) {
    std::uint64_t b = bits[static_cast<std::size_t>(w)];
    if (w == from >> 6) b &= ~std::uint64_t{0} << (from & 63);
    if (b) return w << 6 | (63 - std::countl_zero(b));
  }
  return -1;
}
}  // namespace

// Over the job's eligible types, the shared GPU with room for it whose room is the least
// (or, `most`, the greatest); ties by the lowest GPU, earlier types first.
PlacementStrategy::GpuChoice PlacementStrategy::shared_gpu(const QueuedJob& job, bool most) const {
  if (!rooms_built_) build_rooms();
  GpuChoice best;
  int best_room = 0;
  for (std::size_t t = 0; t < cluster_->types.size(); ++t) {
    if (!fits_one_node(job, t)) continue;
    const int r = most ? highest_at_least(room_used_[t], job.gpu_milli) : lowest_at_least(room_used_[t], job.gpu_milli);
    if (r >= 0 && (best.node < 0 || (most ? r > best_room : r < best_room))) {
      const NodeTypeView& type = cluster_->types[t];
      const std::uint32_t local = rooms_[t][static_cast<std::size_t>(r)].first();
      const std::uint32_t per = static_cast<std::uint32_t>(type.gpus_per_node);
      best = GpuChoice{static_cast<int>(type.first_node + local / per), static_cast<int>(local % per), static_cast<int>(t)};
      best_room = r;
    }
  }
  return best;
}

PlacementStrategy::GpuChoice PlacementStrategy::choose_gpu(const QueuedJob& job) const {
  const GpuChoice shared = shared_gpu(job, false);
  if (shared.node >= 0) return shared;
  const NodeChoice c = choose_node(job);
  if (c.node < 0) return {};
  return GpuChoice{c.node, lowest_free_gpu(static_cast<std::uint32_t>(c.node)), c.type};
}

PlacementStrategy::GpuChoice SpreadPlacement::choose_gpu(const QueuedJob& job) const {
  const NodeChoice c = choose_node(job);
  if (c.node >= 0) return GpuChoice{c.node, lowest_free_gpu(static_cast<std::uint32_t>(c.node)), c.type};
  return shared_gpu(job, true);
}

bool PlacementStrategy::place_share(const QueuedJob& job, Decisions& out) {
  if (!tracks_gpus()) {
    // A plan without the GPUs (a view built by hand): the share counts as a whole GPU.
    const NodeChoice c = choose_node(job);
    if (c.node < 0) return false;
    change(static_cast<std::uint32_t>(c.node), -1);
    out.placements.push_back(Placement{job.job, static_cast<std::uint32_t>(out.nodes.size()), 1, 1, c.type, -1, job.gpu_milli});
    out.nodes.push_back(static_cast<std::uint32_t>(c.node));
    return true;
  }
  const GpuChoice c = choose_gpu(job);
  if (c.node < 0) return false;
  GCSIM_CHECK(c.gpu >= 0, "placement: no free GPU on node " + std::to_string(c.node) + ", which has free GPUs");
  change_room(static_cast<std::uint32_t>(c.node), c.gpu, -job.gpu_milli);
  out.placements.push_back(Placement{job.job, static_cast<std::uint32_t>(out.nodes.size()), 1, 1, c.type, c.gpu, job.gpu_milli,
                                     std::uint64_t{1} << c.gpu});
  out.nodes.push_back(static_cast<std::uint32_t>(c.node));
  return true;
}

bool PlacementStrategy::could_share(int gpus) const {
  if (gpus != 1 || !tracks_gpus()) return false;
  if (!rooms_built_) build_rooms();
  for (const auto& used : room_used_)
    for (std::uint64_t w : used)
      if (w) return true;
  return false;
}

bool PlacementStrategy::place_share_on(const QueuedJob& job, std::uint32_t n, Decisions& out) {
  if (!tracks_gpus()) return false;
  const int per = cluster_->types[cluster_->nodes[n].type].gpus_per_node;
  int best = -1, best_room = 1000;
  for (int local = 0; local < per; ++local) {
    const int r = room(gpu_index(n, local));
    if (r >= job.gpu_milli && r < best_room) {
      best = local;
      best_room = r;
    }
  }
  if (best < 0) best = lowest_free_gpu(n);
  if (best < 0) return false;
  change_room(n, best, -job.gpu_milli);
  out.placements.push_back(Placement{job.job, static_cast<std::uint32_t>(out.nodes.size()), 1, 1,
                                     cluster_->nodes[n].type, best, job.gpu_milli, std::uint64_t{1} << best});
  out.nodes.push_back(n);
  return true;
}

}  // namespace gcsim::models
