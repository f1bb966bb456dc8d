// Loading benchmark (large scenarios load at disk speed): generates two large
// scenarios, then times, in the same run, reading their bytes and loading them into the
// config tree (sim/config), and reports both speeds, their ratio and the peak memory.
//
//   load_bench [--dir DIR] [--jobs N] [--flows N] [--reps R]
//
// DIR (default: a fresh folder under the system temp dir) receives
//   jobs.yaml    a workload of N (200,000) flow-map jobs, `- {name: j1, gpus: 1, ...}`
//   fabric.yaml  an explicit 256-host fabric: 16 leaves x 16 hosts, 4 spines, 320 links
//                of 10 Gb/s and 1 us, and one route for each of the 65,280 ordered pairs
//                (the spine picked by a hash of the pair)
//   fabric-csv.yaml, links.csv, routes.csv
//                the same fabric with its links and routes as CSV tables
//   flows.csv    N (20,000) flows over it for `gcsim flows fabric.yaml flows.csv`: uniform
//                source, uniform other destination, sizes log-uniform in [1 MB, 1 GB],
//                Poisson arrivals over 60 s, seed 42, starts in whole nanoseconds
//   flows.txt    the same flows with their link paths, for bench/simgrid_reference
// Each measurement is the median of R (5) repetitions of process CPU time; the tree is
// destroyed outside the timed part. The end-to-end comparison with SimGrid is in
// docs/network.md, "End to end: gcsim flows on a 256-host explicit fabric".
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "models/topology/topology_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"
#include "sim/rng.hpp"

