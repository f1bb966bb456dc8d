// `gcsim plan` (docs/plan.md) on a tiny catalog worked by hand: eight 1-GPU jobs of 1 h;
// spot rates from the Spot Advisor bands, budgets, reserved terms, the plot, the scores.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
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

// The number after `"key": ` in the JSON entry of (instance, market, nodes) in `json` (the
// first such entry: the candidates list), NaN for null; fails the test when not there.
double entry_number(const std::string& json, const std::string& instance, const std::string& market, int nodes,
                    const std::string& key) {
  const std::string head = "\"instance\": \"" + instance + "\",\n      \"market\": \"" + market +
                           "\",\n      \"nodes\": " + std::to_string(nodes) + ",";
  const std::size_t at = json.find(head);
  INFO(head);
  REQUIRE(at != std::string::npos);
  const std::size_t end = json.find("\"instance\"", at + head.size());
  const std::size_t k = json.find("\"" + key + "\": ", at);
  INFO(key);
  REQUIRE(k < end);
  const char* p = json.c_str() + k + key.size() + 4;
  if (std::string(p, 4) == "null") return NAN;
  return std::strtod(p, nullptr);
}

// lambda = -ln(1 - p) / 730 h (docs/plan.md, "Spot interruption rates").
double monthly_rate(double p) { return -std::log(1 - p) / 730; }

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

  // Spot too, never interrupted (--spot-rate 0/h): 1-GPU x2 at $0.40: 4 h, $3.20, the
  // cheapest within 5 h; within 2 h, 8-GPU x1 spot, $4.
  const auto five = test::run_gcsim(args + " --spot-rate 0/h --deadline 5h");
  REQUIRE(five.code == 0);
  CHECK(has(five.output, "cheapest within 5h 0m: lambda/plan_1x spot x2, $3.20 in 4h 0m"));
  const auto two = test::run_gcsim(args + " --spot-rate 0/h --deadline 2h");
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

namespace {

// One 8-GPU job of 1 h over a 10 h horizon, on the bundled catalog plus `catalog_rows` (an
// instance CSV with CATALOG's header) when given.
std::string one_job(const test::TempDir& dir, const std::string& catalog_rows = "") {
  std::string s = "name: one\nhorizon: 10h\n";
  if (!catalog_rows.empty()) {
    test::write_file(dir.file("extra.csv"), std::string(CATALOG).substr(0, std::string(CATALOG).find('\n') + 1) + catalog_rows);
    s += "catalogs: {instances: extra.csv}\n";
  }
  s += "cluster:\n  node_types:\n    - {name: a, instance: aws/p4d.24xlarge, count: 1}\n"
       "workload:\n  jobs:\n    - {name: j, submit: 0h, gpus: 8, duration: 1h}\n";
  test::write_file(dir.file("one.yaml"), s);
  return dir.file("one.yaml");
}

}  // namespace

