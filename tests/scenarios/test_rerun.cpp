// gcsim rerun: an old trace reruns to the same answer from the scenario text, seed and
// input files it embeds, whatever became of the files on disk; a tampered record or a trace
// without /inputs is refused.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/metrics.hpp"
#include "analysis/trace_data.hpp"
#include "models/config/scenario_loader.hpp"
#include "models/register_builtins.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"
#include "support/python.hpp"
#include "support/scenario_support.hpp"

namespace fs = std::filesystem;

namespace {

using Result = gcsim::test::CommandResult;
using gcsim::test::run_command;
using gcsim::test::run_gcsim;

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

using gcsim::test::one_row_instance_csv;

double total_cost(const std::string& trace) { return gcsim::analysis::compute_metrics(gcsim::analysis::read_trace(trace)).total_cost_usd; }

// Runs h5py code on the trace at `path` (bound to `p`): its output, then "ok" when it ends well.
std::string h5py(const std::string& code, const std::string& path) {
  const Result r = run_command("/usr/bin/python3 -c 'import h5py, sys\np = sys.argv[1]\n" + code + "' " + path);
  return r.output + (r.code == 0 ? "ok" : "failed");
}

// "ok" when every table and every root attribute but the wall clock of the trace at `a`
// equals the one at `b`.
std::string same_trace(const std::string& a, const std::string& b) {
  return h5py(R"(q = sys.argv[2]
a, b = h5py.File(p, "r"), h5py.File(q, "r")
assert sorted(a.keys()) == sorted(b.keys()), (list(a.keys()), list(b.keys()))
for name in a:
    assert a[name].dtype == b[name].dtype and repr(a[name][...].tolist()) == repr(b[name][...].tolist()), name  # repr: NaN equals NaN
keys = set(a.attrs) - {"wall_clock_s"}
assert keys == set(b.attrs) - {"wall_clock_s"}
for k in keys:
    assert a.attrs[k] == b.attrs[k], k
assert {"jobs", "nodes", "ledger", "inputs"} <= set(a.keys())
)",
              a + " " + b);
}

double end_of_job(const std::string& trace, const std::string& name) {
  for (const auto& j : gcsim::analysis::read_trace(trace).jobs)
    if (j.name == name) return j.end_s;
  FAIL("no job " << name);
  return 0;
}

}  // namespace

TEST_CASE("gcsim rerun redoes a trace from its embedded inputs after the files change or vanish", "[scenario][cli]") {
  if (!gcsim::test::python_with("h5py")) return;
  gcsim::test::TempDir dir("rerun");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  const Result first = run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("first") + " --no-plots");
  REQUIRE(first.code == 0);
  const std::string first_trace = dir.file("first/rerun.h5");
  CHECK(total_cost(first_trace) == Approx(1.50).epsilon(1e-12));  // 1 node-hour at $1.50

  // The catalog changes: a fresh run sees the doubled price...
  write(dir.file("prices/mine.csv"), one_row_instance_csv("3.00"));
  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("changed") + " --no-plots -q").code == 0);
  CHECK(total_cost(dir.file("changed/rerun.h5")) == Approx(3.00).epsilon(1e-12));

  // ...and then it is gone; the rerun reads none of it, and prints run's summary.
  fs::remove(dir.file("prices/mine.csv"));
  const Result again = run_gcsim("rerun " + first_trace + " -o " + dir.file("again") + " --no-plots");
  INFO(again.output);
  REQUIRE(again.code == 0);
  CHECK(again.output.find("gcsim ") == 0);
  CHECK(again.output.find("cost: $1.50 total") != std::string::npos);
  CHECK(again.output.find("trace: " + dir.file("again/rerun.h5")) != std::string::npos);
  CHECK(total_cost(dir.file("again/rerun.h5")) == Approx(1.50).epsilon(1e-12));

  CHECK(same_trace(first_trace, dir.file("again/rerun.h5")) == "ok");
}

