// Conservative backfilling (Mu'alem and Feitelson 2001): every waiting job examined holds a
// reservation on a profile of free GPUs per node over time (see backfill.hpp and
// docs/scheduling.md, "mode: conservative"). EASY is in backfill.cpp.
#include "models/scheduler/backfill.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "sim/check.hpp"

namespace gcsim::models {

void BackfillScheduler::start_plan(const ClusterView& cluster, const Decisions& out, std::size_t from) {
  plan_nodes_.assign(cluster.nodes.begin(), cluster.nodes.end());
  for (NodeView& n : plan_nodes_)
    if (n.status != NodeStatus::Up) n.gpus_free = 0;
  for (std::size_t i = from; i < out.placements.size(); ++i) {
    const Placement& p = out.placements[i];
    for (std::uint32_t k = p.first; k < p.first + p.count; ++k) plan_nodes_[out.nodes[k]].gpus_free -= p.gpus_per_node;
  }
  plan_view_ = ClusterView{cluster.now, cluster.types, plan_nodes_};
  plan_view_.node_group = cluster.node_group;  // so a topology plan reserves what the pass would place
}

namespace {
// Whether a hold overlaps a job that would run over [t, t_end): half-open spans, and a
// hold starting at t always does (a run of length 0 still holds its GPUs when it starts).
bool overlaps(double start_s, double end_s, double t, double t_end) {
  return start_s == t || (start_s < t_end && end_s > t);
}
}  // namespace

void BackfillScheduler::add_capacity(const ClusterView& cluster, std::uint32_t node, int gpus) {
  const std::uint16_t t = cluster.nodes[node].type;
  cap_[node] += gpus;
  if (cap_[node] == cluster.types[t].gpus_per_node) ++cap_whole_[t];
  cap_max_[t] = std::max(cap_max_[t], cap_[node]);
}

bool BackfillScheduler::capacity_may_fit(const ClusterView& cluster, const QueuedJob& q) const {
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(q.eligible_types >> t & 1)) continue;
    const int per = cluster.types[t].gpus_per_node;
    if (q.gpus <= per ? cap_max_[t] >= q.gpus : static_cast<long long>(cap_whole_[t]) * per >= q.gpus) return true;
  }
  return false;
}

bool BackfillScheduler::try_at(double t, double length, const QueuedJob& q) {
  const double t_end = span_end_s(t, length);
  for (std::size_t n = 0; n < plan_nodes_.size(); ++n) plan_nodes_[n].gpus_free = cap_[n];
  for (const Hold& h : holds_)
    if (overlaps(h.start_s, h.end_s, t, t_end))
      for (std::uint32_t k = h.first; k < h.first + h.count; ++k) {
        int& f = plan_nodes_[plan_hold_nodes_[k]].gpus_free;
        f = std::max(0, f - h.gpus_per_node);
      }
  plan_->reset(plan_view_);
  plan_out_.clear();
  return plan_->could_fit(q.gpus) && plan_->try_place(q, plan_out_);
}

void BackfillScheduler::conservative_fresh(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  constexpr double NEVER = std::numeric_limits<double>::infinity();
  const double now_s = cluster.now.seconds();
  start_plan(cluster, out, out.placements.size());
  base_free_.resize(plan_nodes_.size());
  long long base_total = 0;
  for (std::size_t n = 0; n < plan_nodes_.size(); ++n) {
    base_free_[n] = plan_nodes_[n].gpus_free;
    base_total += base_free_[n];
  }
  long long free_now = base_total;
  // Jobs that share GPUs start on the GPU now_ picks on the planned node: the plan counts
  // whole GPUs, now_ follows every GPU.
  if (!cluster.gpu_room.empty()) now_->reset(cluster);
  // The running jobs' releases, by expected end. A run at or past it may end any moment, but
  // has not yet: its GPUs are released just after now, so nothing starts on them now (a run
  // that paused for checkpoints outlasts its length).
  // A shared GPU is released whole when the last of its jobs is expected to end.
  releases_.clear();
  holds_nodes_.clear();
  shared_.clear();
  if (cluster.running_jobs != nullptr)
    running_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      const RunningPlace place = cluster.running_jobs->where(id);
      if (!on_up_nodes(cluster, place.nodes)) return Visit::Next;
      const double end_s = std::max(std::nextafter(now_s, NEVER), running_.key(id));
      if (place.gpu >= 0) {
        const std::pair<std::uint32_t, int> gpu{place.nodes[0], place.gpu};
        const auto it = std::find_if(shared_.begin(), shared_.end(), [&](const auto& s) { return s.first == gpu; });
        if (it == shared_.end()) shared_.emplace_back(gpu, end_s);
        else it->second = std::max(it->second, end_s);
        return Visit::Next;
      }
      releases_.push_back(Hold{0, end_s, static_cast<std::uint32_t>(holds_nodes_.size()),
                               static_cast<std::uint32_t>(place.nodes.size()), place.gpus_per_node});
      holds_nodes_.insert(holds_nodes_.end(), place.nodes.begin(), place.nodes.end());
      return Visit::Next;
    });
  if (!shared_.empty()) {
    for (const auto& [gpu, end_s] : shared_) {
      releases_.push_back(Hold{0, end_s, static_cast<std::uint32_t>(holds_nodes_.size()), 1, 1});
      holds_nodes_.push_back(gpu.first);
    }
    std::stable_sort(releases_.begin(), releases_.end(), [](const Hold& a, const Hold& b) { return a.end_s < b.end_s; });
  }
  holds_.clear();
  plan_hold_nodes_.clear();
  hold_ends_.clear();
  bool blocked = false;
  int behind = 0;
  for (std::uint32_t id = waiting_ids_.next(0); id != IdSet::NONE; id = waiting_ids_.next(id + 1)) {
    // Nothing more can start now: later reservations would change nothing in this pass.
    if (free_now == 0 || (blocked && behind++ == params_.depth)) break;
    const QueuedJob& q = waiting[id];
    if (held_by_quota(cluster, q)) continue;  // no start and no reservation while the quotas hold it
    const double length = length_s(q);
    // Candidate starts, in time order: now, then every time a run or a reservation ends;
    // the capacity only grows from one to the next (holds aside, checked in try_at).
    cap_ = base_free_;
    cap_whole_.assign(cluster.types.size(), 0);
    cap_max_.assign(cluster.types.size(), 0);
    for (std::size_t n = 0; n < cap_.size(); ++n) {
      const std::uint16_t ty = cluster.nodes[n].type;
      if (cap_[n] == cluster.types[ty].gpus_per_node) ++cap_whole_[ty];
      cap_max_[ty] = std::max(cap_max_[ty], cap_[n]);
    }
    std::size_t next_release = 0;
    std::size_t next_hold = 0;
    bool placed = false;  // started or reserved
    for (double t = now_s; t != NEVER;) {
      for (; next_release < releases_.size() && releases_[next_release].end_s <= t; ++next_release) {
        const Hold& r = releases_[next_release];
        for (std::uint32_t k = r.first; k < r.first + r.count; ++k) add_capacity(cluster, holds_nodes_[k], r.gpus_per_node);
      }
      while (next_hold < hold_ends_.size() && hold_ends_[next_hold] <= t) ++next_hold;
      if (capacity_may_fit(cluster, q) && try_at(t, length, q)) {
        const Placement& p = plan_out_.placements.back();
        const double end_s = span_end_s(t, length);
        holds_.push_back(Hold{t, end_s, static_cast<std::uint32_t>(plan_hold_nodes_.size()), p.count, p.gpus_per_node});
        plan_hold_nodes_.insert(plan_hold_nodes_.end(), plan_out_.nodes.begin(), plan_out_.nodes.end());
        hold_ends_.insert(std::upper_bound(hold_ends_.begin(), hold_ends_.end(), end_s), end_s);
        if (t == now_s) {
          if (q.gpu_milli < 1000) {
            // The plan counted a whole GPU of its node for it; it takes its share there.
            const bool placed = now_->place_share_on(q, plan_out_.nodes[p.first], out);
            GCSIM_CHECK(placed, "conservative backfill: no room for a share on node " +
                                    std::to_string(plan_out_.nodes[p.first]) + ", where the plan has a free GPU");
          } else {
            out.placements.push_back(Placement{q.job, static_cast<std::uint32_t>(out.nodes.size()), p.count,
                                               p.gpus_per_node, p.node_type, -1, 1000, 0});
            out.nodes.insert(out.nodes.end(), plan_out_.nodes.begin(), plan_out_.nodes.end());
            if (!cluster.gpu_room.empty()) now_->take_placed(out.placements.back(), out.nodes);
          }
          free_now -= static_cast<long long>(p.count) * p.gpus_per_node;
        } else {
          reservations_.push_back(Reservation{q.job, t});
          blocked = true;
        }
        placed = true;
        break;
      }
      t = std::min(next_release < releases_.size() ? releases_[next_release].end_s : NEVER,
                   next_hold < hold_ends_.size() ? hold_ends_[next_hold] : NEVER);
    }
    if (!placed) blocked = true;  // it fits nowhere even once every run and reservation has ended
  }
}


