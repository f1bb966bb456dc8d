// Resource estimates of a validated scenario (see resource_estimate.hpp).
#include "models/config/resource_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include <unistd.h>

#include "models/scheduler/scheduler_registry.hpp"
#include "sim/address_space.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

// Measured costs (Release build, GCC 12, x86-64, 2026-12-01): the max RSS of
// `gcsim run --no-plots` (/usr/bin/time -v) at two sizes of one scenario, the difference
// divided by the difference in items, rounded up. What they hold:
// - a job: its Job record (192 B), queue entries, its trace rows (job and GPU events,
//   costs) buffered, and the copy of the summary's tables kept in memory as the trace is
//   written (docs/engine.md, "The summary from memory"). The review's P5 workload generated
//   (bench/make_jobs_csv.py, genN.yaml; 2026-12-06, Job of 192 B, the run's memory given
//   back before the summary is read, /ledger and /preemptions folded into running totals
//   and no detail column kept by the summary): 10^5 and 10^6 jobs peak at 75.2 and 526.8
//   MiB (were 101.6 and 657.8 with the summary's row copies, 118.7 and 917.7 with the
//   400-byte Job), 526 B a job between the two; later the same day, with the summary's
//   copy of /jobs read in blocks of 2,048 rows (MemoryTrace::read_blocks), 69.8 and 413.9
//   MiB, 401 B a job between the two (tests/scenarios/test_job_memory.cpp); below about
//   10^4 jobs the trace's buffers add about 300 B a job: so 405 B a job plus 300 B for
//   each of the first 10^4. On 2026-12-07, with /utilization folded into its integrals when
//   no plot draws it (analysis::UtilizationFold), 67 and 399 MiB on another machine of the
//   kind (69 and 479 MiB before there): 387 B a job between the two, and 405 kept, 4% over.
constexpr double BYTES_PER_JOB = 405;
constexpr double TRACE_BUFFER_BYTES_PER_JOB = 300;
constexpr double TRACE_BUFFER_JOBS = 1e4;
// - a written-out job, on top: its share of the CSV's bytes kept for the trace's
//   provenance (its JobSpec, 184 B, is released once the run has its Job: take_workload).
//   P5 written out (bigN.yaml) vs generated: 78.5 vs 75.2 MiB at 10^5 jobs (35 B a job),
//   570.6 vs 526.8 MiB at 10^6 (46 B a job); with the summary read in blocks, 79.1 vs 69.8
//   MiB (97 B a job) and 449.6 vs 413.9 MiB (37 B a job). A compare or sweep keeps the specs (its runs
//   share the scenario): 184 B a job more, once.
constexpr double BYTES_PER_WRITTEN_JOB = 50;
// - a job given more than the plain keys (an estimate, as every SWF job with a requested
//   time has; a deadline, checkpoints, an image pull, a model, comm, a recorded run): its
//   out-of-line JobExtras record, 176 B and the allocator's 16 (models/workload/job.hpp).
//   bench/make_swf.py's 120,000 and 1,200,000 jobs, every one with an estimate, peaked at
//   114.8 and 790.5 MiB under `gcsim run --no-plots -o` against 82.3 and 551.0 MiB
//   estimated without this term (2026-12-06): 202 B a job more, this term and the
//   estimate's own 40-byte box (EstimateSpec, boxed in the JobSpec, held with the job).
constexpr double BYTES_PER_EXTRAS_RECORD = 192;
constexpr double BYTES_PER_ESTIMATE_BOX = 40;
constexpr double BYTES_PER_NODE = 600;
// - the network graph: a link resource (its Boost edge, name, FlowNetwork entry, /links
//   row): a leaf-spine over 64 leaves with 16 vs 4,096 spines, 2,560 vs 524,800 links:
//   29.4 vs 276.5 MB, 485 B a link; a vertex (properties, name, adjacency): single-switch
//   clusters of 1e3 vs 1e4 nodes of 8 GPUs (15 vertices, 44 links a node), 220 B a vertex.
constexpr double BYTES_PER_VERTEX = 250;
constexpr double BYTES_PER_LINK = 490;
// - an explicit route (its map entry and vector) and each hop's link id: sizes of the
//   containers, not measured (explicit fabrics are small).
constexpr double BYTES_PER_ROUTE = 100;
constexpr double BYTES_PER_HOP = 4;
// - a flow of `gcsim flows`: its CSV row, flow record and output line (sizes, not measured).
constexpr double BYTES_PER_FLOW = 400;
// - the process before the scenario: code, HDF5, the catalogs read (27.2 MiB for the
//   one-job estimate_resnet50 example).
constexpr double BASELINE_BYTES = 27.0 * 1024 * 1024;
// - the load of a trace whose job file is one parsed document (Philly's JSON log): while
//   it is read, the process holds the inputs' bytes, the document (its text and tree,
//   counted as it was built: WorkloadSpec::trace_document_bytes) and the jobs' specs
//   growing. When that is more than the run's estimate, it is the peak: bench/make_philly.py's
//   11,733 and 117,325 jobs (7.8 and 78.5 MB of JSON) peaked at 61.9 and 447.6 MiB in
//   `gcsim validate` and 68.8 and 447.8 MiB in `gcsim run --no-plots -o` (2026-12-06),
//   against 35.3 and 81.1 MiB estimated from the jobs alone; with the text held once
//   (config::load_yaml_data) and the load's memory given back before the run, 61.6 and
//   371.1 MiB in `gcsim run`, estimated 62.9 and 380.5. A job's spec while loading: its
//   JobSpec (184 B), its name's heap block (48 B for Philly's 30-byte ids), its share of the
//   import's per-row tables.
constexpr double LOAD_BYTES_PER_TRACE_JOB = 250;

