// Fair share between teams on decayed attained GPU-time (see fair_share.hpp).
#include "models/scheduler/fair_share.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/errors.hpp"

namespace gcsim::models {

FairShareScheduler::FairShareScheduler(std::unique_ptr<PlacementStrategy> placement, const FairShareParams& params)
    : placement_(std::move(placement)), params_(params) {}

FairShareScheduler::Group& FairShareScheduler::group(int team) {
  const auto g = static_cast<std::size_t>(team + 1);
  while (groups_.size() <= g) {
    Group fresh;
    fresh.waiting = std::make_unique<OrderIndex<double>>(slots_);
    const std::size_t t = groups_.size();  // group t holds team t - 1
    if (t > 0 && t - 1 < params_.weight_by_team.size()) fresh.weight = params_.weight_by_team[t - 1];
    groups_.push_back(std::move(fresh));
  }
  return groups_[g];
}

double FairShareScheduler::decayed(const Group& g, double now_s) const {
  const double h = params_.half_life.seconds();
  const double d = std::exp2(-(now_s - g.usage_at_s) / h);
  // Past usage halves every h; the running GPUs add the integral of 2^(-(now - s)/h).
  return g.usage_gpu_s * d + g.running_gpus * (h / std::log(2.0)) * (1 - d);
}

void FairShareScheduler::advance(Group& g, double now_s) const {
  g.usage_gpu_s = decayed(g, now_s);
  g.usage_at_s = now_s;
}

double FairShareScheduler::usage_gpu_s(int team, sim::SimTime now) const {
  const auto g = static_cast<std::size_t>(team + 1);
  return g < groups_.size() ? decayed(groups_[g], now.seconds()) : 0.0;
}

void FairShareScheduler::job_waiting(const QueuedJob& job) {
  if (job.job >= group_of_.size()) group_of_.resize(std::max<std::size_t>(job.job + 1, group_of_.size() * 2), -1);
  group_of_[job.job] = job.team + 1;
  group(job.team).waiting->insert(job.job, job.gpus, 0.0);
}

void FairShareScheduler::job_left(std::uint32_t job) {
  groups_[static_cast<std::size_t>(group_of_[job])].waiting->erase(job);
}

void FairShareScheduler::run_started(const QueuedJob& job, sim::SimTime now) {
  Group& g = group(job.team);
  advance(g, now.seconds());
  const double share = job.gpus * (job.gpu_milli / 1000.0);
  g.running_gpus += share;
  if (job.job >= gpus_of_.size()) gpus_of_.resize(std::max<std::size_t>(job.job + 1, gpus_of_.size() * 2), 0.0);
  gpus_of_[job.job] = share;
  group_of_[job.job] = job.team + 1;
}

void FairShareScheduler::run_ended(std::uint32_t job, sim::SimTime now) {
  Group& g = groups_[static_cast<std::size_t>(group_of_[job])];
  advance(g, now.seconds());
  g.running_gpus -= gpus_of_[job];
  gpus_of_[job] = 0;
}

void FairShareScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  placement_->reset(cluster);
  const double now_s = cluster.now.seconds();
  const bool strict = params_.blocking == Blocking::Strict;
  const auto after = [](const Rank& a, const Rank& b) {  // a ranks after b
    if (a.usage_per_weight != b.usage_per_weight) return a.usage_per_weight > b.usage_per_weight;
    if (a.running_per_weight != b.running_per_weight) return a.running_per_weight > b.running_per_weight;
    return a.head > b.head;
  };
  ranks_.clear();
  for (std::uint32_t i = 0; i < groups_.size(); ++i) {
    Group& g = groups_[i];
    if (g.waiting->empty()) continue;
    advance(g, now_s);
    std::uint32_t head = 0;
    g.waiting->scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      head = id;
      return Visit::Stop;
    });
    // To a milli-GPU-second: equal shares reached in two ways (3 x u / 3 and u) tie.
    ranks_.push_back(Rank{std::round(g.usage_gpu_s / g.weight * 1e3), g.running_gpus / g.weight, head, i});
  }
  std::make_heap(ranks_.begin(), ranks_.end(), after);
  const std::size_t first_placement = out.placements.size();
  // Jobs placed in this pass stay in their team's index until the cluster applies the
  // decisions (job_left): a later visit skips them.
  const auto placed = [&](std::uint32_t id) { return id < placed_.size() && placed_[id]; };
  while (!ranks_.empty()) {
    std::pop_heap(ranks_.begin(), ranks_.end(), after);
    Rank r = ranks_.back();
    ranks_.pop_back();
    Group& g = groups_[r.group];
    bool started = false, stop = false;
    // The team's jobs in order, for as long as it stays first after each start (capacity
    // only shrinks in a pass, so carrying on where the scan is equals starting it again).
    g.waiting->scan([&](int gpus) { return strict || placement_->could_fit(gpus); },
                    [&](std::uint32_t id, bool fits) {
                      if (placed(id)) return Visit::Next;
                      const QueuedJob& q = waiting[id];
                      if (fits && placement_->try_place(q, out)) {
                        started = true;
                        if (id >= placed_.size()) placed_.resize(std::max<std::size_t>(id + 1, placed_.size() * 2), 0);
                        placed_[id] = 1;
                        r.running_per_weight += q.gpus * (q.gpu_milli / 1000.0) / g.weight;
                        return ranks_.empty() || !after(r, ranks_.front()) ? Visit::Next : Visit::Stop;
                      }
                      if (held_by_quota(cluster, q)) return Visit::Next;  // its team's limit, not the capacity
                      if (strict) stop = true;
                      return strict ? Visit::Stop : Visit::Next;
                    });
    if (stop) break;
    if (!started) continue;  // nothing of this team fits: passed over
    ranks_.push_back(r);
    std::push_heap(ranks_.begin(), ranks_.end(), after);
  }
  for (std::size_t i = first_placement; i < out.placements.size(); ++i) placed_[out.placements[i].job] = 0;
}

