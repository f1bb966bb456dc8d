// The as-recorded replay's policy (see recorded.hpp).
#include "models/scheduler/recorded.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gcsim::models {

namespace {
constexpr std::uint8_t NOT_KNOWN = 0, IN_HEAP = 1, BLOCKED = 2;
}  // namespace

int ReplayPlacement::roomiest_up_node(std::uint64_t types) const {
  int best = -1, best_free = -1;
  for (std::size_t t = 0; t < cluster_->types.size() && t < 64; ++t) {
    if (!(types >> t & 1)) continue;
    const NodeTypeView& type = cluster_->types[t];
    // A node with a free GPU is up (others show none); among those with none, the first up.
    for (int f = type.gpus_per_node; f > best_free; --f) {
      const NodeSet& s = with_free(t, f);
      std::uint32_t i = s.first();
      if (f == 0)
        while (i != NodeSet::NONE && cluster_->nodes[type.first_node + i].status != NodeStatus::Up) i = s.next(i + 1);
      if (i == NodeSet::NONE) continue;
      best = static_cast<int>(type.first_node + i);
      best_free = f;
      break;
    }
  }
  return best;
}

void RecordedScheduler::job_waiting(const QueuedJob& job) {
  if (job.job >= in_heap_.size()) in_heap_.resize(std::max<std::size_t>(job.job + 1, 2 * in_heap_.size()), NOT_KNOWN);
  // Still in the heap or blocked from an earlier wait (it left and came back): that entry stands.
  if (in_heap_[job.job] != NOT_KNOWN) return;
  in_heap_[job.job] = IN_HEAP;
  due_.push_back(Due{job.recorded_start, job.job});
  std::push_heap(due_.begin(), due_.end(), later);
}

void RecordedScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  fit_.reset(cluster);
  // First the jobs that found no node up before, in the order they became due.
  retry_.clear();
  for (std::uint32_t id : blocked_) {
    if (!waiting.contains(id)) {
      in_heap_[id] = NOT_KNOWN;
      continue;
    }
    if (place(cluster, waiting[id], out)) in_heap_[id] = NOT_KNOWN;
    else retry_.push_back(id);
  }
  blocked_.swap(retry_);
  while (!due_.empty() && due_.front().at <= cluster.now) {
    std::pop_heap(due_.begin(), due_.end(), later);
    const Due d = due_.back();
    due_.pop_back();
    in_heap_[d.job] = NOT_KNOWN;
    if (!waiting.contains(d.job)) continue;  // held meanwhile (a budget): it comes back through job_waiting
    if (!place(cluster, waiting[d.job], out)) {
      in_heap_[d.job] = BLOCKED;
      blocked_.push_back(d.job);
    }
  }
  if (!due_.empty()) out.wake_at = due_.front().at;
}

bool RecordedScheduler::place_on_machines(const ClusterView& cluster, const QueuedJob& q, Decisions& out) {
  // Its recorded machines' nodes, usable when they are all up, of one type it may use,
  // each with room for its share of the GPUs (the trace records the same on each).
  const std::size_t at = recorded_node_set_offset(q.recorded_node);
  const std::span<const std::int32_t> sets = cluster.recorded_node_sets;
  if (at >= sets.size() || sets[at] < 2 || at + static_cast<std::size_t>(sets[at]) >= sets.size()) return false;
  const auto count = static_cast<std::uint32_t>(sets[at]);
  if (q.gpu_milli < 1000 || q.gpus % static_cast<int>(count) != 0) return false;
  const int per_node = q.gpus / static_cast<int>(count);
  int type = -1;
  set_nodes_.clear();
  for (std::uint32_t i = 1; i <= count; ++i) {
    const std::int32_t n = sets[at + i];
    if (n < 0 || static_cast<std::size_t>(n) >= cluster.nodes.size()) return false;
    const NodeView& node = cluster.nodes[static_cast<std::size_t>(n)];
    if (node.status != NodeStatus::Up || (type >= 0 && node.type != type)) return false;
    type = node.type;
    set_nodes_.push_back(static_cast<std::uint32_t>(n));
  }
  if (type >= 64 || !(q.eligible_types >> type & 1) || per_node > cluster.types[static_cast<std::size_t>(type)].gpus_per_node)
    return false;
  std::sort(set_nodes_.begin(), set_nodes_.end());
  if (std::adjacent_find(set_nodes_.begin(), set_nodes_.end()) != set_nodes_.end()) return false;  // a node twice
  const bool room = std::all_of(set_nodes_.begin(), set_nodes_.end(), [&](std::uint32_t n) { return fit_.free_gpus(n) >= per_node; });
  Placement p{q.job, static_cast<std::uint32_t>(out.nodes.size()), count, per_node, type, -1, 1000, 0};
  out.nodes.insert(out.nodes.end(), set_nodes_.begin(), set_nodes_.end());
  if (room) {
    fit_.take_placed(p, out.nodes);
    ++counts_.on_machine;
  } else {
    // Fuller in the replay than in the trace: over capacity on them, as on one machine.
    p.over_capacity = true;
    ++counts_.over_capacity;
    if (!std::isnan(q.remaining_s)) counts_.over_capacity_gpu_s += q.gpus * q.remaining_s;
  }
  out.placements.push_back(p);
  return true;
}

