// A million jobs in little memory (issue 29, item 3): the byte budgets of a written-out job
// and of a running one, and the memory estimate `gcsim validate` prints against the peak
// RSS of the run it estimates, on the review's scale workload (bench/make_jobs_csv.py).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <regex>
#include <string>

#include "models/config/scenario.hpp"
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
  // The running job: its checkpoint state out of line, fields grouped by size (docs/engine.md,
  // "A million jobs"); a plain job never makes a checkpoint record.
  CHECK(sizeof(models::Job) <= 400);
  models::Job job;
  CHECK_FALSE(job.has_ckpt());
  CHECK(job.ckpt().ckpt_work == 0);
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
