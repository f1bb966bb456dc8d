// Runs with storage in the loop: readers of a shared tier divide its bandwidth, jobs that
// stage their dataset to local NVMe start progress after the copy, and a node keeps a
// staged dataset for the next job. Expected times are computed by hand from the tier
// bandwidth and the bytes per sample (docs/storage.md, "Storage in runs").
#include <catch2/catch.hpp>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "models/simulation.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;
using test::run_to_trace;
using test::run_yaml;

namespace {

const analysis::JobRecord& job(const analysis::TraceData& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return t.jobs.front();
}

// An NFS tier of 10 MB/s and 100 KB per sample: 100 samples/s in all, far below what an
// A100 trains ResNet-50 at (thousands per second), so the jobs are storage-bound. One GPU
// per job: no straggler term, so a storage-bound job runs at exactly rate / 100 KB.
std::string scenario(const std::string& name, int gpus_per_node, int nodes, const std::string& jobs) {
  return "name: " + name + R"(
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: )" + std::to_string(gpus_per_node) + R"(, cpu_cores: 96, count: )" +
         std::to_string(nodes) + R"(, price: {on_demand_per_hour: 1}}
storage:
  tiers:
    - {name: nfs, kind: shared-fs, read: 10MB/s}
    - {name: nvme, kind: local-nvme, read: 10MB/s, write: 1GB/s, capacity: 1TB}
    - {name: fast, kind: local-nvme, read: 10GB/s, capacity: 1TB}
workload:
  jobs:
)" + jobs;
}

std::string model_job(const std::string& name, double samples, const std::string& tier, const std::string& extra = "",
                      const std::string& submit = "0s") {
  return "    - {name: " + name + ", submit: " + submit +
         ", model: resnet50, precision: amp, batch_per_gpu: 32, gpus: 1, decode: gpu, samples: " +
         std::to_string(static_cast<long>(samples)) + ", dataset: {name: imgs, samples: 1000, size: 100MB, "
         "file_size: 100KB, tier: " + tier + extra + "}}\n";
}

// A 730-hour month (one billing month of storage) on `nodes` 1-GPU nodes at $1/h, with a
// priced NFS ($0.30/GB-month) and node NVMe ($0.10/GB-month), and `more_tiers`.
std::string priced_month(const std::string& name, int nodes, const std::string& more_tiers, const std::string& jobs) {
  return "name: " + name + R"(
horizon: 730h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, cpu_cores: 96, count: )" + std::to_string(nodes) + R"(, price: {on_demand_per_hour: 1}}
storage:
  tiers:
    - {name: nfs, kind: shared-fs, read: 10MB/s, price: 0.30/GB-month}
    - {name: nvme, kind: local-nvme, read: 10MB/s, write: 1GB/s, capacity: 1TB, price: 0.10/GB-month}
)" + more_tiers + "workload:\n  jobs:\n" + jobs;
}

}  // namespace

TEST_CASE("readers of one shared tier divide its bandwidth", "[scenario][storage]") {
  test::TempDir dir("storage-share");
  // Alone: 10 MB/s / 100 KB = 100 samples/s, 1000 samples in 10 s.
  const auto alone = run_yaml(scenario("alone", 1, 2, model_job("A", 1000, "nfs")), dir);
  CHECK(job(alone, "A").end_s == Approx(10.0).epsilon(1e-9));
  CHECK(job(alone, "A").model.samples_per_s == Approx(100.0).epsilon(1e-9));
  CHECK(job(alone, "A").model.bottleneck == "input-storage");

  // Two on two nodes, same tier: 50 samples/s each, 20 s.
  const auto two = run_yaml(scenario("two", 1, 2, model_job("A", 1000, "nfs") + model_job("B", 1000, "nfs")), dir);
  CHECK(job(two, "A").end_s == Approx(20.0).epsilon(1e-9));
  CHECK(job(two, "B").end_s == Approx(20.0).epsilon(1e-9));
  CHECK(job(two, "A").model.samples_per_s == Approx(50.0).epsilon(1e-9));
}

