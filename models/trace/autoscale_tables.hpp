// The trace's autoscaling tables (docs/trace-format.md): /pool_sizes, each elastic pool's
// size and load after every instant at which they changed, and /scale_decisions, every
// decision of the autoscaler with its trigger. An observer of the autoscaler's signals.
#pragma once

#include <vector>

#include "models/controllers/autoscaler.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

class AutoscaleRecorder {
 public:
  AutoscaleRecorder(trace::TraceFile& file, const Scenario& scenario, Autoscaler& scaler);

 private:
  void sample(sim::SimTime t);

  struct Last {
    PoolGauges::Pool figures;
    bool written = false;
  };
  const Autoscaler& scaler_;
  std::vector<int> pools_;
  std::vector<int> slots_;  // each pool's max
  std::vector<Last> last_;
  trace::Table& sizes_;
  trace::Table& decisions_;
};

}  // namespace gcsim::models