// Events the engine handles per job (arrival, start, finish, scheduling wake-up): 4.0 in
// the quickstart (2,008 events, 502 jobs) and in 1e5 generated jobs (400,000 events).
// Per interruption (notice, down, replacement up, the restart and rescheduling of the jobs
// it hit): spot-p4d's 16,055 events less the 1,873 of the same month on demand, over its
// 0.46/h x 4 nodes x 720 h = 1,325 expected interruptions, is 10.7.
constexpr double EVENTS_PER_JOB = 4;
constexpr double EVENTS_PER_INTERRUPTION = 12;
// Per simulated step of a job's network traffic (compute done, flows start and end); an
// upper bound: network_dgx handles 407 events for 2 jobs of 200 steps.
constexpr double EVENTS_PER_COMM_STEP = 3;
// A policy's round (las, finish-time-fair): its wake-up and the events of the pass it
// makes; a preemption: the run's stop and its restart. Two 1-GPU jobs of one day swapping
// on one GPU under finish-time-fair: with `preemption: {mode: save, save: 10s}` and
// `interval: 1s`, 2.17 events a round over 10 days (1,872,004 events, 72,000 preemptions;
// estimated 2.07 million); losing the run at each preemption, each round preempts, 3.0
// events a round (43,204 events in 10 days at `1m`; estimated 4 a round).
// Memory: the run's trace rows, 437 B a preemption (the save case at 5 vs 10 days: 36,000
// vs 72,000 preemptions, 38.3 vs 53.7 MB).
constexpr double EVENTS_PER_ROUND = 2;
constexpr double EVENTS_PER_PREEMPTION = 2;
constexpr double BYTES_PER_PREEMPTION = 450;

double horizon_s(const Scenario& s) { return s.horizon.seconds(); }

// How many times a profile of `points` change points, repeating every `period` (zero: once),
// changes over the horizon.
double profile_changes(std::size_t points, sim::SimTime period, double horizon) {
  const double n = static_cast<double>(points);
  if (period.ns() <= 0) return n;
  return n * std::ceil(horizon / period.seconds());
}

// A typical value of a distribution, clamped to its bounds: its mean (the median for a
// lognormal, the unweighted mean of a choice).
double typical(const Distribution& d) {
  double v = d.p1;
  if (d.kind == Distribution::Kind::Uniform) v = (d.p1 + d.p2) / 2;
  if (d.kind == Distribution::Kind::Choice && !d.values.empty())
    v = std::accumulate(d.values.begin(), d.values.end(), 0.0) / static_cast<double>(d.values.size());
  return std::clamp(v, d.lowest(), d.highest());
}

// Vertices and cables of one node's internals (models/topology/topology.cpp, add_node).
struct GraphSize {
  double vertices = 0;
  double cables = 0;
};

