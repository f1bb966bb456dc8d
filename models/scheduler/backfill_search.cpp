// Conservative backfilling keeping its reservations (backfill_conservative.hpp): the search
// of a new job's reservation, what searches learn (SearchMemo), and the releases counted at
// rest in the availability profile (front_).
#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

#include "models/scheduler/backfill_conservative.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

void ConservativeBackfill::rest_release(const ClusterView& cluster, const ReleaseSchedule::Release& r, int sign) {
  for (std::uint32_t k = r.first; k < r.first + r.count; ++k)
    profile_.rest_change(cluster, running_.node(k), sign * r.gpus_per_node, 0);
}

void ConservativeBackfill::move_front(const ClusterView& cluster, sim::SimTime to) {
  using Release = ReleaseSchedule::Release;
  const auto after = [](std::vector<Release>& list, std::size_t from, sim::SimTime t) {
    return static_cast<std::size_t>(
        std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(from), list.end(), t,
                         [](sim::SimTime v, const Release& r) { return v < r.end; }) -
        list.begin());
  };
  ReleaseSchedule::List& rel = running_.list();
  if (to > front_) {
    while (rel.horizon < to && running_.extend(cluster, std::max<std::size_t>(256, rel.read.size() - rel.read_from))) {
    }
    to = std::min(to, rel.horizon);  // within the runs the lists hold
    if (to <= front_) return;
    for (std::vector<Release>* list : {&rel.read, &rel.fresh}) {
      const std::size_t from = list == &rel.read ? rel.read_from : rel.fresh_from;
      for (std::size_t i = after(*list, from, front_); i < list->size() && (*list)[i].end <= to; ++i)
        rest_release(cluster, (*list)[i], 1);
    }
  } else if (to < front_) {
    for (std::vector<Release>* list : {&rel.read, &rel.fresh}) {
      const std::size_t from = list == &rel.read ? rel.read_from : rel.fresh_from;
      for (std::size_t i = after(*list, from, to); i < list->size() && (*list)[i].end <= front_; ++i)
        rest_release(cluster, (*list)[i], -1);
    }
  }
  front_ = to;
}

void ConservativeBackfill::retire_releases(const ClusterView& cluster) {
  // Runs end exactly when expected (else the pass is not clean and the lists go): those
  // ended are the first ones. At rest they leave before the profile's base gets their
  // GPUs, so that no node counts them twice.
  ReleaseSchedule::List& rel = running_.list();
  for (; rel.read_from < rel.read.size() && rel.read[rel.read_from].end <= cluster.now; ++rel.read_from)
    if (rel.read[rel.read_from].end <= front_) rest_release(cluster, rel.read[rel.read_from], -1);
  for (; rel.fresh_from < rel.fresh.size() && rel.fresh[rel.fresh_from].end <= cluster.now; ++rel.fresh_from)
    if (rel.fresh[rel.fresh_from].end <= front_) rest_release(cluster, rel.fresh[rel.fresh_from], -1);
}

void ConservativeBackfill::follow_releases(const ClusterView& cluster, bool clean) {
  if (!clean) {
    if (profile_.valid_for(cluster)) move_front(cluster, sim::SimTime::min());  // rest: base again
    front_ = sim::SimTime::min();
    running_.clear_list();
    return;
  }
  front_ = std::max(front_, cluster.now);  // the releases ended by now left (retire_releases)
  // The runs the last pass started, where the list reaches their ends: into the fresh part,
  // merged into the read part once it holds more than a few (an insertion there would
  // move its whole tail).
  for (const std::uint32_t job : kept_started_) {
    if (!running_.contains(job)) continue;  // it ended already, when expected
    const sim::SimTime end = running_.end_of(job);
    if (end > running_.list().horizon) continue;  // read from the index when a search gets there
    const RunningPlace place = cluster.running_jobs->where(job);
    if (!ReleaseSchedule::on_up_nodes(cluster, place.nodes)) continue;
    const ReleaseSchedule::Release& r = running_.add_fresh(end, place);
    if (end <= front_) rest_release(cluster, r, 1);
  }
  running_.tidy();
}

ConservativeBackfill::SearchMemo::Shape& ConservativeBackfill::SearchMemo::shape(int gpus, std::uint64_t types) {
  for (Shape& s : shapes_)
    if (s.gpus == gpus && s.types == types) return s;
  shapes_.push_back(Shape{gpus, types, {}});
  return shapes_.back();
}

sim::SimTime ConservativeBackfill::SearchMemo::bound(int gpus, std::uint64_t types, sim::SimTime length,
                                                     sim::SimTime now) {
  for (Shape& s : shapes_) {
    if (s.gpus != gpus || s.types != types) continue;
    // Times at or before now bound nothing: they leave.
    auto& f = s.front;
    f.erase(f.begin(), std::find_if(f.begin(), f.end(), [&](const auto& e) { return e.second > now; }));
    const auto it =
        std::upper_bound(f.begin(), f.end(), length, [](sim::SimTime l, const auto& e) { return l < e.first; });
    return it == f.begin() ? sim::SimTime::min() : std::prev(it)->second;
  }
  return sim::SimTime::min();
}

