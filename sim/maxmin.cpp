// Weighted, capped max-min fair sharing by progressive filling; see maxmin.hpp for the
// model and sources.
#include "sim/maxmin.hpp"

#include <algorithm>
#include <string>

#include "sim/check.hpp"

namespace gcsim::sim {

namespace {
// Min-heap on share; ties broken by link id so results never depend on heap history.
bool heap_after(double a_share, ResourceId a_link, double b_share, ResourceId b_link) {
  return a_share > b_share || (a_share == b_share && a_link > b_link);
}
}  // namespace

ResourceId MaxMinSolver::add_resource(double capacity) {
  GCSIM_CHECK(capacity > 0, "a link's capacity must be positive, got " + std::to_string(capacity));
  const auto id = static_cast<ResourceId>(links_.size());
  links_.push_back(Link{capacity, {}});
  link_seen_epoch_.push_back(0);
  link_dirty_epoch_.push_back(0);
  link_free_.push_back(0);
  link_weight_.push_back(0);
  link_open_.push_back(0);
  link_version_.push_back(0);
  link_local_.push_back(0);
  return id;
}

void MaxMinSolver::mark_dirty(ResourceId l) {
  // link_dirty_epoch_ == epoch_ + 1 means "dirty for the next solve".
  if (link_dirty_epoch_[l] != epoch_ + 1) {
    link_dirty_epoch_[l] = epoch_ + 1;
    dirty_links_.push_back(l);
  }
}

SolverFlow MaxMinSolver::add_flow(std::span<const ResourceId> path, double weight, double cap) {
  GCSIM_CHECK(!path.empty() && weight > 0 && cap > 0, "a flow needs a path, a positive weight and a positive cap");
  SolverFlow f;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<SolverFlow>(flows_.size());
    flows_.emplace_back();
    flow_pos_.emplace_back();
    flow_weight_.push_back(1.0);
    flow_cap_.push_back(NO_CAP);
    flow_seen_epoch_.push_back(0);
    flow_frozen_epoch_.push_back(0);
  }
  Flow& flow = flows_[f];
  flow.links.assign(path.begin(), path.end());
  std::vector<std::uint32_t>& pos = flow_pos_[f];
  pos.resize(path.size());
  flow_weight_[f] = weight;
  flow_cap_[f] = cap;
  shaped_count_ += is_shaped(weight, cap);
  flow.rate = 0;
  flow.level = 0;
  flow.active = true;
  flow.solved = false;
  for (std::uint32_t i = 0; i < path.size(); ++i) {
    const ResourceId l = path[i];
    GCSIM_CHECK(l < links_.size(), "flow path names link " + std::to_string(l) + " of " + std::to_string(links_.size()));
    auto& entries = links_[l].entries;
    pos[i] = static_cast<std::uint32_t>(entries.size());
    entries.push_back(Entry{f, i});
    mark_dirty(l);
  }
  ++active_count_;
  return f;
}

void MaxMinSolver::forget(SolverFlow f) {
  // A flow never solved took no part in the old sharing: its leaving sets no threshold.
  Flow& flow = flows_[f];
  if (flow.solved) removed_min_level_ = std::min(removed_min_level_, flow.level);
  flow.solved = false;
}

void MaxMinSolver::set_cap(SolverFlow f, double cap) {
  GCSIM_CHECK(is_active(f) && cap > 0, "set_cap on flow " + std::to_string(f) + " (inactive, or cap not positive)");
  Flow& flow = flows_[f];
  if (cap == flow_cap_[f]) return;
  // As a removal and an arrival on the same path: the old level bounds what stays.
  forget(f);
  shaped_count_ -= is_shaped(flow_weight_[f], flow_cap_[f]);
  flow_cap_[f] = cap;
  shaped_count_ += is_shaped(flow_weight_[f], cap);
  for (const ResourceId l : flow.links) mark_dirty(l);
}

void MaxMinSolver::remove_flow(SolverFlow f) {
  GCSIM_CHECK(is_active(f), "remove_flow on inactive flow " + std::to_string(f));
  forget(f);
  Flow& flow = flows_[f];
  shaped_count_ -= is_shaped(flow_weight_[f], flow_cap_[f]);
  for (std::uint32_t i = 0; i < flow.links.size(); ++i) {
    const ResourceId l = flow.links[i];
    auto& entries = links_[l].entries;
    const std::uint32_t p = flow_pos_[f][i];
    const Entry moved = entries.back();
    entries[p] = moved;
    flow_pos_[moved.flow][moved.index_in_flow] = p;
    entries.pop_back();
    mark_dirty(l);
  }
  flow.active = false;
  flow.rate = 0;
  free_flows_.push_back(f);
  --active_count_;
}

