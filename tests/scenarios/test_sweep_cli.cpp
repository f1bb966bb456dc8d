// `gcsim sweep` (docs/sweeps.md): the points' figures computed by hand, the per-point
// statistics against the runs table, results identical whatever -j, and bad sweeps
// refused at the sweep file's line and column before anything runs or is written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/scenario_support.hpp"
#include "sim/trace/trace_reader.hpp"

using namespace gcsim;
using test::run_gcsim;

namespace {

using gcsim::test::has;

// Two 8-GPU jobs of 6 h at 0 h (test::two_jobs_yaml); tests add generated one-GPU jobs
// whose draws differ between replications, for intervals that are not zero.
const std::string BASE = test::two_jobs_yaml("base", "10d");

// BASE with `count` one-GPU jobs drawn from a generator (hourly arrivals, lognormal 2 h).
std::string base_with_generator(int count) {
  return BASE + "  generators:\n    - name: g\n      count: " + std::to_string(count) +
         "\n      arrival: {dist: exponential, mean: 1h}\n      gpus: 1\n"
         "      duration: {dist: lognormal, median: 2h, sigma: 1}\n";
}

}  // namespace

TEST_CASE("a sweep's points give the figures computed by hand, in one table", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_cli");
  test::write_file(dir.file("base.yaml"), BASE);
  test::write_file(dir.file("s.yaml"), R"(base: base.yaml
vary:
  grid:
    cluster.node_types[0].count: [1, 2]
metrics: [jct_mean_s, total_cost_usd, jobs_completed]
)");
  const auto r = run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + dir.file("out"));
  REQUIRE(r.code == 0);
  // One node: a ends at 6 h, b at 12 h, a mean JCT of 9 h; the node is billed 12 h at $10.
  // Two nodes: both end at 6 h; two nodes for 6 h, the same $120.
  const std::string csv = test::read_bytes(dir.file("out/sweep.csv"));
  CHECK(has(csv, "point,cluster.node_types[0].count,jct_mean_s_mean,jct_mean_s_ci95,total_cost_usd_mean,"
                 "total_cost_usd_ci95,jobs_completed_mean,jobs_completed_ci95,runs_ok\n"));
  CHECK(has(csv, "\n0,1,32400,,120,,2,,1\n"));
  CHECK(has(csv, "\n1,2,21600,,120,,2,,1\n"));
  // No trace written.
  CHECK_FALSE(std::filesystem::exists(dir.file("out/traces")));
}

// The runs table has a `seed` column of its own: a sweep that varies the seed writes it
// there once (it is the point's seed), and /points has it as a varied key.
TEST_CASE("a sweep may vary the seed: the runs table's seed column is the varied one", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_seed");
  test::write_file(dir.file("base.yaml"), base_with_generator(20));
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nreplications: 2\nvary:\n  grid:\n    seed: [3, 8]\n"
                                       "metrics: [jct_mean_s]\n");
  const auto r = run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(has(test::read_bytes(dir.file("out/sweep.csv")), "point,seed,jct_mean_s_mean,jct_mean_s_ci95,runs_ok\n0,3,"));
  const auto h5 = trace::TraceReader::open(dir.file("out/sweep.h5"));
  const trace::Columns runs = h5->read_columns("runs", {"point", "seed", "jct_mean_s"});
  CHECK(runs.ints.at("point") == std::vector<std::int64_t>{0, 0, 1, 1});
  CHECK(runs.ints.at("seed") == std::vector<std::int64_t>{3, 3, 8, 8});
  const trace::Columns points = h5->read_columns("points", {"seed"});
  CHECK(points.str.at("seed") == std::vector<std::string>{"3", "8"});
  // Two seeds draw two workloads.
  const auto& jct = runs.f64.at("jct_mean_s");
  CHECK(jct[0] != jct[2]);
}

