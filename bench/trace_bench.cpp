// The million-job case end to end (issue 31, "Speed at a million jobs"): for each policy,
// saturated and light, the whole `gcsim run` command (generate the jobs, simulate, write the
// trace, print the summary from memory) beside the simulation alone, so what loading and
// output cost shows. 688 nodes of 8 A100 (5,504 GPUs); jobs of 1, 2, 4, 8 or 16 GPUs
// (equally likely), lognormal durations (median 30 min, sigma 1: mean 49.5 min), arriving
// every 1 s on average (saturated: about 3.4 times the cluster's capacity, the queue grows
// to hundreds of thousands) or every 6.7 s (light: about half of it).
//
//   trace_bench [GCSIM=<build>/cli/gcsim] [JOBS=1000000] [POLICIES="fifo sjf backfill las"] [MODES="saturated light"]
//
// Per row: `sim_s`, the wall time of loading the scenario and running it with no trace in a
// child process (run_simulation, trace off); `whole_s` and `peak_MiB`, the wall time and
// peak resident memory of the whole `gcsim run FILE --no-plots -q -o DIR` in another child
// (wait4's rusage); `whole/sim`, their ratio; `trace_MB`, the trace's size. The targets are
// whole_s <= 3 and peak_MiB <= 1024. Run it on a quiet machine (`uptime` is printed first).
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "models/simulation.hpp"
#include "sim/allocator.hpp"

namespace fs = std::filesystem;

namespace {

std::string scenario_text(long jobs, const std::string& policy, bool saturated) {
  return "name: bench\nseed: 1\nhorizon: 3650d\nrun_until: done\n"
         "cluster:\n  node_types:\n"
         "    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, count: 688, price: {on_demand_per_hour: 32.77}}\n"
         "scheduler: {policy: " + policy + "}\n"
         "workload:\n  generators:\n    - name: j\n      count: " + std::to_string(jobs) + "\n" +
         "      arrival: {dist: exponential, mean: " + (saturated ? "1s" : "6.7s") + "}\n" +
         "      gpus: {choice: [1, 2, 4, 8, 16]}\n"
         "      duration: {dist: lognormal, median: 1800s, sigma: 1.0}\n"
         "      team: team-0\n";
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Loads and runs the scenario with no trace in a child process: its wall time, or < 0.
double simulation_only_s(const std::string& text) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    gcsim::sim::tune_allocator();  // as the gcsim front end runs
    double s = -1;
    try {
      const double t0 = now_s();
      const auto& schedulers = gcsim::models::builtins().schedulers;
      const gcsim::models::LoadOptions options{std::string(GCSIM_SOURCE_DIR) + "/scenarios/catalog", schedulers};
      const auto catalogs = gcsim::models::load_bundled_catalogs(options);
      const gcsim::models::Scenario sc =
          gcsim::models::load_scenario(gcsim::config::load_yaml_string(text, "bench.yaml"), catalogs, schedulers);
      gcsim::models::run_simulation(sc, schedulers, nullptr);
      s = now_s() - t0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simulation: %s\n", e.what());
    }
    const ssize_t n = write(fd[1], &s, sizeof s);
    _exit(n == static_cast<ssize_t>(sizeof s) ? 0 : 1);
  }
  close(fd[1]);
  double s = -1;
  if (read(fd[0], &s, sizeof s) != static_cast<ssize_t>(sizeof s)) s = -1;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return s;
}

struct Whole {
  double wall_s = -1;
  long peak_kib = 0;
  int status = -1;
};

// The whole command in a child process, its output dropped.
Whole whole_command(const std::string& gcsim, const std::string& file, const std::string& out) {
  Whole w;
  const double t0 = now_s();
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
    execl(gcsim.c_str(), gcsim.c_str(), "run", file.c_str(), "--no-plots", "-q", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  w.wall_s = now_s() - t0;
  w.peak_kib = usage.ru_maxrss;
  w.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return w;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string gcsim = argc > 1 ? argv[1] : std::string(GCSIM_BINARY_DIR) + "/cli/gcsim";
  const long jobs = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 1000000;
  const std::vector<std::string> policies = words(argc > 3 ? argv[3] : "fifo sjf backfill las");
  const std::vector<std::string> modes = words(argc > 4 ? argv[4] : "saturated light");
  const fs::path work = fs::temp_directory_path() / ("trace-bench-" + std::to_string(getpid()));
  fs::create_directories(work);
  std::fflush(stdout);
  if (std::system("uptime") != 0) std::printf("(uptime unavailable)\n");
  std::printf("%ld jobs on 5,504 GPUs; gcsim: %s\n", jobs, gcsim.c_str());
  std::printf("%-10s %-9s %8s %9s %10s %9s %9s %s\n", "mode", "policy", "sim_s", "whole_s", "whole/sim", "peak_MiB",
              "trace_MB", "exit");
  std::fflush(stdout);  // before any fork: a child must not print the buffer again
  int failures = 0;
  for (const std::string& mode : modes) {
    for (const std::string& policy : policies) {
      const std::string text = scenario_text(jobs, policy, mode == "saturated");
      const fs::path file = work / (mode + "-" + policy + ".yaml");
      std::ofstream(file) << text;
      const double sim = simulation_only_s(text);
      const fs::path out = work / ("out-" + mode + "-" + policy);
      const Whole w = whole_command(gcsim, file.string(), out.string());
      std::error_code ec;
      const auto bytes = fs::file_size(out / "bench.h5", ec);
      std::printf("%-10s %-9s %8.2f %9.2f %10.2f %9.0f %9.1f %d\n", mode.c_str(), policy.c_str(), sim, w.wall_s,
                  sim > 0 ? w.wall_s / sim : 0.0, w.peak_kib / 1024.0, ec ? 0.0 : static_cast<double>(bytes) / 1e6, w.status);
      std::fflush(stdout);
      failures += (sim < 0 || w.status != 0);
      fs::remove_all(out, ec);
    }
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return failures == 0 ? 0 : 1;
}
