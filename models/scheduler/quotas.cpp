// Team quotas by the time of the week (see quotas.hpp).
#include "models/scheduler/quotas.hpp"

#include <algorithm>
#include <cmath>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
template <class T>
void grow(std::vector<T>& v, std::size_t index, T value) {
  if (index >= v.size()) v.resize(std::max(index + 1, v.size() * 2), value);
}
}  // namespace

QuotaScheduler::QuotaScheduler(std::unique_ptr<Scheduler> inner, QuotaSpec spec,
                               std::unique_ptr<PlacementStrategy> placement)
    : inner_(std::move(inner)), spec_(std::move(spec)), placement_(std::move(placement)) {
  GCSIM_CHECK(inner_ != nullptr && placement_ != nullptr, "quotas need a policy and a placement strategy");
  for (const QuotaWindowSpec& w : spec_.windows) teams_ = std::max(teams_, w.teams.size());
  for (const QuotaWindowSpec& w : spec_.windows)
    GCSIM_CHECK(w.teams.size() == teams_, "quota window '" + w.name + "' does not give every team a share");
  const std::size_t slots = teams_ + 1;
  used_.assign(slots, 0);
  waiting_gpus_.assign(slots, 0);
  stopping_gpus_.assign(slots, 0);
  taken_.assign(slots, 0);
  victim_gpus_.assign(slots, 0);
  limits_.assign(slots, Limits{});
  for (std::size_t s = 0; s < slots; ++s) waiting_.push_back(std::make_unique<OrderIndex<double>>(waiting_slots_));
}

void QuotaScheduler::job_waiting(const QueuedJob& job) {
  const std::size_t s = slot(job.team);
  grow(team_of_, job.job, std::int16_t{0});
  grow(gpus_of_, job.job, Milli{0});
  team_of_[job.job] = static_cast<std::int16_t>(s);
  gpus_of_[job.job] = milli_of(job);
  waiting_gpus_[s] += milli_of(job);
  waiting_[s]->insert(job.job, job.gpus, static_cast<double>(job.job));
  inner_->job_waiting(job);
}

void QuotaScheduler::job_left(std::uint32_t job) {
  const std::size_t s = static_cast<std::size_t>(team_of_[job]);
  waiting_gpus_[s] -= gpus_of_[job];
  waiting_[s]->erase(job);
  inner_->job_left(job);
}

void QuotaScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  const std::size_t s = slot(job.team);
  used_[s] += milli_of(job);
  // Newest first; among runs started at one instant, the later submitted first.
  running_.insert(job.job, job.gpus, {-now.ns(), -static_cast<std::int64_t>(job.job)});
  inner_->run_started(job, now);
}

void QuotaScheduler::run_ended(std::uint32_t job, sim::SimTime now) {
  const std::size_t s = static_cast<std::size_t>(team_of_[job]);
  used_[s] -= gpus_of_[job];
  running_.erase(job);
  if (preempting(job)) {
    victim_[job] = 0;
    stopping_gpus_[s] -= gpus_of_[job];
    mine_.erase(std::find(mine_.begin(), mine_.end(), job));
  }
  inner_->run_ended(job, now);
}

void QuotaScheduler::enter_window(const ClusterView& cluster) {
  if (total_gpus_ == 0)
    for (const NodeTypeView& t : cluster.types) total_gpus_ += t.count * t.gpus_per_node;
  window_ = -1;
  window_until_ = sim::SimTime::max();
  for (std::size_t w = 0; w < spec_.windows.size(); ++w) {
    const sim::WeekCalendar& when = spec_.windows[w].when;
    if (window_ < 0 && when.contains(cluster.now)) window_ = static_cast<int>(w);
    window_until_ = std::min(window_until_, when.next_change(cluster.now));
  }
  // floor(share x GPUs) whole GPUs (config/scenario.hpp).
  const auto gpus = [&](double share) { return 1000 * static_cast<Milli>(quota_share_gpus(share, total_gpus_)); };
  for (std::size_t s = 0; s < limits_.size(); ++s) {
    if (window_ < 0 || s == teams_) {
      limits_[s] = Limits{0, 1000 * static_cast<Milli>(total_gpus_)};
    } else {
      const TeamShareSpec& share = spec_.windows[static_cast<std::size_t>(window_)].teams[s];
      limits_[s] = Limits{gpus(share.min), gpus(share.max)};
    }
  }
}

