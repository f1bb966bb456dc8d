// A flow-level max-min fair bandwidth solver (Bertsekas & Gallager, "Data Networks",
// 2nd ed., section 6.5.2: progressive filling; the same sharing SimGrid's LMM solver
// computes for its CM02 network model). Links are directed resources with a capacity in
// bytes/s; a flow crosses a list of links (a link listed k times counts k times).
//
// Progressive filling: raise every unfrozen flow's rate together until some link
// saturates; freeze the flows crossing it; repeat. Equivalently, with c_l the capacity
// still free on link l and n_l the number of unfrozen flow crossings of l, the next
// bottleneck is argmin_l c_l / n_l and its flows get rate c_l / n_l. The argmin is a
// linear scan over a dense array of the component's open links (up to SCAN_MAX_LINKS:
// cheaper than a heap at the few hundred links a refill touches) or, for larger
// components, a lazy min-heap over the links, O(log L) per step.
//
// Incremental recomputation: adding or removing a flow marks its links dirty; solve()
// refills only flows whose rate can change, and the result is the from-scratch answer
// (max-min rates are unique). Two cuts, both exact:
//  * Components: flows linked through shared links, transitively. Max-min rates of one
//    component do not depend on any other component.
//  * Levels (partial refill). Let theta be the smallest of (a) the old rate of every flow
//    removed since the last solve and (b) for every dirty link l with new flows, the level
//    y_l at which l would saturate if its surviving flows kept their old rates and its new
//    flows rose from zero: sum_g min(r_g, y_l) + n_new * y_l = c_l. Below theta the new
//    progressive filling takes exactly the old steps (an unchanged link sees the same
//    load; a dirty link does not saturate below y_l, nor did it in the old filling below
//    the rate of a flow removed from it, which was still rising there). So every flow
//    whose old rate is below theta keeps it, every other flow ends at theta or above, and
//    the rest is the max-min sharing of the residual capacities (c_l minus the kept
//    rates), which is the unique allocation where each flow has a saturated link on which
//    its rate is largest. solve() therefore refills only new flows and flows with old rate
//    >= theta (less a 1e-9 relative margin for rounding: refilling more is always exact),
//    found by a search from the dirty links that crosses only such flows.
// Both are checked against from-scratch recomputation on random cases
// (tests/models/network/maxmin_test.cpp).
//
// Data-oriented: flows and links are dense integer ids into vectors; freed flow slots are
// reused with their vectors' capacity, so a steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "models/topology/link_id.hpp"

namespace gcsim::network {

using topology::LinkId;
using SolverFlow = std::uint32_t;  // a slot in the solver, reused after remove_flow

class MaxMinSolver {
 public:
  LinkId add_link(double capacity_bytes_per_s);  // capacity > 0 (asserted)
  std::size_t link_count() const { return links_.size(); }
  double capacity(LinkId l) const { return links_[l].capacity; }
  // Number of flow crossings currently on link l.
  std::size_t crossings(LinkId l) const { return links_[l].entries.size(); }
  SolverFlow crossing_flow(LinkId l, std::size_t i) const { return links_[l].entries[i].flow; }

  // Adds a flow over `path` (non-empty; ids < link_count()). Its rate is defined after the
  // next solve().
  SolverFlow add_flow(std::span<const LinkId> path);
  void remove_flow(SolverFlow f);
  bool is_active(SolverFlow f) const { return f < flows_.size() && flows_[f].active; }
  std::span<const LinkId> path(SolverFlow f) const { return flows_[f].links; }
  std::size_t active_flows() const { return active_count_; }

  // Recomputes the components touched since the last solve. Returns the flows whose rate
  // was recomputed (valid until the next call); rate() of every other flow is unchanged.
  std::span<const SolverFlow> solve();
  // Recomputes every component from scratch (tests compare it with solve()).
  std::span<const SolverFlow> solve_all();

  double rate(SolverFlow f) const { return flows_[f].rate; }

  // Counters for benchmarks: solve() calls that did work, flows and links recomputed.
  std::uint64_t recomputations() const { return recomputations_; }
  std::uint64_t flows_recomputed() const { return flows_recomputed_; }

 private:
  struct Entry {
    SolverFlow flow;
    std::uint32_t index_in_flow;  // which crossing of the flow's path this is
  };
  struct Link {
    double capacity = 0;
    std::vector<Entry> entries;  // the flow crossings on this link
  };
  struct Flow {
    std::vector<LinkId> links;
    std::vector<std::uint32_t> pos;  // pos[i]: index of this crossing in links[links[i]].entries
    double rate = 0;
    bool active = false;
    bool solved = false;  // rate is the max-min rate of the last solve (false: added since)
  };
  struct HeapItem {
    double share;
    LinkId link;
    std::uint32_t version;
  };

  void mark_dirty(LinkId l);
  void collect_component(LinkId seed);
  void fill_component();
  void fill_scan();
  void fill_heap();
  void freeze_at(LinkId l, double share, std::size_t& unfrozen);
  double refill_threshold();
  void heap_push(const HeapItem& item);
  void heap_pop();

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<SolverFlow> free_flows_;
  std::size_t active_count_ = 0;

  std::vector<LinkId> dirty_links_;
  // Smallest old rate of the flows removed since the last solve (+inf when none).
  double removed_min_rate_ = std::numeric_limits<double>::infinity();
  bool full_refill_ = false;  // solve_all(): refill every flow of the touched components
  double keep_below_ = 0;     // this solve: solved flows with a rate below this keep it
  std::vector<double> rates_scratch_;
  // Scratch, sized with links_/flows_; "epoch" stamps avoid clearing between solves.
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> link_dirty_epoch_;
  std::vector<std::uint32_t> link_seen_epoch_;
  std::vector<std::uint32_t> flow_seen_epoch_;
  std::vector<std::uint32_t> flow_frozen_epoch_;
  std::vector<double> link_free_;       // c_l
  std::vector<std::uint32_t> link_open_;  // n_l
  std::vector<std::uint32_t> link_version_;
  std::vector<LinkId> comp_links_;
  std::vector<LinkId> stack_;
  std::vector<SolverFlow> comp_flows_;
  std::vector<SolverFlow> touched_;
  std::vector<HeapItem> heap_;
  // fill_scan: the component's links' shares, densely, and each link's index there.
  static constexpr std::size_t SCAN_MAX_LINKS = 1024;
  std::vector<double> scan_share_;
  std::vector<std::uint32_t> link_local_;

  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
};

}  // namespace gcsim::network