namespace {

namespace fs = std::filesystem;

constexpr int LEAVES = 16;
constexpr int HOSTS_PER_LEAF = 16;
constexpr int SPINES = 4;
constexpr int HOSTS = LEAVES * HOSTS_PER_LEAF;

// Process CPU time (user + system), not wall time: the machines are shared, and wall time
// mostly measured the scheduler (as in engine_bench). Reading from the page cache is CPU
// time too (the kernel's copy), so the two figures compare like with like.
double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void write_jobs(const fs::path& path, int jobs) {
  std::ofstream out(path, std::ios::binary);
  out << "# load_bench: " << jobs << " jobs\nname: load-bench-jobs\nhorizon: 30d\n"
      << "cluster:\n  node_types:\n    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 64, price: {on_demand_per_hour: 32}}\n"
      << "workload:\n  jobs:\n";
  for (int i = 0; i < jobs; ++i)
    out << "    - {name: j" << i << ", gpus: " << 1 + i % 8 << ", duration: " << 1 + i % 5 << "h, submit: " << i / 10
        << "m}\n";
}

int leaf_of(int h) { return h / HOSTS_PER_LEAF; }
int spine_of(int a, int b) {
  std::uint64_t x = (static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint64_t>(b)) * 0x9E3779B97F4A7C15ULL;
  return static_cast<int>((x >> 40) % SPINES);
}
// Link k: hosts' links first (host h: k = h), then leaf l to spine s: k = HOSTS + l * SPINES + s.
int host_link(int h) { return h; }
int uplink(int l, int s) { return HOSTS + l * SPINES + s; }

// A route as (link, forward?) hops: forward when walked from the link's first end to its second.
std::vector<std::pair<int, bool>> route(int a, int b) {
  const int la = leaf_of(a), lb = leaf_of(b);
  if (la == lb) return {{host_link(a), true}, {host_link(b), false}};
  const int s = spine_of(a, b);
  return {{host_link(a), true}, {uplink(la, s), true}, {uplink(lb, s), false}, {host_link(b), false}};
}

std::string link_name(int k) {
  if (k < HOSTS) return "h" + std::to_string(k) + "-l" + std::to_string(leaf_of(k));
  const int l = (k - HOSTS) / SPINES, s = (k - HOSTS) % SPINES;
  return "l" + std::to_string(l) + "-s" + std::to_string(s);
}

// The fabric twice: `fabric.yaml` with every link and route inline, and `fabric-csv.yaml`
// naming `links.csv` and `routes.csv` beside it (the same rows, sim/config/csv_table.hpp).
void write_fabric(const fs::path& dir) {
  std::ofstream yaml(dir / "fabric.yaml", std::ios::binary);
  std::ofstream csv_yaml(dir / "fabric-csv.yaml", std::ios::binary);
  std::ofstream links(dir / "links.csv", std::ios::binary);
  std::ofstream routes(dir / "routes.csv", std::ios::binary);
  for (std::ofstream* out : {&yaml, &csv_yaml}) {
    *out << "name: load-bench-fabric\nnetwork:\n  fabric: explicit\n  hosts: [";
    for (int h = 0; h < HOSTS; ++h) *out << (h ? ", h" : "h") << h;
    *out << "]\n";
  }
  csv_yaml << "  links: {file: links.csv}\n  routes: {file: routes.csv}\n";
  yaml << "  links:\n";
  links << "name,between,bandwidth,latency\n";
  auto link = [&](const std::string& name, const std::string& a, const std::string& b) {
    yaml << "    - {name: " << name << ", between: [" << a << ", " << b << "], bandwidth: 10Gbps, latency: 1us}\n";
    links << name << ',' << a << ';' << b << ",10Gbps,1us\n";
  };
  for (int h = 0; h < HOSTS; ++h) link(link_name(host_link(h)), "h" + std::to_string(h), "l" + std::to_string(leaf_of(h)));
  for (int l = 0; l < LEAVES; ++l)
    for (int s = 0; s < SPINES; ++s) link(link_name(uplink(l, s)), "l" + std::to_string(l), "s" + std::to_string(s));
  yaml << "  routes:\n";
  routes << "from,to,links\n";
  for (int a = 0; a < HOSTS; ++a)
    for (int b = 0; b < HOSTS; ++b) {
      if (a == b) continue;
      yaml << "    - {from: h" << a << ", to: h" << b << ", links: [";
      routes << 'h' << a << ",h" << b << ',';
      const auto hops = route(a, b);
      for (std::size_t i = 0; i < hops.size(); ++i) {
        yaml << (i ? ", " : "") << link_name(hops[i].first);
        routes << (i ? ";" : "") << link_name(hops[i].first);
      }
      yaml << "]}\n";
      routes << '\n';
    }
}

void write_flows(const fs::path& csv_path, const fs::path& txt_path, int n) {
  gcsim::sim::RngStream rng(42, 0, "load_bench");
  std::FILE* csv = std::fopen(csv_path.string().c_str(), "w");
  std::FILE* txt = std::fopen(txt_path.string().c_str(), "w");
  if (csv == nullptr || txt == nullptr) {
    std::fprintf(stderr, "load_bench: cannot write the flow files\n");
    std::exit(1);
  }
  std::fprintf(csv, "flow_id,src,dst,bytes,start\n");
  // SimGrid's input: one resource per direction of each full-duplex link (2k forward).
  std::fprintf(txt, "# links %d\n", 2 * uplink(LEAVES, 0));
  for (int r = 0; r < 2 * uplink(LEAVES, 0); ++r) std::fprintf(txt, "link,%d,%.17g,%.17g\n", r, 1.25e9, 1e-6);
  std::int64_t t_ns = 0;
  for (int i = 0; i < n; ++i) {
    t_ns += static_cast<std::int64_t>(std::llround(rng.exponential(60.0 / n) * 1e9));
    const int src = static_cast<int>(rng.uniform_int(HOSTS));
    int dst = static_cast<int>(rng.uniform_int(HOSTS - 1));
    if (dst >= src) ++dst;
    const double bytes = std::round(std::exp(rng.uniform(std::log(1e6), std::log(1e9))));
    const std::string start = std::to_string(t_ns / 1'000'000'000) + "." + [&] {
      std::string frac = std::to_string(t_ns % 1'000'000'000);
      return std::string(9 - frac.size(), '0') + frac;
    }();
    std::fprintf(csv, "%d,h%d,h%d,%.0f,%s\n", i, src, dst, bytes, start.c_str());
    std::fprintf(txt, "flow,%d,%d,%d,%.0f,%s,", i, src, dst, bytes, start.c_str());
    const auto hops = route(src, dst);
    for (std::size_t k = 0; k < hops.size(); ++k)
      std::fprintf(txt, k ? ";%d" : "%d", 2 * hops[k].first + (hops[k].second ? 0 : 1));
    std::fprintf(txt, "\n");
  }
  std::fclose(csv);
  std::fclose(txt);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) text.append(buffer, static_cast<std::size_t>(in.gcount()));
  return text;
}

struct Speeds {
  double read_s, load_s, first_load_s;
};

Speeds measure(const fs::path& path, int reps) {
  std::vector<double> read_s, load_s;
  std::size_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    double t = cpu_now();
    sink += read_bytes(path).size();
    read_s.push_back(cpu_now() - t);
    t = cpu_now();
    auto doc = std::make_unique<gcsim::config::ConfigDocument>(gcsim::config::load_yaml_file(path.string()));
    load_s.push_back(cpu_now() - t);
    sink += doc->root.entries().size();
  }
  if (sink == 0) std::printf("(nothing read)\n");
  return {median(read_s), median(load_s), load_s.front()};
}

