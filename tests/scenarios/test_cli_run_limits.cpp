// Limits that hold during a run, through the command line (issues 27 and 28): a run that
// passes --max-events stops with exit 2 and writes no trace; a policy's rounds are in the
// estimate; a round past the time range is never, not an instant before the run began; a
// horizon at the largest time is refused at its key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/scenario_support.hpp"

namespace fs = std::filesystem;

using gcsim::test::run_gcsim;

namespace {

using gcsim::test::has;

std::string write(const gcsim::test::TempDir& dir, const std::string& name, const std::string& yaml) {
  const std::string path = dir.file(name);
  std::ofstream(path) << yaml;
  return path;
}

// Two equal one-GPU jobs of a day on one GPU: finish-time-fair swaps them at every round.
std::string swapping(const std::string& horizon, const std::string& interval) {
  return "name: swap\nhorizon: " + horizon +
         "\ncluster:\n  node_types:\n    - {name: p, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n"
         "scheduler: {policy: finish-time-fair, interval: " +
         interval +
         ", preemption: {mode: save, save: 10s, restore: 10s}}\n"
         "workload:\n  jobs:\n    - {name: a, gpus: 1, duration: 1d}\n    - {name: b, gpus: 1, duration: 1d}\n";
}

}  // namespace

TEST_CASE("a horizon at the largest time is refused at its key, one below it runs", "[scenario][cli][limits]") {
  gcsim::test::TempDir dir("cli-horizon-max");
  const std::string tail =
      "\ncluster:\n  node_types:\n    - {name: p, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32.77}}\n"
      "workload:\n  jobs:\n    - {name: a, gpus: 8, duration: 6h}\n";
  // Before: a segmentation fault (exit 139) while blaming an image_pull the job does not have.
  const std::string at_max = write(dir, "max.yaml", "name: hmax\nhorizon: 9223372036854775807ns" + tail);
  const auto refused = run_gcsim("run " + at_max + " --no-plots -q -o " + dir.file("out-max"));
  INFO(refused.output);
  CHECK(refused.code == 2);
  CHECK(has(refused.output, "max.yaml:2:10: error[out-of-range]: horizon: "));
  CHECK(!fs::exists(dir.file("out-max")));
  CHECK(run_gcsim("validate " + at_max).code == 2);

  const std::string below = write(dir, "below.yaml", "name: hbelow\nhorizon: 9223372036854775806ns" + tail);
  const auto ran = run_gcsim("run " + below + " --no-plots -q -o " + dir.file("out-below"));
  INFO(ran.output);
  CHECK(ran.code == 0);
  CHECK(fs::exists(dir.file("out-below/hbelow.h5")));
}

TEST_CASE("a round past the time range is never: las and finish-time-fair with interval 200y", "[scenario][cli][limits]") {
  gcsim::test::TempDir dir("cli-round-200y");
  // A job of 250 years holds the GPU past the first tick at 200 years; the others wait, so
  // the policy asks for the tick at 400 years, past the range. Before: exit 1, "asked to
  // be woken at -5832344073.709552 s".
  for (const std::string policy : {"las", "finish-time-fair"}) {
    const std::string file = write(
        dir, policy + ".yaml",
        "name: r\nhorizon: 290y\ncluster:\n  node_types:\n"
        "    - {name: p, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n"
        "scheduler: {policy: " +
            policy +
            ", interval: 200y}\nworkload:\n  jobs:\n"
            "    - {name: a, gpus: 1, duration: 250y}\n    - {name: b, gpus: 1, duration: 250y, submit: 1h}\n"
            "    - {name: c, gpus: 1, duration: 1h, submit: 201y}\n");
    const auto r = run_gcsim("run " + file + " --no-plots -q -o " + dir.file("out-" + policy));
    INFO(policy << ": " << r.output);
    CHECK(r.code == 0);
    CHECK(!has(r.output, "internal error"));
  }
}

TEST_CASE("policy rounds and their preemptions are in the event estimate", "[scenario][cli][limits]") {
  gcsim::test::TempDir dir("cli-round-estimate");
  // 30 days of 1 s rounds: 2.6 million ticks. Before: "8 events".
  const std::string file = write(dir, "swap.yaml", swapping("30d", "1s"));
  const auto v = run_gcsim("validate " + file);
  INFO(v.output);
  REQUIRE(v.code == 0);
  CHECK(has(v.output, "needs about 2 jobs, 1 nodes, 1 GPUs, 0 links, 0 routes, 5.53e+06 events"));
  const auto refused = run_gcsim("validate " + file + " --max-events 1e6");
  INFO(refused.output);
  CHECK(refused.code == 2);
  CHECK(has(refused.output, "swap.yaml:6:49: error[infeasible]: scheduler.interval: "));
  CHECK(has(refused.output, "is the policy rounds and the preemptions they make of scheduler.interval"));
  // The round's floor: a second (interval: 1ns never ended).
  const auto floor = run_gcsim("validate " + write(dir, "ns.yaml", swapping("30d", "1ns")));
  CHECK(floor.code == 2);
  CHECK(has(floor.output, "error[out-of-range]: scheduler.interval: '1ns' is out of range: must be at least"));
}

TEST_CASE("a run that passes --max-events stops with exit 2 and writes no trace", "[scenario][cli][limits]") {
  gcsim::test::TempDir dir("cli-max-events-run");
  // The work job's run time is not written: the estimate gives it its share of the
  // cluster's GPU time over the horizon (an hour and a bit, among 500 jobs), and counts its
  // checkpoints every second over that; it runs for days, writing one every second.
  const std::string file = write(
      dir, "ckpt.yaml",
      "name: ckpt\nhorizon: 10d\ncluster:\n  node_types:\n"
      "    - {name: p, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32.77}}\n"
      "workload:\n  jobs:\n"
      "    - {name: big, gpus: 4, work: 2.1e20, precision: tf32, efficiency: 0.45,"
      " checkpoint: {every: 1s, write_time: 10ms}}\n"
      "  generators:\n    - {name: g, count: 500, arrival: {dist: exponential, mean: 20m}, gpus: 1,"
      " duration: {dist: lognormal, median: 10m, sigma: 1}}\n");
  const auto v = run_gcsim("validate " + file + " --max-events 100000");
  INFO(v.output);
  REQUIRE(v.code == 0);  // the estimate lets it through
  const std::string out = dir.file("out");
  const auto r = run_gcsim("run " + file + " --max-events 100000 --no-plots -o " + out);
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(has(r.output, "gcsim: scenario 'ckpt': the run was stopped at simulated time "));
  CHECK(has(r.output, "after 100000 events, the limit (--max-events)"));
  CHECK(!has(r.output, "internal error"));
  // No trace, and no temporary file left behind in the folder made for it.
  CHECK((!fs::exists(out) || fs::is_empty(out)));
}