GraphSize node_graph(int gpus, const topology::NodeInternalsSpec& s) {
  const double g = gpus;
  const double switches = std::max(1, (gpus + s.gpus_per_pcie_switch - 1) / std::max(1, s.gpus_per_pcie_switch));
  GraphSize n;
  n.vertices = 1 + switches + g + s.nic_count;
  n.cables = switches + g + s.nic_count;
  if (gpus > 1 && s.nvlink == topology::NvlinkMode::NvSwitch) {
    n.vertices += 1;
    n.cables += g;
  } else if (gpus > 1 && s.nvlink == topology::NvlinkMode::PointToPoint) {
    n.cables += s.nvlink_links >= gpus - 1 ? g * (g - 1) / 2 : g;
  }
  return n;
}

// The fabric's own vertices and cables for `nodes` endpoints groups of `endpoints` NICs.
GraphSize fabric_graph(const topology::NetworkSpec& net, double nodes, double endpoints) {
  GraphSize f;
  switch (net.fabric) {
    case topology::Fabric::SingleSwitch:
      f.vertices = 1;
      f.cables = endpoints;
      break;
    case topology::Fabric::LeafSpine: {
      const double leaves = net.leaves > 0 ? net.leaves : std::max(1.0, std::ceil(nodes / net.nodes_per_leaf));
      f.vertices = leaves + net.spines;
      f.cables = endpoints + leaves * net.spines;
      break;
    }
    case topology::Fabric::FatTree: {
      const double k = net.k, half = k / 2;
      f.vertices = half * half + k * k;
      f.cables = endpoints + 2 * k * half * half;
      break;
    }
    case topology::Fabric::Explicit:
      // Hosts and at most two switches per link.
      f.vertices = static_cast<double>(net.hosts.size() + 2 * net.links.size());
      f.cables = static_cast<double>(net.links.size()) + endpoints;
      break;
  }
  return f;
}

void add_routes(ResourceEstimate& e, ResourcePart& part, const topology::NetworkSpec& net) {
  double hops = 0;
  for (const topology::RouteSpec& r : net.routes) hops += static_cast<double>(r.links.size());
  e.routes = static_cast<double>(net.routes.size());
  part.bytes += e.routes * BYTES_PER_ROUTE + hops * BYTES_PER_HOP;
}

ResourcePart part(std::string path, SourceMark mark, std::string what, std::string list = {}) {
  ResourcePart p;
  p.list = std::move(list);
  p.path = std::move(path);
  p.mark = std::move(mark);
  p.what = std::move(what);
  return p;
}

void add(ResourceEstimate& e, ResourcePart p) {
  if (p.bytes <= 0 && p.events <= 0) return;
  e.bytes += p.bytes;
  e.events += p.events;
  e.parts.push_back(std::move(p));
}

// Checkpoint events (start and end of a write) of a job running about `runtime_s`.
double checkpoint_events(const CheckpointSpec* c, double runtime_s) {
  if (!c || c->optimal || c->every.ns() <= 0) return 0;
  return 2 * std::floor(runtime_s / c->every.seconds());
}

// At most how many of a generator's jobs a run makes when it takes them as it reaches them
// (streamable(): it never makes those submitted after the horizon, docs/engine.md "Jobs
// taken as they come"): the jobs it submits by the horizon (and before its `end`), from
// the mean time between arrivals, with a margin of six standard deviations of a Poisson
// count and ten jobs. The mean is taken only where it is known or underestimated (a
// truncation from below raises it; office hours only slow the arrivals); with a `rate`
// by hour, an empirical distribution or a truncation from above, the whole count.
double jobs_by_horizon(const GeneratorSpec& g, sim::SimTime horizon) {
  const double count = static_cast<double>(g.count);
  const sim::SimTime until = g.end ? std::min(horizon, *g.end) : horizon;
  if (until <= g.start) return 0;  // the first arrival is one draw after start
  if (g.rate) return count;
  const Distribution& a = g.arrival;
  double mean = 0;
  switch (a.kind) {
    case Distribution::Kind::Constant: mean = a.p1; break;
    case Distribution::Kind::Uniform: mean = (a.p1 + a.p2) / 2; break;
    case Distribution::Kind::Choice: {
      double w = 0;
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        mean += a.values[i] * a.weights[i];
        w += a.weights[i];
      }
      mean = w > 0 ? mean / w : 0;
      break;
    }
    case Distribution::Kind::Exponential:
    case Distribution::Kind::Normal:
    case Distribution::Kind::Lognormal:
      if (a.max < std::numeric_limits<double>::infinity()) return count;
      mean = a.kind == Distribution::Kind::Lognormal ? a.p1 * std::exp(a.p2 * a.p2 / 2) : a.p1;
      break;
    default: return count;
  }
  if (!(mean > 0)) return count;
  const double n = (until - g.start).seconds() / mean;
  return std::min(count, std::ceil(n + 6 * std::sqrt(n) + 10));
}

