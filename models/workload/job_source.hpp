// Jobs taken one at a time, in submit order, as a run reaches them: the Cluster's streamed
// mode (docs/engine.md, "Jobs taken as they come") takes its jobs from a JobSource instead
// of a list made before the run. models/coupling/job_stream.hpp makes a scenario's.
#pragma once

#include <cstddef>

#include "models/workload/job.hpp"

namespace gcsim::models {

class JobSource {
 public:
  virtual ~JobSource() = default;
  // The next job (its id is the taker's to set), its submit time at or after the last
  // one's; false when none is left.
  virtual bool next(Job& out) = 0;
  // At most how many jobs are left (room to reserve).
  virtual std::size_t bound() const = 0;
  // How many jobs are left, without making them (the jobs a run ends before it reaches).
  virtual std::size_t count_rest() = 0;
};

}  // namespace gcsim::models
