// gcsim sweep over MPI ranks (cli/sweep_mpi.hpp; docs/sweeps.md, "MPI"): two ranks on this
// machine give the tables of a local sweep byte for byte, fixed and adaptive; a build
// without MPI refuses a launch of several ranks with a message.
#include <catch2/catch.hpp>

#include <string>

#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

using gcsim::test::has;

const char* BASE = R"(name: base
horizon: 10d
run_until: done
cluster:
  node_types:
    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 2,
       price: {on_demand_per_hour: 10}}
workload:
  generators:
    - {name: g, count: 150, arrival: {dist: exponential, mean: 20m}, gpus: {choice: [1, 2, 4, 8]},
       duration: {dist: lognormal, median: 1h, sigma: 1}}
)";

}  // namespace

#if GCSIM_HAVE_MPI
TEST_CASE("mpirun -np 2 gcsim sweep gives a local sweep's tables byte for byte", "[scenario][cli][sweep][mpi]") {
  test::TempDir dir("sweep_mpi");
  test::write_file(dir.file("base.yaml"), BASE);
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nreplications: 3\nvary:\n  grid:\n"
                                       "    cluster.node_types[0].count: [1, 2, 3]\n    scheduler.policy: [fifo, sjf]\n");
  test::write_file(dir.file("a.yaml"), "base: base.yaml\n"
                                       "replications: {min: 3, max: 12, until: {metric: jct_mean_s, ci95_relative: 0.05}}\n"
                                       "vary:\n  grid:\n    cluster.node_types[0].count: [1, 2]\n");
  // As root, OpenMPI asks to be told; leak checks of a sanitizer build see OpenMPI's own.
  // A hung launcher is stopped: `timeout` ends it, and the test fails or skips.
  const std::string mpirun = "ASAN_OPTIONS=detect_leaks=0 timeout 600 mpirun -x ASAN_OPTIONS --allow-run-as-root --oversubscribe -np 2 " +
                             std::string(GCSIM_BINARY_DIR) + "/cli/gcsim";
  // Where the sandbox keeps OpenMPI from starting two ranks at all (no shared memory, no
  // loopback), the test says so and stops: what it checks needs two ranks.
  const auto probe = test::run_command("timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2 true");
  if (probe.code != 0) {
    WARN("mpirun cannot start two ranks on this machine, so gcsim sweep under MPI is not tested here: " << probe.output);
    return;
  }
  for (const char* sweep : {"s", "a"}) {
    INFO(sweep);
    const std::string file = dir.file(std::string(sweep) + ".yaml");
    REQUIRE(test::run_gcsim("sweep " + file + " -q -j 1 -o " + dir.file(std::string(sweep) + "-local")).code == 0);
    const auto r = test::run_command(mpirun + " sweep " + file + " -q -o " + dir.file(std::string(sweep) + "-mpi"));
    INFO(r.output);
    REQUIRE(r.code == 0);
    CHECK(test::read_bytes(dir.file(std::string(sweep) + "-mpi/sweep.csv")) ==
          test::read_bytes(dir.file(std::string(sweep) + "-local/sweep.csv")));
    CHECK(test::read_bytes(dir.file(std::string(sweep) + "-mpi/sweep.h5")) ==
          test::read_bytes(dir.file(std::string(sweep) + "-local/sweep.h5")));
  }
  // Shards are for sweeps without MPI.
  const auto shard = test::run_command(mpirun + " sweep " + dir.file("s.yaml") + " --shard 1/2 -q -o " + dir.file("x"));
  CHECK(shard.code != 0);
  CHECK(has(shard.output, "--shard and --merge are for sweeps run without MPI"));
}
#else
TEST_CASE("a gcsim built without MPI refuses to run as several MPI ranks", "[scenario][cli][sweep][mpi]") {
  test::TempDir dir("sweep_no_mpi");
  test::write_file(dir.file("base.yaml"), BASE);
  test::write_file(dir.file("s.yaml"), "base: base.yaml\nvary:\n  grid: {seed: [1]}\n");
  const auto r = test::run_command("OMPI_COMM_WORLD_SIZE=2 " + std::string(GCSIM_BINARY_DIR) + "/cli/gcsim sweep " +
                                   dir.file("s.yaml") + " -q -o " + dir.file("out"));
  CHECK(r.code == 2);
  CHECK(has(r.output, "this gcsim was built without MPI"));
  // srun --mpi=pmix sets PMIX_RANK and no size: the step's task count is the ranks. (A
  // sweep that runs, so that only the launch can make it fail.)
  test::write_file(dir.file("n.yaml"), "base: base.yaml\nvary:\n  grid:\n    cluster.node_types[0].count: [1, 2]\n");
  const auto s = test::run_command("PMIX_RANK=0 SLURM_STEP_NUM_TASKS=2 " + std::string(GCSIM_BINARY_DIR) +
                                   "/cli/gcsim sweep " + dir.file("n.yaml") + " -q -o " + dir.file("out-srun"));
  CHECK(s.code == 2);
  CHECK(has(s.output, "cannot run as 2 MPI ranks"));
  // A task count alone is no MPI launch (srun may start tasks that are not ranks).
  const auto t = test::run_command("SLURM_STEP_NUM_TASKS=2 " + std::string(GCSIM_BINARY_DIR) + "/cli/gcsim sweep " +
                                   dir.file("n.yaml") + " -q -o " + dir.file("out-tasks"));
  INFO(t.output);
  CHECK(t.code == 0);
}
#endif