// Returns the jobs' run time summed, in seconds (each at most the horizon).
double add_jobs(ResourceEstimate& e, const Scenario& s) {
  const double horizon = horizon_s(s);
  double total_gpus = 0;  // summed here: the int total of ClusterSpec overflows at the sizes refused here
  for (const NodeTypeSpec& t : s.cluster.node_types) total_gpus += static_cast<double>(t.count) * t.gpus;
  // The jobs each generator's run makes: a streamed run none after the horizon.
  const bool streamed = streamable(s);
  std::vector<double> made;
  for (const GeneratorSpec& g : s.workload.generators)
    made.push_back(streamed ? jobs_by_horizon(g, s.horizon) : static_cast<double>(g.count));
  double all_jobs = static_cast<double>(s.workload.jobs.size());
  for (const double n : made) all_jobs += n;
  // A job whose run time is not written (work, training) gets its share of the cluster's
  // GPU time over the horizon, at most the horizon.
  auto share_s = [&](double gpus) { return std::min(horizon, horizon * total_gpus / std::max(1.0, all_jobs * gpus)); };
  // Bytes of one job, the trace's growing buffers spread over all of them.
  const double per_job =
      all_jobs > 0 ? BYTES_PER_JOB + TRACE_BUFFER_BYTES_PER_JOB * std::min(all_jobs, TRACE_BUFFER_JOBS) / all_jobs : 0;

  double runtime_sum_s = 0;
  if (!s.workload.jobs.empty()) {
    ResourcePart p = part("workload.jobs", s.workload.jobs_mark, "jobs");
    double with_extras = 0;
    for (std::size_t i = 0; i < s.workload.jobs.size(); ++i) {
      const JobSpec& j = s.workload.jobs[i];
      with_extras += j.estimate || j.deadline || j.checkpoint || j.training || j.comm ||
                     j.image_pull != sim::SimTime::zero() || i < s.workload.recorded.size();
      const double runtime = j.duration ? std::min(horizon, j.duration->seconds()) : share_s(j.gpus);
      p.events += EVENTS_PER_JOB + checkpoint_events(j.checkpoint.get(), runtime);
      runtime_sum_s += runtime;
      if (j.comm) p.events += EVENTS_PER_COMM_STEP * static_cast<double>(j.comm->simulated_steps);
    }
    p.bytes = (per_job + BYTES_PER_WRITTEN_JOB) * static_cast<double>(s.workload.jobs.size()) +
              (BYTES_PER_EXTRAS_RECORD + BYTES_PER_ESTIMATE_BOX) * with_extras;
    e.jobs += static_cast<double>(s.workload.jobs.size());
    add(e, std::move(p));
  }
  for (std::size_t k = 0; k < s.workload.generators.size(); ++k) {
    const GeneratorSpec& g = s.workload.generators[k];
    const double count = made[k];
    ResourcePart p = part(g.path + ".count", g.mark, "generated jobs", "workload.generators");
    const double gpus = std::max(1.0, typical(g.gpus));
    const double runtime = g.duration ? std::min(horizon, typical(*g.duration)) : share_s(gpus);
    p.events = count * (EVENTS_PER_JOB + checkpoint_events(g.checkpoint ? &*g.checkpoint : nullptr, runtime));
    p.bytes = per_job * count;
    if (g.estimate || g.deadline || g.checkpoint || g.image_pull != sim::SimTime::zero())
      p.bytes += BYTES_PER_EXTRAS_RECORD * count;  // a generated job's estimate is not boxed
    e.jobs += count;
    runtime_sum_s += count * runtime;
    add(e, std::move(p));
  }
  return runtime_sum_s;
}

