// The flow-level network benchmark (docs/network.md, "Benchmark"): 20,000 flows between uniformly random
// distinct hosts of a two-level fat tree (16 leaves x 16 hosts, 4 spines, every leaf
// linked once to every spine: 4:1 oversubscribed), all links 10 Gb/s per direction and
// 1 us, sizes log-uniform in [1 MB, 1 GB], Poisson arrivals over 60 s, fixed seed.
// Reports wall time, peak RSS, rate recomputations per second, flows per second and a
// checksum of the finish times.
//
//   network_bench [--flows N] [--seed S] [--write-flows FILE] [--write-finish FILE]
//
// --write-flows writes the generated flows with their link paths (the input of
// bench/simgrid_reference); --write-finish writes flow_id,finish (%.17g seconds).
// ECMP is hashed per (src, dst) pair, as one long-lived connection per pair would be, so
// that a reference simulator with one route per pair sees the same paths.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"
#include "sim/rng.hpp"

namespace {

using gcsim::network::FlowDone;
using gcsim::network::FlowNetwork;
using gcsim::network::LinkId;
using gcsim::sim::SimTime;

struct Flow {
  std::uint32_t src, dst;
  double bytes;
  SimTime start;
  std::span<const LinkId> path;
  SimTime finish;
};

struct Driver {
  FlowNetwork* net;
  std::vector<Flow>* flows;
  void start(std::uint64_t i) {
    const Flow& f = (*flows)[i];
    net->start_flow(f.path, f.bytes, i);
  }
};

double elapsed_s(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n_flows = 20'000;
  std::uint64_t seed = 42;
  std::string write_flows, write_finish;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--flows" && i + 1 < argc) {
      n_flows = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--write-flows" && i + 1 < argc) {
      write_flows = argv[++i];
    } else if (a == "--write-finish" && i + 1 < argc) {
      write_finish = argv[++i];
    } else {
      std::fprintf(stderr, "usage: network_bench [--flows N] [--seed S] [--write-flows FILE] [--write-finish FILE]\n");
      return 2;
    }
  }

  const auto t_setup = std::chrono::steady_clock::now();
  gcsim::topology::NetworkSpec spec;
  spec.fabric = gcsim::topology::Fabric::LeafSpine;
  spec.nodes_per_leaf = 16;
  spec.leaves = 16;
  spec.spines = 4;
  spec.link.bytes_per_s = 10e9 / 8;
  spec.link.latency = SimTime::from_ns(1000);
  spec.host_count = 256;
  const gcsim::topology::Topology topo = gcsim::topology::build_host_topology(spec);
  const auto& hosts = topo.hosts();

  gcsim::sim::RngStream rng(seed, 0, "network_bench");
  std::vector<Flow> flows(n_flows);
  const double log_lo = std::log(1e6), log_hi = std::log(1e9);
  const double mean_gap_s = 60.0 / static_cast<double>(n_flows);
  double t = 0;
  for (Flow& f : flows) {
    t += rng.exponential(mean_gap_s);
    f.src = static_cast<std::uint32_t>(rng.uniform_int(hosts.size()));
    f.dst = static_cast<std::uint32_t>(rng.uniform_int(hosts.size() - 1));
    if (f.dst >= f.src) ++f.dst;
    f.bytes = std::round(std::exp(rng.uniform(log_lo, log_hi)));
    f.start = SimTime::from_seconds(t);
    f.path = topo.route(hosts[f.src], hosts[f.dst], (static_cast<std::uint64_t>(f.src) << 32) | f.dst);
  }

  gcsim::sim::Engine engine;
  FlowNetwork net(engine);
  net.add_links(topo);
  engine.add_resource_model(&net);
  net.finished.connect([&flows](const FlowDone& d) { flows[d.tag].finish = d.finish; });
  Driver driver{&net, &flows};
  engine.reserve(n_flows);
  for (std::size_t i = 0; i < n_flows; ++i) engine.schedule_at<&Driver::start>(flows[i].start, &driver, i);
  const double setup_s = elapsed_s(t_setup);

  const auto t_run = std::chrono::steady_clock::now();
  engine.run();
  const double run_s = elapsed_s(t_run);

  double sum_finish = 0, max_finish = 0;
  std::uint64_t hash = 1469598103934665603ULL;
  for (const Flow& f : flows) {
    sum_finish += f.finish.seconds();
    max_finish = std::max(max_finish, f.finish.seconds());
    hash = (hash ^ static_cast<std::uint64_t>(f.finish.ns())) * 1099511628211ULL;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);

  std::printf("network_bench: %zu flows, 256 hosts, leaf-spine 16x16, 4 spines, 10 Gb/s links, seed %llu\n", n_flows,
              static_cast<unsigned long long>(seed));
  std::printf("  setup (topology, flows)   %.3f s\n", setup_s);
  std::printf("  run wall time             %.3f s\n", run_s);
  std::printf("  peak RSS                  %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::printf("  rate recomputations       %llu (%.0f /s), %.1f flows each on average\n",
              static_cast<unsigned long long>(net.recomputations()), static_cast<double>(net.recomputations()) / run_s,
              static_cast<double>(net.flows_recomputed()) / static_cast<double>(std::max<std::uint64_t>(1, net.recomputations())));
  std::printf("  flows per second          %.0f\n", static_cast<double>(n_flows) / run_s);
  std::printf("  simulated makespan        %.9f s\n", max_finish);
  std::printf("  checksum                  sum(finish) = %.9f s, fnv(finish ns) = %016llx\n", sum_finish,
              static_cast<unsigned long long>(hash));

  if (!write_flows.empty()) {
    FILE* out = std::fopen(write_flows.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", write_flows.c_str());
      return 1;
    }
    // Links first (id, bytes/s, latency s), then flows with their paths.
    std::fprintf(out, "# links %zu\n", topo.links().size());
    for (std::size_t l = 0; l < topo.links().size(); ++l)
      std::fprintf(out, "link,%zu,%.17g,%.17g\n", l, topo.links()[l].bytes_per_s, topo.links()[l].latency.seconds());
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Flow& f = flows[i];
      std::fprintf(out, "flow,%zu,%u,%u,%.17g,%.17g,", i, f.src, f.dst, f.bytes, f.start.seconds());
      for (std::size_t k = 0; k < f.path.size(); ++k) std::fprintf(out, k ? ";%u" : "%u", f.path[k]);
      std::fprintf(out, "\n");
    }
    std::fclose(out);
  }
  if (!write_finish.empty()) {
    FILE* out = std::fopen(write_finish.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", write_finish.c_str());
      return 1;
    }
    std::fprintf(out, "flow_id,finish\n");
    for (std::size_t i = 0; i < flows.size(); ++i) std::fprintf(out, "%zu,%.17g\n", i, flows[i].finish.seconds());
    std::fclose(out);
  }
  return 0;
}