QuotaScheduler::Milli QuotaScheduler::reserved(std::size_t team) const {
  const Milli left = limits_[team].guaranteed - used_[team] - taken_[team];
  if (left <= 0) return 0;
  if (!spec_.lending) return left;
  return std::max(Milli{0}, std::min(left, waiting_gpus_[team] - taken_[team]));
}

void QuotaScheduler::sync() const {
  const std::vector<Placement>& placed = pass_->placements;
  if (placed.size() < synced_) {  // a placement was taken back: count again
    std::fill(taken_.begin(), taken_.end(), 0);
    free_gpus_ = free_at_start_;
    synced_ = first_placement_;
  }
  for (; synced_ < placed.size(); ++synced_) {
    const std::uint32_t job = placed[synced_].job;
    taken_[static_cast<std::size_t>(team_of_[job])] += gpus_of_[job];
    free_gpus_ -= gpus_of_[job];
  }
}

bool QuotaScheduler::admits(const QueuedJob& job) const {
  sync();
  const std::size_t s = slot(job.team);
  const Milli asked = milli_of(job);
  if (used_[s] + taken_[s] + asked > limits_[s].cap) return false;
  Milli others = 0;
  for (std::size_t o = 0; o < limits_.size(); ++o)
    if (o != s) others += reserved(o);
  return asked <= free_gpus_ - others;
}

void QuotaScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  if (window_until_ == sim::SimTime::min() || cluster.now >= window_until_) enter_window(cluster);
  if (inner_wake_ <= cluster.now) inner_wake_ = sim::SimTime::max();
  std::fill(taken_.begin(), taken_.end(), 0);
  free_at_start_ = 0;
  if (!cluster.gpu_room.empty()) {
    for (const std::uint16_t room : cluster.gpu_room) free_at_start_ += room;  // 0 on nodes not up
  } else {
    for (const NodeView& n : cluster.nodes)
      if (n.status == NodeStatus::Up) free_at_start_ += 1000 * static_cast<Milli>(n.gpus_free);
  }
  free_gpus_ = free_at_start_;
  pass_ = &out;
  first_placement_ = synced_ = out.placements.size();
  view_ = cluster;
  view_.admission = this;
  const std::size_t inner_preemptions = out.preemptions.size();
  inner_->schedule(view_, waiting, out);
  sync();
  if (!out.wake_at.is_max()) inner_wake_ = out.wake_at;
  // The policy's own victims are not ours to choose again.
  for (std::size_t i = inner_preemptions; i < out.preemptions.size(); ++i) {
    grow(victim_, out.preemptions[i].job, std::uint8_t{0});
    victim_[out.preemptions[i].job] = 2;
  }
  enforce_caps(cluster, out);
  if (spec_.reclaim == ReclaimMode::Preempt) reclaim(cluster, waiting, out);
  for (std::size_t i = inner_preemptions; i < out.preemptions.size(); ++i)
    if (victim_[out.preemptions[i].job] == 2) victim_[out.preemptions[i].job] = 0;
  out.wake_at = std::min(inner_wake_, window_until_);
}

void QuotaScheduler::mark_victim(std::uint32_t job, PreemptReason reason, Decisions& out) {
  out.preemptions.push_back(Preemption{.job = job, .reason = reason});
  grow(victim_, job, std::uint8_t{0});
  victim_[job] = 1;
  mine_.push_back(job);
  stopping_gpus_[static_cast<std::size_t>(team_of_[job])] += gpus_of_[job];
}

