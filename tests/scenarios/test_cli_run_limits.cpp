// Limits that hold during a run, through the command line (issues 27 and 28): a round past
// the time range is never, not an instant before the run began; a horizon at the largest
// time is refused at its key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/scenario_support.hpp"

namespace fs = std::filesystem;

using gcsim::test::run_gcsim;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string write(const gcsim::test::TempDir& dir, const std::string& name, const std::string& yaml) {
  const std::string path = dir.file(name);
  std::ofstream(path) << yaml;
  return path;
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