// The load of a trace read as one document (LOAD_BYTES_PER_TRACE_JOB): when it holds more
// than the run will, the difference is a part of its own, so that the estimate is the
// larger of the two.
void add_trace_load(ResourceEstimate& e, const Scenario& s) {
  if (s.workload.trace_document_bytes == 0) return;
  double inputs = 0;
  for (const config::SourceRecord& r : s.inputs) inputs += r.bytes ? static_cast<double>(r.bytes->size()) : 0.0;
  const double load = BASELINE_BYTES + inputs + static_cast<double>(s.workload.trace_document_bytes) +
                      LOAD_BYTES_PER_TRACE_JOB * static_cast<double>(s.workload.jobs.size());
  if (load <= e.bytes) return;
  ResourcePart p = part("workload.trace", s.workload.jobs_mark, "the trace's job file, parsed whole while it is read");
  p.bytes = load - e.bytes;
  add(e, std::move(p));
}

// The rounds of a policy that preempts on one (las, finish-time-fair): a tick of `interval`
// over the horizon, and at most one preemption of each running job per tick, so no more
// than the jobs' run time over `interval` in all, nor than a job per GPU at every tick.
// An upper bound: a policy preempts only where a waiting job outranks a running one.
void add_policy_rounds(ResourceEstimate& e, const Scenario& s, const SchedulerSpec& scheduler, double runtime_sum_s) {
  if (!scheduler.params) return;  // a spec built by hand: no keys read
  const std::optional<PolicyRound> round = scheduler.params->round();
  if (!round || round->interval.ns() <= 0) return;
  const double interval_s = round->interval.seconds();
  const double rounds = std::ceil(horizon_s(s) / interval_s);
  const double preemptions = std::min(std::ceil(runtime_sum_s / interval_s), rounds * e.gpus);
  ResourcePart p = part(round->key_path, round->mark, "policy rounds and the preemptions they make");
  p.events = rounds * EVENTS_PER_ROUND + preemptions * EVENTS_PER_PREEMPTION;
  p.bytes = preemptions * BYTES_PER_PREEMPTION;
  add(e, std::move(p));
}

void add_node_types(ResourceEstimate& e, const Scenario& s, double& network_vertices, double& network_cables,
                    double& endpoints) {
  const double horizon = horizon_s(s);
  for (const NodeTypeSpec& t : s.cluster.node_types) {
    const double count = t.count;
    ResourcePart p = part(t.path + ".count", t.mark, "nodes and their GPUs", "cluster.node_types");
    p.bytes = count * BYTES_PER_NODE;
    if (s.network) {
      const GraphSize n = node_graph(t.gpus, topology::resolve_node_internals(t.internals, t.gpu));
      network_vertices += count * n.vertices;
      network_cables += count * n.cables;
      endpoints += count * t.internals.nic_count;
      p.bytes += count * (n.vertices * BYTES_PER_VERTEX + 2 * n.cables * BYTES_PER_LINK);
    }
    e.nodes += count;
    e.gpus += count * t.gpus;
    add(e, std::move(p));

    if (t.spot) {
      const InterruptionSpec& in = t.spot->interruptions;
      ResourcePart q = part(t.path + ".interruptions", t.mark, "spot interruptions", "cluster.node_types");
      if (in.process == InterruptionProcess::Poisson) q.events += in.rate_per_s * count * horizon * EVENTS_PER_INTERRUPTION;
      if (in.process == InterruptionProcess::Weibull && in.weibull_scale.ns() > 0)
        q.events += count * horizon / in.weibull_scale.seconds() * EVENTS_PER_INTERRUPTION;
      if (in.process == InterruptionProcess::Trace && !in.trace.empty())
        q.events += profile_changes(in.trace.points().size(), in.trace.period(), horizon) * EVENTS_PER_INTERRUPTION;
      if (in.correlated)
        q.events += in.correlated->rate_per_s * horizon * (1 + in.correlated->fraction * count * EVENTS_PER_INTERRUPTION);
      add(e, std::move(q));
      const AvailabilitySpec& av = t.spot->availability;
      ResourcePart r = part(t.path + ".availability", t.mark, "spot capacity changes", "cluster.node_types");
      if (!av.profile.empty()) r.events += profile_changes(av.profile.points().size(), av.profile.period(), horizon);
      for (const AvailabilityWindow& w : av.windows) r.events += 2 * std::ceil(horizon / w.every.seconds());
      add(e, std::move(r));
    }
    const PriceProfile& prices = t.price.spot_profile;
    if (!prices.empty() && !prices.constant()) {
      ResourcePart q = part(t.path + ".price.spot_profile", t.mark, "spot price changes", "cluster.node_types");
      q.events = profile_changes(prices.points().size(), prices.period(), horizon);
      add(e, std::move(q));
    }
  }
}