void QuotaScheduler::enforce_caps(const ClusterView& cluster, Decisions& out) {
  for (std::size_t s = 0; s < limits_.size(); ++s) {
    Milli over = used_[s] - stopping_gpus_[s] - limits_[s].cap;
    if (over <= 0 || cluster.running_jobs == nullptr) continue;
    running_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      if (static_cast<std::size_t>(team_of_[id]) != s || (id < victim_.size() && victim_[id] != 0)) return Visit::Next;
      const RunningPlace place = cluster.running_jobs->where(id);
      if (place.stopping) return Visit::Next;  // on its way out already
      if (!started_before(place, cluster.now)) return Visit::Next;  // admitted under this cap at now
      mark_victim(id, PreemptReason::QuotaCap, out);
      over -= gpus_of_[id];
      return over > 0 ? Visit::Next : Visit::Stop;
    });
  }
}

void QuotaScheduler::reclaim(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  if (cluster.running_jobs == nullptr) return;
  for (std::size_t s = 0; s < teams_; ++s) {
    const Milli left = limits_[s].guaranteed - used_[s] - taken_[s];
    if (left <= 0 || waiting_gpus_[s] - taken_[s] <= 0) continue;
    // Its first waiting job, in submit order, that its guarantee has room for and that this
    // pass did not place. (Size classes are in whole GPUs: one-GPU jobs may be shares.)
    const QueuedJob* w = nullptr;
    waiting_[s]->scan([&](int gpus) { return gpus == 1 || 1000 * static_cast<Milli>(gpus) <= left; },
                      [&](std::uint32_t id, bool fits) {
      if (!fits || gpus_of_[id] > left) return Visit::Next;
      for (const Placement& p : out.placements)
        if (p.job == id) return Visit::Next;
      w = &waiting[id];
      return Visit::Stop;
    });
    if (w != nullptr) make_room(cluster, *w, out);
  }
}

bool QuotaScheduler::make_room(const ClusterView& cluster, const QueuedJob& w, Decisions& out) {
  placement_->reset(cluster);
  for (const Placement& p : out.placements) placement_->take_placed(p, out.nodes);
  // Room coming from jobs preempted here counts first.
  bool fits = false;
  for (const std::uint32_t id : mine_) placement_->give_back(cluster.running_jobs->where(id));
  if (placement_->could_fit(w.gpus) && placement_->reserve(w)) return false;
  victims_.clear();
  std::fill(victim_gpus_.begin(), victim_gpus_.end(), 0);
  const std::size_t owner = slot(w.team);
  running_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
    const std::size_t o = static_cast<std::size_t>(team_of_[id]);
    if (o == owner || (id < victim_.size() && victim_[id] != 0)) return Visit::Next;
    // Only a team above its guarantee is borrowing; it stays one while it is.
    if (used_[o] - stopping_gpus_[o] - victim_gpus_[o] <= limits_[o].guaranteed) return Visit::Next;
    const RunningPlace place = cluster.running_jobs->where(id);
    if (place.stopping) return Visit::Next;
    // A borrower started at this instant is never reclaimed at it: the policy placed it in
    // the room a reclaim had just freed (its strategy or node type choice put it there), and
    // reclaiming it would free the same room for it again, without end (docs/scheduling.md,
    // "One preemption per run and instant").
    if (!started_before(place, cluster.now)) return Visit::Next;
    placement_->give_back(place);
    victims_.push_back(id);
    victim_gpus_[o] += gpus_of_[id];
    fits = placement_->could_fit(w.gpus) && placement_->reserve(w);
    return fits ? Visit::Stop : Visit::Next;
  });
  if (!fits) return false;
  for (const std::uint32_t id : victims_) mark_victim(id, PreemptReason::Reclaim, out);
  return true;
}

std::string QuotaScheduler::settings() const {
  std::string s = inner_->settings();
  s += std::string(s.empty() ? "" : ", ") + "quotas: ";
  for (std::size_t w = 0; w < spec_.windows.size(); ++w) s += (w ? " / " : "") + spec_.windows[w].name;
  s += std::string(", lending: ") + (spec_.lending ? "on" : "off") +
       ", reclaim: " + (spec_.reclaim == ReclaimMode::Preempt ? "preempt" : "wait");
  return s;
}

}  // namespace gcsim::models