TEST_CASE("a point's mean, standard deviation and interval are those of its runs", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_ci");
  test::write_file(dir.file("base.yaml"), base_with_generator(40));
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nreplications: 4\nvary:\n  grid:\n    scheduler.policy: [fifo, sjf]\n"
                                       "metrics: [jct_mean_s]\n");
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q -j 2 -o " + dir.file("j2")).code == 0);
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q -j 1 -o " + dir.file("j1")).code == 0);
  // Identical results whatever the number of threads, byte for byte.
  CHECK(test::read_bytes(dir.file("j1/sweep.csv")) == test::read_bytes(dir.file("j2/sweep.csv")));
  CHECK(test::read_bytes(dir.file("j1/sweep.h5")) == test::read_bytes(dir.file("j2/sweep.h5")));

  const auto h5 = trace::TraceReader::open(dir.file("j2/sweep.h5"));
  const trace::Columns runs = h5->read_columns("runs", {"point", "replication", "jct_mean_s"});
  const trace::Columns points = h5->read_columns("points", {"jct_mean_s_mean", "jct_mean_s_sd", "jct_mean_s_ci95"});
  const auto& jct = runs.f64.at("jct_mean_s");
  REQUIRE(jct.size() == 8);
  CHECK(runs.ints.at("point") == std::vector<std::int64_t>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(runs.ints.at("replication") == std::vector<std::int64_t>{0, 1, 2, 3, 0, 1, 2, 3});
  for (std::size_t p = 0; p < 2; ++p) {
    double mean = 0, ss = 0;
    for (std::size_t r = 0; r < 4; ++r) mean += jct[p * 4 + r] / 4;
    for (std::size_t r = 0; r < 4; ++r) ss += (jct[p * 4 + r] - mean) * (jct[p * 4 + r] - mean);
    const double sd = std::sqrt(ss / 3);
    CHECK(points.f64.at("jct_mean_s_mean")[p] == Approx(mean).epsilon(1e-12));
    CHECK(points.f64.at("jct_mean_s_sd")[p] == Approx(sd).epsilon(1e-12));
    CHECK(sd > 0);  // the replications differ
    // t(0.975, 3 degrees of freedom) = 3.182 (NIST/SEMATECH table).
    CHECK(points.f64.at("jct_mean_s_ci95")[p] == Approx(3.182 * sd / 2).epsilon(1e-3));
  }
  // Replication r sees the same jobs at every point: the two policies' runs of one
  // replication differ, while each replication's arrivals are its own.
  CHECK(jct[0] != jct[1]);
}

TEST_CASE("a bad sweep is refused at the sweep file's position before anything is written", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_bad");
  test::write_file(dir.file("base.yaml"), BASE);
  // The second value of the grid is one the scenario refuses: line 4, column 38.
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nvary:\n  grid:\n    cluster.node_types[0].count: [1, -2]\n");
  auto r = run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + dir.file("out"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "s.yaml:4:38: error[out-of-range]: cluster.node_types[0].count"));
  CHECK_FALSE(std::filesystem::exists(dir.file("out")));

  test::write_file(dir.file("m.yaml"), "base: base.yaml\nvary:\n  grid: {seed: [1]}\nmetrics: [jct_maen_s]\n");
  r = run_gcsim("sweep " + dir.file("m.yaml") + " -q -o " + dir.file("out"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "m.yaml:4:11: error[unknown-name]"));
  CHECK(has(r.output, "did you mean 'jct_mean_s'?"));

  test::write_file(dir.file("k.yaml"), "base: base.yaml\nvary:\n  grid:\n    cluster.node_types[0].cont: [1]\n");
  r = run_gcsim("sweep " + dir.file("k.yaml") + " -q -o " + dir.file("out"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "k.yaml:4:34:"));
  CHECK(has(r.output, "unknown key 'cont'"));

  test::write_file(dir.file("b.yaml"), "base: nowhere.yaml\nvary:\n  grid: {seed: [1]}\n");
  r = run_gcsim("sweep " + dir.file("b.yaml") + " -q -o " + dir.file("out"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "b.yaml:1:7: error[file-not-found]"));
  CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("the bundled sweep runs: 10 points of 5 replications", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_bundled");
  const auto r = run_gcsim("sweep " GCSIM_SOURCE_DIR "/scenarios/sweeps/quickstart-nodes.yaml -q -o " + dir.file("out"));
  REQUIRE(r.code == 0);
  const std::string csv = test::read_bytes(dir.file("out/sweep.csv"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 11);
  CHECK(has(csv, "\n9,8,backfill,"));
  CHECK(has(csv, ",5\n"));  // runs_ok
  // A plot per metric against the one numeric key (the policy is a line of each), PNG and SVG.
  for (const char* metric : {"total_cost_usd", "jct_mean_s", "wait_p95_s", "gpu_utilization"})
    for (const char* ext : {".png", ".svg"}) {
      const std::string plot = dir.file(std::string("out/sweep_") + metric + "_vs_cluster_node_types_0__count" + ext);
      INFO(plot);
      CHECK(std::filesystem::file_size(plot) > 1000);
    }
  CHECK_FALSE(std::filesystem::exists(dir.file("out/sweep_total_cost_usd_vs_scheduler_policy.png")));
  CHECK(has(test::read_bytes(dir.file("out/sweep_jct_mean_s_vs_cluster_node_types_0__count.svg")), "scheduler.policy = backfill"));
  // --no-plots: none.
  REQUIRE(run_gcsim("sweep " GCSIM_SOURCE_DIR "/scenarios/sweeps/quickstart-nodes.yaml -q --no-plots -o " + dir.file("bare")).code == 0);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.file("bare"))) ++files;
  CHECK(files == 3);  // sweep.csv, sweep.h5, sweep.journal
}

