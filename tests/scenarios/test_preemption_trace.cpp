// Preemptions in the trace and in `gcsim analyze`: srtf preempts a long job for a short one
// on one GPU; the /preemptions row and the analysis counts (preemptions, GPU-hours saving,
// restoring and lost) are checked against the times worked out by hand, for a saving
// preemption and a losing one.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

// One GPU. L (1000 s) from 0; H (50 s) at 100 s: L, with 900 s left, is preempted at 100 s.
std::string one_gpu(const std::string& preemption, const std::string& checkpoint, const std::string& policy = "srtf") {
  return "name: preempt\n"
         "seed: 1\n"
         "horizon: 1d\n"
         "cluster:\n"
         "  node_types:\n"
         "    - {name: n1, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 3.6}}\n"
         "scheduler: {policy: " + policy + ", preemption: " + preemption + "}\n"
         "workload:\n"
         "  jobs:\n"
         "    - {name: L, submit: 0s, gpus: 1, duration: 1000s" + checkpoint + "}\n"
         "    - {name: H, submit: 100s, gpus: 1, duration: 50s}\n";
}

}  // namespace

TEST_CASE("a saving preemption is a /preemptions row, counted by analyze", "[scenario][scheduler]") {
  // L saves 100-110 s, keeping its 100 s; H runs 110-160 s; L restores 160-165 s and ends
  // at 165 + 900 = 1065 s. Saving 10 GPU-s, restoring 5 GPU-s, nothing lost.
  const test::TempDir dir("save");
  const auto t = test::run_yaml(one_gpu("{save: 10s, restore: 5s}", ""), dir);
  REQUIRE(t.preemptions.size() == 1);
  const analysis::PreemptionRecord& p = t.preemptions[0];
  CHECK(p.time_s == 100.0);
  CHECK(p.job == test::job_named(t, "L").job_id);
  CHECK(p.reason == "shorter");
  CHECK(p.mode == "save");
  CHECK(p.gpus == 1);
  CHECK(p.save_s == 10.0);
  CHECK(p.save_gpu_s == 10.0);
  CHECK(p.restore_s == 5.0);
  CHECK(p.restore_gpu_s == 5.0);
  CHECK(p.saved_gpu_s == 100.0);
  CHECK(p.lost_gpu_s == 0.0);
  CHECK(test::job_named(t, "L").end_s == 1065.0);
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.preemptions == 1);
  CHECK(m.gpu_hours_preempt_save == Approx(10.0 / 3600).epsilon(1e-12));
  CHECK(m.gpu_hours_preempt_restore == Approx(5.0 / 3600).epsilon(1e-12));
  CHECK(m.gpu_hours_preempt_lost == 0.0);
  // Shown by analyze, and in its JSON.
  const std::string report = analysis::format_report(t, m);
  CHECK_THAT(report, Catch::Matchers::Contains("Preemptions (by the scheduling policy)"));
  // Held: L 110 + 905 s, H 50 s = 1065 GPU-s; saving 10 of them is 0.9%.
  CHECK_THAT(report, Catch::Matchers::Contains("0.9% of held, before the stop"));
  const std::string json = analysis::format_json(m, t.attrs);
  CHECK_THAT(json, Catch::Matchers::Contains("\"preemptions\": 1,"));
  CHECK_THAT(json, Catch::Matchers::Contains("\"gpu_hours_preempt_lost\": 0,"));
}

TEST_CASE("a losing preemption is a /preemptions row with the work it lost", "[scenario][scheduler]") {
  // L's checkpoint at 60 s (instant) is its last before 100 s: it stops at once, losing
  // 40 GPU-s and keeping 60 of the run's 100; H runs 100-150 s; L restarts with nothing
  // to restore (restore_time 0) from 60 s of work and ends at 150 + 940 = 1090 s.
  const test::TempDir dir("lose");
  const auto t = test::run_yaml(one_gpu("{mode: lose}", ", checkpoint: {every: 60s, write_time: 0s, restore_time: 0s}"), dir);
  REQUIRE(t.preemptions.size() == 1);
  const analysis::PreemptionRecord& p = t.preemptions[0];
  CHECK(p.time_s == 100.0);
  CHECK(p.mode == "lose");
  CHECK(p.save_s == 0.0);
  CHECK(p.restore_s == 0.0);
  CHECK(p.saved_gpu_s == Approx(60.0).epsilon(1e-12));
  CHECK(p.lost_gpu_s == Approx(40.0).epsilon(1e-12));
  CHECK(test::job_named(t, "L").end_s == 1090.0);
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.preemptions == 1);
  CHECK(m.gpu_hours_preempt_save == 0.0);
  CHECK(m.gpu_hours_preempt_restore == 0.0);
  CHECK(m.gpu_hours_preempt_lost == Approx(40.0 / 3600).epsilon(1e-12));
}

TEST_CASE("a run without preemptions has an empty /preemptions table", "[scenario][scheduler]") {
  const test::TempDir dir("nopreempt");
  const auto t = test::run_yaml(one_gpu("{save: 10s}", "", "fifo"), dir);
  CHECK(t.preemptions.empty());
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.preemptions == 0);
  CHECK_THAT(analysis::format_report(t, m), !Catch::Matchers::Contains("Preemptions"));
}