TEST_CASE("when one reader finishes the other speeds up", "[scenario][storage]") {
  test::TempDir dir("storage-speedup");
  // A: 1000 samples at 50/s, done at 20 s. B: 1000 of its 2000 by then, the other 1000 at
  // 100/s alone: done at 30 s.
  const auto t = run_yaml(scenario("speedup", 1, 2, model_job("A", 1000, "nfs") + model_job("B", 2000, "nfs")), dir);
  CHECK(job(t, "A").end_s == Approx(20.0).epsilon(1e-9));
  CHECK(job(t, "B").end_s == Approx(30.0).epsilon(1e-9));
  CHECK(job(t, "B").model.samples_per_s == Approx(100.0).epsilon(1e-9));  // its final speed
  // B arriving at 5 s: A alone for 5 s (500 samples), then both at 50/s: A's last 500
  // take 10 s (end 15 s); B has 500 then, 1500 more at 100/s: end 30 s.
  const auto late = run_yaml(scenario("late", 1, 2, model_job("A", 1000, "nfs") + model_job("B", 2000, "nfs", "", "5s")), dir);
  CHECK(job(late, "A").end_s == Approx(15.0).epsilon(1e-9));
  CHECK(job(late, "B").end_s == Approx(30.0).epsilon(1e-9));
}

TEST_CASE("local NVMe is shared on a node, not between nodes", "[scenario][storage]") {
  test::TempDir dir("storage-nvme");
  // 10 MB/s per node: jobs on two nodes each get all of their node's.
  const auto apart = run_yaml(scenario("apart", 1, 2, model_job("A", 1000, "nvme") + model_job("B", 1000, "nvme")), dir);
  CHECK(job(apart, "A").end_s == Approx(10.0).epsilon(1e-9));
  CHECK(job(apart, "B").end_s == Approx(10.0).epsilon(1e-9));
  // Two 1-GPU jobs on one 2-GPU node share its NVMe.
  const auto together = run_yaml(scenario("together", 2, 1, model_job("A", 1000, "nvme") + model_job("B", 1000, "nvme")), dir);
  CHECK(job(together, "A").end_s == Approx(20.0).epsilon(1e-9));
  CHECK(job(together, "B").end_s == Approx(20.0).epsilon(1e-9));
}

TEST_CASE("a staged job starts after the copy and the node keeps the dataset", "[scenario][storage]") {
  test::TempDir dir("storage-stage");
  // One node. A stages 100 MB from NFS (10 MB/s, NVMe writes at 1 GB/s): 10 s, then reads
  // from the 10 GB/s NVMe, no longer storage-bound. B, queued behind A on the same node,
  // finds the dataset there and starts at once. Staging reads the first local-nvme tier
  // ("nvme", 10 MB/s), so the copy goes to that tier: B reads at 100 samples/s from it.
  const std::string yaml = scenario("stage", 1, 1, model_job("A", 1000, "nfs", ", access: stage") +
                                                       model_job("B", 1000, "nfs", ", access: stage"));
  const auto t = run_yaml(yaml, dir);
  const auto& a = job(t, "A");
  const auto& b = job(t, "B");
  CHECK(a.start_s == 0.0);
  // After staging A reads from the node's NVMe at 10 MB/s: 100 samples/s, 10 s.
  CHECK(a.end_s == Approx(10.0 + 10.0).epsilon(1e-9));
  CHECK(b.start_s == Approx(a.end_s).epsilon(1e-12));
  CHECK(b.end_s - b.start_s == Approx(10.0).epsilon(1e-9));  // no staging
}

TEST_CASE("staging needs a local-nvme tier", "[scenario][storage]") {
  try {
    test::scenario_from_yaml(R"(name: x
horizon: 1d
cluster:
  node_types: [{name: n, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}]
storage:
  tiers: [{name: nfs, kind: shared-fs, read: 1GB/s}]
workload:
  jobs: [{name: A, model: resnet50, precision: amp, batch_per_gpu: 32, gpus: 1, samples: 1000, dataset: {name: d, size: 1GB, tier: nfs, access: stage}}]
)");
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "workload.jobs[0].dataset.access");
  }
}