// A run's figures come from its summary copy (folded ledger, preemptions and utilization,
// no detail column), never from its trace read back: they are those `gcsim analyze` gives
// of the trace the run kept, on a run with preemptions, idle and busy charges.
TEST_CASE("a sweep's figures are those gcsim analyze gives of each run's kept trace", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_figures");
  test::write_file(dir.file("base.yaml"), test::las_preemptions_yaml("figures", 60));
  test::write_file(dir.file("s.yaml"), R"(base: base.yaml
vary:
  grid:
    scheduler.policy: [las, fifo]
metrics: [total_cost_usd, jct_mean_s, wait_p95_s, gpu_utilization]
)");
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q --no-plots --keep-traces -o " + dir.file("out")).code == 0);
  std::istringstream csv(test::read_bytes(dir.file("out/sweep.csv")));
  std::string line;
  std::getline(csv, line);  // point,scheduler.policy,total_cost_usd_mean,total_cost_usd_ci95,jct_mean_s_mean,...
  int points = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
    REQUIRE(cells.size() == 11);
    INFO(line);
    const auto analyzed = run_gcsim("analyze --json " + dir.file("out/traces/p" + cells[0] + "-r0.h5"));
    REQUIRE(analyzed.code == 0);
    const auto json_number = [&](const std::string& key) {
      std::smatch m;
      REQUIRE(std::regex_search(analyzed.output, m, std::regex("\"" + key + "\": ([-0-9.eE+]+)")));
      return std::stod(m[1]);
    };
    // One replication: a point's mean is its run's figure.
    CHECK(std::stod(cells[2]) == json_number("total_cost_usd"));
    CHECK(std::stod(cells[4]) == json_number("mean_jct_s"));
    CHECK(std::stod(cells[6]) == json_number("p95_wait_s"));
    CHECK(std::stod(cells[8]) == json_number("gpu_utilization"));
    if (cells[1] == "las") CHECK(json_number("preemptions") > 0);
    ++points;
  }
  CHECK(points == 2);
}

TEST_CASE("a sweep killed with kill -9 resumes with only the missing runs, and the same results byte for byte",
          "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_resume");
  // 80 runs of about 25 ms each on this machine: the kill lands mid-sweep. Under the
  // sanitizers (a Debug build, tens of times slower: 87 s for this test) a third of the
  // jobs each, still far longer than the 5 ms between looks at the journal.
#ifdef GCSIM_SANITIZE
  const std::string jobs = "1000";
#else
  const std::string jobs = "3000";
#endif
  test::write_file(dir.file("base.yaml"), R"(name: base
horizon: 60d
run_until: done
cluster:
  node_types:
    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 4,
       price: {on_demand_per_hour: 10}}