void add_budgets(ResourceEstimate& e, const Scenario& s) {
  const double horizon = horizon_s(s);
  for (const BudgetSpec& b : s.budgets) {
    ResourcePart p = part(b.path + ".check_every", b.mark, "budget checks", "budgets");
    if (b.check_every.ns() > 0) p.events += std::ceil(horizon / b.check_every.seconds());
    if (b.period.ns() > 0) p.events += std::ceil(horizon / b.period.seconds());
    add(e, std::move(p));
  }
}

// The metrics sampler (docs/metrics.md): an event every `every`, and a look at each start,
// stop and pause boundary of a job, about one event for each of the jobs' own (its rows go
// through the trace's chunked tables, whose buffers do not grow with them). The month of
// scenarios/examples/monitoring/fleet-5000-month.yaml: 172,800 intervals and 265,407
// looks, for 250,848 estimated job events.
// With a `network:` section the inter-node latency sampler adds an event every `every`
// (models/controllers/network_latency.hpp).
void add_metrics(ResourceEstimate& e, const Scenario& s) {
  if (s.output.metrics_every <= sim::SimTime::zero()) return;
  ResourcePart p = part("output.metrics.every", SourceMark{s.source_file, 0, 0}, "metrics intervals and looks");
  p.events = std::ceil(horizon_s(s) / s.output.metrics_every.seconds()) * (s.network ? 2 : 1);
  for (const ResourcePart& q : e.parts)
    if (q.what == "jobs" || q.what == "generated jobs") p.events += q.events;
  add(e, std::move(p));
}

std::string count_text(double n) {
  if (n >= 1e6) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", n);
    return buf;
  }
  std::string digits = std::to_string(static_cast<long long>(std::llround(n)));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

}  // namespace

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page);
}

double usable_memory_bytes() {
  double bytes = physical_memory_bytes();
  const auto lower_to = [&](double limit) {
    if (limit > 0 && (bytes <= 0 || limit < bytes)) bytes = limit;
  };
  lower_to(static_cast<double>(sim::address_space_limit_bytes()));  // 0: none
  // A container's memory limit, as the container sees its own cgroup (v2, then v1). "max"
  // (v2) or a huge number (v1) means none; an unreadable file, that there is none to read.
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const config::FileRead r = config::try_read_regular_file(file, 64);
    if (r.status != config::FileReadStatus::Ok) continue;
    char* end = nullptr;
    const double limit = std::strtod(r.bytes.c_str(), &end);
    if (end != r.bytes.c_str() && limit < 1e18) lower_to(limit);
  }
  return bytes;
}

std::uint64_t event_limit(const ResourceLimits& limits) {
  // Counts are read as doubles (1e9, 500M); past 2^64 there is no limit to speak of.
  if (!(limits.max_events < 1.8e19)) return 0;
  return static_cast<std::uint64_t>(std::max(1.0, std::floor(limits.max_events)));
}

ResourceLimits default_resource_limits() {
  const double usable = usable_memory_bytes();
  ResourceLimits l;
  l.max_memory_bytes = usable > 0 ? usable / 2 : 4.0 * 1024 * 1024 * 1024;
  return l;
}

ResourceEstimate estimate_resources(const Scenario& s) { return estimate_resources(s, s.scheduler); }

ResourceEstimate estimate_resources(const Scenario& s, const SchedulerSpec& scheduler) {
  ResourceEstimate e;
  e.bytes = BASELINE_BYTES;
  const double runtime_sum_s = add_jobs(e, s);
  double vertices = 0, cables = 0, endpoints = 0;
  add_node_types(e, s, vertices, cables, endpoints);
  add_budgets(e, s);
  add_metrics(e, s);
  add_policy_rounds(e, s, scheduler, runtime_sum_s);
  if (s.network) {
    const topology::NetworkSpec& net = *s.network;
    const GraphSize f = fabric_graph(net, e.nodes, endpoints);
    ResourcePart p = part(net.path + (net.fabric == topology::Fabric::Explicit ? ".links" : ".fabric"), net.mark,
                          "network fabric");
    p.bytes = f.vertices * BYTES_PER_VERTEX + 2 * f.cables * BYTES_PER_LINK;
    add_routes(e, p, net);
    vertices += f.vertices;
    cables += f.cables;
    add(e, std::move(p));
  }
  e.vertices = vertices;
  e.links = 2 * cables;
  add_trace_load(e, s);
  return e;
}

