// Priority classes with preemption of lower classes (see priority.hpp).
#include "models/scheduler/priority.hpp"

namespace gcsim::models {

namespace {
// Job ids are below 2^32: class * 2^32 + (2^32 - 1 - id) is exact in a double for classes
// within -1000..1000 (|key| < 2^42), and orders by class, then latest submitted first.
constexpr double ID_SPAN = 4294967296.0;
}  // namespace

void PriorityScheduler::run_started(const QueuedJob& job, sim::SimTime) {
  if (!preempt_) return;
  if (job.job >= class_.size()) class_.resize(std::max<std::size_t>(job.job + 1, class_.size() * 2), 0);
  class_[job.job] = static_cast<std::int16_t>(job.priority);
  running_.running(job.job, job.gpus, job.priority * ID_SPAN + (ID_SPAN - 1 - job.job));
}

// The round (ordered.hpp; docs/scheduling.md, "The round"): from the first job that does
// not fit, each waiting job in order gets room held for it, free or made by preempting
// running jobs of strictly lower classes, until one cannot get any.
bool PriorityScheduler::start_round(const ClusterView& cluster, const Decisions& out) {
  if (!preempt_) return false;
  running_.begin_round(cluster, out);
  return true;
}

bool PriorityScheduler::hold_room(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
  return running_.hold_room(cluster, job, [&](std::uint32_t id) { return class_[id] < job.priority; },
                            PreemptReason::Priority, out) != Preempter::Room::None;
}

std::string PriorityScheduler::settings() const {
  return OrderedScheduler::settings() + (preempt_ ? ", preempt: true" : ", preempt: false");
}

namespace {
const config::KeySpec PRIORITY_KEYS[] = {
    PLACEMENT_KEY, BLOCKING_KEY,
    {.name = "preempt", .type = "bool",
     .help = "preempt running jobs of lower classes (lowest first) for the waiting jobs that do not fit, in order",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 1},
};
}  // namespace

PolicyDef<PriorityParams> priority_policy() {
  return ordered_policy_def<PriorityScheduler, PriorityParams>(
      "priority", "priority classes (job key `priority`, higher first), FIFO inside a class; preempts lower classes",
      PRIORITY_KEYS, false, [](config::MapReader& map, const PolicyContext&, PriorityParams& p) {
        p.preempt = map.value<bool>("preempt");
      });
}

}  // namespace gcsim::models