TEST_CASE("jobs staging at once share the source tier", "[scenario][storage]") {
  test::TempDir dir("storage-stage-share");
  // Alone: 100 MB from NFS at 10 MB/s: 10 s, then 1000 samples from the node's NVMe at
  // 10 MB/s / 100 KB = 100/s: 10 s more.
  const auto alone = run_yaml(scenario("one", 1, 2, model_job("A", 1000, "nfs", ", access: stage")), dir);
  CHECK(job(alone, "A").end_s == Approx(20.0).epsilon(1e-9));
  // Two on two nodes, both copying at once: 5 MB/s each, 20 s; then each reads its own
  // node's NVMe for 10 s.
  const auto two = run_yaml(scenario("two", 1, 2, model_job("A", 1000, "nfs", ", access: stage") +
                                                      model_job("B", 1000, "nfs", ", access: stage")), dir);
  CHECK(job(two, "A").start_s == 0.0);
  CHECK(job(two, "A").end_s == Approx(30.0).epsilon(1e-9));
  CHECK(job(two, "B").end_s == Approx(30.0).epsilon(1e-9));
}

TEST_CASE("a staging copy and a streaming reader slow each other down", "[scenario][storage]") {
  test::TempDir dir("storage-stage-stream");
  // A copies 100 MB while B streams: 5 MB/s each. A's copy ends at 20 s, then A reads its
  // NVMe for 10 s: 30 s. B reads 1000 samples at 50/s by 20 s, its last 500 alone at 100/s:
  // 25 s.
  const auto t = run_yaml(scenario("mixed", 1, 2, model_job("A", 1000, "nfs", ", access: stage") +
                                                      model_job("B", 1500, "nfs")), dir);
  CHECK(job(t, "A").end_s == Approx(30.0).epsilon(1e-9));
  CHECK(job(t, "B").end_s == Approx(25.0).epsilon(1e-9));
}

TEST_CASE("a job waits for a copy of its dataset already under way on its node", "[scenario][storage]") {
  test::TempDir dir("storage-stage-wait");
  // One 2-GPU node. A copies the dataset (10 s alone: B does not copy it again, nor load
  // the tier); B starts with it and waits for the copy. From 10 s both read the node's
  // 10 MB/s NVMe at 50 samples/s: 1000 samples in 20 s.
  const auto t = run_yaml(scenario("wait", 2, 1, model_job("A", 1000, "nfs", ", access: stage") +
                                                     model_job("B", 1000, "nfs", ", access: stage")), dir);
  CHECK(job(t, "B").start_s == 0.0);
  CHECK(job(t, "A").end_s == Approx(30.0).epsilon(1e-9));
  CHECK(job(t, "B").end_s == Approx(30.0).epsilon(1e-9));
}

TEST_CASE("stored data and reads are charged to the run", "[scenario][storage]") {
  // A 1 TiB dataset of 1 MiB files on an object store for the whole run (730 h, one
  // 730-hour month): 1.0995e12 B / 1e9 x $0.023 = $25.29 stored. The job reads it once:
  // 2^20 GET requests x $0.0004 / 1000 = $0.4194, and 1.0995 GB-thousands x $0.09 = $98.95
  // of transfer.
  const std::string yaml = R"(name: costs
horizon: 730h
run_until: horizon
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, cpu_cores: 96, count: 1, price: {on_demand_per_hour: 1}}
storage:
  tiers:
    - {name: s3, kind: object-store, read: 100GB/s, stream: 100MB/s, latency: 20ms, price: 0.023/GB-month,
       request_price: 0.0004, transfer_price: 0.09/GB}