TEST_CASE("an explicit fabric's CSV links and routes are recorded inputs, and a rerun serves them", "[scenario][cli]") {
  if (!gcsim::test::python_with("h5py")) return;
  gcsim::test::TempDir dir("rerun-fabric");
  // Four 1-GPU nodes on two switches joined by one core link; the job's two GPUs are on
  // n-0 and n-1, so its ring all-reduce crosses the core both ways. 100 s of compute in 10
  // steps, each followed by 1 GB each way over the core: 1 s at 1 GB/s, so 110 s (plus a
  // few hundred ns of hop latency per step); at 0.5 GB/s, 2 s a step, so 120 s.
  auto links = [](const std::string& core) {
    return "name,between,bandwidth,latency\na0,n-0;S1,1GB/s,0us\na2,n-2;S1,1GB/s,0us\nb1,n-1;S2,1GB/s,0us\n"
           "b3,n-3;S2,1GB/s,0us\ncore,S1;S2," + core + ",0us\n";
  };
  write(dir.file("links.csv"), links("1GB/s"));
  write(dir.file("routes.csv"), "from,to,links\nn-0,n-1,a0;core;b1\nn-1,n-0,b1;core;a0\n");
  write(dir.file("s.yaml"), R"(name: fabric
horizon: 10h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 1, count: 4, price: {on_demand_per_hour: 1},
       nics: {count: 1, speed: 8Gbps, rdma: true}}
network:
  fabric: explicit
  hosts: [n-0, n-1, n-2, n-3]
  links: {file: links.csv}
  routes: {file: routes.csv}
workload:
  jobs:
    - {name: A, gpus: 2, duration: 100s, comm: {bytes: 1GB, every: 10s}}
)");
  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("first") + " --no-plots -q").code == 0);
  const std::string first_trace = dir.file("first/fabric.h5");
  CHECK(end_of_job(first_trace, "A") == Approx(110.0).epsilon(1e-6));
  CHECK(h5py(R"(keys = {r["key"] for r in h5py.File(p, "r")["inputs"][...]}
assert {b"network.links.file", b"network.routes.file"} <= keys, keys
)",
             first_trace) == "ok");

  // The core link halved: a fresh run sees it...
  write(dir.file("links.csv"), links("0.5GB/s"));
  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("changed") + " --no-plots -q").code == 0);
  CHECK(end_of_job(dir.file("changed/fabric.h5"), "A") == Approx(120.0).epsilon(1e-6));

  // ...and then both tables are gone; the rerun reads neither and gives the first answer.
  fs::remove(dir.file("links.csv"));
  fs::remove(dir.file("routes.csv"));
  const Result again = run_gcsim("rerun " + first_trace + " -o " + dir.file("again") + " --no-plots -q");
  INFO(again.output);
  REQUIRE(again.code == 0);
  CHECK(end_of_job(dir.file("again/fabric.h5"), "A") == Approx(110.0).epsilon(1e-6));
  CHECK(same_trace(first_trace, dir.file("again/fabric.h5")) == "ok");
}

TEST_CASE("gcsim rerun refuses a trace whose recorded input was changed, and one without /inputs", "[scenario][cli]") {
  if (!gcsim::test::python_with("h5py")) return;
  gcsim::test::TempDir dir("rerun-bad");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("first") + " --no-plots -q").code == 0);
  const std::string trace = dir.file("first/rerun.h5");
  fs::copy_file(trace, dir.file("old.h5"));

  // The recorded price halved in the trace's bytes, its digest left as it was.
  REQUIRE(h5py(R"(f = h5py.File(p, "r+")
d = f["input_bytes"]
for r in f["inputs"][...]:
    if r["key"] == b"catalogs.instances":
        a, n = int(r["offset"]), int(r["size_bytes"])
        d[a:a + n] = list(bytes(d[a:a + n]).replace(b"1.50", b"0.75"))
)",
               trace) == "ok");
  const Result tampered = run_gcsim("rerun " + trace + " -o " + dir.file("again") + " --no-plots -q");
  CHECK(tampered.code == 2);
  CHECK(tampered.output.find("recorded input 'prices/mine.csv'") != std::string::npos);  // relative to the scenario
  CHECK(tampered.output.find("the record was changed or damaged") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("again/rerun.h5")));

  // A trace from before /inputs existed.
  REQUIRE(h5py("f = h5py.File(p, \"r+\")\ndel f[\"inputs\"]\n", dir.file("old.h5")) == "ok");
  const Result old = run_gcsim("rerun " + dir.file("old.h5") + " -o " + dir.file("again") + " --no-plots -q");
  CHECK(old.code == 2);
  CHECK(old.output.find("has no /inputs table") != std::string::npos);
}

