// One run (see simulation.hpp).
#include "models/simulation.hpp"

#include <chrono>
#include <memory>

#include "models/cluster.hpp"
#include "models/pricing/cost_meter.hpp"
#include "models/register_builtins.hpp"
#include "models/trace_recorder.hpp"
#include "models/workload/workload.hpp"
#include "sim/engine.hpp"

namespace gcsim::models {

RunSummary run_simulation(const Scenario& scenario, trace::TraceFile* trace, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto* entry = builtins().schedulers.find(scenario.scheduler.policy);
  sim::Engine engine;
  Cluster cluster(engine, scenario, expand_workload(scenario, options.replication),
                  entry->factory(scenario.scheduler));
  CostMeter costs(scenario, cluster);
  std::unique_ptr<TraceRecorder> recorder;
  if (trace) recorder = std::make_unique<TraceRecorder>(*trace, scenario, options.replication, cluster, costs);

  cluster.start();
  engine.run();

  RunSummary s;
  s.end_s = cluster.end_time().seconds();
  s.events_handled = engine.events_handled();
  s.jobs_total = cluster.jobs().size();
  for (const Job& j : cluster.jobs()) {
    s.jobs_completed += j.status == JobStatus::Completed;
    s.jobs_running += j.status == JobStatus::Running;
    s.jobs_never_started += j.status == JobStatus::NeverStarted;
  }
  s.total_cost_usd = costs.total_cost_usd();
  s.busy_cost_usd = costs.busy_cost_usd();
  s.wall_clock_s = options.fixed_wall_clock_s.value_or(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  if (recorder) recorder->finish(s.wall_clock_s);
  return s;
}

}  // namespace gcsim::models