template <bool Shaped>
void MaxMinSolver::collect_component(ResourceId seed) {
  // Also sets each reached link's residual capacity (c_l less the rates that are kept),
  // its count and weight of crossings to refill, in the one pass over its entries.
  comp_links_.clear();
  comp_flows_.clear();
  capped_.clear();
  stack_.clear();
  link_seen_epoch_[seed] = epoch_;
  stack_.push_back(seed);
  while (!stack_.empty()) {
    const ResourceId l = stack_.back();
    stack_.pop_back();
    double free = links_[l].capacity;
    double weight = 0;
    std::uint32_t open = 0;
    for (const Entry& e : links_[l].entries) {
      const Flow& g = flows_[e.flow];
      if (flow_seen_epoch_[e.flow] != epoch_) {
        if (g.solved && g.level < keep_below_) {  // keeps its rate; see maxmin.hpp
          free -= g.rate;
          continue;
        }
        flow_seen_epoch_[e.flow] = epoch_;
        comp_flows_.push_back(e.flow);
        if constexpr (Shaped) {
          if (flow_cap_[e.flow] != NO_CAP) capped_.push_back(e.flow);
        }
        for (const ResourceId m : g.links) {
          if (link_seen_epoch_[m] != epoch_) {
            link_seen_epoch_[m] = epoch_;
            stack_.push_back(m);
          }
        }
      }
      if constexpr (Shaped) weight += flow_weight_[e.flow];
      ++open;
    }
    if (open == 0) continue;  // only the seed can be left with no flow to refill
    link_free_[l] = std::max(0.0, free);
    if constexpr (Shaped) link_weight_[l] = weight;
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

template <bool Shaped, class OnLink>
void MaxMinSolver::freeze(SolverFlow f, double level, double rate, OnLink on_link) {
  flow_frozen_epoch_[f] = epoch_;
  Flow& flow = flows_[f];
  flow.rate = rate;
  flow.level = level;
  flow.solved = true;
  for (const ResourceId m : flow.links) {
    link_free_[m] -= rate;
    if constexpr (Shaped) link_weight_[m] -= flow_weight_[f];
    on_link(m, --link_open_[m]);
  }
}

template <bool Shaped, class OnLink>
void MaxMinSolver::freeze_link(ResourceId l, double level, std::size_t& unfrozen, OnLink on_link) {
  for (const Entry& e : links_[l].entries) {
    // Skip flows already frozen, and flows outside the refill (they keep their rate).
    if (flow_frozen_epoch_[e.flow] == epoch_ || flow_seen_epoch_[e.flow] != epoch_) continue;
    --unfrozen;
    if constexpr (Shaped) {
      // min: rounding must not carry a flow past its cap, reached at about this level.
      freeze<Shaped>(e.flow, level, std::min(flow_cap_[e.flow], flow_weight_[e.flow] * level), on_link);
    } else {
      freeze<Shaped>(e.flow, level, level, on_link);
    }
  }
}

void MaxMinSolver::sort_capped() {
  next_capped_ = 0;
  if (capped_.empty()) return;
  std::sort(capped_.begin(), capped_.end(), [this](SolverFlow a, SolverFlow b) {
    const double la = flow_cap_[a] / flow_weight_[a], lb = flow_cap_[b] / flow_weight_[b];
    return la < lb || (la == lb && a < b);
  });
}

double MaxMinSolver::next_cap_level() {
  while (next_capped_ < capped_.size() && flow_frozen_epoch_[capped_[next_capped_]] == epoch_) ++next_capped_;
  if (next_capped_ == capped_.size()) return NO_CAP;
  const SolverFlow f = capped_[next_capped_];
  return flow_cap_[f] / flow_weight_[f];
}

template <bool Shaped>
void MaxMinSolver::fill_scan() {
  // Small components (the common case: a partial refill touches a few dozen to a few
  // hundred links): a linear argmin over a dense array of shares per bottleneck beats a
  // heap, whose sifts are unpredictable branches. A link whose flows are all frozen leaves
  // the array (swap with the last), so the scans shrink as the filling goes. Ties go to
  // the lower link id, as in fill_heap, so the order in the array does not matter.
  std::size_t n = comp_links_.size();
  scan_share_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ResourceId l = comp_links_[i];
    link_local_[l] = static_cast<std::uint32_t>(i);
    scan_share_[i] = link_free_[l] / link_weight<Shaped>(l);
  }
  const auto on_link = [this, &n](ResourceId m, std::uint32_t open) {
    const std::uint32_t i = link_local_[m];
    if (open > 0) {
      scan_share_[i] = link_free_[m] / link_weight<Shaped>(m);
    } else {
      --n;
      scan_share_[i] = scan_share_[n];
      comp_links_[i] = comp_links_[n];
      link_local_[comp_links_[i]] = i;
    }
  };
  if constexpr (Shaped) sort_capped();
  double level = 0;
  std::size_t unfrozen = comp_flows_.size();
  while (unfrozen > 0 && n > 0) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i) {
      const double s = scan_share_[i];
      if (s < scan_share_[best] || (s == scan_share_[best] && comp_links_[i] < comp_links_[best])) best = i;
    }
    if constexpr (Shaped) {
      const double cap_level = next_cap_level();
      if (cap_level <= scan_share_[best]) {
        level = std::max(level, cap_level);
        --unfrozen;
        const SolverFlow f = capped_[next_capped_++];
        freeze<Shaped>(f, level, flow_cap_[f], on_link);
        continue;
      }
    }
    level = std::max(level, scan_share_[best]);
    freeze_link<Shaped>(comp_links_[best], level, unfrozen, on_link);
  }
}