// The pass below keeps the reservations of the last pass (kept_) while nothing happened
// that a plan did not expect (docs/scheduling.md, "mode: conservative"), and plans only
// the jobs beyond them, with conservative_fresh's rule (the same candidate times, the same
// capacity less the same holds, the same strategy on the same view).
//   - Between two passes at T and T', if the runs that ended did so exactly at their
//     expected ends, the runs that started are the jobs the pass at T started, no node
//     changed state, and no job joined or left the waiting jobs ahead of the last one
//     kept, then a kept reservation still fits beside every run and every reservation
//     ahead of it, at every instant: it was planned beside them, and a job started at T
//     holds from then on exactly the GPUs its hold did, until the end of its hold.
//     Planning afresh at T' gives the same reservations but where a job started at T
//     behind a reservation R: as a run it is subtracted whole on R's node together with
//     holds that start after it ends, which may move R later (keep_across_backfills_
//     false drops kept_ after such a pass, and then every pass decides as planning afresh:
//     the test checks it pass by pass). No candidate time lies in (T, T') (a run end or a
//     hold end there would have been a pass), and at T' a job finds the capacity of its
//     last candidate before T' less at least the same holds, so it does not fit there
//     either (a strategy that fails on some capacity fails on less).
//   - A search walks the runs in order of expected end (rel_ and rel_new_, read from
//     running_ only as far as needed) from a rest state that counts every hold and the runs
//     ending by front_s_, trying candidate times from the bound earlier searches learnt
//     (SearchMemo); it keeps per node the capacity and the GPUs of the holds overlapping
//     the job's span, and per node type how many nodes have each count of GPUs available:
//     a candidate time is rejected from that count (exact for one-node jobs and for whole
//     nodes), and the strategy is asked only where it says the job fits, on plan_nodes_
//     with only the nodes written since the last ask refiled (and only those that may
//     host the job written).
void BackfillScheduler::follow_base(const ClusterView& cluster) {
  const NodeChanges* log = cluster.changes;
  const std::uint64_t total = log->total();
  const auto base_of = [&](std::uint32_t n) {
    return cluster.nodes[n].status == NodeStatus::Up ? cluster.nodes[n].gpus_free : 0;
  };
  if (!base_valid_ || base_.size() != cluster.nodes.size() || log->dropped > base_log_read_ || base_log_read_ > total) {
    const std::size_t nodes = cluster.nodes.size();
    base_.resize(nodes);
    base_status_.resize(nodes);
    hist_first_.assign(cluster.types.size() + 1, 0);
    for (std::size_t t = 0; t < cluster.types.size(); ++t)
      hist_first_[t + 1] = hist_first_[t] + cluster.types[t].gpus_per_node + 1;
    base_hist_.assign(static_cast<std::size_t>(hist_first_.back()), 0);
    base_total_ = 0;
    for (std::uint32_t n = 0; n < nodes; ++n) {
      base_[n] = base_of(n);
      base_status_[n] = cluster.nodes[n].status;
      base_total_ += base_[n];
      ++base_hist_[static_cast<std::size_t>(hist_first_[cluster.nodes[n].type] + base_[n])];
    }
    scap_ = base_;
    rcap_ = base_;
    front_s_ = -std::numeric_limits<double>::infinity();  // no release counted at rest
    rheld_.assign(nodes, 0);  // no hold (kept_ is dropped: build_holds counts them again)
    sheld_.assign(nodes, 0);
    stouched_flag_.assign(nodes, 0);
    stouched_.clear();
    // plan_nodes_ keeps its storage from here on (plan_ follows it through plan_log_).
    plan_nodes_.assign(cluster.nodes.begin(), cluster.nodes.end());
    for (std::uint32_t n = 0; n < nodes; ++n) plan_nodes_[n].gpus_free = base_[n];
    plan_dirty_.clear();
    plan_dirty_flag_.assign(nodes, 0);
    plan_need_.assign(cluster.types.size(), 0);
    plan_log_.dropped += plan_log_.nodes.size() + 1;  // plan_ compares every node at its next reset
    plan_log_.nodes.clear();
    base_valid_ = true;
    kept_valid_ = false;
  } else {
    for (std::size_t i = static_cast<std::size_t>(base_log_read_ - log->dropped); i < log->nodes.size(); ++i) {
      const std::uint32_t n = log->nodes[i];
      if (cluster.nodes[n].status != base_status_[n]) {
        base_status_[n] = cluster.nodes[n].status;
        plan_nodes_[n].status = base_status_[n];
        kept_valid_ = false;
      }
      const int b = base_of(n);
      if (b == base_[n]) continue;
      const int gained = b - base_[n];
      base_total_ += gained;
      base_[n] = b;
      rest_change(cluster, n, gained, 0);
    }
  }
  base_log_read_ = total;
  plan_view_ = ClusterView{cluster.now, cluster.types, plan_nodes_};
  plan_view_.node_group = cluster.node_group;  // so a topology plan reserves what the pass would place
  plan_view_.changes = &plan_log_;
}

