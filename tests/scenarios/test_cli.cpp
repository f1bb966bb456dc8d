// The gcsim command as a user meets it: exit codes, messages naming file:line:col and key,
// and nothing half-written when a scenario is refused.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/atomic_file.hpp"
#include "support/scenario_support.hpp"

namespace fs = std::filesystem;

namespace {

using gcsim::test::run_gcsim;

// The node types `gcsim estimate --json` marks would_run_on, in output order.
std::vector<std::string> types_it_would_run_on(const std::string& json) {
  std::vector<std::string> types;
  std::istringstream in(json);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"would_run_on\": true") == std::string::npos) continue;
    const std::string key = "\"node_type\": \"";
    const std::size_t at = line.find(key);
    REQUIRE(at != std::string::npos);
    const std::size_t from = at + key.size();
    types.push_back(line.substr(from, line.find('"', from) - from));
  }
  return types;
}

// The review's probe 3 scenario: node types big (8 GPUs) and small (1 GPU), one node
// each, and one 1-GPU ResNet-50 job; `scheduler` is a line to add (or "").
void write_two_node_types(const std::string& path, const std::string& scheduler) {
  std::ofstream(path) << "name: est\nhorizon: 1d\ncluster:\n  node_types:\n"
                         "    - {name: big, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, count: 1, price: {on_demand_per_hour: 32}}\n"
                         "    - {name: small, gpu: A100-40GB-SXM, gpus: 1, cpu_cores: 12, count: 1, price: {on_demand_per_hour: 4}}\n"
                      << scheduler
                      << "workload:\n  jobs:\n"
                         "    - {name: r, model: resnet50, precision: amp, batch_per_gpu: 32, gpus: 1, samples: 100000}\n";
}

// The node type `gcsim run` of `scenario` places its one job on.
std::string node_type_of_run(const std::string& scenario, const std::string& out) {
  const auto r = run_gcsim("run " + scenario + " -o " + out + " --no-plots");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const auto trace = gcsim::analysis::read_trace(out + "/est.h5");
  REQUIRE(trace.jobs.size() == 1);
  return trace.jobs[0].node_type;
}

}  // namespace

TEST_CASE("gcsim validate accepts the bundled scenarios", "[scenario][cli]") {
  for (const auto& entry : fs::directory_iterator(GCSIM_SOURCE_DIR "/scenarios/examples")) {
    if (entry.path().extension() != ".yaml") continue;
    const auto r = run_gcsim("validate " + entry.path().string());
    INFO(r.output);
    CHECK(r.code == 0);
  }
}

TEST_CASE("bad scenarios exit with code 2, a located message, and no output", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-bad");
  const std::string bad = dir.file("bad.yaml");
  std::ofstream(bad) << "name: bad\nhorizon: 1d\ncluster:\n  node_types:\n"
                        "    - {name: n, gpu: T4, gpus: 1, count: 1, price: {on_demand_per_hour: 1}}\n"
                        "workload:\n  jobs:\n    - {name: j, gpus: 1, durration: 1h}\n";
  const auto v = run_gcsim("validate " + bad);
  CHECK(v.code == 2);
  CHECK(v.output.find("bad.yaml:8:") != std::string::npos);
  CHECK(v.output.find("workload.jobs[0].durration") != std::string::npos);
  CHECK(v.output.find("did you mean 'duration'") != std::string::npos);

  const std::string out = dir.file("out");
  const auto r = run_gcsim("run " + bad + " -o " + out);
  CHECK(r.code == 2);
  CHECK(!fs::exists(out));

  CHECK(run_gcsim("validate " + dir.file("missing.yaml")).code == 2);
  CHECK(run_gcsim("analyze " + bad).code == 2);  // not an HDF5 file
  CHECK(run_gcsim("run --no-such-flag").code == 2);
}

TEST_CASE("seeds and replications are whole numbers from 0 to 2^64-1, read exactly", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-seed");
  const std::string quickstart = GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml";
  // CLI11 alone wraps "-1" to 2^64-1 and takes 2^64: each of these ran before.
  for (const char* bad : {"--seed -1", "--seed 18446744073709551616", "--seed +3", "--seed 1e3", "--replication -2",
                          "--replication 99999999999999999999"}) {
    INFO(bad);
    const std::string out = dir.file("bad");
    const auto r = run_gcsim(std::string("run -q --no-plots ") + bad + " -o " + out + " " + quickstart);
    CHECK(r.code == 2);
    CHECK(r.output.find("expected a whole number from 0 to 18446744073709551615") != std::string::npos);
    CHECK(!fs::exists(out));
  }
  const auto top = run_gcsim("run --no-plots --seed 18446744073709551615 -o " + dir.file("top") + " " + quickstart);
  CHECK(top.code == 0);
  CHECK(top.output.find("(seed 18446744073709551615, replication 0)") != std::string::npos);
}

