// Scenario parsing and every class of bad input: each must be refused with a ConfigError
// carrying the right code, key path and line, before anything runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::scenario_from_yaml;

namespace {

const char* BASE = R"(name: t
seed: 7
horizon: 10h
cluster:
  node_types:
    - name: p4d
      gpu: A100-40GB-SXM
      gpus: 8
      cpu_cores: 96
      memory: 1152GiB
      count: 2
      price: {on_demand_per_hour: 32.77}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 6h}
)";

// Replaces the first occurrence of `from` in BASE.
std::string with(const std::string& from, const std::string& to) {
  std::string s = BASE;
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  s.replace(pos, from.size(), to);
  return s;
}

ConfigError error_of(const std::string& yaml) {
  INFO("scenario:\n" << yaml);
  return test::config_error([&] { scenario_from_yaml(yaml); });
}

}  // namespace

TEST_CASE("the quickstart scenario parses to the values written", "[unit][scenario-loader]") {
  const auto s = models::load_scenario_file(GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml", test::load_options());
  CHECK(s.name == "quickstart");
  CHECK(s.seed == 42);
  CHECK(s.horizon == sim::hours(30 * 24));
  REQUIRE(s.cluster.node_types.size() == 1);
  const auto& t = s.cluster.node_types[0];
  CHECK(t.gpu.name == "A100-40GB-SXM");
  CHECK(t.gpus == 8);
  CHECK(t.count == 4);
  CHECK(t.memory_bytes == 1152.0 * 1024 * 1024 * 1024);
  CHECK(t.price.on_demand_usd_per_hour == Approx(32.77));
  REQUIRE(s.workload.jobs.size() == 2);
  CHECK(s.workload.jobs[0].duration == sim::hours(6));
  CHECK(s.workload.jobs[1].submit == sim::hours(1));
  CHECK(*s.workload.jobs[1].work_flop == 2.1e18);
  CHECK(s.workload.jobs[1].precision == models::Precision::Tf32);
  CHECK(s.workload.jobs[1].efficiency == Approx(0.45));
  REQUIRE(s.workload.generators.size() == 1);
  const auto& g = s.workload.generators[0];
  CHECK(g.count == 500);
  CHECK(g.arrival.kind == models::Distribution::Kind::Exponential);
  CHECK(g.arrival.p1 == Approx(1200));
  CHECK(g.gpus.kind == models::Distribution::Kind::Choice);
  CHECK(g.gpus.values == std::vector<double>{1, 2, 4, 8});
  CHECK(g.duration->kind == models::Distribution::Kind::Lognormal);
  CHECK(g.duration->p1 == Approx(3600));
  CHECK(g.duration->p2 == Approx(1.2));
  CHECK(s.output.trace == "quickstart.h5");
  CHECK(s.source_text.find("name: quickstart") != std::string::npos);
  CHECK(s.gpu_catalog_yaml.find("A100-40GB-SXM") != std::string::npos);
}

TEST_CASE("defaults for omitted optional keys", "[unit][scenario-loader]") {
  const auto s = scenario_from_yaml(BASE);
  CHECK(s.scheduler.policy == "fifo");
  CHECK(s.run_until == models::RunUntil::Horizon);  // the planning period (issue 11)
  CHECK(s.output.trace == "t.h5");
}

TEST_CASE("every distribution form parses", "[unit][scenario-loader]") {
  const auto s = scenario_from_yaml(std::string(BASE) + R"(  generators:
    - name: g
      count: 3
      start: 2h
      arrival: 30m
      gpus: {dist: uniform, min: 1, max: 8}
      work: {dist: normal, mean: 1e18, stddev: 1e17, min: 1e17}
      precision: bf16
      efficiency: {dist: constant, value: 40%}
)");
  const auto& g = s.workload.generators[0];
  CHECK(g.start == sim::hours(2));
  CHECK(g.arrival.kind == models::Distribution::Kind::Constant);
  CHECK(g.arrival.p1 == 1800);
  CHECK(g.gpus.kind == models::Distribution::Kind::Uniform);
  CHECK(g.work->kind == models::Distribution::Kind::Normal);
  CHECK(g.work->min == 1e17);
  CHECK(g.efficiency.p1 == Approx(0.4));
  CHECK(g.precision == models::Precision::Bf16);
}

TEST_CASE("bad scenarios are refused with code, key path and position", "[unit][scenario-loader]") {
  SECTION("unknown key with did-you-mean") {
    const auto e = error_of(with("gpus: 8\n      cpu", "gpuz: 8\n      cpu"));
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.key_path() == "cluster.node_types[0].gpuz");
    CHECK(e.mark().line == 8);
    CHECK(e.mark().column == 7);
    CHECK(std::string(e.what()).find("did you mean 'gpus'") != std::string::npos);
    CHECK(std::string(e.what()).find("test.yaml:8:7") == 0);
  }
  SECTION("unknown top-level key") {
    CHECK(error_of(std::string(BASE) + "horizn: 3h\n").code() == ErrorCode::UnknownKey);
  }
  SECTION("missing required key") {
    const auto e = error_of(with("      count: 2\n", ""));
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "cluster.node_types[0].count");
  }
  SECTION("wrong type: text for a count") {
    const auto e = error_of(with("count: 2", "count: two"));
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "cluster.node_types[0].count");
    CHECK(e.mark().line == 11);
  }
  SECTION("wrong type: a map where a list is expected") {
    // One job written as a map instead of a list of one.
    const auto e = error_of(with("  jobs:\n    - {name: a, submit: 0h, gpus: 8, duration: 6h}\n",
                                 "  jobs: {name: a, submit: 0h, gpus: 8, duration: 6h}\n"));
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "workload.jobs");
    CHECK(e.mark().line == 14);
    CHECK(e.mark().column == 9);
  }
  SECTION("zero and negative counts") {
    CHECK(error_of(with("count: 2", "count: 0")).code() == ErrorCode::OutOfRange);
    CHECK(error_of(with("gpus: 8\n      cpu", "gpus: -8\n      cpu")).code() == ErrorCode::OutOfRange);
    CHECK(error_of(with("gpus: 8, duration", "gpus: 0, duration")).code() == ErrorCode::OutOfRange);
  }
  SECTION("unknown GPU name suggests the closest") {
    const auto e = error_of(with("A100-40GB-SXM", "A100-40G-SXM"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "cluster.node_types[0].gpu");
    CHECK(std::string(e.what()).find("did you mean 'A100-40GB-SXM'") != std::string::npos);
  }
  SECTION("a GPU family name lists its parts") {
    const auto e = error_of(with("A100-40GB-SXM", "H100"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("did you mean one of: H100-SXM, H100-PCIe") != std::string::npos);
  }
  SECTION("malformed units and durations") {
    CHECK(error_of(with("horizon: 10h", "horizon: 10")).code() == ErrorCode::BadUnit);
    CHECK(error_of(with("horizon: 10h", "horizon: 10 parsecs")).code() == ErrorCode::BadUnit);
    CHECK(error_of(with("memory: 1152GiB", "memory: 1152Gibs")).code() == ErrorCode::BadUnit);
    CHECK(error_of(with("duration: 6h", "duration: 6")).code() == ErrorCode::BadUnit);
    CHECK(error_of(with("duration: 6h", "duration: 0h")).code() == ErrorCode::OutOfRange);
  }
  SECTION("YAML syntax error with its position") {
    const auto e = error_of(with("gpus: 8, duration: 6h}", "gpus: 8, duration: 6h"));
    CHECK(e.code() == ErrorCode::Syntax);
    CHECK(e.mark().line > 0);
  }
  SECTION("empty and comment-only files") {
    CHECK(error_of("").code() == ErrorCode::EmptyFile);
    CHECK(error_of("# nothing here\n\n").code() == ErrorCode::EmptyFile);
  }
  SECTION("a root that is not a map") {
    CHECK(error_of("- 1\n- 2\n").code() == ErrorCode::WrongType);
  }
  SECTION("a job that no node could ever hold") {
    const auto e = error_of(with("gpus: 8, duration", "gpus: 24, duration"));
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(e.key_path() == "workload.jobs[0].gpus");
    CHECK(std::string(e.what()).find("2 x p4d") != std::string::npos);
  }
  SECTION("a work job in a precision no GPU of the cluster has") {
    const auto e = error_of(with("duration: 6h", "work: 1e18, precision: fp8"));
    CHECK(e.code() == ErrorCode::Infeasible);
  }
  SECTION("a generator that can draw a job too big to hold") {
    const auto e = error_of(std::string(BASE) + R"(  generators:
    - {name: g, count: 2, arrival: 1h, gpus: {choice: [1, 32]}, duration: 1h}
)");
    CHECK(e.code() == ErrorCode::Infeasible);
  }
  SECTION("a generator gpus value beyond int's range is refused, not converted") {
    // max was rounded and converted to int unchecked: 1e300 has no int value (UB).
    auto gen = [](const char* gpus) {
      return std::string(BASE) + "  generators:\n    - {name: g, count: 2, arrival: 1h, gpus: " + gpus + ", duration: 1h}\n";
    };
    CHECK(error_of(gen("{dist: uniform, min: 1, max: 1e300}")).code() == ErrorCode::Infeasible);
    CHECK(error_of(gen("{choice: [1, 1e12]}")).code() == ErrorCode::OutOfRange);
  }
  SECTION("an unbounded gpus distribution") {
    const auto e = error_of(std::string(BASE) + R"(  generators:
    - {name: g, count: 2, arrival: 1h, gpus: {dist: exponential, mean: 2}, duration: 1h}
)");
    CHECK(e.code() == ErrorCode::Infeasible);
  }
  SECTION("duration and work together, or neither") {
    CHECK(error_of(with("duration: 6h", "duration: 6h, work: 1e18")).code() == ErrorCode::Conflict);
    CHECK(error_of(with(", duration: 6h", "")).code() == ErrorCode::MissingKey);
    CHECK(error_of(with("duration: 6h", "work: 1e18")).code() == ErrorCode::MissingKey);
    CHECK(error_of(with("duration: 6h", "duration: 6h, efficiency: 0.5")).code() == ErrorCode::Conflict);
  }
  SECTION("duplicate names") {
    CHECK(error_of(std::string(BASE) + "    - {name: a, gpus: 1, duration: 1h}\n").code() == ErrorCode::Duplicate);
  }
  SECTION("unknown policy and precision") {
    CHECK(error_of(std::string(BASE) + "scheduler: {policy: fifoo}\n").code() == ErrorCode::UnknownName);
    CHECK(error_of(with("duration: 6h", "work: 1e18, precision: fp9")).code() == ErrorCode::UnknownName);
  }
  SECTION("bad distributions") {
    auto gen = [](const std::string& arrival) {
      return std::string(BASE) + "  generators:\n    - {name: g, count: 2, arrival: " + arrival +
             ", gpus: 1, duration: 1h}\n";
    };
    CHECK(error_of(gen("{dist: poisson, mean: 1h}")).code() == ErrorCode::UnknownName);
    CHECK(error_of(gen("{dist: exponential}")).code() == ErrorCode::MissingKey);
    CHECK(error_of(gen("{dist: exponential, mean: 0h}")).code() == ErrorCode::OutOfRange);
    // A key of another dist is a conflict naming the chosen one; a key of no dist is unknown.
    const auto other = error_of(gen("{dist: exponential, mean: 1h, sigma: 2}"));
    CHECK(other.code() == ErrorCode::Conflict);
    CHECK_THAT(other.what(), Catch::Contains("'sigma' does not apply to `dist: exponential`, which takes dist, mean, min, max"));
    CHECK(other.key_path() == "workload.generators[0].arrival.sigma");
    CHECK(error_of(gen("{dist: constant, value: 1h, max: 2h}")).code() == ErrorCode::Conflict);
    CHECK(error_of(gen("{dist: uniform, min: 1h, max: 2h, mean: 90m}")).code() == ErrorCode::Conflict);
    CHECK(error_of(gen("{dist: normal, mean: 1h, stddev: 1m, median: 1h}")).code() == ErrorCode::Conflict);
    CHECK(error_of(gen("{dist: lognormal, median: 1h, sigma: 1, mean: 1h}")).code() == ErrorCode::Conflict);
    const auto with_dist = error_of(gen("{choice: [1h, 2h], dist: uniform}"));
    CHECK(with_dist.code() == ErrorCode::Conflict);
    CHECK_THAT(with_dist.what(), Catch::Contains("'dist' does not apply to `choice`"));
    // A missing parameter is still reported as missing, before a key of another dist.
    CHECK(error_of(gen("{dist: uniform, min: 1h, mean: 2h}")).code() == ErrorCode::MissingKey);
    CHECK(error_of(gen("{dist: uniform, min: 2h, max: 1h}")).code() == ErrorCode::OutOfRange);
    CHECK(error_of(gen("{choice: [1h, 2h], weights: [1]}")).code() == ErrorCode::Conflict);
    CHECK(error_of(gen("{choice: [1h, 2h], weights: [0, 0]}")).code() == ErrorCode::OutOfRange);
    CHECK(error_of(gen("{choice: []}")).code() == ErrorCode::WrongType);
    CHECK(error_of(gen("[1h]")).code() == ErrorCode::WrongType);
  }
  SECTION("a misspelt distribution key is unknown-key with a did-you-mean, at its line and column") {
    const std::string item = "    - {name: g, count: 2, arrival: {dist: exponential, meen: 1h}, gpus: 1, duration: 1h}\n";
    const std::string yaml = std::string(BASE) + "  generators:\n" + item;
    const auto e = error_of(yaml);
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'mean'?"));
    CHECK(e.key_path() == "workload.generators[0].arrival.meen");
    CHECK(e.mark().line == static_cast<int>(std::count(yaml.begin(), yaml.end(), '\n')));
    CHECK(e.mark().column == static_cast<int>(item.find("meen")) + 1);
  }
  SECTION("an efficiency outside (0, 1]") {
    CHECK(error_of(with("duration: 6h", "work: 1e18, precision: tf32, efficiency: 1.5")).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("names that would escape the output folder") {
    CHECK(error_of(with("name: t", "name: ../t")).code() == ErrorCode::OutOfRange);
    CHECK(error_of(std::string(BASE) + "output: {trace: /tmp/x.h5}\n").code() == ErrorCode::OutOfRange);
  }
}

TEST_CASE("a distribution that draws outside its field's values is refused, or kept inside when that is rare",
          "[unit][scenario-loader]") {
  auto gen = [](const std::string& fields) {
    return std::string(BASE) + "  generators:\n    - {name: g, count: 2, gpus: 1, " + fields + "}\n";
  };
  SECTION("a normal time between arrivals that goes negative") {
    // Phi(-10 s / 60 s) = 43%: such arrivals once stopped the run with an internal error.
    const auto e = error_of(gen("arrival: {dist: normal, mean: 10s, stddev: 60s}, duration: 1h"));
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.key_path() == "workload.generators[0].arrival");
    CHECK_THAT(e.what(), Catch::Contains("draws below 0 about 43% of the time") && Catch::Contains("`min: 0s`"));
    // With the bound it asks for, the same distribution is read, truncated at 0.
    const auto s = scenario_from_yaml(gen("arrival: {dist: normal, mean: 10s, stddev: 60s, min: 0s}, duration: 1h"));
    CHECK(s.workload.generators[0].arrival.min == 0);
  }
  SECTION("negative work, and an efficiency outside (0, 1]") {
    // Phi(-1e18 / 3e18) = Phi(-1/3) = 36.9%.
    const auto work = error_of(gen("arrival: 1h, work: {dist: normal, mean: 1e18, stddev: 3e18}, precision: bf16"));
    CHECK(work.key_path() == "workload.generators[0].work");
    CHECK_THAT(work.what(), Catch::Contains("below 0 about 37%") && Catch::Contains("`min: 0`"));
    // 1 - Phi(ln(1 / 0.5) / 2) = 1 - Phi(0.3466) = 36.4%: an efficiency above 1 is faster than the GPU.
    const auto high = error_of(gen("arrival: 1h, work: 1e18, precision: bf16, efficiency: {dist: lognormal, median: 0.5, sigma: 2}"));
    CHECK(high.code() == ErrorCode::OutOfRange);
    CHECK_THAT(high.what(), Catch::Contains("above 1 about 36%") && Catch::Contains("`max: 1`"));
    // exp(-1 / 0.4) = 8.2% above 1.
    CHECK_THAT(error_of(gen("arrival: 1h, work: 1e18, precision: bf16, efficiency: {dist: exponential, mean: 0.4}")).what(),
               Catch::Contains("above 1 about 8%"));
    // Phi(-0.5 / 0.5) = 15.9% at or below 0.
    CHECK_THAT(error_of(gen("arrival: 1h, work: 1e18, precision: bf16, efficiency: {dist: normal, mean: 0.5, stddev: 0.5}")).what(),
               Catch::Contains("below 0 about 16%") && Catch::Contains("`min: 1%`"));
  }
  SECTION("rarer than once in a million draws: truncated at the field's bound") {
    // Phi(-6) = 1e-9: the reference's own example of a normal duration.
    const auto s = scenario_from_yaml(gen("arrival: {dist: normal, mean: 1h, stddev: 10m}, duration: 1h"));
    CHECK(s.workload.generators[0].arrival.min == 0);
    // Phi(-4.8) = 7.9e-7 passes; Phi(-4.7) = 1.3e-6 does not.
    CHECK_NOTHROW(scenario_from_yaml(gen("arrival: {dist: normal, mean: 48m, stddev: 10m}, duration: 1h")));
    CHECK(error_of(gen("arrival: {dist: normal, mean: 47m, stddev: 10m}, duration: 1h")).code() == ErrorCode::OutOfRange);
    // exp(-1 / 0.05) = 2e-9 above 1: an exponential efficiency of mean 5% is kept below 1.
    const auto e = scenario_from_yaml(gen("arrival: 1h, work: 1e18, precision: bf16, efficiency: {dist: exponential, mean: 5%}"));
    CHECK(e.workload.generators[0].efficiency.max == 1);
  }
}

TEST_CASE("missing scenario file", "[unit][scenario-loader]") {
  try {
    models::load_scenario_file("/nonexistent/none.yaml", test::load_options());
    FAIL("accepted a missing file");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.mark().file == "/nonexistent/none.yaml");
  }
}

TEST_CASE("a user GPU catalog adds GPUs, relative to the scenario file", "[unit][scenario-loader]") {
  test::TempDir dir("user-catalog");
  std::ofstream(dir.file("mine.yaml")) << R"(gpus:
  - name: MyGPU
    arch: Custom
    form_factor: PCIe
    fp32: 10TFLOPS
    memory: 16GiB
    memory_bandwidth: 500GB/s
    pcie: gen4
    tdp: 200W
    sources: "test fixture"
)";
  std::ofstream(dir.file("s.yaml")) << "catalogs: {gpus: [mine.yaml]}\n" << with("A100-40GB-SXM", "MyGPU");
  const auto s = models::load_scenario_file(dir.file("s.yaml"), test::load_options());
  CHECK(s.cluster.node_types[0].gpu.name == "MyGPU");
  CHECK(s.cluster.node_types[0].gpu.fp32_flop_per_s == 10e12);

  std::ofstream(dir.file("bad.yaml")) << with("name: t\n", "name: t\ncatalogs: {gpus: [nothere.yaml]}\n");
  try {
    models::load_scenario_file(dir.file("bad.yaml"), test::load_options());
    FAIL("accepted a missing catalog");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::FileNotFound);
  }
}

