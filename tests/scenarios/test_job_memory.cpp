// A million jobs in little memory (issue 29, item 3): the byte budgets of a written-out job
// and of a running one, and the memory estimate `gcsim validate` prints against the peak
// RSS of the run it estimates, on the review's scale workload (bench/make_jobs_csv.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>

#include "models/config/scenario.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/workload/job.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

TEST_CASE("a written-out job and a running job keep to their byte budgets", "[unit][workload]") {
  // A plain written-out job: its JobSpec and nothing boxed (a model, comm, a checkpoint
  // plan, an estimate each cost a pointer until given). 968 bytes before (std::optional of
  // each inline, a path string and a SourceMark per job).
  CHECK(sizeof(models::JobSpec) <= 184);
  models::JobSpec plain;
  CHECK_FALSE(plain.training);
  CHECK_FALSE(plain.checkpoint);
  CHECK_FALSE(plain.comm);
  CHECK_FALSE(plain.estimate);
  // The running job: what few jobs have out of line (JobExtras, its checkpoint state
  // within), the work's duration and FLOP sharing their bytes, the flags as bits, its total
  // work derived (docs/engine.md, "A million jobs"). 520 bytes, then 400, before.
  CHECK(sizeof(models::Job) <= 200);
  models::Job job;
  CHECK_FALSE(job.has_extras());
  CHECK_FALSE(job.has_ckpt());
  // Without the record a job reads each field's default.
  CHECK(job.ckpt().ckpt_work == 0);
  CHECK(job.deadline().is_max());
  CHECK(std::isnan(job.estimate_s()));
  CHECK(job.recorded_wait_s() == -1);
  CHECK(job.training() == nullptr);
  CHECK(job.interruptions() == 0);
  CHECK(job.lost_gpu_s() == 0);
  CHECK(job.work_total() == 0);  // not started
  // Reading makes no record; the first write does.
  job.extras_mut().interruptions = 1;
  CHECK(job.has_extras());
  CHECK_FALSE(job.has_ckpt());
  CHECK(job.interruptions() == 1);
  job.ckpt_mut().ckpt_work = 2;
  CHECK(job.has_ckpt());
  CHECK(job.ckpt().ckpt_work == 2);
}

TEST_CASE("plain jobs run without an out-of-line record, and a job given a deadline has one", "[model][workload]") {
  // Two nodes of 4 GPUs, strict FIFO: A (4 GPUs, 2h) on one node 0-2h, B (2 GPUs, 1h) on
  // the other 0-1h, C (8 GPUs) waits for both: 2h-3h, E (1 GPU, 45m after a 45m submit)
  // waits behind C: 3h-3h45.
  const auto jobs = test::run_jobs(test::scenario_from_yaml(R"(name: plain
horizon: 10h
run_until: done
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 1h}
    - {name: C, submit: 30m, gpus: 8, duration: 1h}
    - {name: E, submit: 45m, gpus: 1, duration: 45m, deadline: 5h}
)"));
  REQUIRE(jobs.size() == 4);
  const double start_h[] = {0, 0, 2, 3}, end_h[] = {2, 1, 3, 3.75};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    INFO(jobs[i].name);
    CHECK(jobs[i].status == models::JobStatus::Completed);
    CHECK(jobs[i].start.seconds() == start_h[i] * 3600);
    CHECK(jobs[i].end.seconds() == end_h[i] * 3600);
    CHECK(jobs[i].work_total() == jobs[i].duration.seconds());
    CHECK(jobs[i].has_extras() == (jobs[i].name == "E"));
  }
  CHECK(jobs[3].deadline() == sim::minutes(45) + sim::hours(5));
}

TEST_CASE("a run that takes its workload releases the written-out specs and keeps what the jobs point to", "[unit][workload]") {
  const std::string yaml = R"(name: taken
horizon: 10h
cluster:
  node_types:
    - {name: n4, gpu: A100-40GB-SXM, gpus: 4, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 1h, gpus: 4, duration: 2h}
    - {name: B, submit: 0h, gpus: 2, duration: 1h, checkpoint: {every: 30m, write_time: 5m, restore_time: 1m}}
    - {name: C, submit: 30m, gpus: 1, work: 1e15, precision: fp32, efficiency: 0.5}
)";
  models::Scenario s = test::scenario_from_yaml(yaml);
  const std::vector<models::Job> expanded = models::expand_workload(s, 7, 1);
  const models::TakenWorkload taken = models::take_workload(s, 7, 1);
  CHECK(s.workload.jobs.empty());
  CHECK(s.workload.jobs.capacity() == 0);
  // Only B has a part a job points to: its spec is kept, its checkpoint plan where it was.
  REQUIRE(taken.kept.size() == 1);
  CHECK(taken.kept[0].name == "B");
  REQUIRE(taken.jobs.size() == 3);
  // In submit order: B, C, A; the same jobs as expansion gives.
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(taken.jobs[i].name == expanded[i].name);
    CHECK(taken.jobs[i].id == i);
    CHECK(taken.jobs[i].submit == expanded[i].submit);
    CHECK(taken.jobs[i].gpus == expanded[i].gpus);
    CHECK(taken.jobs[i].has_duration == expanded[i].has_duration);
    CHECK(taken.jobs[i].total_work() == expanded[i].total_work());
    CHECK(taken.jobs[i].eligible_types == expanded[i].eligible_types);
  }
  CHECK(taken.jobs[0].name == "B");
  CHECK(taken.jobs[0].checkpoint() == &*taken.kept[0].checkpoint);
  CHECK(taken.jobs[0].checkpoint()->every == sim::minutes(30));
  CHECK(taken.jobs[1].name == "C");
  CHECK_FALSE(taken.jobs[1].has_duration);
  CHECK(taken.jobs[1].work_flop == 1e15);
  CHECK(taken.jobs[1].efficiency == 0.5);
  CHECK_FALSE(taken.jobs[1].has_extras());
  CHECK(taken.jobs[2].duration == sim::hours(2));
  CHECK_FALSE(taken.jobs[2].has_extras());
}