void BackfillScheduler::set_plan_node(std::uint32_t n, int gpus_free) {
  if (plan_nodes_[n].gpus_free == gpus_free) return;
  plan_nodes_[n].gpus_free = gpus_free;
  plan_log_.nodes.push_back(n);
}

void BackfillScheduler::change_node(const ClusterView& cluster, std::uint32_t n, int cap, int held) {
  if (!stouched_flag_[n]) {
    stouched_flag_[n] = 1;
    stouched_.push_back(n);
  }
  if (!hist_live_) {  // refresh_hist files it
    scap_[n] += cap;
    sheld_[n] += held;
    return;
  }
  const int before = std::max(0, scap_[n] - sheld_[n]);
  scap_[n] += cap;
  sheld_[n] += held;
  refile_hist(cluster, n, before);
}

void BackfillScheduler::refile_hist(const ClusterView& cluster, std::uint32_t n, int before) {
  const int after = std::max(0, scap_[n] - sheld_[n]);
  if (before == after) return;
  const std::uint16_t t = cluster.nodes[n].type;
  GCSIM_CHECK(after <= cluster.types[t].gpus_per_node,
              "conservative backfill: node " + std::to_string(n) + " would have " + std::to_string(after) + " GPUs");
  const std::size_t first = static_cast<std::size_t>(hist_first_[t]);
  --base_hist_[first + static_cast<std::size_t>(before)];
  ++base_hist_[first + static_cast<std::size_t>(after)];
}

void BackfillScheduler::refresh_hist(const ClusterView& cluster) {
  // Every node touched so far is filed at rest (the search started there).
  for (const std::uint32_t n : stouched_) refile_hist(cluster, n, rest_avail(n));
  hist_live_ = true;
}

void BackfillScheduler::rest_change(const ClusterView& cluster, std::uint32_t n, int cap, int held) {
  const std::uint16_t t = cluster.nodes[n].type;
  const std::size_t first = static_cast<std::size_t>(hist_first_[t]);
  --base_hist_[first + static_cast<std::size_t>(rest_avail(n))];
  rcap_[n] += cap;
  rheld_[n] += held;
  scap_[n] = rcap_[n];
  sheld_[n] = rheld_[n];
  GCSIM_CHECK(rcap_[n] >= 0 && rcap_[n] <= cluster.types[t].gpus_per_node,
              "conservative backfill: node " + std::to_string(n) + " would have " + std::to_string(rcap_[n]) +
                  " GPUs back by " + std::to_string(front_s_) + " s");
  ++base_hist_[first + static_cast<std::size_t>(rest_avail(n))];
  set_plan_node(n, rest_avail(n));
}

void BackfillScheduler::rest_release(const ClusterView& cluster, const Release& r, int sign) {
  for (std::uint32_t k = r.first; k < r.first + r.count; ++k) rest_change(cluster, rel_nodes_[k], sign * r.gpus_per_node, 0);
}

void BackfillScheduler::move_front(const ClusterView& cluster, double to_s) {
  const auto after = [](std::vector<Release>& list, std::size_t from, double t) {
    return static_cast<std::size_t>(
        std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(from), list.end(), t,
                         [](double v, const Release& r) { return v < r.end_s; }) -
        list.begin());
  };
  if (to_s > front_s_) {
    while (rel_horizon_s_ < to_s && extend_releases(cluster, std::max<std::size_t>(256, rel_.size() - rel_from_))) {
    }
    to_s = std::min(to_s, rel_horizon_s_);  // within the runs the lists hold
    if (to_s <= front_s_) return;
    for (std::vector<Release>* list : {&rel_, &rel_new_}) {
      const std::size_t from = list == &rel_ ? rel_from_ : rel_new_from_;
      for (std::size_t i = after(*list, from, front_s_); i < list->size() && (*list)[i].end_s <= to_s; ++i)
        rest_release(cluster, (*list)[i], 1);
    }
  } else if (to_s < front_s_) {
    for (std::vector<Release>* list : {&rel_, &rel_new_}) {
      const std::size_t from = list == &rel_ ? rel_from_ : rel_new_from_;
      for (std::size_t i = after(*list, from, to_s); i < list->size() && (*list)[i].end_s <= front_s_; ++i)
        rest_release(cluster, (*list)[i], -1);
    }
  }
  front_s_ = to_s;
}

void BackfillScheduler::rest_hold(const ClusterView& cluster, const Hold& h, int sign) {
  for (std::uint32_t k = h.first; k < h.first + h.count; ++k) rest_change(cluster, plan_hold_nodes_[k], 0, sign * h.gpus_per_node);
}

