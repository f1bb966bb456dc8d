// Collective decompositions and their phased execution; see collectives.hpp for the
// algorithms, formulas and sources.
#include "models/network/collectives.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "sim/check.hpp"

namespace gcsim::network {

using topology::Vertex;

double busbw_efficiency(double bytes) {
  if (bytes <= 0) return PEAK_EFFICIENCY;
  return PEAK_EFFICIENCY * bytes / (bytes + HALF_SIZE_BYTES);
}

namespace {

using Steps = std::vector<std::vector<Send>>;

// `count` steps in which every rank sends `chunk` to the next rank of the ring.
void ring(const std::vector<Vertex>& ranks, int count, double chunk, Steps& out, std::size_t first_step) {
  const std::size_t n = ranks.size();
  if (n < 2) return;
  for (int k = 0; k < count; ++k) {
    const std::size_t s = first_step + static_cast<std::size_t>(k);
    if (out.size() <= s) out.resize(s + 1);
    for (std::size_t i = 0; i < n; ++i) out[s].push_back(Send{ranks[i], ranks[(i + 1) % n], chunk});
  }
}

void broadcast(std::vector<Vertex> order, double bytes, Steps& out) {
  // Pipelined chain from the root in n chunks: at step s, hop j forwards chunk s - j.
  const std::size_t n = order.size();
  if (n < 2) return;
  const double chunk = bytes / static_cast<double>(n);
  for (std::size_t s = 0; s + 2 < 2 * n; ++s) {
    std::vector<Send> step;
    for (std::size_t j = 0; j + 1 < n; ++j) {
      if (s >= j && s - j < n) step.push_back(Send{order[j], order[j + 1], chunk});
    }
    out.push_back(std::move(step));
  }
}

void double_tree(const std::vector<Vertex>& ranks, double bytes, Steps& out) {
  // Two heap-shaped binary trees, the second over the reversed rank order so that the
  // leaves of one are inner nodes of the other (the idea of NCCL's double binary tree);
  // each carries half of the data, level by level: reduce up, then broadcast down.
  const std::size_t n = ranks.size();
  if (n < 2) return;
  std::size_t depth = 0;
  while ((std::size_t{1} << (depth + 1)) - 1 < n) ++depth;  // levels below the root
  auto level_of = [](std::size_t i) {
    std::size_t l = 0;
    while (i > 0) {
      i = (i - 1) / 2;
      ++l;
    }
    return l;
  };
  auto rank_at = [&](int tree, std::size_t i) { return tree == 0 ? ranks[i] : ranks[n - 1 - i]; };
  const double half = bytes / 2;
  for (std::size_t l = depth; l >= 1; --l) {  // reduce
    std::vector<Send> step;
    for (int tree = 0; tree < 2; ++tree)
      for (std::size_t i = 1; i < n; ++i)
        if (level_of(i) == l) step.push_back(Send{rank_at(tree, i), rank_at(tree, (i - 1) / 2), half});
    out.push_back(std::move(step));
  }
  for (std::size_t l = 1; l <= depth; ++l) {  // broadcast
    std::vector<Send> step;
    for (int tree = 0; tree < 2; ++tree)
      for (std::size_t i = 1; i < n; ++i)
        if (level_of(i) == l) step.push_back(Send{rank_at(tree, (i - 1) / 2), rank_at(tree, i), half});
    out.push_back(std::move(step));
  }
}

bool hierarchical(const std::vector<Vertex>& ranks, double bytes, const topology::Topology& topo, Steps& out) {
  std::map<int, std::vector<Vertex>> by_node;
  std::vector<int> node_order;
  for (const Vertex r : ranks) {
    const int node = topo.vertex(r).node;
    if (!by_node.contains(node)) node_order.push_back(node);
    by_node[node].push_back(r);
  }
  const std::size_t g = by_node.begin()->second.size();
  for (const auto& [node, local] : by_node)
    if (local.size() != g) return false;  // uneven nodes: the caller falls back to a flat ring
  const std::size_t nodes = node_order.size();
  const int intra = static_cast<int>(g) - 1;
  // Phase 1: reduce-scatter inside every node (all nodes in the same steps).
  for (const int node : node_order) ring(by_node[node], intra, bytes / static_cast<double>(g), out, 0);
  // Phase 2: ring all-reduce of each S/g shard among the ranks with the same local index.
  const std::size_t base = static_cast<std::size_t>(intra);
  for (std::size_t j = 0; j < g; ++j) {
    std::vector<Vertex> peers;
    for (const int node : node_order) peers.push_back(by_node[node][j]);
    ring(peers, 2 * (static_cast<int>(nodes) - 1), bytes / static_cast<double>(g * nodes), out, base);
  }
  // Phase 3: all-gather inside every node.
  const std::size_t base3 = base + (nodes > 1 ? 2 * (nodes - 1) : 0);
  for (const int node : node_order) ring(by_node[node], intra, bytes / static_cast<double>(g), out, base3);
  return true;
}

}  // namespace

std::vector<std::vector<Send>> decompose(const CollectiveSpec& spec, const topology::Topology& topo) {
  Steps steps;
  const std::vector<Vertex>& r = spec.ranks;
  const auto n = static_cast<int>(r.size());
  const double s = spec.bytes;
  switch (spec.kind) {
    case Collective::AllReduce:
      if (spec.algorithm == CollectiveAlgorithm::Tree) {
        double_tree(r, s, steps);
      } else if (spec.algorithm == CollectiveAlgorithm::HierarchicalRing && n > 1 && hierarchical(r, s, topo, steps)) {
        // done
      } else {
        ring(r, 2 * (n - 1), s / n, steps, 0);
      }
      break;
    case Collective::ReduceScatter:
    case Collective::AllGather:
      ring(r, n - 1, s / n, steps, 0);
      break;
    case Collective::Broadcast: {
      std::vector<Vertex> order;
      for (int i = 0; i < n; ++i) order.push_back(r[static_cast<std::size_t>((spec.root + i) % n)]);
      broadcast(order, s, steps);
      break;
    }
    case Collective::AllToAll: {
      std::vector<Send> step;
      for (const Vertex a : r)
        for (const Vertex b : r)
          if (a != b) step.push_back(Send{a, b, s / n});
      if (!step.empty()) steps.push_back(std::move(step));
      break;
    }
    case Collective::PointToPoint:
      GCSIM_CHECK(n >= 2, "a point-to-point collective needs 2 ranks, got " + std::to_string(n));
      steps.push_back({Send{r[0], r[1], s}});
      break;
  }
  std::erase_if(steps, [](const std::vector<Send>& st) { return st.empty(); });
  if (spec.calibrated) {
    const double scale = 1.0 / busbw_efficiency(s);
    for (auto& st : steps)
      for (Send& x : st) x.bytes *= scale;
  }
  return steps;
}

std::uint32_t CollectiveRunner::take_run() {
  if (!free_runs_.empty()) {
    const std::uint32_t id = free_runs_.back();
    free_runs_.pop_back();
    return id;
  }
  runs_.emplace_back();
  return static_cast<std::uint32_t>(runs_.size() - 1);
}

std::uint32_t CollectiveRunner::start(const CollectiveSpec& spec, std::uint64_t tag, DoneFn fn, void* context) {
  const std::uint32_t id = take_run();
  runs_[id].steps = decompose(spec, topo_);
  launch(id, tag, fn, context);
  return id;
}

std::uint32_t CollectiveRunner::start(const std::vector<std::vector<Send>>& steps, std::uint64_t tag, DoneFn fn,
                                      void* context) {
  const std::uint32_t id = take_run();
  runs_[id].steps = steps;
  launch(id, tag, fn, context);
  return id;
}

void CollectiveRunner::launch(std::uint32_t id, std::uint64_t tag, DoneFn fn, void* context) {
  Run& run = runs_[id];
  run.step = 0;
  run.tag = tag;
  run.fn = fn;
  run.context = context;
  run.live = true;
  ++running_;
  if (run.steps.empty()) {
    // Nothing to send (one rank): done now.
    run.live = false;
    free_runs_.push_back(id);
    --running_;
    if (fn != nullptr) fn(context, tag, engine_.now());
    return;
  }
  start_step(id);
}

void CollectiveRunner::cancel(std::uint32_t id) {
  Run& run = runs_[id];
  if (!run.live) return;
  for (const FlowId f : run.flows) net_.cancel_flow(f);
  run.flows.clear();
  run.live = false;
  free_runs_.push_back(id);
  --running_;
}

void CollectiveRunner::start_step(std::uint32_t id) {
  Run& run = runs_[id];
  const auto& sends = run.steps[run.step];
  run.pending = sends.size();
  run.flows.clear();
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const std::uint64_t hash = collective_flow_hash(run.tag, run.step, i);
    // The flow's tag carries the run slot (low 32 bits, what on_flow_done needs) and the
    // collective's own tag (high bits), so flow observers can tell whose traffic it is.
    const std::uint64_t flow_tag = std::uint64_t{id} | (run.tag << 32);
    run.flows.push_back(net_.start_flow(topo_.route(sends[i].src, sends[i].dst, hash), sends[i].bytes, flow_tag,
                                        FlowCallback{&on_flow_done, this}));
  }
}

void CollectiveRunner::on_flow_done(void* context, const FlowDone& done) {
  auto* self = static_cast<CollectiveRunner*>(context);
  const auto id = static_cast<std::uint32_t>(done.tag);
  Run& run = self->runs_[id];
  if (!run.live) return;  // cancelled
  if (--run.pending > 0) return;
  if (++run.step < run.steps.size()) {
    self->start_step(id);
    return;
  }
  run.live = false;
  self->free_runs_.push_back(id);
  --self->running_;
  if (run.fn != nullptr) run.fn(run.context, run.tag, done.finish);
}

}  // namespace gcsim::network