workload:
  generators:
    - name: g
      count: )" + jobs + R"(
      arrival: {dist: exponential, mean: 10m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 1h, sigma: 1}
)");
  const std::string sweep = "base: base.yaml\nreplications: 10\nvary:\n  grid:\n"
                            "    cluster.node_types[0].count: [2, 3, 4, 5, 6, 7, 8, 9]\nmetrics: [jct_mean_s, total_cost_usd]\n";
  test::write_file(dir.file("s.yaml"), sweep);
  const std::string gcsim = std::string(GCSIM_BINARY_DIR) + "/cli/gcsim";
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -j 1 -q -o " + dir.file("full")).code == 0);

  // Killed once 10 runs are journaled (the header and 10 lines).
  const std::string killed = dir.file("killed");
  const auto kill = test::run_command(
      gcsim + " sweep " + dir.file("s.yaml") + " -j 1 -q -o " + killed + " & pid=$!; n=0; "
      "while [ \"$( [ -f " + killed + "/sweep.journal ] && wc -l < " + killed + "/sweep.journal || echo 0)\" -lt 11 ] "
      "&& [ $n -lt 6000 ]; do sleep 0.005; n=$((n+1)); done; kill -9 $pid; wait $pid; echo \"status $?\"");
  CHECK(has(kill.output, "status 137"));  // killed by SIGKILL, not ended by itself
  CHECK_FALSE(std::filesystem::exists(killed + "/sweep.csv"));

  const auto resumed = run_gcsim("sweep " + dir.file("s.yaml") + " -j 2 -o " + killed);
  REQUIRE(resumed.code == 0);
  CHECK(has(resumed.output, "gcsim sweep: resuming: "));
  CHECK_FALSE(has(resumed.output, "resuming: 80 of 80"));
  CHECK(test::read_bytes(killed + "/sweep.csv") == test::read_bytes(dir.file("full/sweep.csv")));
  CHECK(test::read_bytes(killed + "/sweep.h5") == test::read_bytes(dir.file("full/sweep.h5")));

  // A changed sweep file is another sweep: refused for the journal, unless --restart.
  test::write_file(dir.file("s.yaml"), "# edited\n" + sweep);
  const auto refused = run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + killed);
  CHECK(refused.code == 2);
  CHECK(has(refused.output, "is the journal of another sweep"));
  CHECK(run_gcsim("sweep " + dir.file("s.yaml") + " -q --restart -o " + killed).code == 0);
  CHECK(test::read_bytes(killed + "/sweep.csv") == test::read_bytes(dir.file("full/sweep.csv")));
  // A changed base scenario too.
  test::write_file(dir.file("base.yaml"), test::read_bytes(dir.file("base.yaml")) + "# edited\n");
  CHECK(run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + killed).code == 2);
}

TEST_CASE("a sweep's shards, merged, give the tables of one sweep byte for byte", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_shards");
  std::string base = BASE;
  base += "  generators:\n    - {name: g, count: 30, arrival: {dist: exponential, mean: 1h}, gpus: 1,\n"
          "       duration: {dist: lognormal, median: 2h, sigma: 1}}\n";
  test::write_file(dir.file("base.yaml"), base);
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nreplications: 3\nvary:\n  grid:\n    scheduler.policy: [fifo, sjf]\n"
                                       "    cluster.node_types[0].count: [1, 2, 3]\n");
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q -o " + dir.file("one")).code == 0);
  for (const char* k : {"1", "2", "3"}) {
    const auto r = run_gcsim("sweep " + dir.file("s.yaml") + " --shard " + k + "/3 -o " + dir.file(std::string("shard") + k));
    REQUIRE(r.code == 0);
    CHECK(has(r.output, std::string("shard ") + k + "/3: 6 of its 6 runs done"));
    CHECK_FALSE(std::filesystem::exists(dir.file(std::string("shard") + k + "/sweep.csv")));  // a part, no tables
  }
  // Two shards are not the sweep: the first run missing is named.
  auto r = run_gcsim("sweep --merge " + dir.file("shard1") + " " + dir.file("shard3") + " -q -o " + dir.file("part"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "6 of 18 runs are in none of the folders (the first: point 0 replication 1)"));
  // All three, with no sweep file named: the journals name it.
  r = run_gcsim("sweep --merge " + dir.file("shard1") + " " + dir.file("shard2") + " " + dir.file("shard3") + " -q -o " +
                dir.file("merged"));
  REQUIRE(r.code == 0);
  CHECK(test::read_bytes(dir.file("merged/sweep.csv")) == test::read_bytes(dir.file("one/sweep.csv")));
  CHECK(test::read_bytes(dir.file("merged/sweep.h5")) == test::read_bytes(dir.file("one/sweep.h5")));
  CHECK(run_gcsim("sweep " + dir.file("s.yaml") + " --shard 4/3 -o " + dir.file("bad")).code == 2);
  CHECK(run_gcsim("sweep " + dir.file("s.yaml") + " --shard 0/3 -o " + dir.file("bad")).code == 2);
}

TEST_CASE("gcsim analyze of a sweep's results prints its table and main effects, as the sweep did", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_analyze");
  test::write_file(dir.file("base.yaml"), BASE);
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nvary:\n  grid:\n    cluster.node_types[0].count: [1, 2]\n"
                                       "metrics: [jct_mean_s]\n");
  const auto swept = run_gcsim("sweep " + dir.file("s.yaml") + " -o " + dir.file("out"));
  REQUIRE(swept.code == 0);
  const auto analyzed = run_gcsim("analyze " + dir.file("out/sweep.h5"));
  REQUIRE(analyzed.code == 0);
  // 9 h and 6 h mean JCTs: the node count moves it by 3 h.
  CHECK(has(analyzed.output, "cluster.node_types[0].count moves it by 3h 0m (1: 9h 0m, 2: 6h 0m)"));
  const auto table_start = analyzed.output.find("point");
  REQUIRE(table_start != std::string::npos);
  CHECK(has(swept.output, analyzed.output));
  const auto json = run_gcsim("analyze " + dir.file("out/sweep.h5") + " --json");
  REQUIRE(json.code == 0);
  CHECK(has(json.output, "\"range\": 10800"));
}