bool BackfillScheduler::avail_may_fit(const ClusterView& cluster, const QueuedJob& q) const {
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(q.eligible_types >> t & 1)) continue;
    const int per = cluster.types[t].gpus_per_node;
    const int* h = base_hist_.data() + hist_first_[t];
    if (q.gpus <= per) {
      for (int v = q.gpus; v <= per; ++v)
        if (h[v] > 0) return true;
    } else if (static_cast<long long>(h[per]) * per >= q.gpus) {
      return true;
    }
  }
  return false;
}

std::uint32_t BackfillScheduler::add_hold(std::uint32_t job, double start_s, double end_s,
                                          std::span<const std::uint32_t> nodes, int gpus_per_node) {
  const auto i = static_cast<std::uint32_t>(holds_.size());
  if (end_s <= start_s) ++empty_holds_;
  hold_job_.push_back(job);
  holds_.push_back(Hold{start_s, end_s, static_cast<std::uint32_t>(plan_hold_nodes_.size()),
                        static_cast<std::uint32_t>(nodes.size()), gpus_per_node});
  plan_hold_nodes_.insert(plan_hold_nodes_.end(), nodes.begin(), nodes.end());
  by_start_.insert(std::upper_bound(by_start_.begin(), by_start_.end(), start_s,
                                    [&](double s, std::uint32_t h) { return s < holds_[h].start_s; }),
                   i);
  by_end_.insert(std::upper_bound(by_end_.begin(), by_end_.end(), end_s,
                                  [&](double e, std::uint32_t h) { return e < holds_[h].end_s; }),
                 i);
  return i;
}

void BackfillScheduler::push_release(std::vector<Release>& list, double end_s, const RunningPlace& place) {
  GCSIM_CHECK(place.gpu < 0, "conservative backfill: a run shares a GPU in a view without gpu_room");
  list.push_back(Release{end_s, static_cast<std::uint32_t>(rel_nodes_.size()),
                         static_cast<std::uint32_t>(place.nodes.size()), place.gpus_per_node});
  rel_nodes_.insert(rel_nodes_.end(), place.nodes.begin(), place.nodes.end());
}

bool BackfillScheduler::extend_releases(const ClusterView& cluster, std::size_t count) {
  if (rel_complete_) return false;
  const std::size_t before = rel_.size();
  double last = -std::numeric_limits<double>::infinity();
  bool more = false;
  running_.scan([](int) { return true; }, [&](std::uint32_t id, bool, double end_s) {
    if (end_s <= rel_horizon_s_) return Visit::Next;  // in the list already (or not up)
    if (rel_.size() - before >= count && end_s > last) {
      more = true;
      return Visit::Stop;
    }
    last = end_s;
    const RunningPlace place = cluster.running_jobs->where(id);
    if (on_up_nodes(cluster, place.nodes)) push_release(rel_, end_s, place);
    return Visit::Next;
  });
  if (more) {
    rel_horizon_s_ = last;
  } else {
    rel_complete_ = true;
    rel_horizon_s_ = std::numeric_limits<double>::infinity();
  }
  return rel_.size() > before;
}

void BackfillScheduler::compact_releases(bool merge) {
  std::vector<Release> rel;
  rel.reserve(rel_.size() - rel_from_ + (merge ? rel_new_.size() - rel_new_from_ : 0));
  if (merge)
    std::merge(rel_.begin() + static_cast<std::ptrdiff_t>(rel_from_), rel_.end(),
               rel_new_.begin() + static_cast<std::ptrdiff_t>(rel_new_from_), rel_new_.end(), std::back_inserter(rel),
               [](const Release& a, const Release& b) { return a.end_s < b.end_s; });
  else
    rel.assign(rel_.begin() + static_cast<std::ptrdiff_t>(rel_from_), rel_.end());
  std::vector<Release> fresh = merge ? std::vector<Release>{}
                                     : std::vector<Release>(rel_new_.begin() + static_cast<std::ptrdiff_t>(rel_new_from_),
                                                            rel_new_.end());
  rel_nodes_spare_.clear();
  for (std::vector<Release>* list : {&rel, &fresh})
    for (Release& r : *list) {
      const std::uint32_t first = r.first;
      r.first = static_cast<std::uint32_t>(rel_nodes_spare_.size());
      rel_nodes_spare_.insert(rel_nodes_spare_.end(), rel_nodes_.begin() + first, rel_nodes_.begin() + first + r.count);
    }
  rel_.swap(rel);
  rel_new_.swap(fresh);
  rel_nodes_.swap(rel_nodes_spare_);
  rel_from_ = 0;
  rel_new_from_ = 0;
}

void BackfillScheduler::retire_releases(const ClusterView& cluster) {
  // Runs end exactly when expected (else the pass is not clean and the lists go): those
  // ended are the first ones. At rest they leave rcap_ before follow_base gives their GPUs
  // to base_, so that no node counts them twice.
  const double now_s = cluster.now.seconds();
  for (; rel_from_ < rel_.size() && rel_[rel_from_].end_s <= now_s; ++rel_from_)
    if (rel_[rel_from_].end_s <= front_s_) rest_release(cluster, rel_[rel_from_], -1);
  for (; rel_new_from_ < rel_new_.size() && rel_new_[rel_new_from_].end_s <= now_s; ++rel_new_from_)
    if (rel_new_[rel_new_from_].end_s <= front_s_) rest_release(cluster, rel_new_[rel_new_from_], -1);
}