TEST_CASE("markets, instances, checkpoints and budgets: what the loader refuses", "[unit][scenario-loader]") {
  SECTION("a catalog instance fills in the hardware and the prices") {
    std::string yaml = with("      gpu: A100-40GB-SXM\n      gpus: 8\n      cpu_cores: 96\n      memory: 1152GiB\n",
                            "      instance: aws/p4d.24xlarge\n");
    const std::string price = "      price: {on_demand_per_hour: 32.77}\n";
    yaml.erase(yaml.find(price), price.size());
    const auto s = scenario_from_yaml(yaml);
    const auto& t = s.cluster.node_types[0];
    // The catalog's own row, not figures retyped here.
    const models::InstanceSpec& row = test::bundled_catalogs().instances.lookup("aws/p4d.24xlarge");
    CHECK(t.instance == row.ref());
    CHECK(t.provider == row.provider);
    CHECK(t.gpus == row.gpus);
    CHECK(t.gpu.name == row.gpu);
    CHECK(t.price.on_demand_usd_per_hour == row.on_demand_usd_per_hour);
    CHECK(t.memory_bytes == row.memory_bytes);
    CHECK(row.vcpus == 96);
    CHECK(t.cpu_cores == 48);  // physical cores: 96 vCPUs are 48 cores x 2 threads
  }
  SECTION("a catalog row's network bandwidth is the node's NICs unless the node type writes nics:") {
    std::string yaml = with("      gpu: A100-40GB-SXM\n      gpus: 8\n      cpu_cores: 96\n      memory: 1152GiB\n",
                            "      instance: aws/p4d.24xlarge\n");
    const std::string price = "      price: {on_demand_per_hour: 32.77}\n";
    yaml.erase(yaml.find(price), price.size());
    // p4d: 400 Gb/s per node (4 x 100 Gb/s EFA) as 8 NICs of 50 Gb/s, one per GPU: 6.25e9 B/s each.
    const auto s_t = scenario_from_yaml(yaml);
    const auto& t = s_t.cluster.node_types[0];
    CHECK(test::bundled_catalogs().instances.lookup("aws/p4d.24xlarge").network_bytes_per_s == 400e9 / 8);
    CHECK(t.internals.nic_count == 8);
    CHECK(t.internals.nic_bytes_per_s == Approx(50e9 / 8).epsilon(1e-12));
    // The node type's own nics: win, and a row without a figure keeps the one 100 Gb/s NIC.
    std::string own = yaml;
    own.insert(own.find("      instance:"), "      nics: {count: 2, speed: 25Gbps}\n");
    const auto s_o = scenario_from_yaml(own);
    const auto& o = s_o.cluster.node_types[0];
    CHECK(o.internals.nic_count == 2);
    CHECK(o.internals.nic_bytes_per_s == Approx(25e9 / 8).epsilon(1e-12));
    std::string bare = yaml;
    bare.replace(bare.find("aws/p4d.24xlarge"), 16, "aws/p3.8xlarge");
    const auto s_b = scenario_from_yaml(bare);
    const auto& b = s_b.cluster.node_types[0];
    CHECK(b.internals.nic_count == 1);
    CHECK(b.internals.nic_bytes_per_s == Approx(100e9 / 8).epsilon(1e-12));
  }
  SECTION("a host-only catalog price is refused unless the node type gives the whole instance's") {
    std::string yaml = with("      gpu: A100-40GB-SXM\n      gpus: 8\n      cpu_cores: 96\n      memory: 1152GiB\n",
                            "      instance: gcp/a2-highgpu-8g\n");
    const std::string price = "      price: {on_demand_per_hour: 32.77}\n";
    const auto e = error_of(std::string(yaml).erase(yaml.find(price), price.size()));
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "cluster.node_types[0].instance");
    CHECK(std::string(e.what()).find("host VM's only") != std::string::npos);
    // With its own price for the whole instance it loads: hardware from the row, price given.
    const auto s = scenario_from_yaml(yaml);
    CHECK(s.cluster.node_types[0].price.on_demand_usd_per_hour == 32.77);
    CHECK(s.cluster.node_types[0].gpus == 8);
    // Nor is it an on-demand alternative to break even against.
    CHECK(error_of(with("      price: {on_demand_per_hour: 32.77}\n",
                        "      market: reserved\n      price: {reserved: {term: 1y, per_hour: 19.22}}\n"
                        "      compare_to: gcp/a2-highgpu-8g\n"))
              .code() == ErrorCode::Conflict);
  }
  SECTION("misspelt instance") {
    const auto e = error_of(with("gpu: A100-40GB-SXM", "instance: aws/p4d.24xlarg"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("did you mean 'aws/p4d.24xlarge'") != std::string::npos);
  }
  SECTION("spot without a spot price names the node type's place") {
    const auto e = error_of(with("      price: {on_demand_per_hour: 32.77}\n", "      market: spot\n"));
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.mark().line > 0);
  }
  SECTION("interruptions on an on-demand pool") {
    const auto e = error_of(with("      count: 2\n", "      count: 2\n      interruptions: {process: poisson, rate: 0.1/h}\n"));
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "cluster.node_types[0].interruptions");
  }
  SECTION("a Poisson rate needs its period") {
    const auto e = error_of(with("      price: {on_demand_per_hour: 32.77}\n",
                                 "      market: spot\n      price: {spot_per_hour: 9}\n"
                                 "      interruptions: {process: poisson, rate: 0.05}\n"));
    CHECK(e.code() == ErrorCode::BadUnit);
  }
  SECTION("ownership on a rented pool") {
    const auto e = error_of(with("      count: 2\n", "      count: 2\n      ownership: {capex: 1, depreciation: 3y, electricity: 0.1/kWh}\n"));
    CHECK(e.code() == ErrorCode::Conflict);
  }
  SECTION("a checkpoint needs a write time or a size and tier") {
    const auto e = error_of(with("duration: 6h}", "duration: 6h, checkpoint: {every: 1h}}"));
    CHECK(e.code() == ErrorCode::MissingKey);
  }
  SECTION("a checkpoint tier that the scenario lacks") {
    const auto e = error_of(with("duration: 6h}", "duration: 6h, checkpoint: {every: 1h, size: 10GB, tier: nfs}}"));
    CHECK(e.code() == ErrorCode::UnknownName);
  }
  SECTION("a budget for a team no job names, with did-you-mean") {
    const auto e = error_of(with("duration: 6h}", "duration: 6h, team: vision}") + "budgets:\n  - {team: visoin, limit: 10}\n");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "budgets[0].team");
    CHECK(std::string(e.what()).find("did you mean 'vision'") != std::string::npos);
  }
  SECTION("a budget action misspelt") {
    const auto e = error_of(with("duration: 6h}", "duration: 6h, team: v}") + "budgets:\n  - {team: v, limit: 10, action: stop}\n");
    CHECK(e.code() == ErrorCode::UnknownName);
  }
}
