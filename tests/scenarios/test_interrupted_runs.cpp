// Interruptions of jobs that use the deeper models: a job whose steps wait for collectives
// on the network, and a job that stages its dataset to the node's NVMe. Interruptions come
// from a spot price profile crossing the pool's bid, so their times are exact.
#include <catch2/catch.hpp>

#include "analysis/trace_data.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::job_named;

namespace {

// A spot pool whose price exceeds its $2 bid during [from, to): every node is taken at
// `from` (no notice) and back at `to` (no provisioning delay).
std::string spot_pool(const std::string& extra, const std::string& from, const std::string& to) {
  return R"(      market: spot
      notice: 0s
      interruptions: {process: price}
      price: {max_per_hour: 2, spot_profile: {points: [{at: 0s, price: 1}, {at: )" + from +
         R"(, price: 5}, {at: )" + to + R"(, price: 1}]}}
)" + extra;
}

}  // namespace

TEST_CASE("An interrupted job with network-driven steps starts over and its traffic stops", "[scenario][network][spot]") {
  // A: 100 s of compute in 10 steps, each followed by a 1 GB ring all-reduce over 2 GPUs on
  // 1 GB/s links: 1 s each, 110 s alone. Taken at 55 s, back at 60 s: it reruns whole,
  // 60 s + 110 s = 170 s, and loses 55 s x 2 GPUs.
  test::TempDir dir("int-net");
  const auto t = test::run_yaml(R"(name: int-net
horizon: 10h
cluster:
  node_types:
    - name: n
      gpu: A100-40GB-SXM
      gpus: 1
      count: 2
      nics: {count: 1, speed: 8Gbps, rdma: true}
)" + spot_pool("", "55s", "60s") + R"(network:
  fabric: explicit
  hosts: [n-0, n-1]
  links:
    - {name: a0, between: [n-0, S1], bandwidth: 1GB/s, latency: 0us}
    - {name: b1, between: [n-1, S1], bandwidth: 1GB/s, latency: 0us}
workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)", dir);
  const auto& a = job_named(t, "A");
  CHECK(a.status == analysis::JobStatus::Completed);
  CHECK(a.resilience.interruptions == 1);
  CHECK(a.end_s == Approx(170.0).epsilon(1e-6));
  CHECK(a.resilience.gpu_s_lost == Approx(110.0).epsilon(1e-9));
}

namespace {
// One 1-GPU spot node; NFS at 10 MB/s; NVMe writes at 1 GB/s and reads at 10 MB/s. A stages
// a 100 MB dataset of 1000 samples (10 s) and then reads it from the NVMe at 100 samples/s
// (10 s): 20 s alone.
std::string staging_scenario(const std::string& from, const std::string& to) {
  return R"(name: int-stage
horizon: 1d
cluster:
  node_types:
    - name: n
      gpu: A100-40GB-SXM
      gpus: 1
      cpu_cores: 96
      count: 1
)" + spot_pool("", from, to) + R"(storage:
  tiers:
    - {name: nfs, kind: shared-fs, read: 10MB/s}
    - {name: nvme, kind: local-nvme, read: 10MB/s, write: 1GB/s, capacity: 1TB}
workload:
  jobs:
    - {name: A, model: resnet50, precision: amp, batch_per_gpu: 32, gpus: 1, decode: gpu, samples: 1000,
       dataset: {name: imgs, samples: 1000, size: 100MB, file_size: 100KB, tier: nfs, access: stage}}
)";
}
}  // namespace

TEST_CASE("A lost node loses its staged data: the restart copies it again", "[scenario][storage][spot]") {
  test::TempDir dir("int-stage");
  SECTION("taken while reading") {
    // Taken at 15 s (half read), back at 16 s: the replacement's NVMe is empty, so the
    // rerun copies again (10 s) and reads (10 s): 36 s. (Kept data would give 26 s.)
    const auto t = test::run_yaml(staging_scenario("15s", "16s"), dir);
    CHECK(job_named(t, "A").end_s == Approx(36.0).epsilon(1e-9));
  }
  SECTION("taken while copying") {
    // Taken at 5 s, half-way through the copy, back at 6 s: the copy is abandoned and
    // made again in full: 6 + 10 + 10 = 26 s. The NFS reads are charged as they happened.
    const auto t = test::run_yaml(staging_scenario("5s", "6s"), dir);
    CHECK(job_named(t, "A").end_s == Approx(26.0).epsilon(1e-9));
    CHECK(job_named(t, "A").resilience.interruptions == 1);
  }
}

TEST_CASE("Interruptions depend on the pool, not on the jobs: two workloads see the same ones", "[scenario][spot]") {
  // The same spot pool (Poisson, 0.2 per node-hour, 8 nodes, 2 days) under two different
  // workloads: the node_down / node_up times must be identical, so two policies or two
  // workloads compared on one seed face the same interruptions (each node draws from its
  // own named stream).
  const std::string cluster = R"(horizon: 2d
run_until: horizon
seed: 11
cluster:
  node_types:
    - {name: s, gpu: V100-SXM2-16GB, gpus: 1, count: 8, market: spot, price: {spot_per_hour: 1},
       interruptions: {process: poisson, rate: 0.2/h}, notice: 2m, provisioning: 5m}
workload:
  jobs:
)";
  test::TempDir dir("int-same");
  const auto a = test::run_yaml("name: a\n" + cluster + "    - {name: x, gpus: 1, duration: 30h}\n", dir);
  const auto b = test::run_yaml("name: b\n" + cluster +
                                    "    - {name: y, gpus: 4, duration: 3h, checkpoint: {every: 1h, write_time: 1m}}\n"
                                    "    - {name: z, submit: 5h, gpus: 2, duration: 20h}\n",
                                dir);
  auto node_events = [](const analysis::TraceData& t) {
    std::vector<std::tuple<double, std::int32_t, std::string>> out;
    for (const auto& e : t.events) {
      const std::string& kind = analysis::event_kind_label(t, e);
      if (kind == "node_down" || kind == "node_up" || kind == "notice") out.emplace_back(e.time_s, e.node, kind);
    }
    return out;
  };
  const auto ea = node_events(a);
  CHECK(ea.size() > 20);  // about 0.2 x 8 x 48 = 77 interruptions expected
  CHECK(ea == node_events(b));
}