TEST_CASE("a run into a folder removes what a killed run there left", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-stale");
  const std::string out = dir.file("out");
  fs::create_directories(out);
  // A temporary name of this machine (taken from a real one) whose process is gone.
  std::string host;
  {
    gcsim::sim::AtomicFile probe((fs::path(out) / "probe").string());
    const std::string t = probe.temp_path();
    host = t.substr(t.size() - 4 - 17 - 8, 8);
  }
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  const fs::path stale = fs::path(out) / ("quickstart.h5." + std::to_string(child) + "." + host + ".00000000deadbeef.tmp");
  std::ofstream(stale) << "half a trace";
  REQUIRE(fs::exists(stale));
  const auto r = run_gcsim("run -q --no-plots -o " + out + " " GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml");
  CHECK(r.code == 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fs::path(out) / "quickstart.h5"));
}

TEST_CASE("gcsim gpus prints '-' for a precision a GPU lacks, not 0.0", "[scenario][cli]") {
  const auto r = run_gcsim("gpus");
  REQUIRE(r.code == 0);
  const auto row = [&](const std::string& name) {
    const std::size_t at = r.output.find("\n" + name + " ");
    REQUIRE(at != std::string::npos);
    return r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  };
  // V100: FP32 15.7, no TF32, FP16 125, no BF16, no FP8 (catalog: NVIDIA V100 datasheet).
  CHECK(row("V100-SXM2-16GB").find("15.7         -     125.0         -         -") != std::string::npos);
  CHECK(row("A100-40GB-SXM").find("19.5     156.0     312.0     312.0         -") != std::string::npos);
  CHECK(r.output.find(" 0.0 ") == std::string::npos);
}

TEST_CASE("the run summary's job counts add up: completed, running, interrupted and waiting, never started", "[scenario][cli]") {
  // Two 1-GPU spot nodes, taken at 1 h for good (the price crosses the $2 bid) and a 2-GPU
  // on-demand node. A (30 min) completes on a spot node; B (2 h) is taken at 1 h on the
  // other and waits; D (2 GPUs, 5 h) holds the on-demand node past the 3 h horizon; C,
  // submitted at 2 h, finds no free GPU and never starts.
  gcsim::test::TempDir dir("cli-fourway");
  gcsim::test::write_file(dir.file("s.yaml"), R"(name: fourway
horizon: 3h
cluster:
  node_types:
    - name: sp
      gpu: A100-40GB-SXM
      gpus: 1
      count: 2
      market: spot
      notice: 0s
      interruptions: {process: price}
      price: {max_per_hour: 2, spot_profile: {points: [{at: 0s, price: 1}, {at: 1h, price: 5}, {at: 10h, price: 1}]}}
    - {name: od, gpu: A100-40GB-SXM, gpus: 2, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 1, duration: 30m}
    - {name: B, submit: 0h, gpus: 1, duration: 2h}
    - {name: D, submit: 0h, gpus: 2, duration: 5h}
    - {name: C, submit: 2h, gpus: 1, duration: 1h}
)");
  const auto r = run_gcsim("run " + dir.file("s.yaml") + " --no-plots -o " + dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("jobs: 1 completed, 1 running at the end, 1 interrupted and waiting, 1 never started (of 4)") !=
        std::string::npos);
}

