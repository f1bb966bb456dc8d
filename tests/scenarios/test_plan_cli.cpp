// `gcsim plan` (docs/plan.md) on a tiny catalog worked by hand: eight 1-GPU jobs of 1 h.
#include <catch2/catch.hpp>

#include <string>

#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::has;

namespace {

// A 1-GPU instance at $1/h (spot $0.40) and an 8-GPU one at $10/h (spot $4).
const char* CATALOG =
    "provider,instance_type,gpu,gpus,vcpus,memory,local_storage,network,region,zone,on_demand_per_hour,spot_per_hour,"
    "billing,spot_notice,market_kind,price_assumed,snapshot,source\n"
    "lambda,plan_1x,A100-40GB-SXM,1,30,200GiB,,,us-test-1,,1.00,0.40,,,standard,0,2026-01-01,a test row\n"
    "lambda,plan_8x,A100-40GB-SXM,8,240,1600GiB,,,us-test-1,,10.00,4.00,,,standard,0,2026-01-01,a test row\n";

std::string scenario() {
  std::string s = "name: eight\nhorizon: 2d\ncatalogs: {instances: prices.csv}\ncluster:\n  node_types:\n"
                  "    - {name: a, instance: lambda/plan_1x, count: 1}\nworkload:\n  jobs:\n";
  for (int i = 0; i < 8; ++i) s += "    - {name: j" + std::to_string(i) + ", submit: 0h, gpus: 1, duration: 1h}\n";
  return s;
}

}  // namespace

TEST_CASE("gcsim plan: every candidate's time and cost by hand, the frontier, the cheapest within a deadline",
          "[scenario][cli][plan]") {
  test::TempDir dir("plan");
  test::write_file(dir.file("prices.csv"), CATALOG);
  test::write_file(dir.file("s.yaml"), scenario());
  const std::string args = "plan " + dir.file("s.yaml") + " --instances lambda/plan_1x,lambda/plan_8x --nodes 1,2";
  // On demand: 1 x 1-GPU: 8 h, $8; 2 x 1-GPU: 4 h, 2 x 4 h x $1 = $8; 1 x 8-GPU: 1 h, $10;
  // 2 x 8-GPU: 1 h, 2 x $10 = $20. The frontier, by time: 8-GPU x1 (1 h, $10), then
  // 1-GPU x2 (4 h, $8); 1-GPU x1 costs no less and takes longer, 8-GPU x2 costs more.
  const auto json = test::run_gcsim(args + " --markets on-demand --json");
  REQUIRE(json.code == 0);
  const std::string front = json.output.substr(json.output.find("\"frontier\""));
  CHECK(has(json.output, "\"instance\": \"lambda/plan_1x\",\n      \"market\": \"on-demand\",\n      \"nodes\": 1,\n"
                         "      \"time_s\": 28800,\n      \"cost_usd\": 8\n"));
  CHECK(has(json.output, "\"nodes\": 2,\n      \"time_s\": 3600,\n      \"cost_usd\": 20\n"));
  CHECK(has(front, "\"instance\": \"lambda/plan_8x\",\n      \"market\": \"on-demand\",\n      \"nodes\": 1,\n"
                   "      \"time_s\": 3600,\n      \"cost_usd\": 10\n"));
  CHECK(has(front, "\"instance\": \"lambda/plan_1x\",\n      \"market\": \"on-demand\",\n      \"nodes\": 2,\n"
                   "      \"time_s\": 14400,\n      \"cost_usd\": 8\n"));
  CHECK_FALSE(has(front, "\"cost_usd\": 20"));
  CHECK_FALSE(has(front, "\"time_s\": 28800"));

  // Spot too (no interruption at this rate in these 3 replications of an hour or four):
  // 1-GPU x2 at $0.40: 4 h, $3.20, the cheapest within 5 h; within 2 h, 8-GPU x1 spot, $4.
  const auto five = test::run_gcsim(args + " --deadline 5h");
  REQUIRE(five.code == 0);
  CHECK(has(five.output, "cheapest within 5h 0m: lambda/plan_1x spot x2, $3.20 in 4h 0m"));
  const auto two = test::run_gcsim(args + " --deadline 2h");
  CHECK(has(two.output, "cheapest within 2h 0m: lambda/plan_8x spot x1, $4.00 in 1h 0m"));
  const auto none = test::run_gcsim(args + " --deadline 30m");
  CHECK(has(none.output, "no candidate finishes within 30m"));

  // A job of 8 GPUs cannot run on 1-GPU nodes: those candidates are excluded, not failed.
  std::string big = scenario();
  big += "    - {name: wide, submit: 0h, gpus: 8, duration: 1h}\n";
  test::write_file(dir.file("big.yaml"), big);
  const auto excluded = test::run_gcsim("plan " + dir.file("big.yaml") +
                                        " --instances lambda/plan_1x,lambda/plan_8x --nodes 1 --markets on-demand");
  REQUIRE(excluded.code == 0);
  CHECK(has(excluded.output, "1 candidates cannot run the workload"));
  CHECK(has(excluded.output, "lambda/plan_8x"));
  CHECK(test::run_gcsim(args + " --markets somewhere").code == 2);
}