bool RecordedScheduler::place(const ClusterView& cluster, const QueuedJob& q, Decisions& out) {
  // Recorded over several machines: on them, or else as a job without a machine.
  const bool on_set = is_recorded_node_set(q.recorded_node);
  bool unusable = on_set;
  bool placed = on_set && place_on_machines(cluster, q, out);
  if (placed) unusable = false;
  else placed = place_alone(cluster, q, out, unusable);
  if (!placed) return false;
  ++counts_.starts;
  counts_.machine_unusable += unusable;
  if (q.recorded_start != sim::SimTime::min() && cluster.now > q.recorded_start) ++counts_.late;
  return true;
}

bool RecordedScheduler::place_alone(const ClusterView& cluster, const QueuedJob& q, Decisions& out, bool& unusable) {
  // The types it may use that hold it on one node: a job that fits one node never spreads
  // over several (whole nodes would hold more GPUs than it recorded).
  std::uint64_t one_node = 0;
  for (std::size_t t = 0; t < cluster.types.size() && t < 64; ++t)
    if ((q.eligible_types >> t & 1) && q.gpus <= cluster.types[t].gpus_per_node) one_node |= std::uint64_t{1} << t;
  int machine = -1;
  if (q.recorded_node >= 0) {
    const auto n = static_cast<std::size_t>(q.recorded_node);
    if (n < cluster.nodes.size() && cluster.nodes[n].status == NodeStatus::Up && (one_node >> cluster.nodes[n].type & 1))
      machine = q.recorded_node;
    else
      unusable = true;
  }
  if (machine < 0) {
    QueuedJob one = q;
    if (one_node != 0) one.eligible_types = one_node;
    return fit_.try_place(one, out) || place_over(cluster, q, -1, out);
  }
  const auto n = static_cast<std::uint32_t>(machine);
  bool placed = false;
  if (q.gpu_milli < 1000) {
    placed = fit_.place_share_on(q, n, out);
  } else if (fit_.free_gpus(n) >= q.gpus) {
    Placement p{q.job, static_cast<std::uint32_t>(out.nodes.size()), 1, q.gpus, cluster.nodes[n].type, -1, 1000, 0};
    out.nodes.push_back(n);
    fit_.take_placed(p, out.nodes);
    out.placements.push_back(p);
    placed = true;
  }
  if (placed) ++counts_.on_machine;
  return placed || place_over(cluster, q, machine, out);
}

