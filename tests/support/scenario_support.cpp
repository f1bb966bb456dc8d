// Test helpers (see scenario_support.hpp).
#include "support/scenario_support.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "models/cluster/cluster.hpp"
#include "models/coupling/expand_workload.hpp"
#include "models/register_builtins.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "models/simulation.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::test {

models::LoadOptions load_options() { return {GCSIM_SOURCE_DIR "/scenarios/catalog", models::builtins().schedulers}; }

const models::Catalogs& bundled_catalogs() {
  static const models::Catalogs catalogs = models::load_bundled_catalogs(load_options());
  return catalogs;
}

const models::GpuCatalog& bundled_gpus() { return bundled_catalogs().gpus; }

models::Scenario scenario_from_yaml(const std::string& yaml, const std::string& label) {
  return models::load_scenario(config::load_yaml_string(yaml, label), bundled_catalogs(), models::builtins().schedulers);
}

std::vector<models::Job> run_jobs(const models::Scenario& s, std::uint64_t replication) {
  sim::Engine engine;
  models::Cluster cluster(engine, s, models::expand_workload(s, replication),
                          models::builtins().schedulers.make(s.scheduler));
  cluster.start();
  engine.run();
  return cluster.jobs();
}

analysis::TraceData run_to_trace(const models::Scenario& s, const std::string& path, std::uint64_t replication) {
  models::RunOptions o;
  o.replication = replication;
  o.fixed_wall_clock_s = 0.0;
  models::run_simulation_to(s, models::builtins().schedulers, path, o);
  return analysis::read_trace(path);
}

void check_same_plain_job(const models::JobSpec& x, const models::JobSpec& y) {
  CHECK(x.name == y.name);
  CHECK(x.submit == y.submit);
  CHECK(x.gpus == y.gpus);
  CHECK(x.gpu_milli == y.gpu_milli);
  CHECK(x.duration == y.duration);
  CHECK(x.team == y.team);
  CHECK(x.priority == y.priority);
  CHECK(x.image_pull == y.image_pull);
  CHECK(x.node_type_mask == y.node_type_mask);
  CHECK(x.efficiency == y.efficiency);
  CHECK(x.precision == y.precision);
  CHECK(!x.deadline);
  CHECK(!x.work_flop);
  CHECK(!x.checkpoint);
  CHECK(!x.estimate);
  CHECK(x.gpu_types.empty());
}

analysis::TraceData run_yaml(const std::string& yaml, const TempDir& dir) {
  const auto s = scenario_from_yaml(yaml);
  return run_to_trace(s, dir.file(s.name + ".h5"));
}

const analysis::JobRecord& job_named(const analysis::TraceData& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  throw;  // FAIL throws; this only tells the compiler
}

std::string two_switch_network(const std::string& edge, const std::string& core) {
  return "network:\n"
         "  fabric: explicit\n"
         "  hosts: [n-0, n-1, n-2, n-3]\n"
         "  links:\n"
         "    - {name: a0, between: [n-0, S1], bandwidth: " + edge + ", latency: 0us}\n"
         "    - {name: a2, between: [n-2, S1], bandwidth: " + edge + ", latency: 0us}\n"
         "    - {name: b1, between: [n-1, S2], bandwidth: " + edge + ", latency: 0us}\n"
         "    - {name: b3, between: [n-3, S2], bandwidth: " + edge + ", latency: 0us}\n"
         "    - {name: core, between: [S1, S2], bandwidth: " + core + ", latency: 0us}\n";
}

TempDir::TempDir(const std::string& name) {
  static int counter = 0;
  path_ = std::filesystem::path(GCSIM_BINARY_DIR) / "test-tmp" /
          (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string one_row_instance_csv(const std::string& on_demand) {
  return "provider,instance_type,gpu,gpus,vcpus,memory,local_storage,network,region,zone,on_demand_per_hour,"
         "spot_per_hour,billing,spot_notice,market_kind,price_assumed,snapshot,source\n"
         "lambda,gpu_test_1x,A100-40GB-SXM,1,30,200GiB,,,us-test-1,,"
         + on_demand + ",,,,standard,0,2026-01-01,a test row\n";
}

std::string owned_node_yaml(const std::string& extra) {
  return "name: owned\nhorizon: 10h\n" + extra + R"(cluster:
  node_types:
    - {name: o, gpu: A100-40GB-SXM, gpus: 8, count: 1, market: owned,
       ownership: {capex: 87600, depreciation: 1y, power_busy: 1kW, power_idle: 200W, pue: 1.0, electricity: 0.5/kWh}}
workload:
  jobs:
    - {name: A, gpus: 8, duration: 4h}
)";
}

std::string write_own_price_scenario(const std::filesystem::path& dir, const std::string& name,
                                     const std::string& on_demand) {
  std::filesystem::create_directories(dir / "prices");
  std::ofstream(dir / "prices" / "mine.csv", std::ios::binary) << one_row_instance_csv(on_demand);
  const std::filesystem::path scenario = dir / "s.yaml";
  std::ofstream(scenario, std::ios::binary) << "name: " << name << R"(
horizon: 2h
run_until: done
catalogs: {instances: prices/mine.csv}
cluster:
  node_types:
    - {name: a, instance: lambda/gpu_test_1x, count: 1}
workload:
  jobs:
    - {name: j, gpus: 1, duration: 1h}
)";
  return scenario.string();
}

CommandResult run_command(const std::string& command) {
  std::FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string two_jobs_yaml(const std::string& name, const std::string& horizon, int count) {
  return "name: " + name + "\nhorizon: " + horizon +
         "\nrun_until: done\n"
         "cluster:\n"
         "  node_types:\n"
         "    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: " +
         std::to_string(count) +
         ",\n"
         "       price: {on_demand_per_hour: 10}}\n"
         "workload:\n"
         "  jobs:\n"
         "    - {name: a, submit: 0h, gpus: 8, duration: 6h}\n"
         "    - {name: b, submit: 0h, gpus: 8, duration: 6h}\n";
}

std::string las_preemptions_yaml(const std::string& name, int jobs) {
  return "name: " + name +
         "\nseed: 3\nhorizon: 30d\nrun_until: done\n"
         "cluster:\n"
         "  node_types:\n"
         "    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 32}}\n"
         "scheduler: {policy: las}\n"
         "workload:\n"
         "  generators:\n"
         "    - name: g\n"
         "      count: " +
         std::to_string(jobs) +
         "\n"
         "      arrival: {dist: exponential, mean: 10m}\n"
         "      gpus: {choice: [1, 2, 4, 8]}\n"
         "      duration: {dist: lognormal, median: 1h, sigma: 1.0}\n"
         "      team: {choice: [a, b, c]}\n";
}

CommandResult run_gcsim(const std::string& args) { return run_command(std::string(GCSIM_BINARY_DIR) + "/cli/gcsim " + args); }

PeakResult run_gcsim_peak(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  const std::string binary = std::string(GCSIM_BINARY_DIR) + "/cli/gcsim";
  const std::string log = (dir / "peak.log").string();
  std::vector<std::string> argv_storage{binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::chdir(dir.c_str()) != 0) ::_exit(126);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, static_cast<double>(usage.ru_maxrss) * 1024.0};
}

}  // namespace gcsim::test