void BackfillScheduler::follow_releases(const ClusterView& cluster, bool clean) {
  const double now_s = cluster.now.seconds();
  if (!clean) {
    if (base_valid_) move_front(cluster, -std::numeric_limits<double>::infinity());  // rest: base_ again
    front_s_ = -std::numeric_limits<double>::infinity();
    rel_.clear();
    rel_new_.clear();
    rel_nodes_.clear();
    rel_from_ = 0;
    rel_new_from_ = 0;
    rel_horizon_s_ = -std::numeric_limits<double>::infinity();
    rel_complete_ = false;
    return;
  }
  front_s_ = std::max(front_s_, now_s);  // the releases ended by now left (retire_releases)
  // The runs the last pass started, where the list reaches their ends: into rel_new_,
  // merged into rel_ once it holds more than a few (an insertion into rel_ itself would
  // move its whole tail).
  for (const std::uint32_t job : kept_started_) {
    if (!running_.contains(job)) continue;  // it ended already, when expected
    const double end_s = running_.key(job);
    if (end_s > rel_horizon_s_) continue;  // read from running_ when a search gets there
    const RunningPlace place = cluster.running_jobs->where(job);
    if (!on_up_nodes(cluster, place.nodes)) continue;
    const auto at = std::upper_bound(rel_new_.begin() + static_cast<std::ptrdiff_t>(rel_new_from_), rel_new_.end(),
                                     end_s, [](double e, const Release& r) { return e < r.end_s; });
    const std::size_t i = static_cast<std::size_t>(at - rel_new_.begin());
    push_release(rel_new_, end_s, place);
    if (end_s <= front_s_) rest_release(cluster, rel_new_.back(), 1);
    std::rotate(rel_new_.begin() + static_cast<std::ptrdiff_t>(i), rel_new_.end() - 1, rel_new_.end());
  }
  constexpr std::size_t NEW_MOST = 64;
  if (rel_new_.size() - rel_new_from_ > NEW_MOST)
    compact_releases(true);
  else if (rel_nodes_.size() > 4096 && rel_nodes_.size() > 4 * (rel_.size() - rel_from_ + rel_new_.size() - rel_new_from_))
    compact_releases(false);  // mostly ended
}

BackfillScheduler::SearchMemo::Shape& BackfillScheduler::SearchMemo::shape(int gpus, std::uint64_t types) {
  for (Shape& s : shapes_)
    if (s.gpus == gpus && s.types == types) return s;
  shapes_.push_back(Shape{gpus, types, {}});
  return shapes_.back();
}

double BackfillScheduler::SearchMemo::bound(int gpus, std::uint64_t types, double length, double now_s) {
  constexpr double NONE = -std::numeric_limits<double>::infinity();
  for (Shape& s : shapes_) {
    if (s.gpus != gpus || s.types != types) continue;
    // Times at or before now bound nothing: they leave.
    auto& f = s.front;
    f.erase(f.begin(), std::find_if(f.begin(), f.end(), [&](const auto& e) { return e.second > now_s; }));
    const auto it = std::upper_bound(f.begin(), f.end(), length, [](double l, const auto& e) { return l < e.first; });
    return it == f.begin() ? NONE : std::prev(it)->second;
  }
  return NONE;
}

void BackfillScheduler::SearchMemo::record(int gpus, std::uint64_t types, double length, double t, double now_s) {
  if (bound(gpus, types, length, now_s) >= t) return;  // known already
  auto& f = shape(gpus, types).front;
  // Pairs of a length >= `length` and a time <= t say less than this one.
  const auto from = std::lower_bound(f.begin(), f.end(), length, [](const auto& e, double l) { return e.first < l; });
  const auto to = std::find_if(from, f.end(), [&](const auto& e) { return e.second > t; });
  f.insert(f.erase(from, to), {length, t});
  constexpr std::size_t MOST = 256;  // a bound left out is only a search that tries more
  if (f.size() > MOST) f.erase(f.begin(), f.begin() + MOST / 2);
}