ResourceEstimate estimate_flow_replay(const topology::NetworkSpec& net, double flows) {
  ResourceEstimate e;
  e.bytes = BASELINE_BYTES;
  double hosts = net.host_count > 0 ? net.host_count : static_cast<double>(net.hosts.size());
  if (hosts == 0 && net.fabric == topology::Fabric::LeafSpine) hosts = static_cast<double>(net.leaves) * net.nodes_per_leaf;
  if (hosts == 0 && net.fabric == topology::Fabric::FatTree) hosts = static_cast<double>(net.k) * net.k * net.k / 4;
  const GraphSize f = fabric_graph(net, hosts, hosts);
  ResourcePart p = part(net.path + (net.fabric == topology::Fabric::Explicit ? ".links" : ".fabric"), net.mark,
                        "network fabric");
  p.bytes = (hosts + f.vertices) * BYTES_PER_VERTEX + 2 * f.cables * BYTES_PER_LINK;
  add_routes(e, p, net);
  e.vertices = hosts + f.vertices;
  e.links = 2 * f.cables;
  add(e, std::move(p));
  ResourcePart q = part(net.path, net.mark, "flows");
  q.bytes = flows * BYTES_PER_FLOW;
  q.events = 2 * flows;
  add(e, std::move(q));
  return e;
}

void check_resources(const ResourceEstimate& e, const ResourceLimits& limits) {
  if (e.parts.empty()) return;
  // The part to blame: parts of one kind in one list (64 node types of a million nodes
  // each) are blamed together, at the list, when together they are the largest.
  const auto refuse = [&](double ResourcePart::*field, const std::string& total, const std::string& limit,
                          const auto& amount) {
    struct Group {
      const ResourcePart* first;
      const ResourcePart* largest;
      double sum = 0;
      int parts = 0;
    };
    std::vector<Group> groups;
    for (const ResourcePart& p : e.parts) {
      auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
        return !p.list.empty() && x.first->list == p.list && x.first->what == p.what;
      });
      if (g == groups.end()) g = groups.insert(groups.end(), Group{&p, &p});
      g->sum += p.*field;
      g->parts += 1;
      if (p.*field > g->largest->*field) g->largest = &p;
    }
    const Group& top = *std::max_element(groups.begin(), groups.end(),
                                         [](const Group& x, const Group& y) { return x.sum < y.sum; });
    const ResourcePart& p = top.parts > 1 ? *top.first : *top.largest;
    const std::string where =
        top.parts > 1 ? p.list + " (" + std::to_string(top.parts) + " entries; the largest, " + top.largest->path + ", " +
                            amount(top.largest->*field) + ")"
                      : p.path;
    throw ConfigError(ErrorCode::Infeasible, p.mark, top.parts > 1 ? p.list : p.path,
                      "the scenario needs about " + total + ", over the limit of " + limit + "; the largest part, " +
                          amount(top.sum) + ", is the " + p.what + " of " + where);
  };
  const auto bytes = [](double b) { return units::format_bytes(b); };
  const auto events = [](double n) { return count_text(n) + " events"; };
  if (e.bytes > limits.max_memory_bytes)
    refuse(&ResourcePart::bytes, bytes(e.bytes) + " of memory", bytes(limits.max_memory_bytes) + " (--max-memory)", bytes);
  if (e.events > limits.max_events)
    refuse(&ResourcePart::events, events(e.events), events(limits.max_events) + " (--max-events)", events);
}

std::string format_estimate(const ResourceEstimate& e, const ResourceLimits& limits) {
  return "needs about " + count_text(e.jobs) + " jobs, " + count_text(e.nodes) + " nodes, " + count_text(e.gpus) +
         " GPUs, " + count_text(e.links) + " links, " + count_text(e.routes) + " routes, " + count_text(e.events) +
         " events, " + units::format_bytes(e.bytes) + " of memory (limits " +
         units::format_bytes(limits.max_memory_bytes) + ", " + count_text(limits.max_events) + " events)";
}

}  // namespace gcsim::models
