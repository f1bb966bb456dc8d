// Scheduling-policy benchmark (issue 12, "Speed"): a saturated cluster, 6,500 GPUs (812
// nodes of 8 and one of 4), and a workload of N jobs (default 1,000,000; most 1 GPU, some
// 2-8, a few 16-64; lognormal durations, median 1 h) arriving faster than it can serve
// them, so the queue grows to hundreds of thousands. Each policy runs the same workload
// (same seed) in a child process of its own, trace off; the child reports the CPU time of
// the event loop (RunSummary::loop_cpu_s: loading, workload expansion and building the
// models excluded) and its peak resident memory, and the
// last column is the time against FIFO's in the same invocation. Every policy must also
// complete every job, which checks that they did the same work.
//
//   scheduler_bench [jobs=1000000] [catalog_dir=<source>/scenarios/catalog] [scheduler|all] [repeats=1]
// (a third argument, a `scheduler:` map, runs that one alone, for profiling). With
// repeats > 1, each policy runs that many times, each run right after a FIFO run of its
// own (on a shared machine, a pair sees the same load): cpu_s is the median of its runs,
// vs_fifo the median of the pairs' ratios.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/allocator.hpp"
#include "sim/config/config_node.hpp"

namespace {

std::string scenario_text(long jobs, const std::string& scheduler) {
  return "name: saturated\nseed: 7\nhorizon: 400d\nrun_until: done\n"
         "cluster:\n  node_types:\n"
         "    - {name: big, gpu: A100-80GB-SXM, gpus: 8, count: 812, price: {on_demand_per_hour: 32.77}}\n"
         "    - {name: small, gpu: A100-80GB-SXM, gpus: 4, count: 1, price: {on_demand_per_hour: 16.4}}\n"
         "scheduler: " + scheduler + "\n"
         "workload:\n  generators:\n    - name: mix\n      count: " + std::to_string(jobs) + "\n"
         "      arrival: {dist: exponential, mean: 1.5s}\n"
         "      gpus: {choice: [1, 2, 4, 8, 16, 32, 64], weights: [0.8, 0.06, 0.06, 0.06, 0.01, 0.006, 0.004]}\n"
         "      duration: {dist: lognormal, median: 1h, sigma: 1.0}\n";
}

struct Result {
  double cpu_s = 0;
  double end_s = 0;
  long max_rss_kib = 0;
  std::uint64_t completed = 0;
  std::uint64_t events = 0;
};

// Runs one policy in a child process; its figures come back through a pipe.
bool run_child(long jobs, const std::string& scheduler, const std::string& catalog_dir, Result& out) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fd[0]);
    gcsim::sim::tune_allocator();  // as the gcsim front end runs
    Result r;
    try {
      const auto& schedulers = gcsim::models::builtins().schedulers;
      const gcsim::models::LoadOptions options{catalog_dir, schedulers};
      const auto catalogs = gcsim::models::load_bundled_catalogs(options);
      const gcsim::models::Scenario s = gcsim::models::load_scenario(
          gcsim::config::load_yaml_string(scenario_text(jobs, scheduler), "bench.yaml"), catalogs, schedulers);
      const gcsim::models::RunSummary summary = gcsim::models::run_simulation(s, schedulers, nullptr);
      r.cpu_s = summary.loop_cpu_s;  // the event loop's own CPU time (the jobs' expansion excluded)
      r.end_s = summary.end_s;
      r.completed = summary.jobs_completed;
      r.events = summary.events_handled;
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      r.max_rss_kib = usage.ru_maxrss;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", scheduler.c_str(), e.what());
      _exit(1);
    }
    const ssize_t n = write(fd[1], &r, sizeof r);
    _exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(fd[1]);
  const ssize_t n = read(fd[0], &out, sizeof out);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return n == static_cast<ssize_t>(sizeof out) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long jobs = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000000;
  const std::string catalog_dir = argc > 2 ? argv[2] : std::string(GCSIM_SOURCE_DIR) + "/scenarios/catalog";
  std::vector<std::string> policies = {
      "{policy: fifo}", "{policy: fifo, blocking: skip}", "{policy: sjf}", "{policy: sjf, blocking: skip}",
      "{policy: srtf, blocking: skip, preemption: {save: 30s, restore: 30s}}", "{policy: backfill}",
      "{policy: priority}", "{policy: las, preemption: {save: 30s, restore: 30s}}", "{policy: fair-share}",
      "{policy: finish-time-fair, preemption: {save: 30s, restore: 30s}}", "{policy: hetero}", "{policy: cost-aware}",
      "{policy: spot-fallback}", "{policy: backfill, mode: conservative}",
      // (las and finish-time-fair with a saving preemption: these jobs have no checkpoints,
      // and work lost at every preemption keeps long jobs from ever finishing in overload.)
  };
  if (argc > 3 && std::string(argv[3]) != "all") policies = {argv[3]};
  const long repeats = argc > 4 ? std::max(1L, std::strtol(argv[4], nullptr, 10)) : 1;
  std::printf("%ld jobs, 6,500 GPUs, trace off, one core per run%s\n", jobs,
              repeats > 1 ? (", median of " + std::to_string(repeats) + " runs, each paired with a FIFO run").c_str() : "");
  std::printf("%-48s %9s %9s %12s %10s %11s %8s\n", "scheduler", "cpu_s", "sim_days", "completed", "events", "peak_MiB",
              "vs_fifo");
  const std::string fifo = "{policy: fifo}";
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  };
  double fifo_s = 0;  // repeats == 1: the first run's, as the baseline of those after it
  int failures = 0;
  for (const std::string& p : policies) {
    Result r;
    std::vector<double> cpu;
    std::vector<double> ratio;
    bool ok = true;
    for (long k = 0; ok && k < repeats; ++k) {
      Result base;
      if (repeats > 1 && p != fifo) ok = run_child(jobs, fifo, catalog_dir, base);
      ok = ok && run_child(jobs, p, catalog_dir, r);
      if (!ok) break;
      cpu.push_back(r.cpu_s);
      if (repeats > 1) ratio.push_back(p == fifo ? 1.0 : r.cpu_s / base.cpu_s);
    }
    if (!ok) {
      std::printf("%-48s failed\n", p.c_str());
      ++failures;
      continue;
    }
    if (fifo_s == 0) fifo_s = r.cpu_s;
    if (r.completed != static_cast<std::uint64_t>(jobs)) ++failures;
    std::printf("%-48s %9.2f %9.2f %12" PRIu64 " %10" PRIu64 " %11.1f %8.2f\n", p.c_str(), median(cpu), r.end_s / 86400,
                r.completed, r.events, static_cast<double>(r.max_rss_kib) / 1024,
                repeats > 1 ? median(ratio) : r.cpu_s / fifo_s);
  }
  return failures == 0 ? 0 : 1;
}