TEST_CASE("gcsim estimate says which node types cannot run a job and why, and an epoch only with a dataset", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-est-excluded");
  std::ifstream in(GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string yaml = text.str();
    const std::size_t at = yaml.find(from);
    REQUIRE(at != std::string::npos);
    return yaml.replace(at, from.size(), to);
  };
  // TF32: the T4 (Turing) has no TF32 tensor cores, so its row says so instead of vanishing.
  gcsim::test::write_file(dir.file("tf32.yaml"), with("precision: amp", "precision: tf32"));
  const auto tf32 = run_gcsim("estimate " + dir.file("tf32.yaml"));
  INFO(tf32.output);
  REQUIRE(tf32.code == 0);
  CHECK(tf32.output.find("g4dn-t4      T4                 8  cannot run: no tf32 on the T4\n") != std::string::npos);
  const auto json = run_gcsim("estimate " + dir.file("tf32.yaml") + " --json");
  CHECK(json.output.find(R"("excluded": [
    {"name": "rn50", "node_type": "g4dn-t4", "gpu": "T4", "reason": "no tf32 on the T4"}
  ])") != std::string::npos);
  // Batch 400 needs 20.8 GiB per GPU: over the T4's 15.2 GiB usable (95% of 16 GiB).
  gcsim::test::write_file(dir.file("mem.yaml"), with("batch_per_gpu: 256 ", "batch_per_gpu: 400 "));
  const auto mem = run_gcsim("estimate " + dir.file("mem.yaml"));
  CHECK(mem.output.find("T4                 8  cannot run: needs 20.8 GiB per GPU with batch 400") != std::string::npos);
  // Without a dataset an epoch means nothing: "-", and the whole job's time and cost beside it.
  std::string no_dataset = with("epochs: 90", "samples: 115311510");  // 90 epochs of ImageNet-1k's 1,281,239 images
  no_dataset.erase(no_dataset.find("      dataset: "), no_dataset.find('\n', no_dataset.find("      dataset: ")) -
                                                       no_dataset.find("      dataset: ") + 1);
  gcsim::test::write_file(dir.file("nodata.yaml"), no_dataset);
  const auto nodata = run_gcsim("estimate " + dir.file("nodata.yaml") + " --json");
  INFO(nodata.output);
  REQUIRE(nodata.code == 0);
  CHECK(nodata.output.find("\"time_per_epoch_s\": null, \"cost_per_epoch_usd\": null") != std::string::npos);
  // 115,311,510 samples at 18,093.1 samples/s: 6,373.2 s = 1 h 46 m, billed per second (6,374 s)
  // at $32.7726/h: $58.03.
  const auto table = run_gcsim("estimate " + dir.file("nodata.yaml"));
  CHECK(table.output.find("13.8 GiB input-cpu                -         -      1h 46m      58.03       0.50\n") !=
        std::string::npos);
  const auto plain = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml --json");
  CHECK(plain.output.find("\"excluded\": []") != std::string::npos);
}