template <bool Shaped>
void MaxMinSolver::fill_heap() {
  // Every link with unfrozen flows sits in the heap exactly once. Freezing flows at level
  // s only raises the other links' shares ((c - w s)/(W - w) >= c/W when c/W >= s), so a
  // key in the heap is a lower bound of its link's share: a popped link whose version
  // moved is re-keyed and pushed back instead of being pushed on every change. A cap
  // level at or below the top key comes before every link.
  heap_.clear();
  for (const ResourceId l : comp_links_) {
    ++link_version_[l];
    heap_.push_back(HeapItem{link_free_[l] / link_weight<Shaped>(l), l, link_version_[l]});
  }
  std::make_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) {
    return heap_after(a.share, a.link, b.share, b.link);
  });
  const auto on_link = [this](ResourceId m, std::uint32_t) { ++link_version_[m]; };
  if constexpr (Shaped) sort_capped();
  // Shares are non-decreasing from one bottleneck to the next; clamping at the last level
  // keeps rounding from ever producing a smaller (or negative) share. Stop as soon as
  // every flow is frozen: the links left in the heap decide nothing.
  double level = 0;
  std::size_t unfrozen = comp_flows_.size();
  while (unfrozen > 0 && !heap_.empty()) {
    const HeapItem top = heap_.front();
    if constexpr (Shaped) {
      const double cap_level = next_cap_level();
      if (cap_level <= top.share) {
        level = std::max(level, cap_level);
        --unfrozen;
        const SolverFlow f = capped_[next_capped_++];
        freeze<Shaped>(f, level, flow_cap_[f], on_link);
        continue;
      }
    }
    heap_pop();
    const ResourceId l = top.link;
    if (link_open_[l] == 0) continue;
    const double share = std::max(level, link_free_[l] / link_weight<Shaped>(l));
    if (top.version != link_version_[l] && share > top.share) {
      heap_push(HeapItem{share, l, link_version_[l]});
      continue;
    }
    level = share;
    freeze_link<Shaped>(l, share, unfrozen, on_link);
  }
}

template <bool Shaped>
double MaxMinSolver::refill_threshold() {
  // Unshaped, an old flow is only its rate (its level too, at weight 1): sorting doubles
  // is the cheaper part of an arrival.
  auto& old = [this]() -> auto& {
    if constexpr (Shaped) {
      return old_scratch_;
    } else {
      return rates_scratch_;
    }
  }();
  double theta = removed_min_level_;
  for (const ResourceId l : dirty_links_) {
    // y_l: water-fill the link with its old flows at their old rates and the new ones
    // rising together, in levels.
    old.clear();
    double fresh = 0;  // W_new
    for (const Entry& e : links_[l].entries) {
      const Flow& g = flows_[e.flow];
      if constexpr (Shaped) {
        if (g.solved) {
          old.push_back(OldFlow{g.level, g.rate, flow_weight_[e.flow]});
        } else {
          fresh += flow_weight_[e.flow];
        }
      } else {
        if (g.solved) {
          old.push_back(g.rate);
        } else {
          fresh += 1.0;
        }
      }
    }
    if (fresh == 0) continue;
    std::sort(old.begin(), old.end(), [](const auto& a, const auto& b) { return level_of(a) < level_of(b); });
    double free = links_[l].capacity;
    double rising = fresh;
    for (const auto& g : old) rising += weight_of(g);
    double y = -1;
    for (const auto& g : old) {
      const double share = free / rising;
      if (share <= level_of(g)) {
        y = share;
        break;
      }
      free -= rate_of(g);
      rising -= weight_of(g);
    }
    if (y < 0) y = std::max(0.0, free) / fresh;
    theta = std::min(theta, y);
  }
  return theta;
}

template <bool Shaped>
void MaxMinSolver::solve_dirty() {
  keep_below_ = full_refill_ ? -1.0 : refill_threshold<Shaped>() * (1.0 - 1e-9);
  full_refill_ = false;
  removed_min_level_ = std::numeric_limits<double>::infinity();
  for (const ResourceId seed : dirty_links_) {
    if (link_seen_epoch_[seed] == epoch_) continue;
    collect_component<Shaped>(seed);
    if (comp_links_.size() <= SCAN_MAX_LINKS) {
      fill_scan<Shaped>();
    } else {
      fill_heap<Shaped>();
    }
    touched_.insert(touched_.end(), comp_flows_.begin(), comp_flows_.end());
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
  if (shaped_count_ > 0) {
    solve_dirty<true>();
  } else {
    solve_dirty<false>();
  }
  flows_recomputed_ += touched_.size();
  dirty_links_.clear();
  // Dirty marks were stamped epoch_ (the old epoch_ + 1); the next marks use epoch_ + 1.
  return touched_;
}

std::span<const SolverFlow> MaxMinSolver::solve_all() {
  for (ResourceId l = 0; l < links_.size(); ++l) mark_dirty(l);
  full_refill_ = true;
  return solve();
}

}  // namespace gcsim::sim
