// Max-min fair sharing by progressive filling; see maxmin.hpp for the model and sources.
#include "models/network/maxmin.hpp"

#include <algorithm>
#include <cassert>

namespace gcsim::network {

namespace {
// Min-heap on share; ties broken by link id so results never depend on heap history.
bool heap_after(double a_share, LinkId a_link, double b_share, LinkId b_link) {
  return a_share > b_share || (a_share == b_share && a_link > b_link);
}
}  // namespace

LinkId MaxMinSolver::add_link(double capacity_bytes_per_s) {
  assert(capacity_bytes_per_s > 0);
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{capacity_bytes_per_s, {}});
  link_seen_epoch_.push_back(0);
  link_dirty_epoch_.push_back(0);
  link_free_.push_back(0);
  link_open_.push_back(0);
  link_version_.push_back(0);
  return id;
}

void MaxMinSolver::mark_dirty(LinkId l) {
  // link_dirty_epoch_ == epoch_ + 1 means "dirty for the next solve".
  if (link_dirty_epoch_[l] != epoch_ + 1) {
    link_dirty_epoch_[l] = epoch_ + 1;
    dirty_links_.push_back(l);
  }
}

SolverFlow MaxMinSolver::add_flow(std::span<const LinkId> path) {
  assert(!path.empty());
  SolverFlow f;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<SolverFlow>(flows_.size());
    flows_.emplace_back();
    flow_seen_epoch_.push_back(0);
    flow_frozen_epoch_.push_back(0);
  }
  Flow& flow = flows_[f];
  flow.links.assign(path.begin(), path.end());
  flow.pos.resize(path.size());
  flow.rate = 0;
  flow.active = true;
  for (std::uint32_t i = 0; i < path.size(); ++i) {
    const LinkId l = path[i];
    assert(l < links_.size());
    auto& entries = links_[l].entries;
    flow.pos[i] = static_cast<std::uint32_t>(entries.size());
    entries.push_back(Entry{f, i});
    mark_dirty(l);
  }
  ++active_count_;
  return f;
}

void MaxMinSolver::remove_flow(SolverFlow f) {
  assert(is_active(f));
  Flow& flow = flows_[f];
  for (std::uint32_t i = 0; i < flow.links.size(); ++i) {
    const LinkId l = flow.links[i];
    auto& entries = links_[l].entries;
    const std::uint32_t p = flow.pos[i];
    const Entry moved = entries.back();
    entries[p] = moved;
    flows_[moved.flow].pos[moved.index_in_flow] = p;
    entries.pop_back();
    mark_dirty(l);
  }
  flow.active = false;
  flow.rate = 0;
  free_flows_.push_back(f);
  --active_count_;
}

void MaxMinSolver::collect_component(LinkId seed) {
  comp_links_.clear();
  comp_flows_.clear();
  stack_.clear();
  link_seen_epoch_[seed] = epoch_;
  stack_.push_back(seed);
  while (!stack_.empty()) {
    const LinkId l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (const Entry& e : links_[l].entries) {
      if (flow_seen_epoch_[e.flow] == epoch_) continue;
      flow_seen_epoch_[e.flow] = epoch_;
      comp_flows_.push_back(e.flow);
      for (const LinkId m : flows_[e.flow].links) {
        if (link_seen_epoch_[m] != epoch_) {
          link_seen_epoch_[m] = epoch_;
          stack_.push_back(m);
        }
      }
    }
  }
}

void MaxMinSolver::heap_push(const HeapItem& item) {
  heap_.push_back(item);
  std::push_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) {
    return heap_after(a.share, a.link, b.share, b.link);
  });
}

void MaxMinSolver::heap_pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) {
    return heap_after(a.share, a.link, b.share, b.link);
  });
  heap_.pop_back();
}

void MaxMinSolver::fill_component() {
  // Every link with unfrozen flows sits in the heap exactly once. Freezing flows at level
  // s only raises the other links' shares ((c - k s)/(n - k) >= c/n when c/n >= s), so a
  // key in the heap is a lower bound of its link's share: a popped link whose version
  // moved is re-keyed and pushed back instead of being pushed on every change.
  heap_.clear();
  for (const LinkId l : comp_links_) {
    link_free_[l] = links_[l].capacity;
    link_open_[l] = static_cast<std::uint32_t>(links_[l].entries.size());
    ++link_version_[l];
    if (link_open_[l] > 0) heap_.push_back(HeapItem{link_free_[l] / link_open_[l], l, link_version_[l]});
  }
  std::make_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) {
    return heap_after(a.share, a.link, b.share, b.link);
  });
  // Shares are non-decreasing from one bottleneck to the next; clamping at the last level
  // keeps rounding from ever producing a smaller (or negative) share. Stop as soon as
  // every flow is frozen: the links left in the heap decide nothing.
  double level = 0;
  std::size_t unfrozen = comp_flows_.size();
  while (unfrozen > 0 && !heap_.empty()) {
    const HeapItem top = heap_.front();
    heap_pop();
    const LinkId l = top.link;
    if (link_open_[l] == 0) continue;
    const double share = std::max(level, link_free_[l] / link_open_[l]);
    if (top.version != link_version_[l] && share > top.share) {
      heap_push(HeapItem{share, l, link_version_[l]});
      continue;
    }
    level = share;
    for (const Entry& e : links_[l].entries) {
      if (flow_frozen_epoch_[e.flow] == epoch_) continue;
      flow_frozen_epoch_[e.flow] = epoch_;
      --unfrozen;
      Flow& flow = flows_[e.flow];
      flow.rate = share;
      for (const LinkId m : flow.links) {
        link_free_[m] -= share;
        --link_open_[m];
        ++link_version_[m];
      }
    }
  }
}

std::span<const SolverFlow> MaxMinSolver::solve() {
  touched_.clear();
  if (dirty_links_.empty()) return touched_;
  ++epoch_;
  if (epoch_ >= UINT32_MAX - 1) {
    // Wrap-around (after ~4e9 solves): reset every stamp; dirty_links_ is already listed.
    std::fill(link_seen_epoch_.begin(), link_seen_epoch_.end(), 0);
    std::fill(link_dirty_epoch_.begin(), link_dirty_epoch_.end(), 0);
    std::fill(flow_seen_epoch_.begin(), flow_seen_epoch_.end(), 0);
    std::fill(flow_frozen_epoch_.begin(), flow_frozen_epoch_.end(), 0);
    epoch_ = 1;
  }
  ++recomputations_;
  for (const LinkId seed : dirty_links_) {
    if (link_seen_epoch_[seed] == epoch_) continue;
    collect_component(seed);
    fill_component();
    touched_.insert(touched_.end(), comp_flows_.begin(), comp_flows_.end());
  }
  flows_recomputed_ += touched_.size();
  dirty_links_.clear();
  // Dirty marks were stamped epoch_ (the old epoch_ + 1); the next marks use epoch_ + 1.
  return touched_;
}

std::span<const SolverFlow> MaxMinSolver::solve_all() {
  for (LinkId l = 0; l < links_.size(); ++l) mark_dirty(l);
  return solve();
}

}  // namespace gcsim::network
