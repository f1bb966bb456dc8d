// The release schedule of the backfilling policies (backfill_releases.hpp).
#include "models/scheduler/backfill_releases.hpp"

#include <iterator>

#include "sim/check.hpp"

namespace gcsim::models {

bool ReleaseSchedule::first_to_end(std::uint32_t job) const {
  std::uint32_t first = 0;
  sim::SimTime first_end;
  sim::SimTime second_end = sim::SimTime::max();
  int seen = 0;
  scan([&](std::uint32_t id, sim::SimTime end) {
    if (seen++ == 0) {
      first = id;
      first_end = end;
      return Visit::Next;
    }
    second_end = end;
    return Visit::Stop;
  });
  return seen > 0 && first == job && first_end < second_end;  // an end of never is first of none
}

void ReleaseSchedule::push(std::vector<Release>& list, sim::SimTime end, const RunningPlace& place) {
  GCSIM_CHECK(place.gpu < 0, "conservative backfill: a run shares a GPU in a view without gpu_room");
  list.push_back(Release{end, static_cast<std::uint32_t>(nodes_.size()), static_cast<std::uint32_t>(place.nodes.size()),
                         place.gpus_per_node});
  nodes_.insert(nodes_.end(), place.nodes.begin(), place.nodes.end());
}

bool ReleaseSchedule::extend(const ClusterView& cluster, std::size_t count) {
  if (list_.complete) return false;
  const std::size_t before = list_.read.size();
  sim::SimTime last = sim::SimTime::min();
  bool more = false;
  scan([&](std::uint32_t id, sim::SimTime end) {
    if (end <= list_.horizon) return Visit::Next;  // in the list already (or not up)
    if (list_.read.size() - before >= count && end > last) {
      more = true;
      return Visit::Stop;
    }
    last = end;
    const RunningPlace place = cluster.running_jobs->where(id);
    if (on_up_nodes(cluster, place.nodes)) push(list_.read, end, place);
    return Visit::Next;
  });
  if (more) {
    list_.horizon = last;
  } else {
    list_.complete = true;
    list_.horizon = sim::SimTime::max();
  }
  return list_.read.size() > before;
}

const ReleaseSchedule::Release& ReleaseSchedule::add_fresh(sim::SimTime end, const RunningPlace& place) {
  std::vector<Release>& f = list_.fresh;
  const auto at = std::upper_bound(f.begin() + static_cast<std::ptrdiff_t>(list_.fresh_from), f.end(), end,
                                   [](sim::SimTime e, const Release& r) { return e < r.end; });
  const std::size_t i = static_cast<std::size_t>(at - f.begin());
  push(f, end, place);
  std::rotate(f.begin() + static_cast<std::ptrdiff_t>(i), f.end() - 1, f.end());
  return f[i];
}

void ReleaseSchedule::clear_list() {
  list_ = List{};
  nodes_.clear();
}

void ReleaseSchedule::compact(bool merge) {
  std::vector<Release> read;
  read.reserve(list_.read.size() - list_.read_from + (merge ? list_.fresh.size() - list_.fresh_from : 0));
  const auto read_begin = list_.read.begin() + static_cast<std::ptrdiff_t>(list_.read_from);
  const auto fresh_begin = list_.fresh.begin() + static_cast<std::ptrdiff_t>(list_.fresh_from);
  if (merge)
    std::merge(read_begin, list_.read.end(), fresh_begin, list_.fresh.end(), std::back_inserter(read),
               [](const Release& a, const Release& b) { return a.end < b.end; });
  else
    read.assign(read_begin, list_.read.end());
  std::vector<Release> fresh = merge ? std::vector<Release>{} : std::vector<Release>(fresh_begin, list_.fresh.end());
  nodes_spare_.clear();
  for (std::vector<Release>* l : {&read, &fresh})
    for (Release& r : *l) {
      const std::uint32_t first = r.first;
      r.first = static_cast<std::uint32_t>(nodes_spare_.size());
      nodes_spare_.insert(nodes_spare_.end(), nodes_.begin() + first, nodes_.begin() + first + r.count);
    }
  list_.read.swap(read);
  list_.fresh.swap(fresh);
  nodes_.swap(nodes_spare_);
  list_.read_from = 0;
  list_.fresh_from = 0;
}

void ReleaseSchedule::tidy() {
  constexpr std::size_t FRESH_MOST = 64;
  if (list_.fresh.size() - list_.fresh_from > FRESH_MOST)
    compact(true);
  else if (nodes_.size() > 4096 &&
           nodes_.size() > 4 * (list_.read.size() - list_.read_from + list_.fresh.size() - list_.fresh_from))
    compact(false);  // mostly ended
}

}  // namespace gcsim::models