TEST_CASE("gcsim plan: spot rates from the AWS Spot Advisor band of the instance's region, else the median band, "
          "else the default, and --spot-rate overriding all",
          "[scenario][cli][plan]") {
  test::TempDir dir("plan_rates");
  // A p4d.24xlarge row in a region the Advisor does not list: the median band over p4d's ten
  // regions (0,0,0,0,0,1,2,4,4,4 sorted: the upper median, index 5, is band 1 "5-10%").
  const std::string file =
      one_job(dir, "aws,p4d.24xlarge,A100-40GB-SXM,8,96,1152GiB,,400Gbps,zz-test-1,,20.00,5.00,,,standard,0,2026-01-01,a test row\n");
  const std::string args = "plan " + file +
                           " --instances aws/p4d.24xlarge,aws/p4d.24xlarge@zz-test-1,vast/host-8x-h100-sxm --markets spot "
                           "--nodes 1 --replications 1";
  const auto r = test::run_gcsim(args + " --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  // aws/p4d.24xlarge has its spot prices on zone rows: us-east-1 (use1-az1) is in band 2
  // "10-15%", upper edge 15% a month; us-west-2 (usw2-az1) in band 4 ">20%", taken as 25%.
  CHECK(entry_number(r.output, "aws/p4d.24xlarge@use1-az1", "spot", 1, "spot_rate_per_h") ==
        Approx(monthly_rate(0.15)).epsilon(1e-12));
  CHECK(monthly_rate(0.15) == Approx(2.2262867e-4).epsilon(1e-7));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge@usw2-az1", "spot", 1, "spot_rate_per_h") ==
        Approx(monthly_rate(0.25)).epsilon(1e-12));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge@zz-test-1", "spot", 1, "spot_rate_per_h") ==
        Approx(monthly_rate(0.10)).epsilon(1e-12));
  CHECK(entry_number(r.output, "vast/host-8x-h100-sxm", "spot", 1, "spot_rate_per_h") == Approx(0.05).epsilon(1e-12));
  CHECK(has(r.output, "\"spot_rate_source\": \"AWS Spot Advisor us-east-1 band 10-15% (upper edge 15% a month)\""));
  CHECK(has(r.output, "\"spot_rate_source\": \"AWS Spot Advisor us-west-2 band >20% (upper edge 25% a month)\""));
  CHECK(has(r.output, "\"spot_rate_source\": \"AWS Spot Advisor median of 10 regions band 5-10% (upper edge 10% a month)\""));
  CHECK(has(r.output, "\"spot_rate_source\": \"assumed (--spot-rate default): no sourced interruption rate for vast\""));
  // The human table says the same.
  const auto human = test::run_gcsim(args);
  CHECK(has(human.output, "spot interruption rates (per node, Poisson):"));
  CHECK(has(human.output, "0.000223/h (one in 187d 3h 47m per node)  AWS Spot Advisor us-east-1 band 10-15%"));
  // --spot-rate given: every spot candidate, said so.
  const auto given = test::run_gcsim(args + " --spot-rate 0.2/h --json");
  REQUIRE(given.code == 0);
  CHECK(entry_number(given.output, "aws/p4d.24xlarge@use1-az1", "spot", 1, "spot_rate_per_h") == Approx(0.2));
  CHECK(entry_number(given.output, "vast/host-8x-h100-sxm", "spot", 1, "spot_rate_per_h") == Approx(0.2));
  CHECK_FALSE(has(given.output, "AWS Spot Advisor"));
  CHECK(has(given.output, "\"spot_rate_source\": \"--spot-rate\""));
  CHECK(test::run_gcsim(args + " --spot-rate 61/h").code == 2);
  CHECK(test::run_gcsim(args + " --spot-rate 0.1").code == 2);
  CHECK(test::run_gcsim(args + " --deadline 5").code == 2);
  CHECK(test::run_gcsim(args + " --budget lots").code == 2);
}

