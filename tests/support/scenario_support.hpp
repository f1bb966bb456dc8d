// Helpers shared by the model and scenario tests: the bundled catalog, loading scenarios
// from inline YAML, and temporary folders.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/trace_data.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/scheduler.hpp"
#include "models/workload/job.hpp"
#include "sim/time.hpp"

namespace gcsim::test {

// A policy for tests that sees the waiting jobs as a span in submit order, rebuilt every
// pass (what a policy for large queues must not do: it keeps its own order).
class SpanPolicy : public models::Scheduler {
 public:
  void job_waiting(const models::QueuedJob&) override {}
  void job_left(std::uint32_t) override {}
  void schedule(const models::ClusterView& cluster, const models::WaitingJobs& waiting, models::Decisions& out) final {
    waiting.in_submit_order(ids_);
    queue_.clear();
    for (std::uint32_t id : ids_) queue_.push_back(waiting[id]);
    decide(cluster, queue_, out);
  }
  virtual void decide(const models::ClusterView& cluster, std::span<const models::QueuedJob> queue,
                      models::Decisions& out) = 0;

 private:
  std::vector<std::uint32_t> ids_;
  std::vector<models::QueuedJob> queue_;
};

// Runs `policy` on jobs given as a span, as the cluster would (they join, the pass runs,
// they leave): for tests of a policy or a placement on a hand-built view.
inline void schedule_once(models::Scheduler& policy, const models::ClusterView& view,
                          std::span<const models::QueuedJob> jobs, models::Decisions& out) {
  models::WaitingJobs waiting;
  for (const models::QueuedJob& q : jobs) {
    waiting.add(q);
    policy.job_waiting(q);
  }
  policy.schedule(view, waiting, out);
  for (const models::QueuedJob& q : jobs) policy.job_left(q.job);
}

// The ConfigError that f() throws; fails the test when it throws none.
template <class F>
ConfigError config_error(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("no ConfigError thrown");
  throw std::logic_error("unreachable");
}

const models::Catalogs& bundled_catalogs();
const models::GpuCatalog& bundled_gpus();
models::LoadOptions load_options();
// Parses and validates inline YAML as if it were the file `label`.
models::Scenario scenario_from_yaml(const std::string& yaml, const std::string& label = "test.yaml");

// Runs a scenario into the trace at `path` (wall clock pinned to 0, so equal runs give equal
// bytes) and reads it back.
// Runs the scenario's jobs on a bare cluster (engine, cluster and its own policy from the
// scenario's scheduler section: no accounting, no trace) and returns them as they ended.
std::vector<models::Job> run_jobs(const models::Scenario& s, std::uint64_t replication = 0);

analysis::TraceData run_to_trace(const models::Scenario& s, const std::string& path, std::uint64_t replication = 0);

// Writes `text` to `path` as it is (binary), replacing what was there.
inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A file's bytes ("" when it cannot be read).
inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A fresh empty folder under the build tree, unique per process and instance (ctest runs
// test cases in parallel), removed when the object goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& name = "tmp");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A `network:` section: hosts n-0 and n-2 hang off switch S1, n-1 and n-3 off S2, each on
// its own link of `edge` bandwidth, and one `core` link joins the switches, so a job on
// n-0,n-1 and a job on n-2,n-3 meet only on the core. No link latency.
std::string two_switch_network(const std::string& edge, const std::string& core);

// One owned 8-GPU node for a 10 h horizon (capex $87,600 over 1 y: F = $10/h; 1 kW busy,
// 200 W idle, PUE 1, $0.50/kWh: E(1) = $0.50/h, E(0) = $0.10/h) and one 8-GPU job of 4 h:
// $42 busy + $60.60 idle = $102.60 for the horizon. `extra` goes after the horizon line.
std::string owned_node_yaml(const std::string& extra = "");

// Two written-out plain jobs (a duration, no model, checkpoint, deadline, estimate or GPU
// list) read the same, field by field: the same job read by two paths of the reader.
void check_same_plain_job(const models::JobSpec& x, const models::JobSpec& y);

// Parses inline YAML and runs it into "<dir>/<name>.h5".
analysis::TraceData run_yaml(const std::string& yaml, const TempDir& dir);

// The trace's /jobs row of the job called `name`; fails the test when there is none.
const analysis::JobRecord& job_named(const analysis::TraceData& t, const std::string& name);

// An instance catalog CSV with one row, lambda/gpu_test_1x (one A100-40GB-SXM) at
// `on_demand` USD per hour ("1.50").
std::string one_row_instance_csv(const std::string& on_demand);
// In `dir`: prices/mine.csv (one_row_instance_csv(on_demand)) and s.yaml, a scenario named
// `name` that reads it as an extra catalog: one node of that instance, busy with one 1 h
// job, so the run costs one node-hour. Returns the scenario's path.
std::string write_own_price_scenario(const std::filesystem::path& dir, const std::string& name,
                                     const std::string& on_demand);

// A scenario named `name` over `horizon`, run until done: two 8-GPU jobs of 6 h submitted
// at 0 h on `count` 8-GPU nodes at $10 an hour each: in turn on one node (b waits 6 h, the
// mean JCT is 9 h), side by side on two (6 h); either way 12 node-hours, $120.
std::string two_jobs_yaml(const std::string& name, const std::string& horizon, int count = 1);

// A scenario named `name` under least attained service on two 8-GPU A100 nodes at $32 an
// hour, run until done: `jobs` jobs of 1 to 8 GPUs arriving about every 10 minutes for
// about an hour each (seed 3) in teams a, b and c. A new job preempts the running ones that
// have had more, so the run has preemptions, and idle and busy compute charges.
std::string las_preemptions_yaml(const std::string& name, int jobs);

// Minutes and hours that may be fractional (sim::minutes and sim::hours take whole ones).
inline sim::SimTime minutes(double m) { return sim::SimTime::from_seconds(m * 60); }
inline sim::SimTime hours(double h) { return sim::SimTime::from_seconds(h * 3600); }

// True when `text` (a command's output, a file) holds `part`.
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A shell command's exit code (-1 when it did not exit) and its output, stderr included.
struct CommandResult {
  int code;
  std::string output;
};
CommandResult run_command(const std::string& command);
// `gcsim ARGS` of this build.
CommandResult run_gcsim(const std::string& args);

// `gcsim ARGS...` of this build run in `dir` (output to dir/peak.log), with its exit code
// and its peak resident set in bytes, as the kernel counts it for the child (wait4's
// ru_maxrss): no /usr/bin/time, which a fresh Debian root does not have.
struct PeakResult {
  int code;
  double peak_rss_bytes;
};
PeakResult run_gcsim_peak(const std::filesystem::path& dir, const std::vector<std::string>& args);

}  // namespace gcsim::test