void ConservativeBackfill::SearchMemo::record(int gpus, std::uint64_t types, sim::SimTime length, sim::SimTime t,
                                              sim::SimTime now) {
  if (bound(gpus, types, length, now) >= t) return;  // known already
  auto& f = shape(gpus, types).front;
  // Pairs of a length >= `length` and a time <= t say less than this one.
  const auto from =
      std::lower_bound(f.begin(), f.end(), length, [](const auto& e, sim::SimTime l) { return e.first < l; });
  const auto to = std::find_if(from, f.end(), [&](const auto& e) { return e.second > t; });
  f.insert(f.erase(from, to), {length, t});
  constexpr std::size_t MOST = 256;  // a bound left out is only a search that tries more
  if (f.size() > MOST) f.erase(f.begin(), f.begin() + MOST / 2);
}

bool ConservativeBackfill::search(const ClusterView& cluster, const QueuedJob& q, sim::SimTime length, Kept& into) {
  const sim::SimTime NEVER = sim::SimTime::max();
  const sim::SimTime now = cluster.now;
  // Candidate times before `lower` are known not to fit (search_memo_): they are not tried,
  // and the profile's histogram follows the nodes only from the first one tried.
  const sim::SimTime lower =
      use_search_memo_ ? search_memo_.bound(q.gpus, q.eligible_types, length, now) : sim::SimTime::min();
  profile_.begin_search(lower <= now);
  // Every hold is counted at rest (state 1); a search leaves out those ended by its
  // candidate time (2) and those starting at or after the end of the job's span (0).
  hold_state_.assign(holds_.size(), 1);
  std::size_t next_start = by_start_.size();  // by_start_[next_start, end): left out, starting too late
  std::size_t next_end = 0;    // by_end_: holds not yet past
  bool first_try = true;
  const auto hold_change = [&](const Hold& h, int sign) {
    for (std::uint32_t k = h.first; k < h.first + h.count; ++k)
      profile_.change(cluster, hold_nodes_[k], 0, sign * h.gpus_per_node);
  };
  // At candidate t: the holds overlapping [t, t_end) are those started before t_end and
  // not ended by t, and those starting at t (overlaps(), above).
  const sim::SimTime just_after_now = now + sim::SimTime::from_ns(1);  // a run past its expected end ends then
  const auto try_here = [&](sim::SimTime t) {
    if (t < lower) return false;
    const sim::SimTime t_end = span_end(t, length);
    for (; next_end < by_end_.size() && holds_[by_end_[next_end]].end <= t; ++next_end) {
      char& s = hold_state_[by_end_[next_end]];
      if (s == 1) hold_change(holds_[by_end_[next_end]], -1);
      s = 2;
    }
    if (first_try) {
      first_try = false;
      for (; next_start > 0 && holds_[by_start_[next_start - 1]].start >= t_end; --next_start) {
        char& s = hold_state_[by_start_[next_start - 1]];
        if (s == 1) {
          hold_change(holds_[by_start_[next_start - 1]], -1);
          s = 0;
        }
      }
    }
    for (; next_start < by_start_.size() && holds_[by_start_[next_start]].start < t_end; ++next_start) {
      char& s = hold_state_[by_start_[next_start]];
      if (s == 0) {
        hold_change(holds_[by_start_[next_start]], 1);
        s = 1;
      }
    }
    if (!profile_.live()) profile_.refresh(cluster);
    // Holds starting exactly at t that the above left out: only a hold of no length (ended
    // by t), or any, for a job of no length.
    const bool look = empty_holds_ > 0 || t_end <= t;
    const auto at = look ? std::lower_bound(by_start_.begin(), by_start_.end(), t,
                                            [&](std::uint32_t h, sim::SimTime v) { return holds_[h].start < v; })
                         : by_start_.end();
    bool extra = false;
    for (auto it = at; it != by_start_.end() && holds_[*it].start == t; ++it)
      if (hold_state_[*it] != 1) {
        hold_change(holds_[*it], 1);
        extra = true;
      }
    bool fits = profile_.may_fit(cluster, q);
    if (fits) {
      plan_->reset(profile_.sync_view(cluster, q));  // the plan's view at t
      profile_.view_read();
      plan_out_.clear();
      fits = plan_->could_fit(q.gpus) && plan_->try_place(q, plan_out_);
    }
    if (extra)
      for (auto it = at; it != by_start_.end() && holds_[*it].start == t; ++it)
        if (hold_state_[*it] != 1) hold_change(holds_[*it], -1);
    return fits;
  };
  // Candidate times in order: now, then every expected end of a run (running_, soonest
  // first, read only as far as needed) or of a hold; a run's GPUs count from its end on.
  sim::SimTime t = now;
  bool tried = false;
  std::size_t next_hold = 0;  // by_end_: hold ends not yet a candidate
  const auto hold_end = [&](std::size_t k) { return k < by_end_.size() ? holds_[by_end_[k]].end : NEVER; };
  sim::SimTime next_hold_end = hold_end(0);  // read once per hold, not once per release
  bool found = false;
  const auto until = [&](sim::SimTime limit) {
    if (!tried) {
      tried = true;
      if (try_here(t)) return true;
    }
    for (; next_hold_end < limit; next_hold_end = hold_end(++next_hold)) {
      const sim::SimTime e = next_hold_end;
      if (e <= t) continue;
      t = e;
      if (try_here(t)) {
        next_hold_end = hold_end(++next_hold);
        return true;
      }
    }
    return false;
  };
  // The runs by expected end: the release list's read and fresh parts merged (equal ends:
  // read first), read further from the index as needed (fresh ends by the horizon), by
  // doubling. The walk starts from rest, where the runs ending by front_ have ended: before
  // the first candidate it may try (max(now, lower)) their GPUs are taken back.
  const sim::SimTime start = std::max(now, lower);
  if (lower > now) {
    // front_ follows a low quantile of where searches start (ahead of now): down fast, up
    // slowly and by bounded steps (a far start, a big job's, would drag it).
    const std::int64_t ahead = front_ahead_.ns();
    const std::int64_t x = std::min((start - now).ns(), 2 * ahead + 10 * sim::NS_PER_S);
    front_ahead_ = sim::SimTime::from_ns(ahead + (x < ahead ? (x - ahead) / 8 : (x - ahead) / 64));
  }
  using Release = ReleaseSchedule::Release;
  const auto first_after = [](const std::vector<Release>& list, std::size_t from, sim::SimTime v) {
    return static_cast<std::size_t>(
        std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(from), list.end(), v,
                         [](sim::SimTime x, const Release& r) { return x < r.end; }) -
        list.begin());
  };
  ReleaseSchedule::List& rel = running_.list();
  std::size_t i0 = rel.read_from;
  std::size_t j0 = rel.fresh_from;
  if (front_ > sim::SimTime::min()) {
    const sim::SimTime from = std::min(front_, start);
    i0 = first_after(rel.read, rel.read_from, from);
    j0 = first_after(rel.fresh, rel.fresh_from, from);
    for (const auto& [list, k0] : {std::pair{&rel.read, i0}, std::pair{&rel.fresh, j0}})
      for (std::size_t k = k0; k < list->size() && (*list)[k].end <= front_; ++k) {
        const Release& r = (*list)[k];
        for (std::uint32_t m = r.first; m < r.first + r.count; ++m)
          profile_.change(cluster, running_.node(m), -r.gpus_per_node, 0);
      }
  }
  // The first candidate tried: start (now, or a time an earlier search learnt; when it is
  // no candidate time it fits no better there than at the candidate before it).
  t = start;
  for (std::size_t i = i0, j = j0;;) {
    if (i == rel.read.size() && j == rel.fresh.size() &&
        !(running_.extend(cluster, std::max<std::size_t>(256, rel.read.size() - rel.read_from)) && i < rel.read.size()))
      break;
    const bool fresh = j < rel.fresh.size() && (i == rel.read.size() || rel.fresh[j].end < rel.read[i].end);
    const Release r = fresh ? rel.fresh[j++] : rel.read[i++];
    const sim::SimTime e = std::max(just_after_now, r.end);
    if (e > t) {
      if (until(e)) {
        found = true;
        break;
      }
      t = e;
      tried = false;
    }
    for (std::uint32_t k = r.first; k < r.first + r.count; ++k) profile_.change(cluster, running_.node(k), r.gpus_per_node, 0);
  }
  if (!found) found = until(NEVER);
  profile_.end_search();  // back to rest
  into.job = q.job;
  into.found = found;
  if (!found) return false;
  // What this search learnt, unless a hold of no length (which overlaps a span only from
  // its own time) is in the plan: see SearchMemo.
  if (use_search_memo_ && empty_holds_ == 0) search_memo_.record(q.gpus, q.eligible_types, length, t, now);
  const Placement& p = plan_out_.placements.back();
  into.start = t;
  into.end = span_end(t, length);
  into.first = static_cast<std::uint32_t>(kept_nodes_.size());
  into.count = p.count;
  into.gpus_per_node = p.gpus_per_node;
  kept_nodes_.insert(kept_nodes_.end(), plan_out_.nodes.begin() + p.first, plan_out_.nodes.begin() + p.first + p.count);
  return true;
}

}  // namespace gcsim::models