void report(const char* what, const fs::path& path, const Speeds& s) {
  const double mb = static_cast<double>(fs::file_size(path)) / 1e6;
  std::printf("  %-12s %7.2f MB   read %8.1f MB/s   load into the config tree %7.1f MB/s   (load/read time %.1fx)\n",
              what, mb, mb / s.read_s, mb / s.load_s, s.load_s / s.read_s);
  // The first load of a process pays for fresh memory (page faults); later ones reuse the
  // heap the previous tree gave back. `gcsim run` loads once: both figures matter.
  std::printf("  %-12s first load in this process %7.1f MB/s\n", "", mb / s.first_load_s);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir;
  int jobs = 200'000, flows = 20'000, reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--jobs" && i + 1 < argc) {
      jobs = std::atoi(argv[++i]);
    } else if (a == "--flows" && i + 1 < argc) {
      flows = std::atoi(argv[++i]);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: load_bench [--dir DIR] [--jobs N] [--flows N] [--reps R]\n");
      return 2;
    }
  }
  if (dir.empty()) dir = fs::temp_directory_path() / ("gcsim-load-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_jobs(dir / "jobs.yaml", jobs);
  write_fabric(dir);
  write_flows(dir / "flows.csv", dir / "flows.txt", flows);

  std::printf("load_bench: %s, median of %d, process CPU time\n", dir.string().c_str(), reps);
  report("jobs.yaml", dir / "jobs.yaml", measure(dir / "jobs.yaml", reps));
  report("fabric.yaml", dir / "fabric.yaml", measure(dir / "fabric.yaml", reps));

  // The typed reading of the fabric (routes walked and checked), as `gcsim flows` does it;
  // for the CSV form, loading its small YAML and reading the two CSV tables included.
  {
    const auto doc = gcsim::config::load_yaml_file((dir / "fabric.yaml").string());
    const double t = cpu_now();
    gcsim::config::MapReader r(doc.root, {"name", "network"});
    const auto spec = gcsim::topology::parse_network_spec(r.required("network"));
    std::printf("  fabric.yaml  network spec read and checked in %.3f s of CPU (%zu links, %zu routes)\n",
                cpu_now() - t, spec.links.size(), spec.routes.size());
  }
  const double t = cpu_now();
  const auto doc = gcsim::config::load_yaml_file((dir / "fabric-csv.yaml").string());
  gcsim::config::MapReader r(doc.root, {"name", "network"});
  const auto spec = gcsim::topology::parse_network_spec(r.required("network"));
  std::printf("  fabric-csv.yaml  loaded, CSV tables read, network spec checked in %.3f s of CPU (%zu links, %zu routes)\n",
              cpu_now() - t, spec.links.size(), spec.routes.size());
  // The process's peak resident memory (Linux reports ru_maxrss in KiB): the largest tree
  // and its text, the reader's buffers, the generated files' writers.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("  peak resident memory of the process %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