std::string FairShareScheduler::settings() const {
  std::string s = "placement: " + params_.placement + ", blocking: " +
                  (params_.blocking == Blocking::Strict ? "strict" : "skip") + ", weights:";
  bool any = false;
  char buf[64];
  for (std::size_t t = 0; t < params_.weight_by_team.size() && t < params_.team_names.size(); ++t) {
    if (params_.weight_by_team[t] == 1) continue;
    std::snprintf(buf, sizeof buf, " %s %g", params_.team_names[t].c_str(), params_.weight_by_team[t]);
    s += buf;
    any = true;
  }
  if (!any) s += " all 1";
  std::snprintf(buf, sizeof buf, ", half_life: %g h", params_.half_life.seconds() / 3600.0);
  return s + buf;
}

namespace {
const config::KeySpec FAIR_SHARE_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "weights", .type = "map: team name -> number", .default_value = "1 for each team", .range = "> 0",
     .help = "each team's share (jobs without a team share one weight of 1)"},
    {.name = "half_life", .type = "duration", .help = "past usage counts half after this long (Slurm's PriorityDecayHalfLife)",
     .kind = config::KeyKind::Duration, .min = 1, .has_default = true, .default_number = 7 * 86400e9},
};

void read_fair_share(config::MapReader& map, const PolicyContext& context, FairShareParams& p) {
  p.team_names = context.teams;
  p.weight_by_team.assign(context.teams.size(), 1.0);
  if (const config::ConfigNode* w = map.optional("weights")) {
    if (!w->is_map()) w->fail(ErrorCode::WrongType, "weights is a map of team names to numbers ({research: 3, quant: 1})");
    const auto entries = w->entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& [team, value] = entries[i];
      const double weight = config::read_double(value, 0, 1e12);
      if (!(weight > 0)) value.fail(ErrorCode::OutOfRange, "a weight must be > 0");
      if (const int t = context.team_index(value, team); t >= 0) p.weight_by_team[static_cast<std::size_t>(t)] = weight;
    }
  }
  p.half_life = map.value<sim::SimTime>("half_life");
}
}  // namespace

PolicyDef<FairShareParams> fair_share_policy() {
  return ordered_policy_def<FairShareScheduler, FairShareParams>(
      "fair-share", "fair share between teams on decayed GPU-time (Slurm's fair-share factor), with weights",
      FAIR_SHARE_KEYS, false, read_fair_share);
}

}  // namespace gcsim::models
