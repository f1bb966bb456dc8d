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
  link_local_.push_back(0);
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
  flow.solved = false;
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
  // A flow never solved took no part in the old sharing: its removal sets no threshold.
  if (flow.solved) removed_min_rate_ = std::min(removed_min_rate_, flow.rate);
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
  flow.solved = false;
  flow.rate = 0;
  free_flows_.push_back(f);
  --active_count_;
}

void MaxMinSolver::collect_component(LinkId seed) {
  // Also sets each reached link's residual capacity (c_l less the rates that are kept)
  // and its count of crossings to refill, in the one pass over its entries.
  comp_links_.clear();
  comp_flows_.clear();
  stack_.clear();
  link_seen_epoch_[seed] = epoch_;
  stack_.push_back(seed);
  while (!stack_.empty()) {
    const LinkId l = stack_.back();
    stack_.pop_back();
    double free = links_[l].capacity;
    std::uint32_t open = 0;
    for (const Entry& e : links_[l].entries) {
      const Flow& g = flows_[e.flow];
      if (flow_seen_epoch_[e.flow] != epoch_) {
        if (g.solved && g.rate < keep_below_) {  // keeps its rate; see maxmin.hpp
          free -= g.rate;
          continue;
        }
        flow_seen_epoch_[e.flow] = epoch_;
        comp_flows_.push_back(e.flow);
        for (const LinkId m : g.links) {
          if (link_seen_epoch_[m] != epoch_) {
            link_seen_epoch_[m] = epoch_;
            stack_.push_back(m);
          }
        }
      }
      ++open;
    }
    if (open == 0) continue;  // only the seed can be left with no flow to refill
    link_free_[l] = std::max(0.0, free);
    link_open_[l] = open;
    comp_links_.push_back(l);
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
  if (comp_links_.size() <= SCAN_MAX_LINKS) {
    fill_scan();
  } else {
    fill_heap();
  }
}

void MaxMinSolver::freeze_at(LinkId l, double share, std::size_t& unfrozen) {
  for (const Entry& e : links_[l].entries) {
    // Skip flows already frozen, and flows outside the refill (they keep their rate).
    if (flow_frozen_epoch_[e.flow] == epoch_ || flow_seen_epoch_[e.flow] != epoch_) continue;
    flow_frozen_epoch_[e.flow] = epoch_;
    --unfrozen;
    Flow& flow = flows_[e.flow];
    flow.rate = share;
    flow.solved = true;
    for (const LinkId m : flow.links) {
      link_free_[m] -= share;
      --link_open_[m];
      ++link_version_[m];
    }
  }
}

void MaxMinSolver::fill_scan() {
  // Small components (the common case: a partial refill touches a few dozen to a few
  // hundred links): a linear argmin over a dense array of shares per bottleneck beats a
  // heap, whose sifts are unpredictable branches. A link whose flows are all frozen leaves
  // the array (swap with the last), so the scans shrink as the filling goes. Ties go to
  // the lower link id, as in fill_heap, so the order in the array does not matter.
  std::size_t n = comp_links_.size();
  scan_share_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const LinkId l = comp_links_[i];
    link_local_[l] = static_cast<std::uint32_t>(i);
    scan_share_[i] = link_free_[l] / link_open_[l];
  }
  double level = 0;
  std::size_t unfrozen = comp_flows_.size();
  while (unfrozen > 0 && n > 0) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i) {
      const double s = scan_share_[i];
      if (s < scan_share_[best] || (s == scan_share_[best] && comp_links_[i] < comp_links_[best])) best = i;
    }
    const LinkId bottleneck = comp_links_[best];
    const double share = std::max(level, scan_share_[best]);
    level = share;
    for (const Entry& e : links_[bottleneck].entries) {
      if (flow_frozen_epoch_[e.flow] == epoch_ || flow_seen_epoch_[e.flow] != epoch_) continue;
      flow_frozen_epoch_[e.flow] = epoch_;
      --unfrozen;
      Flow& flow = flows_[e.flow];
      flow.rate = share;
      flow.solved = true;
      for (const LinkId m : flow.links) {
        link_free_[m] -= share;
        const std::uint32_t open = --link_open_[m];
        const std::uint32_t i = link_local_[m];
        if (open > 0) {
          scan_share_[i] = link_free_[m] / open;
        } else {
          --n;
          scan_share_[i] = scan_share_[n];
          comp_links_[i] = comp_links_[n];
          link_local_[comp_links_[i]] = i;
        }
      }
    }
  }
}

void MaxMinSolver::fill_heap() {
  // Every link with unfrozen flows sits in the heap exactly once. Freezing flows at level
  // s only raises the other links' shares ((c - k s)/(n - k) >= c/n when c/n >= s), so a
  // key in the heap is a lower bound of its link's share: a popped link whose version
  // moved is re-keyed and pushed back instead of being pushed on every change.
  heap_.clear();
  for (const LinkId l : comp_links_) {
    ++link_version_[l];
    heap_.push_back(HeapItem{link_free_[l] / link_open_[l], l, link_version_[l]});
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
    freeze_at(l, share, unfrozen);
  }
}

double MaxMinSolver::refill_threshold() {
  double theta = removed_min_rate_;
  for (const LinkId l : dirty_links_) {
    // y_l: water-fill the link with its old flows at their old rates and the new ones
    // rising together.
    rates_scratch_.clear();
    std::uint32_t fresh = 0;
    for (const Entry& e : links_[l].entries) {
      const Flow& g = flows_[e.flow];
      if (g.solved) {
        rates_scratch_.push_back(g.rate);
      } else {
        ++fresh;
      }
    }
    if (fresh == 0) continue;
    std::sort(rates_scratch_.begin(), rates_scratch_.end());
    double free = links_[l].capacity;
    std::size_t rising = rates_scratch_.size() + fresh;
    double y = -1;
    for (const double r : rates_scratch_) {
      const double share = free / static_cast<double>(rising);
      if (share <= r) {
        y = share;
        break;
      }
      free -= r;
      --rising;
    }
    if (y < 0) y = std::max(0.0, free) / static_cast<double>(fresh);
    theta = std::min(theta, y);
  }
  return theta;
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
  keep_below_ = full_refill_ ? -1.0 : refill_threshold() * (1.0 - 1e-9);
  full_refill_ = false;
  removed_min_rate_ = std::numeric_limits<double>::infinity();
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
  full_refill_ = true;
  return solve();
}

}  // namespace gcsim::network