TEST_CASE("gcsim plan: reserved candidates billed as pricing bills them, and --budget leaving out the dearer ones",
          "[scenario][cli][plan]") {
  test::TempDir dir("plan_reserved");
  const std::string args =
      "plan " + one_job(dir) + " --instances aws/p4d.24xlarge --markets on-demand,reserved --nodes 1,2";
  const auto r = test::run_gcsim(args + " --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  // On demand, run until done: 1 h at $21.957642 per node (2026-01-21). Reserved (1 year,
  // no upfront, $13.921/h, scenarios/catalog/reserved_terms.csv): every hour of the 10 h
  // horizon, used or not (docs/pricing.md): $139.21 per node.
  CHECK(entry_number(r.output, "aws/p4d.24xlarge", "on-demand", 1, "cost_usd") == Approx(21.957642).epsilon(1e-9));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge", "on-demand", 2, "cost_usd") == Approx(2 * 21.957642).epsilon(1e-9));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge", "reserved", 1, "cost_usd") == Approx(139.21).epsilon(1e-9));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge", "reserved", 2, "cost_usd") == Approx(278.42).epsilon(1e-9));
  CHECK(entry_number(r.output, "aws/p4d.24xlarge", "reserved", 1, "time_s") == 3600);
  // A budget of $100: both reserved candidates out, counted; on demand x1 is the frontier.
  const auto b = test::run_gcsim(args + " --budget 100");
  CHECK(has(b.output, "2 candidates cost more than the budget of $100.00"));
  CHECK_FALSE(has(b.output, "reserved "));
  CHECK(has(b.output, "* aws/p4d.24xlarge                             on-demand     1"));
  const auto bj = test::run_gcsim(args + " --budget 30 --json");
  CHECK_FALSE(has(bj.output, "\"nodes\": 2"));
  // Spot is judged by its dearest replication; never interrupted, that is its only cost:
  // 1 h at the zone's spot price, $6.7915 in use1-az1, $10.507 in usw2-az1.
  const std::string spot = "plan " + one_job(dir) + " --instances aws/p4d.24xlarge --markets spot --nodes 1 --spot-rate 0/h";
  CHECK(has(test::run_gcsim(spot + " --budget 6.79").output, "2 candidates cost more than the budget of $6.79"));
  const auto within = test::run_gcsim(spot + " --budget 6.80");
  CHECK(has(within.output, "1 candidates cost more than the budget of $6.80"));
  CHECK(has(within.output, "* aws/p4d.24xlarge@use1-az1                    spot          1  1h 0m"));
  // No reserved terms for p4de: no candidate.
  const auto none = test::run_gcsim("plan " + one_job(dir) + " --instances aws/p4de.24xlarge --markets reserved");
  CHECK(none.code == 2);
  CHECK(has(none.output, "no candidate"));
  CHECK(test::run_gcsim(args + " --budget 0").code == 2);
}

TEST_CASE("gcsim plan -o: plan.csv with the frontier marked, the plot in PNG and SVG, and --no-plots", "[scenario][cli][plan]") {
  test::TempDir dir("plan_plot");
  test::write_file(dir.file("prices.csv"), CATALOG);
  test::write_file(dir.file("s.yaml"), scenario());
  const std::string args = "plan " + dir.file("s.yaml") + " --instances lambda/plan_1x,lambda/plan_8x --nodes 1,2 " +
                           "--markets on-demand --deadline 5h -o " + dir.file("out");
  const auto r = test::run_gcsim(args);
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::string csv = test::read_bytes(dir.file("out/plan.csv"));
  // The frontier worked by hand in the first test: 8-GPU x1 (1 h, $10), 1-GPU x2 (4 h, $8).
  CHECK(has(csv, "lambda/plan_8x,on-demand,1,3600,10,3600,3600,10,10,1,,\n"));
  CHECK(has(csv, "lambda/plan_1x,on-demand,2,14400,8,14400,14400,8,8,1,,\n"));
  CHECK(has(csv, "lambda/plan_8x,on-demand,2,3600,20,3600,3600,20,20,0,,\n"));
  CHECK(has(csv, "lambda/plan_1x,on-demand,1,28800,8,28800,28800,8,8,0,,\n"));
  namespace fs = std::filesystem;
  CHECK(fs::file_size(dir.file("out/plan.png")) > 1000);
  const std::string svg = test::read_bytes(dir.file("out/plan.svg"));
  CHECK(has(svg, "Pareto frontier"));
  CHECK(has(svg, "deadline"));
  CHECK(has(svg, "lambda/plan_1x on-demand x2"));  // a frontier point named
  // --no-plots: the table only.
  REQUIRE(test::run_gcsim(args + "2 --no-plots").code == 0);
  CHECK(fs::exists(dir.file("out2/plan.csv")));
  CHECK_FALSE(fs::exists(dir.file("out2/plan.png")));
  CHECK_FALSE(fs::exists(dir.file("out2/plan.svg")));
  CHECK(test::run_gcsim("plan " + dir.file("s.yaml") + " --no-plots").code == 2);
  // Costs from $8 to $2,000 (a third instance at $1,000/h: 2 nodes for 1 h) span more than
  // 100x: the cost axis turns logarithmic; the times, 1 h to 8 h, stay linear.
  test::write_file(dir.file("prices.csv"),
                   std::string(CATALOG) + "lambda,plan_dear,A100-40GB-SXM,8,240,1600GiB,,,us-test-1,,1000.00,,,,standard,0,"
                                          "2026-01-01,a test row\n");
  REQUIRE(test::run_gcsim("plan " + dir.file("s.yaml") + " --instances lambda/plan_1x,lambda/plan_8x,lambda/plan_dear "
                          "--nodes 1,2 --markets on-demand -o " + dir.file("wide")).code == 0);
  const std::string wide = test::read_bytes(dir.file("wide/plan.svg"));
  CHECK(has(wide, "cost (USD, log scale)"));
  CHECK(has(wide, "time to finish (hours)"));
  CHECK_FALSE(has(svg, "log scale"));
}

