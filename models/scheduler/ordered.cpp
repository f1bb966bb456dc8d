// The ordering policies' shared pass and keys (see ordered.hpp).
#include "models/scheduler/ordered.hpp"

#include <limits>

#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

void OrderedScheduler::schedule(const ClusterView& cluster, const WaitingJobs& waiting, Decisions& out) {
  placement_->reset(cluster);
  std::uint32_t blocked = 0;
  bool any_blocked = false;
  // The first job in order that does not fit (the one a preempting policy makes room for).
  const auto blocks = [&](std::uint32_t id) {
    if (any_blocked) return;
    blocked = id;
    any_blocked = true;
  };
  if (params_.blocking == Blocking::Strict) {
    order_.scan([](int) { return true; }, [&](std::uint32_t id, bool) {
      if (place(cluster, waiting[id], out) || held_by_quota(cluster, waiting[id])) return Visit::Next;
      blocks(id);
      return Visit::Stop;
    });
  } else {
    // A job that may run on every node type and does not fit: no job as big fits either
    // (capacity only shrinks during a pass).
    const std::uint64_t all_types = cluster.types.size() >= 64 ? ~std::uint64_t{0}
                                                                : (std::uint64_t{1} << cluster.types.size()) - 1;
    int too_big = std::numeric_limits<int>::max();
    order_.scan([&](int gpus) { return gpus < too_big && placement_->could_fit(gpus); },
                [&](std::uint32_t id, bool fits) {
                  const QueuedJob& q = waiting[id];
                  if (fits && q.gpus < too_big && place(cluster, q, out)) return Visit::Next;
                  if (held_by_quota(cluster, q)) return Visit::Next;  // its team's limit, not the capacity
                  blocks(id);
                  // (A share that does not fit says nothing of smaller shares.)
                  if (fits && !chooses_types() && q.gpu_milli >= 1000 && (q.eligible_types & all_types) == all_types)
                    too_big = std::min(too_big, q.gpus);
                  return Visit::Next;
                });
  }
  after_placing(cluster, waiting, any_blocked ? &blocked : nullptr, out);
}

std::string OrderedScheduler::settings() const {
  std::string s = "placement: " + params_.placement + ", blocking: " +
                  (params_.blocking == Blocking::Strict ? "strict" : "skip");
  if (uses_lengths())
    s += params_.lengths == Lengths::True ? ", lengths: true" : ", lengths: estimate (true where a job has none)";
  return s;
}

const config::KeySpec PLACEMENT_KEY = {
    .name = "placement", .type = "name", .default_value = "`best-fit`",
    .help = "placement strategy: where each job goes (`gcsim policies` lists them)"};
const config::KeySpec BLOCKING_KEY = {
    .name = "blocking", .type = "`strict` | `skip`", .default_value = "`strict`",
    .help = "`strict`: the first job in order that does not fit holds the rest; `skip`: every job that fits starts, in order"};
const config::KeySpec LENGTHS_KEY = {
    .name = "lengths", .type = "`true` | `estimate`", .default_value = "`true`",
    .help = "rank jobs by their true length, or by the user's estimate where a job has one (`estimate` key)"};

OrderedParams read_ordered_params(config::MapReader& map, const SchedulerRegistry& registry, bool with_lengths) {
  OrderedParams p;
  if (const config::ConfigNode* n = map.optional("placement"))
    p.placement = config::read_enum(*n, registry.placements().names());
  if (const config::ConfigNode* n = map.optional("blocking"))
    p.blocking = config::read_enum(*n, {"strict", "skip"}) == "skip" ? Blocking::Skip : Blocking::Strict;
  if (with_lengths)
    if (const config::ConfigNode* n = map.optional("lengths"))
      p.lengths = config::read_enum(*n, {"true", "estimate"}) == "estimate" ? Lengths::Estimate : Lengths::True;
  return p;
}

}  // namespace gcsim::models