bool RecordedScheduler::place_over(const ClusterView& cluster, const QueuedJob& q, int node, Decisions& out) {
  const auto first = static_cast<std::uint32_t>(out.nodes.size());
  int type = -1, per_node = 0;
  std::uint32_t count = 0;
  auto eligible = [&](std::size_t t) { return t < 64 && (q.eligible_types >> t & 1); };
  if (node >= 0) {
    out.nodes.push_back(static_cast<std::uint32_t>(node));
    type = cluster.nodes[static_cast<std::size_t>(node)].type;
    per_node = q.gpu_milli < 1000 ? 1 : q.gpus;
    count = 1;
  } else {
    // One node when one of its types holds it: the up node with the most free GPUs (the
    // least overloaded), the lowest on ties.
    std::uint64_t one_node = 0;
    for (std::size_t t = 0; t < cluster.types.size() && t < 64; ++t)
      if (eligible(t) && q.gpus <= cluster.types[t].gpus_per_node) one_node |= std::uint64_t{1} << t;
    const int best = one_node != 0 ? fit_.roomiest_up_node(one_node) : -1;
    if (best >= 0) {
      out.nodes.push_back(static_cast<std::uint32_t>(best));
      type = cluster.nodes[static_cast<std::size_t>(best)].type;
      per_node = q.gpu_milli < 1000 ? 1 : q.gpus;
      count = 1;
    } else {
      // Bigger than a node of any of its types: whole nodes of the first type with enough up,
      // the ones with the most free GPUs (gang placement, as placement.hpp takes them).
      for (std::size_t t = 0; t < cluster.types.size() && type < 0; ++t) {
        if (!eligible(t)) continue;
        const int per = cluster.types[t].gpus_per_node;
        const auto needed = static_cast<std::size_t>((q.gpus + per - 1) / per);
        candidates_.clear();
        for (std::size_t n = 0; n < cluster.nodes.size(); ++n)
          if (cluster.nodes[n].type == t && cluster.nodes[n].status == NodeStatus::Up)
            candidates_.push_back(static_cast<std::uint32_t>(n));
        if (candidates_.size() < needed) continue;
        std::stable_sort(candidates_.begin(), candidates_.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return fit_.free_gpus(a) > fit_.free_gpus(b); });
        candidates_.resize(needed);
        std::sort(candidates_.begin(), candidates_.end());
        out.nodes.insert(out.nodes.end(), candidates_.begin(), candidates_.end());
        type = static_cast<int>(t);
        per_node = per;
        count = static_cast<std::uint32_t>(needed);
      }
      if (type < 0) return false;  // no node of its types is up
    }
  }
  Placement p{q.job, first, count, per_node, type, -1, q.gpu_milli, 0};
  p.over_capacity = true;
  out.placements.push_back(p);
  ++counts_.over_capacity;
  if (!std::isnan(q.remaining_s)) counts_.over_capacity_gpu_s += q.gpus * (q.gpu_milli / 1000.0) * q.remaining_s;
  return true;
}

std::string RecordedScheduler::settings() const {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "as recorded: %llu starts, %llu on their recorded machines, %llu placed over capacity (%.2f GPU-hours), "
                "%llu recorded machines unusable, %llu after their recorded start",
                static_cast<unsigned long long>(counts_.starts), static_cast<unsigned long long>(counts_.on_machine),
                static_cast<unsigned long long>(counts_.over_capacity), counts_.over_capacity_gpu_s / 3600.0,
                static_cast<unsigned long long>(counts_.machine_unusable), static_cast<unsigned long long>(counts_.late));
  return buf;
}

PolicyDef<RecordedParams> recorded_policy() {
  PolicyDef<RecordedParams> def;
  def.name = "recorded";
  def.description =
      "each job starts at its recorded start (a trace's mode: as-recorded; else at its arrival), on its recorded machine "
      "or by best-fit, over capacity rather than late";
  def.parse = [](config::MapReader& map, const SchedulerRegistry&, const PolicyContext&) {
    // Quotas hold jobs back; this policy never does (a job goes over capacity instead).
    if (const config::ConfigNode* quotas = map.where("quotas"))
      quotas->fail(ErrorCode::Conflict, "policy recorded starts every job at its recorded start, over capacity if need "
                                        "be: no quota can hold one back. Drop quotas, or name another policy");
    return RecordedParams{};
  };
  def.make = [](const RecordedParams&, const SchedulerRegistry&) { return std::make_unique<RecordedScheduler>(); };
  return def;
}

}  // namespace gcsim::models