namespace {

// Peak RSS (bytes) of `gcsim run --no-plots` on `yaml`, and the estimate `gcsim validate` prints.
struct Measured {
  double peak_bytes = 0;
  double estimate_bytes = 0;
};

Measured measure(const test::TempDir& dir, const std::string& yaml) {
  Measured m;
  const auto v = test::run_gcsim("validate " + dir.file(yaml));
  REQUIRE(v.code == 0);
  std::smatch hit;
  REQUIRE(std::regex_search(v.output, hit, std::regex(R"(([0-9.]+) (MiB|GiB) of memory)")));
  m.estimate_bytes = std::stod(hit[1]) * (hit[2] == "GiB" ? 1024.0 * 1024 * 1024 : 1024.0 * 1024);
  const auto r = test::run_gcsim_peak(dir.path(), {"run", "--no-plots", yaml});
  REQUIRE(r.code == 0);
  m.peak_bytes = r.peak_rss_bytes;
  return m;
}

void check_estimate(int jobs) {
#ifdef GCSIM_SANITIZE
  // A sanitizer build's peak is its shadow memory and quarantine (ASan's run of
  // big100000 peaks at 956 MiB where the release build's does at 175 MiB): the estimate
  // is of the plain build's, which the plain builds check.
  WARN("skipped under a sanitizer, whose memory is not the program's");
  return;
#endif
  test::TempDir dir("job_memory");
  const auto made = test::run_command("python3 " + std::string(GCSIM_SOURCE_DIR) + "/bench/make_jobs_csv.py " +
                                      std::to_string(jobs) + " --out " + dir.path().string());
  REQUIRE(made.code == 0);
  for (const std::string kind : {"big", "gen"}) {
    const Measured m = measure(dir, kind + std::to_string(jobs) + ".yaml");
    INFO(kind << jobs << ": estimate " << m.estimate_bytes / 1048576 << " MiB, peak " << m.peak_bytes / 1048576 << " MiB");
    CHECK(m.estimate_bytes >= 0.8 * m.peak_bytes);
    CHECK(m.estimate_bytes <= 1.2 * m.peak_bytes);
  }
}

}  // namespace

TEST_CASE("the memory estimate is within 20% of the peak of 100000 written and generated jobs", "[scenario][.slow]") {
  check_estimate(100000);
}

TEST_CASE("the memory estimate is within 20% of the peak of 1000000 written and generated jobs", "[scenario][.slow]") {
  check_estimate(1000000);
}

// Traces: SWF jobs carry an estimate (their requested time), so each has an out-of-line
// record; Philly's JSON log is parsed whole while it is read, which can be the peak.
void check_trace_estimate(const std::string& generator, const std::string& count) {
#ifdef GCSIM_SANITIZE
  WARN("skipped under a sanitizer, whose memory is not the program's");
  return;
#endif
  test::TempDir dir("trace_memory");
  const auto made = test::run_command("python3 " + std::string(GCSIM_SOURCE_DIR) + "/bench/" + generator + " " + count +
                                      " --out " + dir.path().string());
  REQUIRE(made.code == 0);
  const Measured m = measure(dir, "big.yaml");
  INFO(generator << " " << count << ": estimate " << m.estimate_bytes / 1048576 << " MiB, peak "
                 << m.peak_bytes / 1048576 << " MiB");
  CHECK(m.estimate_bytes >= 0.8 * m.peak_bytes);
  CHECK(m.estimate_bytes <= 1.2 * m.peak_bytes);
}

TEST_CASE("the memory estimate is within 20% of the peak of an SWF log and a Philly JSON log", "[scenario][.slow]") {
  SECTION("SWF, 120,000 jobs with requested times") { check_trace_estimate("make_swf.py", "120000"); }
  SECTION("Philly, 117,325 jobs as published (80 MB of JSON)") { check_trace_estimate("make_philly.py", "117325"); }
}