namespace {

// CSV rows as cells (no quoted cells in these tables).
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream cols(line);
    for (std::string cell; std::getline(cols, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("adaptive replications stop where the interval is narrow enough, or flag the point at max", "[scenario][cli][sweep]") {
  test::TempDir dir("sweep_adaptive");
  std::string base = BASE;
  base += "  generators:\n    - {name: g, count: 200, arrival: {dist: exponential, mean: 20m}, gpus: {choice: [1, 2, 4, 8]},\n"
          "       duration: {dist: lognormal, median: 1h, sigma: 1}}\n";
  test::write_file(dir.file("base.yaml"), base);
  test::write_file(dir.file("s.yaml"), "base: base.yaml\n"
                                       "replications: {min: 3, max: 24, until: {metric: jct_mean_s, ci95_relative: 0.05}}\n"
                                       "vary:\n  grid:\n    cluster.node_types[0].count: [1, 2, 4]\nmetrics: [jct_mean_s]\n");
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q -j 2 -o " + dir.file("j2")).code == 0);
  REQUIRE(run_gcsim("sweep " + dir.file("s.yaml") + " -q -j 1 -o " + dir.file("j1")).code == 0);
  const std::string csv = test::read_bytes(dir.file("j2/sweep.csv"));
  CHECK(csv == test::read_bytes(dir.file("j1/sweep.csv")));
  CHECK(test::read_bytes(dir.file("j2/sweep.h5")) == test::read_bytes(dir.file("j1/sweep.h5")));
  const auto rows = csv_rows(csv);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] == std::vector<std::string>{"point", "cluster.node_types[0].count", "jct_mean_s_mean", "jct_mean_s_ci95",
                                            "runs_ok", "replications", "converged"});
  std::size_t more_than_min = 0;
  for (std::size_t p = 1; p < rows.size(); ++p) {
    const double mean = std::stod(rows[p][2]), ci = std::stod(rows[p][3]);
    const int n = std::stoi(rows[p][5]);
    INFO("point " << p - 1 << ": mean " << mean << ", ci95 " << ci << ", n " << n);
    CHECK(n >= 3);
    CHECK(n <= 24);
    if (rows[p][6] == "1") CHECK(ci <= 0.05 * mean);          // converged: the rule holds
    else CHECK((n == 24 && ci > 0.05 * mean));                // else it reached max
    more_than_min += n > 3 ? 1 : 0;
  }
  CHECK(more_than_min > 0);  // the rule made some point run more than its minimum

  // A figure with no variance (the bill of a fixed fleet over the horizon) meets any rule
  // at the minimum.
  test::write_file(dir.file("flat.yaml"), "base: base.yaml\n"
                                          "replications: {min: 3, max: 24, until: {metric: total_cost_usd, ci95_relative: 0.0001}}\n"
                                          "vary:\n  grid:\n    run_until: [horizon]\nmetrics: [total_cost_usd]\n");
  REQUIRE(run_gcsim("sweep " + dir.file("flat.yaml") + " -q -o " + dir.file("flat")).code == 0);
  const auto flat = csv_rows(test::read_bytes(dir.file("flat/sweep.csv")));
  REQUIRE(flat.size() == 2);
  CHECK(flat[1][1] == "horizon");
  CHECK(flat[1][2] == "2400");  // 10 days of one node at $10/h
  CHECK(flat[1][5] == "3");
  CHECK(flat[1][6] == "1");

  // An unknown metric in the rule, and shards of an adaptive sweep, are refused.
  test::write_file(dir.file("bad.yaml"), "base: base.yaml\nreplications: {min: 3, max: 24, until: {metric: jct, ci95_relative: 0.05}}\n"
                                         "vary:\n  grid: {seed: [1]}\n");
  const auto bad = run_gcsim("sweep " + dir.file("bad.yaml") + " -q -o " + dir.file("bad"));
  CHECK(bad.code == 2);
  CHECK(has(bad.output, "bad.yaml:2:"));
  CHECK(run_gcsim("sweep " + dir.file("s.yaml") + " --shard 1/2 -q -o " + dir.file("shard")).code == 2);
}
