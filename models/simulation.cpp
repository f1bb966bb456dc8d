// One run (see simulation.hpp).
#include "models/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>
#include <memory>

#include "models/cluster/cluster.hpp"
#include "models/config/resource_estimate.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/coupling/job_stream.hpp"
#include "models/pricing/ledger.hpp"
#include "models/register_builtins.hpp"
#include "models/run/component.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "sim/engine.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"
#include "sim/trace/tee_trace.hpp"

namespace gcsim::models {

namespace {
// CPU time of the calling thread (POSIX): a run in a sweep's thread counts its own time only.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
// The run's parts, destroyed in reverse build order (as locals would be): a part may use
// those built before it until it goes.
struct Parts {
  std::vector<std::unique_ptr<Component>> list;
  Parts() = default;
  Parts(const Parts&) = delete;
  Parts& operator=(const Parts&) = delete;
  ~Parts() {
    while (!list.empty()) list.pop_back();
  }
};
}  // namespace

std::vector<SpotPoolSpec> spot_pools(const Scenario& scenario) {
  std::vector<SpotPoolSpec> pools;
  std::uint32_t first = 0;
  for (const auto& t : scenario.cluster.node_types) {
    if (t.spot) {
      SpotPoolSpec p;
      p.name = t.name;
      p.first_node = first;
      p.count = t.count;
      p.slots = t.slots();
      p.type = static_cast<int>(&t - scenario.cluster.node_types.data());
      p.interruptions = t.spot->interruptions;
      p.availability = t.spot->availability;
      p.notice = t.spot->notice;
      p.provisioning = t.spot->provisioning;
      p.spot_price = &t.price.spot_profile;
      p.max_usd_per_hour = t.price.max_usd_per_hour.value_or(std::numeric_limits<double>::infinity());
      pools.push_back(std::move(p));
    }
    first += static_cast<std::uint32_t>(t.slots());
  }
  return pools;
}

RunSummary run_simulation(const Scenario& scenario, const SchedulerRegistry& schedulers, trace::TraceFile* trace,
                          const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const SchedulerSpec& scheduler = run_scheduler(scenario, options);
  if (trace && options.scheduler && options.scheduler->source_text.empty())
    throw InternalError("run_simulation: RunOptions::scheduler has no scenario text for the trace");
  // The loader checks the name; a Scenario built by hand may not have been through it.
  std::unique_ptr<Scheduler> policy;
  try {
    policy = schedulers.make(scheduler);
  } catch (const Error& e) {
    throw Error("scenario '" + scenario.name + "': " + e.what());
  }
  sim::Engine engine;
  Ledger ledger;
  const std::uint64_t seed = run_seed(scenario, options);
  // Jobs submitted after the horizon never come: a streamed run never makes them, and jobs
  // given or expanded up front (in submit order) are left out here the same way, so the
  // trace is the same either way. Only their count is kept (Cluster::jobs_not_made).
  const bool stream = options.jobs == nullptr && options.stream_jobs && streamable(scenario);
  std::vector<Job> upfront;
  std::size_t left_out = 0;
  if (!stream) {
    upfront = options.jobs ? std::move(*options.jobs) : expand_workload(scenario, seed, options.replication);
    while (!upfront.empty() && upfront.back().submit > scenario.horizon) {
      upfront.pop_back();
      ++left_out;
    }
  }
  Cluster cluster = stream ? Cluster(engine, scenario, std::make_unique<JobStream>(scenario, seed, options.replication),
                                     std::move(policy))
                           : Cluster(engine, scenario, std::move(upfront), std::move(policy));
  cluster.add_jobs_not_made(left_out);
  cluster.set_scheduler_spec(scheduler);

  // The parts: the registered ones in build order, then the caller's. Which parts see a
  // signal first is each connection's declared order (models/core/event_priorities.hpp), not
  // the order they are built in.
  RunContext context(engine, cluster, ledger, scenario, scheduler, options, seed, options.replication, trace);
  Parts parts;
  (options.parts ? *options.parts : builtins().components).build(context, parts.list);
  for (const ComponentFactory& make : options.components) {
    GCSIM_CHECK(static_cast<bool>(make), "RunOptions::components holds an empty factory");
    if (std::unique_ptr<Component> part = make(context)) {
      context.add_built(*part);
      parts.list.push_back(std::move(part));
    }
  }

  const double loop_start_cpu_s = thread_cpu_s();
  cluster.start();
  for (const auto& part : parts.list) part->start();
  engine.limit_events(options.max_events);
  engine.run();
  if (engine.event_limit_reached()) {
    char events[64];
    std::snprintf(events, sizeof events, "%llu", static_cast<unsigned long long>(engine.events_handled()));
    char estimate[64];
    std::snprintf(estimate, sizeof estimate, "%.3g", options.estimated_events.value_or(estimate_resources(scenario).events));
    throw Error("scenario '" + scenario.name + "': the run was stopped at simulated time " +
                units::format_duration_s(engine.now().seconds()) + " after " + events +
                " events, the limit (--max-events), with more to handle; the estimate before the run was " + estimate +
                " events (gcsim validate): something in the run repeats more often than the estimate counts. "
                "No trace was written");
  }
  const double loop_cpu_s = thread_cpu_s() - loop_start_cpu_s;
  if (!cluster.stall_note().empty())
    throw Error("scenario '" + scenario.name + "': the run was stopped: " + cluster.stall_note() + ". No trace was written");

  RunSummary s;
  s.end_s = cluster.end_time().seconds();
  s.loop_cpu_s = loop_cpu_s;
  s.events_handled = engine.events_handled();
  s.jobs_total = cluster.jobs().size() + cluster.jobs_not_made();
  s.jobs_submitted_after_horizon = cluster.jobs_not_made();
  for (const Job& j : cluster.jobs()) {
    s.jobs_completed += j.status == JobStatus::Completed;
    s.jobs_running += j.status == JobStatus::Running;
    const bool came = j.submit <= scenario.horizon;  // the cluster submits nothing after it
    s.jobs_never_started += j.status == JobStatus::NeverStarted && came;
    s.jobs_submitted_after_horizon += j.status == JobStatus::NeverStarted && !came;
    s.jobs_interrupted += j.status == JobStatus::Interrupted;
    s.interruptions += static_cast<std::size_t>(j.interruptions());
    s.lost_gpu_h += j.lost_gpu_s() / 3600;
  }
  for (int c = 0; c < CHARGE_CATEGORIES; ++c) s.cost_by_category_usd[static_cast<std::size_t>(c)] = ledger.category_usd(static_cast<ChargeCategory>(c));
  s.wall_clock_s = options.fixed_wall_clock_s.value_or(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  // In reverse build order: a part finishes before the parts it was built on (the trace's
  // root attributes last of what writes the trace).
  for (auto it = parts.list.rbegin(); it != parts.list.rend(); ++it) (*it)->finish(s);
  return s;
}

RunSummary run_simulation_to(const Scenario& scenario, const SchedulerRegistry& schedulers, const std::string& trace_path,
                             const RunOptions& options) {
  trace::TraceOptions trace_options;
  trace_options.compression_level = options.trace_compression.value_or(scenario.output.compression);
  trace_options.encoding_thread = options.trace_encoding_thread;
  auto trace = trace::TraceFile::create(trace_path, trace_options);  // destroyed uncommitted on an exception
  RunSummary summary = run_simulation(scenario, schedulers, trace.get(), options);
  trace->commit();
  return summary;
}

RunSummary run_simulation_to(const Scenario& scenario, const SchedulerRegistry& schedulers, const std::string& trace_path,
                             const RunOptions& options, trace::TraceFile& copy,
                             const std::function<bool(const std::string&)>& to_copy) {
  trace::TraceOptions trace_options;
  trace_options.compression_level = options.trace_compression.value_or(scenario.output.compression);
  trace_options.encoding_thread = options.trace_encoding_thread;
  auto file = trace::TraceFile::create(trace_path, trace_options);  // destroyed uncommitted on an exception
  trace::TeeTrace tee(*file, copy, to_copy);
  RunSummary summary = run_simulation(scenario, schedulers, &tee, options);
  tee.commit();
  return summary;
}

RunSummary run_simulation_into(const Scenario& scenario, const SchedulerRegistry& schedulers, const RunOptions& options,
                               trace::TraceFile& copy, const std::function<bool(const std::string&)>& to_copy) {
  trace::DiscardTrace rest;
  trace::TeeTrace tee(rest, copy, to_copy);
  RunSummary summary = run_simulation(scenario, schedulers, &tee, options);
  tee.commit();
  return summary;
}

}  // namespace gcsim::models