workload:
  jobs:
    - {name: A, model: resnet50, precision: amp, batch_per_gpu: 32, gpus: 1, decode: gpu, samples: 1048576,
       dataset: {name: big, samples: 1048576, size: 1TiB, file_size: 1MiB, tier: s3}}
)";
  const auto r = models::run_simulation(test::scenario_from_yaml(yaml), models::builtins().schedulers, nullptr);
  REQUIRE(r.jobs_completed == 1);
  const double tib = 1099511627776.0;
  const double stored = tib / 1e9 * 0.023;
  const double requests = 1048576 * 0.0004 / 1000;
  const double transfer = tib / 1e9 * 0.09;
  CHECK(stored == Approx(25.29).epsilon(1e-3));
  CHECK(requests == Approx(0.4194).epsilon(1e-3));
  CHECK(r.storage_cost_usd == Approx(stored + requests + transfer).epsilon(1e-12));
}

TEST_CASE("a staged copy is charged on the node's NVMe while kept", "[scenario][storage]") {
  // 100 MB staged from NFS ($0.30/GB-month, no read charges) to NVMe ($0.10/GB-month) at
  // t = 0 and kept until the end of the run at 730 h: 0.1 GB x $0.10 on the node plus
  // 0.1 GB x $0.30 for the dataset on NFS = $0.04.
  const std::string yaml = priced_month("copy", 1, "", model_job("A", 1000, "nfs", ", access: stage"));
  const auto r = models::run_simulation(test::scenario_from_yaml(yaml), models::builtins().schedulers, nullptr);
  CHECK(r.storage_cost_usd == Approx(0.1 * 0.10 + 0.1 * 0.30).epsilon(1e-12));
}

TEST_CASE("the totals add up: ledger, per-node bills, storage and the printed total", "[scenario][storage]") {
  // Two nodes for 730 h at $1/h ($1,460 of compute); job A stages 100 MB from NFS to node
  // NVMe (charged on the node), job B streams from an object store (charged to no node:
  // node = -1). Every figure is one definition: the total is the ledger's sum.
  const std::string yaml = priced_month("totals", 2,
                                        "    - {name: s3, kind: object-store, read: 100GB/s, stream: 100MB/s, latency: 20ms, "
                                        "price: 0.023/GB-month, request_price: 0.0004, transfer_price: 0.09/GB}\n",
                                        model_job("A", 1000, "nfs", ", access: stage") + model_job("B", 1000, "s3"));
  test::TempDir dir;
  const models::Scenario s = test::scenario_from_yaml(yaml);
  const std::string path = dir.file("t.h5");
  const auto t = run_to_trace(s, path);
  const auto r = models::run_simulation(s, models::builtins().schedulers, nullptr);
  double ledger = 0, unattached = 0, storage = 0;
  for (const auto& c : t.ledger) {
    ledger += c.usd;
    if (c.node < 0) unattached += c.usd;
    if (c.category == "storage" || c.category == "egress" || c.category == "requests") storage += c.usd;
  }
  double nodes = 0;
  for (const auto& n : t.nodes) nodes += n.cost_usd;
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(unattached > 0);                                           // the object store's charges
  CHECK(storage > unattached);                                     // ... and the node's NVMe copy
  CHECK(nodes + unattached == Approx(ledger).epsilon(1e-12));      // per-node bills + the rest
  CHECK(m.total_cost_usd == Approx(ledger).epsilon(1e-12));        // analyze, --json, run's line
  CHECK(r.total_cost_usd == Approx(ledger).epsilon(1e-12));        // the run summary
  CHECK(r.storage_cost_usd == Approx(storage).epsilon(1e-12));     // printed as part of the total
  CHECK(ledger - storage == Approx(2 * 730.0).epsilon(1e-12));     // compute: 2 nodes x 730 h x $1
  double by_category = 0;
  for (const auto& [name, usd] : m.cost_by_category_usd) by_category += usd;
  CHECK(by_category == Approx(ledger).epsilon(1e-12));
  // busy, idle and storage mean one thing in the run summary and the analysis, and add up.
  double busy = 0;
  for (const auto& c : t.ledger)
    if (c.busy) busy += c.usd;
  CHECK(m.busy_cost_usd == Approx(busy).epsilon(1e-12));
  CHECK(r.busy_cost_usd == Approx(busy).epsilon(1e-12));
  CHECK(m.storage_cost_usd == Approx(storage).epsilon(1e-12));
  CHECK(m.busy_cost_usd + m.idle_cost_usd + m.storage_cost_usd == Approx(ledger).epsilon(1e-12));
  CHECK(m.idle_cost_usd == Approx(2 * 730.0 - busy).epsilon(1e-12));  // compute nobody held
}