TEST_CASE("a recorded resolver serves recorded bytes only and checks their digests", "[config]") {
  gcsim::test::TempDir dir("rerun-resolver");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  const auto s = gcsim::models::load_scenario_file(dir.file("s.yaml"), gcsim::test::load_options());

  // Loaded again from the records, with the CSV gone from disk: the same price and inputs.
  fs::remove(dir.file("prices/mine.csv"));
  const auto again = gcsim::models::load_recorded_scenario(
      s.source_text, s.source_file, gcsim::config::SourceResolver::from_records(s.inputs),
      gcsim::models::builtins().schedulers);
  CHECK(again.cluster.node_types[0].price.on_demand_usd_per_hour == 1.50);
  REQUIRE(again.inputs.size() == s.inputs.size());
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    CHECK(again.inputs[i].resolved == s.inputs[i].resolved);
    CHECK(*again.inputs[i].bytes == *s.inputs[i].bytes);
  }

  // A file the records lack is not found, even when it is on disk.
  write(dir.file("prices/mine.csv"), one_row_instance_csv("1.50"));
  std::vector<gcsim::config::SourceRecord> without;
  for (const auto& r : s.inputs)
    if (r.key != "catalogs.instances") without.push_back(r);
  try {
    (void)gcsim::models::load_recorded_scenario(s.source_text, s.source_file,
                                                gcsim::config::SourceResolver::from_records(without),
                                                gcsim::models::builtins().schedulers);
    FAIL("a file missing from the records was read");
  } catch (const gcsim::ConfigError& e) {
    CHECK(e.code() == gcsim::ErrorCode::FileNotFound);
    CHECK(std::string(e.what()).find("'" + dir.file("prices/mine.csv") + "': not among the recorded inputs") !=
          std::string::npos);
  }

  // A record whose bytes no longer match its digest.
  std::vector<gcsim::config::SourceRecord> tampered = s.inputs;
  tampered.back().bytes = std::make_shared<const std::string>(*tampered.back().bytes + " ");
  CHECK_THROWS_WITH(gcsim::config::SourceResolver::from_records(tampered),
                    Catch::Contains("the record was changed or damaged"));
}

// Issue 27.17: seeds and replications of 2^63 and above were stored as int64 and read
// back negative (analyze printed seed -1); they are unsigned 64-bit now, and a rerun takes
// them back whole.
TEST_CASE("a seed and replication of 2^63 and above survive the trace, analyze and rerun", "[scenario][cli]") {
  gcsim::test::TempDir dir("rerun-u64");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  const std::string seed = "18446744073709551615", replication = "9223372036854775808";  // 2^64 - 1, 2^63
  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " --seed " + seed + " --replication " + replication + " -o " +
                    dir.file("first") + " --no-plots -q")
              .code == 0);
  const std::string trace = dir.file("first/rerun-s" + seed + "-r" + replication + ".h5");
  const auto attrs = gcsim::analysis::read_trace(trace).attrs;
  CHECK(attrs.seed == 18446744073709551615ULL);
  CHECK(attrs.replication == 9223372036854775808ULL);
  const Result json = run_gcsim("analyze " + trace + " --json");
  REQUIRE(json.code == 0);
  CHECK(json.output.find("\"seed\": " + seed) != std::string::npos);
  CHECK(json.output.find("\"replication\": " + replication) != std::string::npos);
  REQUIRE(run_gcsim("rerun " + trace + " -o " + dir.file("again") + " --no-plots -q").code == 0);
  const auto again = gcsim::analysis::read_trace(dir.file("again/rerun-s" + seed + "-r" + replication + ".h5")).attrs;
  CHECK(again.seed == attrs.seed);
  CHECK(again.replication == attrs.replication);
}

