// SimGrid reference for bench/network_bench: replays the flow list that
// `network_bench --write-flows FILE` writes (links with capacities and latencies, flows
// with start times and link paths) on SimGrid's S4U, and reports the wall time of the
// simulation and, given our finish times, the largest differences.
//
//   simgrid_flows FLOWS.txt [OUR_FINISH.csv [SIMGRID_FINISH.csv]] [--cfg=...]
//
// Run it with a pure max-min network model (see docs/network.md, "SimGrid reference"):
//   --cfg=network/model:CM02 --cfg=network/latency-factor:1 --cfg=network/bandwidth-factor:1
//   --cfg=network/weight-S:0 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0
// Every (src, dst) pair gets the one route network_bench used for it (its ECMP choice is
// hashed per pair), as a one-way route of a full zone.
//
// Latency: CM02 gives each flow a sharing penalty equal to its route's latency (TCP's RTT
// unfairness: a flow with twice the RTT gets half the share), even with weight-S = 0, so
// links with latency do not give max-min fair shares. Our model is "wait the path
// latency, then share max-min fairly"; the exact SimGrid equivalent is zero-latency links
// and each flow started at start + its path latency, which is what this program does.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct FlowRow {
  int src, dst;
  double bytes, start;
  std::vector<int> path;
  sg4::CommPtr comm;
};

std::vector<FlowRow> g_flows;
std::vector<sg4::Host*> g_hosts;

void launcher() {
  std::vector<std::size_t> order(g_flows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [](std::size_t a, std::size_t b) { return g_flows[a].start < g_flows[b].start; });
  std::vector<sg4::CommPtr> comms;
  for (const std::size_t i : order) {
    FlowRow& f = g_flows[i];
    if (f.start > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(f.start);
    f.comm = sg4::Comm::sendto_async(g_hosts[f.src], g_hosts[f.dst], static_cast<uint64_t>(f.bytes));
    comms.push_back(f.comm);
  }
  sg4::Comm::wait_all(comms);
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine e(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: simgrid_flows FLOWS.txt [OUR_FINISH.csv] [--cfg=...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::string line;
  std::vector<std::pair<double, double>> links;  // bandwidth, latency
  int max_host = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string kind, field;
    std::getline(ss, kind, ',');
    if (kind == "link") {
      std::getline(ss, field, ',');
      std::string bw, lat;
      std::getline(ss, bw, ',');
      std::getline(ss, lat, ',');
      links.emplace_back(std::stod(bw), std::stod(lat));
    } else if (kind == "flow") {
      FlowRow f;
      std::getline(ss, field, ',');
      std::getline(ss, field, ',');
      f.src = std::stoi(field);
      std::getline(ss, field, ',');
      f.dst = std::stoi(field);
      std::getline(ss, field, ',');
      f.bytes = std::stod(field);
      std::getline(ss, field, ',');
      f.start = std::stod(field);
      std::getline(ss, field, ',');
      std::stringstream ps(field);
      std::string id;
      while (std::getline(ps, id, ';')) f.path.push_back(std::stoi(id));
      max_host = std::max({max_host, f.src, f.dst});
      g_flows.push_back(std::move(f));
    }
  }

  // Latency phase outside SimGrid (see the header): shift each start by its path latency.
  for (FlowRow& f : g_flows) {
    double latency = 0;
    for (const int l : f.path) latency += links[static_cast<std::size_t>(l)].second;
    f.start += latency;
  }
  const auto t_setup = std::chrono::steady_clock::now();
  auto* zone = sg4::create_full_zone("fabric");
  for (int h = 0; h <= max_host; ++h) g_hosts.push_back(zone->create_host("h" + std::to_string(h), 1e9));
  std::vector<sg4::Link*> sg_links;
  for (std::size_t l = 0; l < links.size(); ++l)
    sg_links.push_back(zone->create_link("l" + std::to_string(l), links[l].first)->set_latency(0)->seal());
  std::map<std::pair<int, int>, const std::vector<int>*> routes;
  for (const FlowRow& f : g_flows) {
    const auto [it, fresh] = routes.emplace(std::make_pair(f.src, f.dst), &f.path);
    if (!fresh && *it->second != f.path) {
      std::fprintf(stderr, "pair %d->%d has two different paths: not representable here\n", f.src, f.dst);
      return 1;
    }
  }
  for (const auto& [pair, path] : routes) {
    std::vector<sg4::LinkInRoute> list;
    for (const int l : *path) list.emplace_back(sg_links[static_cast<std::size_t>(l)]);
    zone->add_route(g_hosts[pair.first]->get_netpoint(), g_hosts[pair.second]->get_netpoint(), nullptr, nullptr, list, false);
  }
  zone->seal();
  sg4::Actor::create("launcher", g_hosts[0], launcher);
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();

  const auto t_run = std::chrono::steady_clock::now();
  e.run();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_run).count();

  double sum = 0, makespan = 0;
  for (const FlowRow& f : g_flows) {
    sum += f.comm->get_finish_time();
    makespan = std::max(makespan, f.comm->get_finish_time());
  }
  std::printf("simgrid_flows: %zu flows, %zu links, %zu routes\n", g_flows.size(), links.size(), routes.size());
  std::printf("  setup %.3f s, run wall time %.3f s\n", setup_s, run_s);
  std::printf("  makespan %.9f s, sum(finish) %.9f s\n", makespan, sum);

  if (argc >= 4) {
    std::FILE* out = std::fopen(argv[3], "w");
    if (out == nullptr) return 1;
    std::fprintf(out, "flow_id,finish\n");
    for (std::size_t i = 0; i < g_flows.size(); ++i) std::fprintf(out, "%zu,%.17g\n", i, g_flows[i].comm->get_finish_time());
    std::fclose(out);
  }
  if (argc >= 3) {
    std::ifstream ours(argv[2]);
    std::getline(ours, line);  // header
    double max_rel_finish = 0, max_rel_duration = 0, max_abs = 0;
    std::size_t i = 0, worst = 0;
    while (std::getline(ours, line) && i < g_flows.size()) {
      const double our = std::stod(line.substr(line.find(',') + 1));
      const double theirs = g_flows[i].comm->get_finish_time();
      const double diff = std::fabs(our - theirs);
      if (diff > max_abs) worst = i;
      max_abs = std::max(max_abs, diff);
      max_rel_finish = std::max(max_rel_finish, diff / theirs);
      max_rel_duration = std::max(max_rel_duration, diff / (theirs - g_flows[i].start));  // start incl. latency
      ++i;
    }
    std::printf("  vs ours (%zu flows): max |diff| %.3g s (flow %zu), max rel. diff of finish %.3g, of duration %.3g\n", i,
                max_abs, worst, max_rel_finish, max_rel_duration);
  }
  return 0;
}