bool BackfillScheduler::search(const ClusterView& cluster, const QueuedJob& q, double length, Kept& into) {
  constexpr double NEVER = std::numeric_limits<double>::infinity();
  const double now_s = cluster.now.seconds();
  // Candidate times before `lower` are known not to fit (search_memo_): they are not tried,
  // and base_hist_ follows the nodes only from the first one tried.
  const double lower = use_search_memo_ ? search_memo_.bound(q.gpus, q.eligible_types, length, now_s)
                                        : -std::numeric_limits<double>::infinity();
  hist_live_ = lower <= now_s;
  hist_saved_.assign(base_hist_.begin(), base_hist_.end());
  // Every hold is counted at rest (state 1); a search leaves out those ended by its
  // candidate time (2) and those starting at or after the end of the job's span (0).
  hold_state_.assign(holds_.size(), 1);
  std::size_t next_start = by_start_.size();  // by_start_[next_start, end): left out, starting too late
  std::size_t next_end = 0;    // by_end_: holds not yet past
  bool first_try = true;
  const auto hold_change = [&](const Hold& h, int sign) {
    for (std::uint32_t k = h.first; k < h.first + h.count; ++k)
      change_node(cluster, plan_hold_nodes_[k], 0, sign * h.gpus_per_node);
  };
  // At candidate t: the holds overlapping [t, t_end) are those started before t_end and
  // not ended by t, and those starting at t (overlaps(), above).
  const sim::SimTime length_time = sim::SimTime::from_seconds(length);
  const double just_after_now = std::nextafter(now_s, NEVER);  // a run past its expected end ends then
  const auto try_here = [&](double t) {
    if (t < lower) return false;
    const double t_end = (sim::SimTime::from_seconds(t) + length_time).seconds();  // span_end_s(t, length)
    for (; next_end < by_end_.size() && holds_[by_end_[next_end]].end_s <= t; ++next_end) {
      char& s = hold_state_[by_end_[next_end]];
      if (s == 1) hold_change(holds_[by_end_[next_end]], -1);
      s = 2;
    }
    if (first_try) {
      first_try = false;
      for (; next_start > 0 && holds_[by_start_[next_start - 1]].start_s >= t_end; --next_start) {
        char& s = hold_state_[by_start_[next_start - 1]];
        if (s == 1) {
          hold_change(holds_[by_start_[next_start - 1]], -1);
          s = 0;
        }
      }
    }
    for (; next_start < by_start_.size() && holds_[by_start_[next_start]].start_s < t_end; ++next_start) {
      char& s = hold_state_[by_start_[next_start]];
      if (s == 0) {
        hold_change(holds_[by_start_[next_start]], 1);
        s = 1;
      }
    }
    if (!hist_live_) refresh_hist(cluster);
    // Holds starting exactly at t that the above left out: only a hold of no length (ended
    // by t), or any, for a job of no length.
    const bool look = empty_holds_ > 0 || t_end <= t;
    const auto at = look ? std::lower_bound(by_start_.begin(), by_start_.end(), t,
                                            [&](std::uint32_t h, double v) { return holds_[h].start_s < v; })
                         : by_start_.end();
    bool extra = false;
    for (auto it = at; it != by_start_.end() && holds_[*it].start_s == t; ++it)
      if (hold_state_[*it] != 1) {
        hold_change(holds_[*it], 1);
        extra = true;
      }
    bool fits = avail_may_fit(cluster, q);
    if (fits) {
      // The plan's view at t. A node whose free GPUs at t and in the view are both below
      // what the job needs of one node of its type (every node of a type it may not use)
      // is no candidate either way: every strategy chooses among the nodes with that many
      // free GPUs or more (whole free nodes for a job bigger than a node), so it keeps
      // its value, and stays listed while that is not its value at rest.
      for (std::size_t ty = 0; ty < cluster.types.size(); ++ty)
        plan_need_[ty] = (q.eligible_types >> ty & 1) ? std::min(q.gpus, cluster.types[ty].gpus_per_node)
                                                        : std::numeric_limits<int>::max();
      const auto write = [&](std::uint32_t n, int v) {
        const int p = plan_nodes_[n].gpus_free;
        if (p != v && std::max(p, v) >= plan_need_[cluster.nodes[n].type]) set_plan_node(n, v);
      };
      std::size_t listed = 0;
      for (const std::uint32_t n : plan_dirty_) {
        if (!stouched_flag_[n]) write(n, rest_avail(n));
        if (stouched_flag_[n] || plan_nodes_[n].gpus_free != rest_avail(n))
          plan_dirty_[listed++] = n;
        else
          plan_dirty_flag_[n] = 0;
      }
      plan_dirty_.resize(listed);
      for (const std::uint32_t n : stouched_) {
        write(n, std::max(0, scap_[n] - sheld_[n]));
        if (!plan_dirty_flag_[n] && plan_nodes_[n].gpus_free != rest_avail(n)) {
          plan_dirty_flag_[n] = 1;
          plan_dirty_.push_back(n);
        }
      }
      plan_->reset(plan_view_);
      plan_log_.dropped += plan_log_.nodes.size();
      plan_log_.nodes.clear();
      plan_out_.clear();
      fits = plan_->could_fit(q.gpus) && plan_->try_place(q, plan_out_);
    }
    if (extra)
      for (auto it = at; it != by_start_.end() && holds_[*it].start_s == t; ++it)
        if (hold_state_[*it] != 1) hold_change(holds_[*it], -1);
    return fits;
  };
  // Candidate times in order: now, then every expected end of a run (running_, soonest
  // first, read only as far as needed) or of a hold; a run's GPUs count from its end on.
  double t = now_s;
  bool tried = false;
  std::size_t next_hold = 0;  // by_end_: hold ends not yet a candidate
  const auto hold_end = [&](std::size_t k) { return k < by_end_.size() ? holds_[by_end_[k]].end_s : NEVER; };
  double next_hold_end = hold_end(0);  // read once per hold, not once per release
  bool found = false;
  const auto until = [&](double limit) {
    if (!tried) {
      tried = true;
      if (try_here(t)) return true;
    }
    for (; next_hold_end < limit; next_hold_end = hold_end(++next_hold)) {
      const double e = next_hold_end;
      if (e <= t) continue;
      t = e;
      if (try_here(t)) {
        next_hold_end = hold_end(++next_hold);
        return true;
      }
    }
    return false;
  };
  // The runs by expected end: rel_ and rel_new_ merged (equal ends: rel_ first), rel_
  // read further from running_ as needed (rel_new_ ends by the horizon), by doubling.
  // The walk starts from rest, where the runs ending by front_s_ have ended: before the
  // first candidate it may try (max(now, lower)) their GPUs are taken back.
  const double start_s = std::max(now_s, lower);
  if (lower > now_s) {
    // front_s_ follows a low quantile of where searches start (ahead of now): down fast, up
    // slowly and by bounded steps (a far start, a big job's, would drag it).
    const double x = std::min(start_s - now_s, 2 * front_ahead_s_ + 10);
    front_ahead_s_ += x < front_ahead_s_ ? (x - front_ahead_s_) / 8 : (x - front_ahead_s_) / 64;
  }
  const auto first_after = [](const std::vector<Release>& list, std::size_t from, double v) {
    return static_cast<std::size_t>(
        std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(from), list.end(), v,
                         [](double x, const Release& r) { return x < r.end_s; }) -
        list.begin());
  };
  std::size_t i0 = rel_from_;
  std::size_t j0 = rel_new_from_;
  if (front_s_ > -std::numeric_limits<double>::infinity()) {
    const double from_s = std::min(front_s_, start_s);
    i0 = first_after(rel_, rel_from_, from_s);
    j0 = first_after(rel_new_, rel_new_from_, from_s);
    for (const auto& [list, k0] : {std::pair{&rel_, i0}, std::pair{&rel_new_, j0}})
      for (std::size_t k = k0; k < list->size() && (*list)[k].end_s <= front_s_; ++k) {
        const Release& r = (*list)[k];
        for (std::uint32_t m = r.first; m < r.first + r.count; ++m)
          change_node(cluster, rel_nodes_[m], -r.gpus_per_node, 0);
      }
  }
  // The first candidate tried: start_s (now, or a time an earlier search learnt; when it is
  // no candidate time it fits no better there than at the candidate before it).
  t = start_s;
  for (std::size_t i = i0, j = j0;;) {
    if (i == rel_.size() && j == rel_new_.size() &&
        !(extend_releases(cluster, std::max<std::size_t>(256, rel_.size() - rel_from_)) && i < rel_.size()))
      break;
    const bool fresh = j < rel_new_.size() && (i == rel_.size() || rel_new_[j].end_s < rel_[i].end_s);
    const Release r = fresh ? rel_new_[j++] : rel_[i++];
    const double e = std::max(just_after_now, r.end_s);
    if (e > t) {
      if (until(e)) {
        found = true;
        break;
      }
      t = e;
      tried = false;
    }
    for (std::uint32_t k = r.first; k < r.first + r.count; ++k) change_node(cluster, rel_nodes_[k], r.gpus_per_node, 0);
  }
  if (!found) found = until(NEVER);
  // Back to the base capacity, no holds (the histogram as it was: a copy, where filing each
  // node back would chain increments through the same few counters).
  for (const std::uint32_t n : stouched_) {
    scap_[n] = rcap_[n];
    sheld_[n] = rheld_[n];
    stouched_flag_[n] = 0;
  }
  stouched_.clear();
  std::copy(hist_saved_.begin(), hist_saved_.end(), base_hist_.begin());
  hist_live_ = true;
  into.job = q.job;
  into.found = found;
  if (!found) return false;
  // What this search learnt, unless a hold of no length (which overlaps a span only from
  // its own time) is in the plan: see SearchMemo.
  if (use_search_memo_ && empty_holds_ == 0) search_memo_.record(q.gpus, q.eligible_types, length, t, now_s);
  const Placement& p = plan_out_.placements.back();
  into.start_s = t;
  into.end_s = span_end_s(t, length);
  into.first = static_cast<std::uint32_t>(kept_nodes_.size());
  into.count = p.count;
  into.gpus_per_node = p.gpus_per_node;
  kept_nodes_.insert(kept_nodes_.end(), plan_out_.nodes.begin() + p.first, plan_out_.nodes.begin() + p.first + p.count);
  return true;
}