// Issue 27.18: a rerun named its trace after the scenario's output.trace only, so the
// reruns of two compare traces of one scenario into one folder replaced each other.
TEST_CASE("gcsim rerun keeps the source trace's name: compare traces rerun into one folder stay two", "[scenario][cli]") {
  gcsim::test::TempDir dir("rerun-names");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  REQUIRE(run_gcsim("compare " + dir.file("s.yaml") + " --policy fifo --policy sjf -o " + dir.file("cmp") + " --no-plots")
              .code == 0);
  std::vector<std::string> traces;
  for (const auto& e : fs::directory_iterator(dir.file("cmp")))
    if (e.path().extension() == ".h5") traces.push_back(e.path().filename().string());
  REQUIRE(traces.size() == 2);
  for (const std::string& t : traces)
    REQUIRE(run_gcsim("rerun " + dir.file("cmp/" + t) + " -o " + dir.file("both") + " -q").code == 0);
  for (const std::string& t : traces) {
    CHECK(fs::is_regular_file(dir.file("both/" + t)));
    CHECK(gcsim::analysis::read_trace(dir.file("both/" + t)).attrs.scheduler ==
          gcsim::analysis::read_trace(dir.file("cmp/" + t)).attrs.scheduler);
  }
  std::size_t pngs = 0;
  for (const auto& e : fs::directory_iterator(dir.file("both"))) pngs += e.path().extension() == ".png";
  CHECK(pngs == 6);  // three plots per rerun, none replaced
}

// Issue 27 (also): traces embedded absolute machine paths in /inputs (the bundled
// catalogs' build folder, the scenario's folder), so every shared trace carried the layout
// of the machine that ran it. Now relative to the scenario; absolute only when asked.
TEST_CASE("a trace records its scenario and inputs relative to the scenario, absolute only when asked",
          "[scenario][cli]") {
  gcsim::test::TempDir dir("rerun-paths");
  gcsim::test::write_own_price_scenario(dir.path(), "rerun", "1.50");
  const auto records = [](const std::string& trace) {
    return gcsim::analysis::read_inputs(*gcsim::trace::TraceReader::open(trace), trace);
  };
  const auto scenario_file = [](const std::string& trace) {
    return gcsim::trace::TraceReader::open(trace)->attribute_string("scenario_file");
  };

  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("rel") + " --no-plots -q").code == 0);
  const std::string rel = dir.file("rel/rerun.h5");
  CHECK(scenario_file(rel) == "s.yaml");
  bool saw_price = false, saw_bundled = false;
  for (const auto& r : records(rel)) {
    INFO(r.key << " " << r.written << " " << r.resolved);
    CHECK_FALSE(fs::path(r.written).is_absolute());
    CHECK_FALSE(fs::path(r.resolved).is_absolute());
    saw_price |= r.key == "catalogs.instances" && r.resolved == "prices/mine.csv";
    saw_bundled |= r.key.empty() && r.resolved == "<bundled>/gpus.yaml";
  }
  CHECK(saw_price);
  CHECK(saw_bundled);

  REQUIRE(run_gcsim("run " + dir.file("s.yaml") + " -o " + dir.file("abs") + " --absolute-paths --no-plots -q").code == 0);
  const std::string abs = dir.file("abs/rerun.h5");
  CHECK(scenario_file(abs) == fs::absolute(dir.file("s.yaml")).lexically_normal().string());
  for (const auto& r : records(abs)) CHECK(fs::path(r.resolved).is_absolute());

  // Both rerun to the same bill, from their records alone.
  fs::remove_all(dir.file("prices"));
  for (const std::string& t : {rel, abs}) {
    const Result again = run_gcsim("rerun " + t + " -o " + dir.file("again-" + fs::path(t).parent_path().filename().string()) +
                                   " --no-plots -q");
    INFO(again.output);
    REQUIRE(again.code == 0);
  }
  CHECK(total_cost(dir.file("again-rel/rerun.h5")) == Approx(1.50).epsilon(1e-12));
  CHECK(total_cost(dir.file("again-abs/rerun.h5")) == Approx(1.50).epsilon(1e-12));
  CHECK(scenario_file(dir.file("again-rel/rerun.h5")) == "s.yaml");
}
