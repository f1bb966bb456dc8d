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
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/config/scenario_keys.hpp"
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

// Issue 27.24: "--replications 1e3" was "not in range 1 to 10000" and "--max-memory 1EB"
// "expected a memory size with a unit": each now gives its true reason.
TEST_CASE("command-line values are refused with the true reason", "[scenario][cli]") {
  const std::string quickstart = GCSIM_SOURCE_DIR "/scenarios/examples/quickstart.yaml";
  struct Case {
    std::string args, says;
  };
  for (const Case& c : std::vector<Case>{
           {"compare " + quickstart + " --policy fifo --replications 1e3", "'1e3' is not a whole number"},
           {"compare " + quickstart + " --policy fifo --replications 2.5", "'2.5' is not a whole number"},
           {"compare " + quickstart + " --policy fifo --replications -1", "'-1' is not a whole number"},
           {"compare " + quickstart + " --policy fifo --replications 10001", "'10001' is out of range: from 1 to 10000"},
           {"compare " + quickstart + " --policy fifo --replications 99999999999999999999", "is out of range"},
           {"compare " + quickstart + " --policy fifo --replications 0", "'0' is out of range: from 1 to 10000"},
           {"compare " + quickstart + " --policy fifo -j 1e2", "'1e2' is not a whole number"},
           {"validate " + quickstart + " --max-memory 1EB", "unknown size unit 'EB'"},
           {"validate " + quickstart + " --max-memory 1e19B", "is too large: the limit is 1e18 B"},
           {"validate " + quickstart + " --max-memory 8", "missing unit in '8'"},
           {"validate " + quickstart + " --max-memory 0B", "greater than zero"},
           {"validate " + quickstart + " --max-events 1e400", "too large"},
       }) {
    INFO(c.args);
    const auto r = run_gcsim(c.args);
    INFO(r.output);
    CHECK(r.code == 2);
    CHECK(r.output.find(c.says) != std::string::npos);
    CHECK(r.output.find("not in range") == std::string::npos);
    CHECK(r.output.find("expected a memory size with a unit") == std::string::npos);
  }
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

TEST_CASE("jobs submitted after the horizon are counted apart from jobs that never started", "[scenario][cli]") {
  // One 1-GPU node and a 2 h horizon: A (3 h) holds it past the horizon; B, submitted at
  // 1 h, waits and never starts; C and D come at 5 h and 1 d, after the horizon: the run
  // ends before they are submitted, so they neither waited nor starved.
  gcsim::test::TempDir dir("cli-after-horizon");
  gcsim::test::write_file(dir.file("s.yaml"), R"(name: after
horizon: 2h
cluster:
  node_types: [{name: n, gpu: A100-40GB-SXM, gpus: 1, count: 1, price: {on_demand_per_hour: 4}}]
workload:
  jobs:
    - {name: A, submit: 0h, gpus: 1, duration: 3h}
    - {name: B, submit: 1h, gpus: 1, duration: 1h}
    - {name: C, submit: 5h, gpus: 1, duration: 1h}
    - {name: D, submit: 1d, gpus: 1, duration: 1h}
)");
  const auto r = run_gcsim("run " + dir.file("s.yaml") + " --no-plots -o " + dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("jobs: 0 completed, 1 running at the end, 0 interrupted and waiting, 1 never started, "
                      "2 submitted after the horizon (of 4)") != std::string::npos);
  const auto a = run_gcsim("analyze " + dir.file("out/after.h5") + " --json");
  INFO(a.output);
  REQUIRE(a.code == 0);
  CHECK(a.output.find("\"jobs_never_started\": 1,") != std::string::npos);
  CHECK(a.output.find("\"jobs_submitted_after_horizon\": 2,") != std::string::npos);
  CHECK(a.output.find("\"jobs_started\": 1,") != std::string::npos);  // the waits: A only
  const auto text = run_gcsim("analyze " + dir.file("out/after.h5"));
  CHECK(text.output.find("  submitted after horizon") != std::string::npos);
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
  // Issue 27.20: a type the job's `gpu` leaves out had the reason "" in the JSON.
  gcsim::test::write_file(dir.file("gpu.yaml"), with("      gpus: 8\n      epochs", "      gpu: [A100-40GB-SXM, H100-SXM]\n      gpus: 8\n      epochs"));
  const auto by_gpu = run_gcsim("estimate " + dir.file("gpu.yaml") + " --json");
  INFO(by_gpu.output);
  REQUIRE(by_gpu.code == 0);
  CHECK(by_gpu.output.find("\"reason\": \"\"") == std::string::npos);
  CHECK(by_gpu.output.find(R"({"name": "rn50", "node_type": "g4dn-t4", "gpu": "T4", "reason": "the job's `gpu` accepts only A100-40GB-SXM, H100-SXM, not the T4"})") != std::string::npos);
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
  // 115,311,510 samples at 15,718.2 samples/s (the operator model with the SMs' element
  // rate and its constants refitted on every GPU: memory-bound on the A100, where the
  // aggregate roofline had the host's cores bound it at 18,093.1): 7,336.2 s = 2 h 2 m,
  // billed per second (7,337 s) at $32.7726/h: $66.79.
  const auto table = run_gcsim("estimate " + dir.file("nodata.yaml"));
  INFO(table.output);
  CHECK(table.output.find("13.8 GiB memory                   -         -       2h 2m     $66.79      $0.58\n") !=
        std::string::npos);
  const auto plain = run_gcsim("estimate " GCSIM_SOURCE_DIR "/scenarios/examples/estimate_resnet50.yaml --json");
  CHECK(plain.output.find("\"excluded\": []") != std::string::npos);
  // A job name longer than the column's 14 characters widens the column: every row's node
  // type, GPU and GPU count stand under their headings, the row that cannot run included.
  std::string long_name = with("precision: amp", "precision: tf32");
  long_name.replace(long_name.find("name: rn50"), 10, "name: resnet50-imagenet-tf32-8gpu");
  gcsim::test::write_file(dir.file("long.yaml"), long_name);
  const auto wide = run_gcsim("estimate " + dir.file("long.yaml"));
  INFO(wide.output);
  REQUIRE(wide.code == 0);
  std::istringstream lines(wide.output);
  std::string header, a100, h100, t4;
  std::getline(lines, header);
  std::getline(lines, a100);
  std::getline(lines, h100);
  std::getline(lines, t4);
  REQUIRE(gcsim::test::has(t4, "cannot run: no tf32 on the T4"));
  for (const auto& [row, type, gpu] : {std::tuple{a100, "p4d-a100", "A100-40GB-SXM"}, std::tuple{h100, "p5-h100", "H100-SXM"},
                                       std::tuple{t4, "g4dn-t4", "T4 "}}) {
    CHECK(row.rfind("resnet50-imagenet-tf32-8gpu ", 0) == 0);
    CHECK(row.find(type) == header.find("node type"));
    CHECK(row.find(gpu) == header.find("gpu "));
    CHECK(row.find("    8 ") + 5 == header.find("gpus") + 4);  // the count right-aligned under its heading
  }
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

TEST_CASE("gcsim run prints money as analyze does, thousands separated", "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-money");
  std::string yaml = gcsim::test::owned_node_yaml("");
  const std::string capex = "capex: 87600,";
  REQUIRE(yaml.find(capex) != std::string::npos);
  yaml.replace(yaml.find(capex), capex.size(), "capex: 8760000,");  // $1,000/h over 1y
  gcsim::test::write_file(dir.file("owned.yaml"), yaml);
  const auto run = run_gcsim("run " + dir.file("owned.yaml") + " --no-plots -o " + dir.file("o"));
  INFO(run.output);
  REQUIRE(run.code == 0);
  // (1,000 + 0.50) x 4 h busy + (1,000 + 0.10) x 6 h idle.
  CHECK(run.output.find("cost: $10,002.60 total ($4,002.00 busy, $6,000.60 idle)") != std::string::npos);
  const auto analyze = run_gcsim("analyze " + dir.file("o") + "/owned.h5");
  INFO(analyze.output);
  CHECK(analyze.output.find("$10,002.60") != std::string::npos);
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

// Issue 28.6: a host-only row (a VM's price without its GPUs) read as the cheapest GPU-hour.
TEST_CASE("gcsim instances leaves host-only rows out unless asked, and marks them then", "[scenario][cli]") {
  const auto plain = run_gcsim("instances --gpu A100-40GB-SXM");
  REQUIRE(plain.code == 0);
  CHECK(plain.output.find("a2-highgpu-8g") == std::string::npos);
  CHECK(plain.output.find("0.7395") == std::string::npos);  // $5.92/h over 8 GPUs: the host alone
  CHECK(plain.output.find("1 host-only rows not shown") != std::string::npos);
  const auto all = run_gcsim("instances --gpu A100-40GB-SXM --host-only");
  REQUIRE(all.code == 0);
  const std::size_t row = all.output.find("a2-highgpu-8g");
  REQUIRE(row != std::string::npos);
  const std::string line = all.output.substr(row, all.output.find('\n', row) - row);
  CHECK(line.find("host-only") != std::string::npos);
  CHECK(line.find("0.7395") == std::string::npos);
}

// Issue 28.4: every listed price shows its date; one instance named with and without its zone
// costs the same on demand when the region's list price is the newer one.
TEST_CASE("gcsim instances shows each price's date", "[scenario][cli]") {
  const auto r = run_gcsim("instances --provider aws");
  REQUIRE(r.code == 0);
  std::istringstream in(r.output);
  std::string line;
  std::getline(in, line);
  CHECK(line.find("date") != std::string::npos);
  int p4d_rows = 0;
  for (; std::getline(in, line);) {
    if (line.rfind("aws ", 0) != 0) continue;
    INFO(line);
    CHECK((line.find(" 2025-05 ") != std::string::npos || line.find(" 2026-01-21 ") != std::string::npos));
    if (line.find("p4d.24xlarge") != std::string::npos && line.find("us-west-2") == std::string::npos &&
        line.find("usw2") == std::string::npos) {
      ++p4d_rows;
      CHECK(line.find("21.96") != std::string::npos);
      CHECK(line.find("32.77") == std::string::npos);
    }
  }
  CHECK(p4d_rows == 2);  // the us-east-1 list row and the use1-az1 row
}

namespace {
// A scenario of one on-demand node of `instance`, with `catalog` as its instance catalog.
std::string imported_catalog_scenario(const gcsim::test::TempDir& dir, const std::string& catalog,
                                      const std::string& instance) {
  std::ofstream(dir.file("s.yaml")) << "name: imp\nhorizon: 2h\ncatalogs: {instances: " << catalog
                                    << "}\ncluster:\n  node_types:\n    - {name: a, instance: " << instance
                                    << ", count: 1}\nworkload:\n  jobs:\n    - {name: j, gpus: 1, duration: 1h}\n";
  return dir.file("s.yaml");
}
}  // namespace

// Issue 27.14: what the importer writes loads beside the bundled catalog; its rows replace
// the bundled rows of their names (reported), exact duplicates are dropped and counted, and
// conflicting ones are an error naming both lines.
TEST_CASE("gcsim catalog import writes catalogs gcsim loads beside the bundled one", "[scenario][cli]") {
  gcsim::test::TempDir dir("catalog-import");
  const std::string fixtures = GCSIM_SOURCE_DIR "/tests/fixtures/pricing/";
  SECTION("the GCP workflow: a2-highgpu-8g in us-central1-a, which the bundled catalog has host-only") {
    const auto imp = run_gcsim("catalog import --from skypilot-gcp " + fixtures + "skypilot_gcp.csv -o " + dir.file("gcp.csv"));
    INFO(imp.output);
    REQUIRE(imp.code == 0);
    const auto v = run_gcsim("validate " + imported_catalog_scenario(dir, "gcp.csv", "gcp/a2-highgpu-8g@us-central1-a"));
    INFO(v.output);
    CHECK(v.code == 0);
    CHECK(v.output.find("note: instance catalog: gcp/a2-highgpu-8g@us-central1-a") != std::string::npos);
    CHECK(v.output.find("replaces the bundled row") != std::string::npos);
  }
  SECTION("AWS p4d.24xlarge in use1-az1, with the bundled row's date") {
    const auto imp = run_gcsim("catalog import --from skypilot-aws --snapshot 2025-05 " + fixtures + "skypilot_aws.csv -o " +
                               dir.file("aws.csv"));
    INFO(imp.output);
    REQUIRE(imp.code == 0);
    const auto v = run_gcsim("validate " + imported_catalog_scenario(dir, "aws.csv", "aws/p4d.24xlarge@use1-az1"));
    INFO(v.output);
    CHECK(v.code == 0);
    CHECK(v.output.find("replaces the bundled row") != std::string::npos);
  }
  const std::string header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n";
  const std::string row = "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,,us-east-1,use1-az1\n";
  SECTION("an exact duplicate row is written once and counted") {
    std::ofstream(dir.file("dup.csv")) << header << row << row;
    const auto imp = run_gcsim("catalog import --from skypilot-aws " + dir.file("dup.csv") + " -o " + dir.file("out.csv"));
    INFO(imp.output);
    REQUIRE(imp.code == 0);
    CHECK(imp.output.find("dropped 1: exact duplicates") != std::string::npos);
    const auto v = run_gcsim("validate " + imported_catalog_scenario(dir, "out.csv", "aws/g5.xlarge@use1-az1"));
    INFO(v.output);
    CHECK(v.code == 0);
  }
  SECTION("two rows of one instance with different prices are an error naming both lines") {
    std::ofstream(dir.file("dup.csv")) << header << row << "g5.xlarge,A10G,1.0,4.0,16.0,,2.0,,us-east-1,use1-az1\n";
    const auto imp = run_gcsim("catalog import --from skypilot-aws " + dir.file("dup.csv") + " -o " + dir.file("out.csv"));
    INFO(imp.output);
    CHECK(imp.code == 2);
    CHECK(imp.output.find("dup.csv:3:") != std::string::npos);
    CHECK(imp.output.find("lines 2 and 3") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("out.csv")));
  }
}

// Issue 27.16: an instance type holding a reference's separator could never be named.
TEST_CASE("gcsim catalog import refuses an instance type holding '@' or '/', naming its line", "[scenario][cli]") {
  gcsim::test::TempDir dir("catalog-import-sep");
  for (const std::string type : {"p4d@x", "p4d/x"}) {
    INFO(type);
    std::ofstream(dir.file("in.csv")) << "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
                                         "Region,AvailabilityZone\n"
                                         "g5.xlarge,A10G,1.0,4.0,16.0,,1.006,,us-east-1,use1-az1\n"
                                      << type << ",A10G,1.0,4.0,16.0,,1.006,,us-east-1,use1-az1\n";
    const auto imp = run_gcsim("catalog import --from skypilot-aws " + dir.file("in.csv") + " -o " + dir.file("out.csv"));
    INFO(imp.output);
    CHECK(imp.code == 2);
    CHECK(imp.output.find("in.csv:3:") != std::string::npos);
    CHECK(imp.output.find("InstanceType") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.file("out.csv")));
  }
}

// Issue 27.15: the input path went raw into the output's `#` comment: a newline injected rows.
TEST_CASE("gcsim catalog import keeps a path with a newline inside its comment", "[scenario][cli]") {
  gcsim::test::TempDir dir("catalog-import-nl");
  const std::string evil = dir.file("x\naws,evil.1x,A10G,1,,,,,us-east-1,,0.01,,,,standard,0,2026-01-01,injected\n#.csv");
  std::ofstream(evil) << "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
                         "AvailabilityZone\ng5.xlarge,A10G,1.0,4.0,16.0,,1.006,,us-east-1,use1-az1\n";
  // The shell takes the path quoted; the newline stays part of it.
  const auto imp = run_gcsim("catalog import --from skypilot-aws '" + evil + "' -o " + dir.file("out.csv"));
  INFO(imp.output);
  REQUIRE(imp.code == 0);
  std::ifstream in(dir.file("out.csv"));
  int rows = 0;
  bool injected = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++rows;
    if (line.rfind("aws,evil", 0) == 0) injected = true;  // the path stays text inside the row's source
  }
  CHECK(rows == 2);  // the header and g5.xlarge
  CHECK_FALSE(injected);
  std::ifstream again(dir.file("out.csv"));
  const std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  CHECK(text.find("from " + dir.file("x\\naws,evil.1x")) != std::string::npos);  // written as \n
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

TEST_CASE("the run summary names the bottleneck that holds most GPU-hours, as analyze does", "[scenario][cli]") {
  // ResNet-50 decoding JPEGs on 8 host cores for 8 A100s: the CPU bounds it (input-cpu).
  gcsim::test::TempDir dir("cli-bottleneck");
  gcsim::test::write_file(dir.file("s.yaml"), R"(name: bound
horizon: 1d
cluster:
  node_types: [{name: n, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 8, count: 1, price: {on_demand_per_hour: 32}}]
workload:
  jobs: [{name: r, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, samples: 1M, decode: cpu}]
)");
  const auto r = run_gcsim("run " + dir.file("s.yaml") + " --no-plots -o " + dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("  bound by input-cpu: 100.0% of the model jobs' GPU-hours") != std::string::npos);
  const auto a = run_gcsim("analyze " + dir.file("out/bound.h5"));
  CHECK(a.output.find("bound by input-cpu") != std::string::npos);
  // A run without model jobs names none.
  gcsim::test::write_file(dir.file("plain.yaml"), R"(name: plain
horizon: 1d
cluster:
  node_types: [{name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}]
workload:
  jobs: [{name: j, gpus: 8, duration: 1h}]
)");
  const auto p = run_gcsim("run " + dir.file("plain.yaml") + " --no-plots -o " + dir.file("out2"));
  REQUIRE(p.code == 0);
  CHECK(p.output.find("bound by") == std::string::npos);
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

TEST_CASE("a node type without a CPU-core figure is said, not given an unlimited host CPU silently", "[scenario][cli]") {
  // ResNet-50 decoding on the host's CPU on three 8xH100 types: DGX Cloud's row (224 vCPUs
  // = 112 cores, NVIDIA's DGX H100 datasheet), a marketplace row with no vCPU figure, and a
  // hand-written type without cpu_cores. Only the last two decode for free: each gets a note.
  gcsim::test::TempDir dir("cli-cpu-cores");
  gcsim::test::write_file(dir.file("s.yaml"), R"(name: cores
horizon: 30d
cluster:
  node_types:
    - {name: dgx, instance: dgx-cloud/dgx-h100-8, count: 1}
    - {name: mkt, instance: vast/host-8x-h100-sxm, count: 1}
    - {name: bare, gpu: H100-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 30}}
workload:
  jobs: [{name: rn50, model: resnet50, precision: amp, batch_per_gpu: 256, gpus: 8, samples: 10M, decode: cpu}]
)");
  const auto s = gcsim::test::scenario_from_yaml(gcsim::test::read_bytes(dir.file("s.yaml")));
  CHECK(s.cluster.node_types[0].cpu_cores == 112);
  CHECK(s.cluster.node_types[1].cpu_cores == 0);
  const auto e = run_gcsim("estimate " + dir.file("s.yaml") + " --json");
  INFO(e.output);
  REQUIRE(e.code == 0);
  CHECK(e.output.find("node type 'dgx' gives no cpu_cores") == std::string::npos);
  CHECK(e.output.find("\"node type 'mkt' gives no cpu_cores and its catalog row (vast/host-8x-h100-sxm) no vCPUs: its model jobs'") !=
        std::string::npos);
  CHECK(e.output.find("\"node type 'bare' gives no cpu_cores: its model jobs'") != std::string::npos);
  // The DGX row is bound by its 14 cores per GPU; it was not before the row had vCPUs.
  const std::size_t dgx = e.output.find("\"node_type\": \"dgx\"");
  CHECK(e.output.substr(dgx, e.output.find('\n', dgx) - dgx).find("\"bottleneck\": \"input-cpu\"") != std::string::npos);
  const auto text = run_gcsim("estimate " + dir.file("s.yaml"));
  CHECK(text.output.find("\nnote: node type 'mkt' gives no cpu_cores") != std::string::npos);
  // The run says it too.
  const auto r = run_gcsim("run " + dir.file("s.yaml") + " --no-plots -o " + dir.file("out"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("  note: node type 'mkt' gives no cpu_cores") != std::string::npos);
  CHECK(r.output.find("  note: node type 'bare' gives no cpu_cores") != std::string::npos);
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
      CHECK(r.output.find(gcsim::config::default_text(key)) != std::string::npos);
      CHECK(r.output.find(gcsim::config::range_text(key)) != std::string::npos);
    }
  }
  for (const auto& [name, entry] : registry.placements().entries()) {
    CHECK(r.output.find("  " + name + " ") != std::string::npos);
    CHECK(r.output.find(entry.description) != std::string::npos);
  }
}

TEST_CASE("gcsim keys prints every key table from the specs the readers read through", "[scenario][cli]") {
  const auto all = run_gcsim("keys");
  INFO(all.output);
  REQUIRE(all.code == 0);
  for (const auto& s : gcsim::models::scenario_key_sections()) {
    CHECK(all.output.find((s.section.path.empty() ? std::string("(top level)") : std::string(s.section.path)) + ":\n") !=
          std::string::npos);
    for (const auto& key : s.section.keys) {
      CHECK(all.output.find(std::string(key.help)) != std::string::npos);
      CHECK(all.output.find(gcsim::config::range_text(key)) != std::string::npos);
    }
  }
  CHECK(all.output.find("scheduler(policy: las):\n") != std::string::npos);
  // One section: a node type's gpus with its bounds and its default, as the reader enforces them.
  const auto one = run_gcsim("keys cluster.node_types[i]");
  INFO(one.output);
  REQUIRE(one.code == 0);
  CHECK(one.output.rfind("cluster.node_types[i]:\n", 0) == 0);
  CHECK(one.output.find("workload") == std::string::npos);
  const auto gpus_row = one.output.find("    gpus ");
  REQUIRE(gpus_row != std::string::npos);
  const std::string row = one.output.substr(gpus_row, one.output.find('\n', gpus_row) - gpus_row);
  CHECK(row.find("the instance's") != std::string::npos);
  CHECK(row.find("1..64") != std::string::npos);
  // The other packages' tables, typed the same way: a bandwidth default in its unit, a
  // model job's grad_accum with the bounds its reader enforces.
  const auto link = run_gcsim("keys network.link");
  INFO(link.output);
  REQUIRE(link.code == 0);
  const auto speed = link.output.substr(link.output.find("    speed "), link.output.find("    latency ") - link.output.find("    speed "));
  CHECK(speed.find("`100Gbps`") != std::string::npos);
  CHECK(speed.find("> 0") != std::string::npos);
  const auto jobs = run_gcsim("keys workload.jobs[i]");
  const auto accum = jobs.output.find("    grad_accum ");
  REQUIRE(accum != std::string::npos);
  CHECK(jobs.output.substr(accum, jobs.output.find('\n', accum) - accum).find("1..1048576") != std::string::npos);
  const auto typo = run_gcsim("keys cluster.node_type[i]");
  CHECK(typo.code == 2);
  CHECK(typo.output.find("did you mean 'cluster.node_types[i]'?") != std::string::npos);
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

TEST_CASE("a trace that cannot be written whole is an error with exit code 2, not a crash, and leaves no file",
          "[scenario][cli]") {
  gcsim::test::TempDir dir("cli-fsize");
  const std::string out = dir.file("out");
  // The quick start's trace is about 80 KB: a 40 KiB file-size limit stops it while HDF5
  // flushes its tables at the end. gcsim ignores SIGXFSZ itself (it was killed by it, its
  // temporary trace left in the folder), so the write fails with EFBIG and is reported.
  const auto r = gcsim::test::run_command("bash -c \"ulimit -f 40; exec " + std::string(GCSIM_BINARY_DIR) +
                                          "/cli/gcsim run " + GCSIM_SOURCE_DIR +
                                          "/scenarios/examples/quickstart.yaml --no-plots -o " + out + "\"");
  INFO(r.output);
  CHECK(r.code == 2);  // HDF5's exit handler crashed on the file whose close failed: 139
  CHECK(r.output.find("File too large") != std::string::npos);
  CHECK(r.output.find("buf = 0x") == std::string::npos);
  CHECK((!fs::exists(out) || fs::is_empty(out)));
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