void BackfillScheduler::build_holds(const ClusterView& cluster) {
  holds_.clear();
  hold_job_.clear();
  plan_hold_nodes_.clear();
  by_start_.clear();
  empty_holds_ = 0;
  for (Kept& k : kept_) {
    if (!k.found) continue;
    if (k.end_s <= k.start_s) ++empty_holds_;
    k.hold = static_cast<std::uint32_t>(holds_.size());
    by_start_.push_back(k.hold);
    holds_.push_back(
        Hold{k.start_s, k.end_s, static_cast<std::uint32_t>(plan_hold_nodes_.size()), k.count, k.gpus_per_node});
    hold_job_.push_back(k.job);
    plan_hold_nodes_.insert(plan_hold_nodes_.end(), kept_nodes_.begin() + k.first, kept_nodes_.begin() + k.first + k.count);
  }
  by_end_ = by_start_;
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return holds_[a].start_s < holds_[b].start_s; });
  std::stable_sort(by_end_.begin(), by_end_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return holds_[a].end_s < holds_[b].end_s; });
  hold_state_.assign(holds_.size(), 0);  // no mark of an earlier numbering
  holds_valid_ = true;
  count_holds_at_rest(cluster);
}

void BackfillScheduler::count_holds_at_rest(const ClusterView& cluster) {
  std::fill(rheld_.begin(), rheld_.end(), 0);
  for (const std::uint32_t h : by_start_)
    for (std::uint32_t k = holds_[h].first; k < holds_[h].first + holds_[h].count; ++k)
      rheld_[plan_hold_nodes_[k]] += holds_[h].gpus_per_node;
  std::fill(base_hist_.begin(), base_hist_.end(), 0);
  for (std::uint32_t n = 0; n < rheld_.size(); ++n) {
    sheld_[n] = rheld_[n];
    ++base_hist_[static_cast<std::size_t>(hist_first_[cluster.nodes[n].type] + rest_avail(n))];
    set_plan_node(n, rest_avail(n));
  }
}

void BackfillScheduler::forget_kept() {
  kept_.clear();
  kept_nodes_.clear();
  holds_valid_ = false;
  search_memo_.clear();
}

const std::vector<BackfillScheduler::Reservation>& BackfillScheduler::reservations() const {
  if (reservations_lazy_) {
    reservations_.clear();
    for (std::size_t i = 0; i < lazy_reserved_; ++i) {
      const Kept& k = kept_[i];
      if (k.found) reservations_.push_back(Reservation{k.job, k.start_s, k.first, k.count, k.gpus_per_node});
    }
    reservations_lazy_ = false;
  }
  return reservations_;
}