TEST_CASE("useful GPU-hours are work in the job's units: slower storage does not make them grow", "[scenario][storage]") {
  // One 1-GPU ResNet-50 job of 100,000 samples reading 100 KB files from NFS: at 10 MB/s it
  // is storage-bound at 100 samples/s (1,000 s), at 5 MB/s at 50 samples/s (2,000 s). The
  // GPU computes compute_s of each step either way: the kept work is the same GPU-time at the
  // compute-bound speed, and the busy share falls as the waits grow.
  test::TempDir dir;
  auto run = [&](const std::string& bandwidth, const std::string& name) {
    std::string yaml = scenario("useful", 1, 1, model_job("A", 100000, "nfs"));
    yaml.replace(yaml.find("read: 10MB/s}"), 13, "read: " + bandwidth + "}");
    return run_to_trace(test::scenario_from_yaml(yaml), dir.file(name));
  };
  const auto fast = run("10MB/s", "fast.h5");
  const auto slow = run("5MB/s", "slow.h5");
  const auto mf = analysis::compute_metrics(fast);
  const auto ms = analysis::compute_metrics(slow);
  CHECK(job(fast, "A").end_s == Approx(1000.0).epsilon(1e-6));
  CHECK(job(slow, "A").end_s == Approx(2000.0).epsilon(1e-6));
  CHECK(ms.gpu_hours_held == Approx(2 * mf.gpu_hours_held).epsilon(1e-6));  // held doubles ...
  CHECK(ms.gpu_hours_useful == Approx(mf.gpu_hours_useful).epsilon(1e-9));  // ... work done does not
  // Useful = the compute time of 100,000 samples: 100,000 / 32 steps x compute_s.
  const double compute_s = job(fast, "A").model.compute_s;
  CHECK(mf.gpu_hours_useful == Approx(100000.0 / 32 * compute_s / 3600).epsilon(1e-9));
  // Allocated: the one GPU, held 1,000 s of the day; busy: the kernels' share of that.
  CHECK(mf.gpu_utilization == Approx(1000.0 / 86400).epsilon(1e-6));
  CHECK(mf.gpu_busy_share == Approx(100000.0 / 32 * compute_s / 86400).epsilon(1e-9));
  CHECK(ms.gpu_busy_share == Approx(mf.gpu_busy_share).epsilon(1e-9));
  CHECK(mf.gpu_hours_waiting == Approx(mf.gpu_hours_held - mf.gpu_hours_useful).epsilon(1e-9));
}

TEST_CASE("preempted jobs without a checkpoint plan in a run with storage: no crash, no checkpoint storage charged",
          "[scenario][storage]") {
  // Least attained service preempts plain jobs (their progress saved on preemption, no
  // `checkpoint:` of their own); the storage cost meter used to read the absent checkpoint
  // plan's tier when such a save was committed, and the run crashed.
  const std::string yaml = R"(name: las-storage
seed: 3
horizon: 30d
run_until: done
cluster:
  node_types:
    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 32}}
storage:
  tiers:
    - {name: nfs, kind: shared-fs, read: 2GB/s, write: 1GB/s, iops: 20k, latency: 1ms, capacity: 100TB, price: 0.30/GB-month}
scheduler: {policy: las}
workload:
  generators:
    - name: g
      count: 40
      arrival: {dist: exponential, mean: 10m}
      gpus: {choice: [1, 2, 4, 8]}
      duration: {dist: lognormal, median: 1h, sigma: 1.0}
)";
  test::TempDir dir;
  const analysis::TraceData t = run_yaml(yaml, dir);
  REQUIRE(t.preemptions.size() > 5);
  CHECK(t.jobs.size() == 40);
  const analysis::Metrics m = analysis::compute_metrics(t);
  CHECK(m.storage_cost_usd == 0);  // nothing is stored: no dataset, no checkpoint plan
}

