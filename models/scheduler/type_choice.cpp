// First in, first out with a node type chosen per job (see type_choice.hpp).
#include "models/scheduler/type_choice.hpp"

#include <cmath>

#include "sim/check.hpp"

namespace gcsim::models {

void TypeChoiceScheduler::options(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& out) const {
  out.clear();
  GCSIM_CHECK(cluster.speeds != nullptr, "a policy that chooses node types needs the view's job speeds");
  for (std::size_t t = 0; t < cluster.types.size(); ++t) {
    if (!(job.eligible_types >> t & 1)) continue;
    const double time_s = cluster.speeds->time_left_alone_s(job.job, static_cast<int>(t));
    if (std::isnan(time_s)) continue;
    out.push_back(Option{static_cast<int>(t), time_s, time_s * job.gpus * (job.gpu_milli / 1000.0) * cluster.types[t].usd_per_gpu_hour_now / 3600.0});
  }
}

bool TypeChoiceScheduler::place(const ClusterView& cluster, const QueuedJob& job, Decisions& out) {
  options(cluster, job, scratch_);
  prefer(cluster, job, scratch_);
  for (const Option& o : scratch_) {
    QueuedJob only = job;
    only.eligible_types = job.eligible_types & (std::uint64_t{1} << o.type);
    if (only.eligible_types != 0 && placement_->try_place(only, out)) return true;
  }
  return false;
}

}  // namespace gcsim::models