void BackfillScheduler::conservative(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  if (cluster.changes == nullptr || !cluster.gpu_room.empty() || cluster.running_jobs == nullptr ||
      !out.placements.empty()) {
    kept_valid_ = false;
    forget_kept();
    kept_started_.clear();
    base_valid_ = false;
    conservative_fresh(cluster, waiting, out);
    return;
  }
  const double now_s = cluster.now.seconds();
  if (base_valid_ && base_.size() == cluster.nodes.size()) {
    // Before follow_base gives base_ what ended: a run that ended off its expected end
    // (the pass is not clean) may still be counted at rest as a release.
    if (!kept_valid_ || cluster.admission != nullptr)
      move_front(cluster, -std::numeric_limits<double>::infinity());
    else
      retire_releases(cluster);
  }
  follow_base(cluster);
  bool clean = kept_valid_ && cluster.admission == nullptr;
  // A run at or past its expected end "ends any moment" (just after now): the plan then
  // depends on now, and is not kept.
  bool past_due = false;
  running_.scan([](int) { return true; }, [&](std::uint32_t, bool, double end_s) {
    past_due = end_s <= now_s;
    return Visit::Stop;
  });
  // The holds (kept reservations, and the jobs started now, which are kept entries too)
  // are kept from pass to pass with kept_ (built afresh after a pass dropped some).
  if (clean && !holds_valid_) build_holds(cluster);
  if (clean && !by_start_.empty()) clean = holds_[by_start_.front()].start_s >= now_s;  // none missed
  follow_releases(cluster, clean && !past_due);
  if (clean && !past_due) move_front(cluster, now_s + front_ahead_s_);
  kept_started_.clear();
  // A run past its expected end (a checkpoint's pause, an estimate too low) still holds
  // GPUs that the kept reservations counted on from then: they are planned again.
  if (!clean || past_due) forget_kept();
  kept_at_s_ = now_s;
  long long free_now = base_total_;
  bool blocked = false;
  bool backfilled = false;
  int behind = 0;
  started_pos_.clear();
  // Each job in submit order, as conservative_fresh's scan: the kept ones first (the
  // waiting jobs up to the last one kept, in order), then the others, each searched.
  const auto examine = [&](std::size_t i) {
    const Kept& k = kept_[i];
    if (!k.found) {
      blocked = true;  // it fits nowhere even once every run and reservation has ended
      return;
    }
    if (k.start_s == now_s) {
      out.placements.push_back(Placement{k.job, static_cast<std::uint32_t>(out.nodes.size()), k.count, k.gpus_per_node,
                                         static_cast<int>(cluster.nodes[kept_nodes_[k.first]].type), -1, 1000, 0});
      out.nodes.insert(out.nodes.end(), kept_nodes_.begin() + k.first, kept_nodes_.begin() + k.first + k.count);
      for (std::uint32_t n = k.first; n < k.first + k.count; ++n)
        GCSIM_CHECK(base_[kept_nodes_[n]] >= k.gpus_per_node,
                    "conservative backfill: job " + std::to_string(k.job) + " kept for now on node " +
                        std::to_string(kept_nodes_[n]) + ", which has no room for it");
      free_now -= static_cast<long long>(k.count) * k.gpus_per_node;
      kept_started_.push_back(k.job);
      started_pos_.push_back(i);
      if (blocked) backfilled = true;
    } else {
      blocked = true;  // a reservation (listed by reservations())
    }
  };
  // Nothing more can start once no GPU is free now: later reservations would change
  // nothing in this pass.
  const auto stops = [&] { return free_now == 0 || (blocked && behind++ == params_.depth); };
  // The kept entries: only those reserved for now start, found through the holds by start
  // (the earliest); the entries between them are passed over in one step each run, as
  // stops() and examine() would take them one by one (none starts, free_now stays).
  now_pos_.clear();
  if (holds_valid_)
    for (std::size_t j = 0; j < by_start_.size() && holds_[by_start_[j]].start_s == now_s; ++j) {
      const std::uint32_t job = hold_job_[by_start_[j]];
      now_pos_.push_back(static_cast<std::size_t>(
          std::lower_bound(kept_.begin(), kept_.end(), job, [](const Kept& a, std::uint32_t b) { return a.job < b; }) -
          kept_.begin()));
    }
  std::sort(now_pos_.begin(), now_pos_.end());
  std::size_t examined = 0;  // kept_: those the pass reached
  bool stopped = false;
  const auto pass_over = [&](std::size_t to) {  // kept_[examined, to), none reserved for now
    while (examined < to) {
      if (free_now == 0) return false;
      if (!blocked) {
        examine(examined++);
        continue;
      }
      const std::size_t allowed = static_cast<std::size_t>(params_.depth - behind);  // checks that pass
      if (to - examined <= allowed) {
        behind += static_cast<int>(to - examined);
        examined = to;
      } else {
        examined += allowed;
        behind = params_.depth + 1;
        return false;
      }
    }
    return true;
  };
  for (const std::size_t p : now_pos_) {
    if ((stopped = !pass_over(p) || stops())) break;
    examine(examined++);
  }
  if (!stopped) stopped = !pass_over(kept_.size());
  if (!stopped) {
    for (std::uint32_t id = waiting_ids_.next(kept_.empty() ? 0 : kept_.back().job + 1); id != IdSet::NONE;
         id = waiting_ids_.next(id + 1)) {
      if (stops()) break;
      const QueuedJob& q = waiting[id];
      if (held_by_quota(cluster, q)) continue;  // no start and no reservation while the quotas hold it
      if (!holds_valid_) build_holds(cluster);
      Kept k;
      if (search(cluster, q, length_s(q), k)) {
        k.hold = add_hold(k.job, k.start_s, k.end_s,
                          std::span<const std::uint32_t>(kept_nodes_).subspan(k.first, k.count), k.gpus_per_node);
        rest_hold(cluster, holds_[k.hold], 1);
      }
      kept_.push_back(k);
      examine(kept_.size() - 1);
      examined = kept_.size();
    }
  }
  // Keep what the next pass may reuse: not the jobs started now (runs from now on), and
  // nothing from a job not examined whose reservation is now (it did not start: what
  // follows it counted on its hold from now). Their nodes stay in kept_nodes_ until it is
  // compacted.
  std::size_t keep_to = kept_.size();
  for (const std::size_t p : now_pos_)
    if (p >= examined) {
      keep_to = p;
      holds_valid_ = false;
      search_memo_.clear();  // a hold leaves that the searches counted on
      break;
    }
  lazy_reserved_ = examined - started_pos_.size();
  reservations_lazy_ = true;
  if (!started_pos_.empty()) {
    if (holds_valid_) {  // started: their holds go
      hold_state_.resize(holds_.size());
      for (const std::size_t i : started_pos_) {
        hold_state_[kept_[i].hold] = 3;
        rest_hold(cluster, holds_[kept_[i].hold], -1);
        if (kept_[i].end_s <= kept_[i].start_s) --empty_holds_;
      }
      const auto is_gone = [&](std::uint32_t h) { return hold_state_[h] == 3; };
      by_start_.erase(std::remove_if(by_start_.begin(), by_start_.end(), is_gone), by_start_.end());
      by_end_.erase(std::remove_if(by_end_.begin(), by_end_.end(), is_gone), by_end_.end());
      for (const std::size_t i : started_pos_) hold_state_[kept_[i].hold] = 0;  // no mark left behind
      if (holds_.size() > 2 * by_start_.size() + 16) holds_valid_ = false;  // mostly gone: built afresh
    }
    std::size_t to = started_pos_.front();
    for (std::size_t i = to, s = 0; i < keep_to; ++i) {
      if (s < started_pos_.size() && started_pos_[s] == i) {
        ++s;
        continue;
      }
      kept_[to++] = kept_[i];
    }
    kept_.resize(to);
  } else {
    kept_.resize(keep_to);
  }
  if (kept_nodes_.size() > 1024 && kept_nodes_.size() > 4 * kept_.size() * 8) {
    kept_nodes_spare_.clear();
    for (Kept& k : kept_) {
      const std::uint32_t first = k.first;
      k.first = static_cast<std::uint32_t>(kept_nodes_spare_.size());
      if (k.found)
        kept_nodes_spare_.insert(kept_nodes_spare_.end(), kept_nodes_.begin() + first,
                                 kept_nodes_.begin() + first + k.count);
    }
    kept_nodes_.swap(kept_nodes_spare_);
  }
  kept_valid_ = !past_due && cluster.admission == nullptr && (keep_across_backfills_ || !backfilled);
}

}  // namespace gcsim::models