TEST_CASE("gcsim plan --scores: the measured scores by hand, the attributes with their sources", "[scenario][cli][plan]") {
  test::TempDir dir("plan_scores");
  test::write_file(dir.file("prices.csv"), CATALOG);
  test::write_file(dir.file("s.yaml"), scenario());
  const std::string args = "plan " + dir.file("s.yaml") + " --instances lambda/plan_1x,lambda/plan_8x --nodes 1,2 --scores";
  const auto r = test::run_gcsim(args + " --markets on-demand --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  // Hardware: the fastest time (1 h) over the candidate's: 1-GPU x1 8 h -> 0.125, x2 -> 0.25.
  CHECK(entry_number(r.output, "lambda/plan_1x", "on-demand", 1, "relative_speed") == Approx(0.125));
  CHECK(entry_number(r.output, "lambda/plan_1x", "on-demand", 2, "relative_speed") == Approx(0.25));
  CHECK(entry_number(r.output, "lambda/plan_8x", "on-demand", 2, "relative_speed") == Approx(1));
  // Scaling from the fewest nodes: 1-GPU 8 h x1 against 4 h x2: 8 / (2 x 4) = 100%; 8-GPU
  // 1 h x1 against 1 h x2: 50% (the second node idles).
  CHECK(entry_number(r.output, "lambda/plan_1x", "on-demand", 2, "scaling_efficiency") == Approx(1));
  CHECK(entry_number(r.output, "lambda/plan_8x", "on-demand", 2, "scaling_efficiency") == Approx(0.5));
  CHECK(std::isnan(entry_number(r.output, "lambda/plan_8x", "on-demand", 1, "scaling_efficiency")));
  // No model-described job: no communication share; no network figure in the test rows.
  CHECK(std::isnan(entry_number(r.output, "lambda/plan_8x", "on-demand", 1, "communication_share")));
  CHECK(std::isnan(entry_number(r.output, "lambda/plan_8x", "on-demand", 1, "network_bytes_per_s")));
  CHECK(has(r.output, "\"dl_images\": {\n          \"value\": \"Lambda Stack (PyTorch and CUDA preinstalled)\",\n"
                      "          \"source\": \"https://lambda.ai/lambda-stack-deep-learning-software\""));
  CHECK(has(r.output, "\"vm_sla\": {\n          \"value\": \"unknown\""));
  // Spot at the default 0.05/h: the time lost to interruptions is the spot mean's excess
  // over the same fleet on demand.
  const auto s = test::run_gcsim(args + " --json");
  REQUIRE(s.code == 0);
  const double spot_t = entry_number(s.output, "lambda/plan_1x", "spot", 1, "time_s");
  CHECK(entry_number(s.output, "lambda/plan_1x", "spot", 1, "interruption_delay_s") == Approx(spot_t - 28800));
  CHECK(entry_number(s.output, "lambda/plan_1x", "spot", 1, "interruptions_mean") >= 0);
  CHECK(std::isnan(entry_number(s.output, "lambda/plan_1x", "on-demand", 1, "interruption_delay_s")));
  const auto human = test::run_gcsim(args);
  CHECK(has(human.output, "measured by the simulation"));
  CHECK(has(human.output, "data security      certifications  unknown"));
  CHECK(has(human.output, "software ecosystem dl_images       Lambda Stack (PyTorch and CUDA preinstalled)"));
}