TEST_CASE("gcsim estimate bills as a run does: a monthly lease costs its month", "[scenario][cli]") {
  // DGX Cloud's dgx-h100-8: $36,999 a month, billed by the month with a one-month minimum.
  // ResNet-50 for 10 million samples takes well under a day on 8 H100s; the lease still
  // bills 730 h: 8/8 x 36,999 / 730 $/h x 730 h = $36,999.00 (it showed the hours' $ alone).
  gcsim::test::TempDir dir("cli-est-billing");
  gcsim::test::write_file(dir.file("lease.yaml"), R"(name: lease
horizon: 30d
cluster:
  node_types:
    - {name: dgx, instance: dgx-cloud/dgx-h100-8, cpu_cores: 112, memory: 2TiB, count: 1}
workload:
  jobs:
    - {name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, samples: 10000000, decode: gpu}
)");
  const auto r = run_gcsim("estimate " + dir.file("lease.yaml") + " --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::size_t at = r.output.find("\"total_cost_usd\": ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(r.output.substr(at + 18)) == Approx(36999.0).epsilon(1e-9));
  const std::size_t t = r.output.find("\"total_time_s\": ");
  REQUIRE(t != std::string::npos);
  CHECK(std::stod(r.output.substr(t + 16)) < 86400.0);
}

TEST_CASE("gcsim run says what the bill covers: the horizon, or owned capacity to it under done", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-billed");
  const std::string owned = gcsim::test::owned_node_yaml("run_until: done\n");
  gcsim::test::write_file(dir.file("owned.yaml"), owned);
  const auto done = run_gcsim("run " + dir.file("owned.yaml") + " --no-plots -o " + dir.file("o"));
  INFO(done.output);
  REQUIRE(done.code == 0);
  // (F + E(1)) x 4 h + (F + E(0)) x 6 h = 42 + 60.60: the hours after the job are paid too.
  CHECK(done.output.find("cost: $102.60 total ($42.00 busy, $60.60 idle)") != std::string::npos);
  CHECK(done.output.find("billed: owned and reserved pools to the horizon (10h 0m), paid whether used or not; rented ones to "
                         "4h 0m (run_until: done)") != std::string::npos);
  std::string rented = owned;
  rented.replace(rented.find("run_until: done\n"), 16, "");
  gcsim::test::write_file(dir.file("horizon.yaml"), rented);
  const auto by_default = run_gcsim("run " + dir.file("horizon.yaml") + " --no-plots -o " + dir.file("h"));
  CHECK(by_default.output.find("billed for the whole horizon (10h 0m); the last job finished at 4h 0m") != std::string::npos);
}

TEST_CASE("runs with other seeds or replications into one folder keep their own trace and plots", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-replications");
  const std::string qs = GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml";
  const std::string out = dir.file("out");
  // The quickstart's own seed is 42: --seed 42 is the default run and keeps the plain name.
  REQUIRE(run_gcsim("run " + qs + " -q -o " + out + " --seed 42").code == 0);
  REQUIRE(run_gcsim("run " + qs + " -q -o " + out + " --replication 3").code == 0);
  REQUIRE(run_gcsim("run " + qs + " -q -o " + out + " --seed 7 --replication 3").code == 0);
  for (const char* name : {"quickstart.h5", "quickstart-r3.h5", "quickstart-s7-r3.h5", "gpus_over_time.png",
                           "gpus_over_time-r3.png", "cost_over_time-s7-r3.png", "wait_time_cdf-r3.png"}) {
    INFO(name);
    CHECK(fs::exists(out + "/" + name));
  }
  const auto a = run_gcsim("analyze " + out + "/quickstart-r3.h5 --json");
  CHECK(a.code == 0);
  CHECK(a.output.find("\"replication\": 3") != std::string::npos);
}

TEST_CASE("an unknown command is named, with a did-you-mean, and exit code 2", "[scenario][cli]") {
  const auto typo = run_gcsim("rnu");
  CHECK(typo.code == 2);
  CHECK(typo.output.find("unknown command 'rnu'; did you mean 'run'?") != std::string::npos);
  const auto far = run_gcsim("bogus");
  CHECK(far.code == 2);
  CHECK(far.output.find("unknown command 'bogus' (") != std::string::npos);
  // A known command with a bad option is CLI11's message, not an unknown command.
  const auto option = run_gcsim("run --bogus");
  CHECK(option.code == 2);
  CHECK(option.output.find("unknown command") == std::string::npos);
}

TEST_CASE("gcsim instances refuses a provider the catalog does not have", "[scenario][cli]") {
  const auto typo = run_gcsim("instances --provider awz");
  CHECK(typo.code == 2);
  CHECK(typo.output.find("unknown provider 'awz'; did you mean 'aws'?") != std::string::npos);
  CHECK(run_gcsim("instances --provider nosuch").code == 2);
  const auto upper = run_gcsim("instances --provider AWS");
  CHECK(upper.code == 0);
  CHECK(upper.output.find("aws ") != std::string::npos);
}

TEST_CASE("gcsim run writes the trace and plots, and analyze reads them", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-run");
  const std::string out = dir.file("out");
  const auto r = run_gcsim("run " GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml -o " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(fs::file_size(out + "/quickstart.h5") > 1000);
  std::size_t pngs = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    CHECK(e.path().extension() != ".tmp");
    pngs += e.path().extension() == ".png";
  }
  CHECK(pngs == 3);
  const auto a = run_gcsim("analyze " + out + "/quickstart.h5 --json");
  INFO(a.output);
  CHECK(a.code == 0);
  for (const char* key : {"\"total_cost_usd\"", "\"gpu_utilization\"", "\"mean_wait_s\"", "\"p95_wait_s\"",
                          "\"mean_jct_s\"", "\"makespan_s\"", "\"jobs_completed\""})
    CHECK(a.output.find(key) != std::string::npos);
}

TEST_CASE("gcsim estimate answers A100 vs H100 vs T4 for ResNet-50", "[scenario][cli]") {
  const auto r = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  for (const char* key : {"\"jobs\"", "\"samples_per_s\"", "\"step_time_s\"", "\"bottleneck\"", "\"cost_per_epoch_usd\"",
                          "\"gpu_memory_bytes\"", "\"p4d-a100\"", "\"p5-h100\"", "\"g4dn-t4\""})
    CHECK(r.output.find(key) != std::string::npos);
  // Three 8-GPU types of one node each and an 8-GPU job: every node fits it exactly, and
  // placement breaks the tie by the lowest node index, so the first type is the one it
  // runs on; the other two rows are for comparison.
  CHECK(types_it_would_run_on(r.output) == std::vector<std::string>{"p4d-a100"});
  const auto text = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml");
  CHECK(text.code == 0);
  CHECK(run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml").code == 2);  // no model jobs
  // A policy that chooses the type by the job's speed there: hetero puts it on the fastest
  // (the H100 node, 36,186 samples/s against 18,093), hetero by cost on the cheapest run.
  gcsim::test::TempDir dir("estimate-hetero");
  const std::string base = gcsim::test::read_bytes(GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml");
  gcsim::test::write_file(dir.file("h.yaml"), base + "scheduler: {policy: hetero}\n");
  gcsim::test::write_file(dir.file("c.yaml"), base + "scheduler: {policy: hetero, objective: cost}\n");
  const auto h = run_gcsim("estimate " + dir.file("h.yaml") + " --json");
  INFO(h.output);
  CHECK(types_it_would_run_on(h.output) == std::vector<std::string>{"p5-h100"});
  const auto c = run_gcsim("estimate " + dir.file("c.yaml") + " --json");
  CHECK(types_it_would_run_on(c.output) == std::vector<std::string>{"p4d-a100"});
}

TEST_CASE("gcsim estimate says when a multi-node row runs on the default NIC", "[scenario][cli]") {
  // Both scenarios run the same jobs on 8-GPU A100 nodes, up to 32 of them; one declares the
  // DGX A100's 8 x 200 Gb/s NICs, the other declares none and gets one 100 Gb/s NIC a node.
  const auto bare = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_a100_scale_no_nics.yaml --json");
  INFO(bare.output);
  REQUIRE(bare.code == 0);
  CHECK(bare.output.find("\"notes\": [\"node type 'dgx-a100' gives no nics:") != std::string::npos);
  const auto text = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_a100_scale_no_nics.yaml");
  CHECK(text.output.find("\nnote: node type 'dgx-a100' gives no nics:") != std::string::npos);
  const auto nics = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_a100_scale.yaml --json");
  REQUIRE(nics.code == 0);
  CHECK(nics.output.find("\"notes\": []") != std::string::npos);
  // One node's job needs no NIC: the ResNet-50 example (8 GPUs on 8-GPU nodes) has no note.
  CHECK(run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml --json").output.find(
            "\"notes\": []") != std::string::npos);
}

TEST_CASE("gcsim estimate names the node type the run places the job on", "[scenario][cli]") {
  // The review's probe 3: node types big (8 GPUs) and small (1 GPU), one node each, and a
  // 1-GPU ResNet-50 job. Placement is best fit: the node with the fewest free GPUs that
  // suffice, so small (1 free) beats big (8 free) although big is listed first.
  gcsim::test::TempDir dir("cli-est");
  const std::string yaml = dir.file("est.yaml");
  write_two_node_types(yaml, "");
  const auto e = run_gcsim("estimate " + yaml + " --json");
  INFO(e.output);
  REQUIRE(e.code == 0);
  CHECK(types_it_would_run_on(e.output) == std::vector<std::string>{"small"});
  const auto text = run_gcsim("estimate " + yaml);
  REQUIRE(text.code == 0);
  // The text rows say the same: big's row is the comparison, small's is not.
  std::istringstream rows(text.output);
  int compared = 0;
  for (std::string line; std::getline(rows, line);) {
    if (line.rfind("r ", 0) != 0) continue;  // the job's rows start with its name
    const bool comparison = line.find("(comparison)") != std::string::npos;
    CHECK(comparison == (line.find(" big ") != std::string::npos));
    compared += 1;
  }
  CHECK(compared == 2);

  CHECK(node_type_of_run(yaml, dir.file("out")) == "small");
}

TEST_CASE("gcsim estimate follows the scenario's placement strategy", "[scenario][cli]") {
  // The same two node types as above, with first-fit: the lowest-index node with a free
  // GPU is big's, so the estimate and the run both say big.
  gcsim::test::TempDir dir("cli-est-ff");
  const std::string yaml = dir.file("est.yaml");
  write_two_node_types(yaml, "scheduler: {policy: fifo, placement: first-fit}\n");
  const auto e = run_gcsim("estimate " + yaml + " --json");
  INFO(e.output);
  REQUIRE(e.code == 0);
  CHECK(types_it_would_run_on(e.output) == std::vector<std::string>{"big"});
  CHECK(node_type_of_run(yaml, dir.file("out")) == "big");
}

TEST_CASE("gcsim policies lists every policy, strategy and key of the registry", "[scenario][cli]") {
  const auto r = run_gcsim("policies");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const auto& registry = gcsim::models::builtins().schedulers;
  for (const auto& [name, policy] : registry.policies()) {
    CHECK(r.output.find("  " + name + ": " + policy.description) != std::string::npos);
    for (const auto& key : policy.keys) {
      CHECK(r.output.find(std::string(key.name)) != std::string::npos);
      CHECK(r.output.find(std::string(key.help)) != std::string::npos);
      CHECK(r.output.find(std::string(key.default_value)) != std::string::npos);
    }
  }
  for (const auto& [name, entry] : registry.placements().entries()) {
    CHECK(r.output.find("  " + name + " ") != std::string::npos);
    CHECK(r.output.find(entry.description) != std::string::npos);
  }
}

TEST_CASE("gcsim flows replays the parking lot", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-flows");
  const std::string out = dir.file("finish.csv");
  const auto r = run_gcsim("flows " GCSIM_SOURCE_DIR "/tests/models/network/data/parking_lot.yaml " GCSIM_SOURCE_DIR
                           "/tests/models/network/data/parking_lot_flows.csv -o " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::ifstream in(out);
  std::string header;
  std::getline(in, header);
  CHECK(header == "flow_id,finish");
  CHECK(!fs::exists(out + ".tmp"));
  CHECK(run_gcsim("flows " GCSIM_SOURCE_DIR "/tests/models/network/data/parking_lot.yaml " + dir.file("none.csv")).code == 2);
}

// Issue 27.1: `-o` of flows and catalog import wrote a temporary file and renamed it over
// the target, so as root `-o /dev/null` left a regular file in /dev/null's place and
// `-o /dev/stdout` replaced the link. Only nodes and links made in a test folder are used
// here, never the machine's own /dev.
TEST_CASE("gcsim flows and catalog import -o write into a FIFO or device and never replace it or a link",
          "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-special-out");
  const std::string flows = "flows " GCSIM_SOURCE_DIR "/tests/models/network/data/parking_lot.yaml " GCSIM_SOURCE_DIR
                            "/tests/models/network/data/parking_lot_flows.csv -o ";
  const std::string import = "catalog import --from skypilot-aws " GCSIM_SOURCE_DIR "/tests/fixtures/pricing/skypilot_aws.csv -o ";

  // A FIFO with a reader, and a link to it (as /dev/stdout is a link): both written through.
  const std::string fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_symlink(fifo, dir.file("stdout"));
  for (const std::string& target : {fifo, dir.file("stdout")}) {
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader >= 0);
    const auto r = run_gcsim(flows + target);
    INFO(r.output);
    CHECK(r.code == 0);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(reader);
    CHECK(got.rfind("flow_id,finish\n", 0) == 0);
  }
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_symlink(dir.file("stdout")));

  // A character device with /dev/null's numbers, made here: written into, still a device.
  const std::string null = dir.file("null");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 && ::access(null.c_str(), W_OK) == 0) {
    for (const std::string& command : {flows, import}) {
      const auto r = run_gcsim(command + null);
      INFO(r.output);
      CHECK(r.code == 0);
      struct stat st {};
      REQUIRE(::lstat(null.c_str(), &st) == 0);
      CHECK(S_ISCHR(st.st_mode));
      CHECK(st.st_rdev == makedev(1, 3));
    }
  } else {
    WARN("cannot make a device node here (not root, or a nodev mount): that part skipped");
  }

  // A link to a regular file: refused (exit 2), the link and its file as they were.
  gcsim::test::write_file(dir.file("precious.csv"), "precious\n");
  fs::create_symlink(dir.file("precious.csv"), dir.file("link.csv"));
  for (const std::string& command : {flows, import}) {
    const auto r = run_gcsim(command + dir.file("link.csv"));
    CHECK(r.code == 2);
    CHECK_THAT(r.output, Catch::Contains("symbolic link"));
    CHECK(fs::is_symlink(dir.file("link.csv")));
    CHECK(gcsim::test::read_bytes(dir.file("precious.csv")) == "precious\n");
  }
}