TEST_CASE("gcsim estimate of a staged dataset: the copy first, then steps fed from NVMe, as a run has it",
          "[scenario][storage][estimate]") {
  // ResNet-50 AMP on 8 A100s, 5 epochs of ImageNet-1k (140 GB, 109 KB files) on a 1 GB/s
  // NFS server (20k IOPS x 109 KB = 2.18 GB/s: the 1 GB/s read binds), staged to a 6 GB/s
  // NVMe: the copy takes 140 GB / 1 GB/s = 140 s; then the steps read from NVMe, as fast as
  // streaming from an NVMe tier would be. Streamed from NFS instead, the job is
  // storage-bound. The estimate's whole-job time must be the run's end.
  const std::string yaml = R"(name: stage-estimate
horizon: 30d
run_until: done
cluster:
  node_types:
    - {name: p4d, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 48, count: 1, price: {on_demand_per_hour: 32}}
storage:
  tiers:
    - {name: nfs, kind: shared-fs, read: 1GB/s, write: 500MB/s, latency: 1ms, iops: 20k, capacity: 100TB, price: 0.30/GB-month}
    - {name: nvme, kind: local-nvme, read: 6GB/s, write: 3GB/s, iops: 800k, capacity: 7TB, price: 0.10/GB-month}
workload:
  jobs:
    - {name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, decode: gpu, epochs: 5,
       dataset: {name: imagenet-1k, tier: nfs, access: stage}}
)";
  test::TempDir dir;
  test::write_file(dir.file("s.yaml"), yaml);
  const auto json_number = [](const std::string& out, const std::string& key) {
    const std::size_t at = out.find("\"" + key + "\": ");
    REQUIRE(at != std::string::npos);
    return std::stod(out.substr(at + key.size() + 4));
  };
  const auto staged = test::run_gcsim("estimate --json " + dir.file("s.yaml"));
  INFO(staged.output);
  REQUIRE(staged.code == 0);
  CHECK(json_number(staged.output, "staging_s") == Approx(140.0).epsilon(1e-12));
  const auto from_nvme = test::run_gcsim("estimate --json " + dir.file("s.yaml") +
                                         " --set 'workload.jobs[0].dataset={name: imagenet-1k, tier: nvme}'");
  REQUIRE(from_nvme.code == 0);
  CHECK(json_number(staged.output, "samples_per_s") == json_number(from_nvme.output, "samples_per_s"));
  CHECK(json_number(staged.output, "total_time_s") ==
        Approx(json_number(from_nvme.output, "total_time_s") + 140.0).epsilon(1e-12));
  const auto streamed = test::run_gcsim("estimate --json " + dir.file("s.yaml") + " --set workload.jobs[0].dataset.access=stream");
  REQUIRE(streamed.code == 0);
  CHECK(test::has(streamed.output, "\"staging_s\": null"));
  CHECK(test::has(streamed.output, "\"bottleneck\": \"input-storage\""));
  CHECK(json_number(streamed.output, "samples_per_s") < json_number(staged.output, "samples_per_s"));

  // The run: the job ends at the estimate's whole-job time.
  const analysis::TraceData t = test::run_to_trace(test::scenario_from_yaml(yaml), dir.file("run.h5"));
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].end_s == Approx(json_number(staged.output, "total_time_s")).epsilon(1e-6));
}

TEST_CASE("gcsim estimate says which operators bound a job's step", "[scenario][estimate][operators]") {
  const std::string resnet = GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml";
  const auto text = test::run_gcsim("estimate " + resnet);
  INFO(text.output);
  REQUIRE(text.code == 0);
  CHECK(test::has(text.output, "why: job 'rn50' on "));
  CHECK(test::has(text.output, "in compute-bound operators"));
  CHECK(test::has(text.output, "; by kind: "));
  const auto json = test::run_gcsim("estimate --json " + resnet);
  REQUIRE(json.code == 0);
  CHECK(test::has(json.output, "\"operators\": {\"compute_bound_s\": "));
  CHECK(test::has(json.output, "\"by_kind\": {"));
  CHECK(test::has(json.output, "\"bound\": \"memory\""));
}
