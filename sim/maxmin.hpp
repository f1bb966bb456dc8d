// A max-min fair sharing solver with per-flow weights and rate caps (Bertsekas &
// Gallager, "Data Networks", 2nd ed., section 6.5.2: progressive filling; the weighted,
// bounded sharing SimGrid's lmm solver computes, its "sharing penalty" being 1/weight).
// Resources ("links") have a capacity; a flow crosses a list of them (a link listed k
// times counts k times), has a weight w > 0 and a cap b (a rate it never exceeds,
// +inf when none). Network links are resources in bytes/s; a storage tier is one resource
// of capacity 1, its device time (storage/storage_tiers.hpp).
//
// The allocation: rates r_f = w_f * lambda_f, where the flows' levels lambda_f are max-min
// fair subject to sum_{f crosses l} r_f <= c_l and r_f <= b_f. Progressive filling: raise a
// common level lambda from 0, every unfrozen flow at rate w_f * lambda, until a link
// saturates or a flow reaches its cap; freeze the flows crossing that link (or the capped
// flow); repeat. With c_l the capacity still free on link l and W_l the summed weight of
// its unfrozen crossings, the next event is the smaller of argmin_l c_l / W_l (its flows
// freeze at that level) and argmin_f b_f / w_f over unfrozen flows (the flow freezes at
// b_f); a cap reached at the same level as a link goes first. With every weight 1 and no
// caps this is plain max-min fairness, computed exactly as before weights existed. The
// link argmin is a linear scan over a dense array of the component's open links (up to
// SCAN_MAX_LINKS: cheaper than a heap at the few hundred links a refill touches) or, for
// larger components, a lazy min-heap over the links, O(log L) per step; caps are a sorted
// list merged in.
//
// Incremental recomputation: adding or removing a flow (or changing its cap) marks its
// links dirty; solve() refills only flows whose rate can change, and the result is the
// from-scratch answer (max-min rates are unique). Two cuts, both exact:
//  * Components: flows linked through shared links, transitively. Max-min rates of one
//    component do not depend on any other component.
//  * Levels (partial refill). Let theta be the smallest of (a) the old level of every
//    flow removed (or re-capped) since the last solve and (b) for every dirty link l with
//    new flows, the level y_l at which l would saturate if its surviving flows kept their
//    old rates and its new flows rose from zero: sum_g min(r_g, w_g y_l) + W_new y_l = c_l
//    (ignoring new flows' caps, which gives a y_l no larger than the true one). Below theta the new
//    progressive filling takes exactly the old steps (an unchanged link sees the same
//    load and a cap is reached at the same level; a dirty link does not saturate below
//    y_l, nor did it in the old filling below the level of a flow removed from it, which
//    was still rising there). So every flow whose old level is below theta keeps its
//    rate, every other flow ends at level theta or above, and the rest is the max-min
//    sharing of the residual capacities (c_l minus the kept rates), which is the unique
//    allocation where each flow is at its cap or has a saturated link on which its level
//    is largest. solve() therefore refills only new flows and flows with old level >= theta
//    (less a 1e-9 relative margin for rounding: refilling more is always exact), found by
//    a search from the dirty links that crosses only such flows.
// Both are checked against from-scratch recomputation on random cases
// (tests/sim/test_maxmin.cpp).
//
// Data-oriented: flows and links are dense integer ids into vectors; freed flow slots are
// reused with their vectors' capacity, so a steady state allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace gcsim::sim {

// A resource of the solver (a network link, a storage device): a dense id from
// add_resource, in the order added.
using ResourceId = std::uint32_t;
using SolverFlow = std::uint32_t;  // a slot in the solver, reused after remove_flow

class MaxMinSolver {
 public:
  static constexpr double NO_CAP = std::numeric_limits<double>::infinity();

  ResourceId add_resource(double capacity);  // capacity > 0 (asserted)
  std::size_t link_count() const { return links_.size(); }
  double capacity(ResourceId l) const { return links_[l].capacity; }
  // Number of flow crossings currently on link l.
  std::size_t crossings(ResourceId l) const { return links_[l].entries.size(); }
  SolverFlow crossing_flow(ResourceId l, std::size_t i) const { return links_[l].entries[i].flow; }

  // Adds a flow over `path` (non-empty; ids < link_count()) with weight > 0 and cap > 0
  // (NO_CAP: none). Its rate is defined after the next solve().
  SolverFlow add_flow(std::span<const ResourceId> path, double weight = 1.0, double cap = NO_CAP);
  void remove_flow(SolverFlow f);
  // Changes a flow's cap (> 0); its rate is redefined by the next solve().
  void set_cap(SolverFlow f, double cap);
  double weight(SolverFlow f) const { return flow_weight_[f]; }
  double cap(SolverFlow f) const { return flow_cap_[f]; }
  bool is_active(SolverFlow f) const { return f < flows_.size() && flows_[f].active; }
  std::span<const ResourceId> path(SolverFlow f) const { return flows_[f].links; }
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
  // What the filling reads for every crossing, in 48 bytes; weights, caps and the
  // positions used only on removal are kept apart (flow_weight_, flow_cap_, flow_pos_).
  struct Flow {
    std::vector<ResourceId> links;
    double rate = 0;
    double level = 0;  // rate / weight as the filling froze it (the partial refill's key)
    bool active = false;
    bool solved = false;  // rate is the max-min rate of the last solve (false: added since)
  };
  struct HeapItem {
    double share;
    ResourceId link;
    std::uint32_t version;
  };

  // Shaped: some active flow has a weight other than 1 or a cap. Unshaped solves take the
  // plain max-min path (W_l is the crossing count, no caps), which computes the same
  // numbers without reading weights or caps.
  template <bool Shaped>
  void solve_dirty();
  void mark_dirty(ResourceId l);
  bool is_shaped(double weight, double cap) const { return weight != 1.0 || cap != NO_CAP; }
  // W_l: the summed weight of l's unfrozen crossings, or (unshaped) their count.
  template <bool Shaped>
  double link_weight(ResourceId l) const {
    return Shaped ? link_weight_[l] : static_cast<double>(link_open_[l]);
  }
  template <bool Shaped>
  void collect_component(ResourceId seed);
  template <bool Shaped>
  void fill_scan();
  template <bool Shaped>
  void fill_heap();
  template <bool Shaped, class OnLink>
  void freeze(SolverFlow f, double level, double rate, OnLink on_link);
  template <bool Shaped, class OnLink>
  void freeze_link(ResourceId l, double level, std::size_t& unfrozen, OnLink on_link);
  // The level of the next cap to reach among the component's unfrozen capped flows
  // (+inf when none); skips those frozen since.
  double next_cap_level();
  void sort_capped();
  void forget(SolverFlow f);  // records a solved flow's level as leaving the old sharing
  template <bool Shaped>
  double refill_threshold();
  void heap_push(const HeapItem& item);
  void heap_pop();

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<std::vector<std::uint32_t>> flow_pos_;  // [f][i]: index of crossing i in its link's entries
  std::vector<double> flow_weight_;
  std::vector<double> flow_cap_;
  std::vector<SolverFlow> free_flows_;
  std::size_t active_count_ = 0;
  std::size_t shaped_count_ = 0;  // active flows with a weight other than 1 or a cap

  std::vector<ResourceId> dirty_links_;
  // Smallest old level of the flows removed or re-capped since the last solve (+inf: none).
  double removed_min_level_ = std::numeric_limits<double>::infinity();
  bool full_refill_ = false;  // solve_all(): refill every flow of the touched components
  double keep_below_ = 0;     // this solve: solved flows with a level below this keep it
  // An old flow as refill_threshold reads it; unshaped solves keep only its rate.
  struct OldFlow {
    double level, rate, weight;
  };
  static double level_of(const OldFlow& g) { return g.level; }
  static double rate_of(const OldFlow& g) { return g.rate; }
  static double weight_of(const OldFlow& g) { return g.weight; }
  static double level_of(double rate) { return rate; }
  static double rate_of(double rate) { return rate; }
  static double weight_of(double) { return 1.0; }
  std::vector<OldFlow> old_scratch_;
  std::vector<double> rates_scratch_;
  // Scratch, sized with links_/flows_; "epoch" stamps avoid clearing between solves.
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> link_dirty_epoch_;
  std::vector<std::uint32_t> link_seen_epoch_;
  std::vector<std::uint32_t> flow_seen_epoch_;
  std::vector<std::uint32_t> flow_frozen_epoch_;
  std::vector<double> link_free_;       // c_l
  std::vector<double> link_weight_;     // W_l
  std::vector<std::uint32_t> link_open_;  // unfrozen crossings of l (W_l > 0 exactly when > 0)
  std::vector<std::uint32_t> link_version_;
  std::vector<ResourceId> comp_links_;
  std::vector<ResourceId> stack_;
  std::vector<SolverFlow> comp_flows_;
  std::vector<SolverFlow> touched_;
  std::vector<HeapItem> heap_;
  // The component's capped flows in refill, by cap level b_f / w_f; next_capped_ is the
  // first not yet frozen by its cap.
  std::vector<SolverFlow> capped_;
  std::size_t next_capped_ = 0;
  // fill_scan: the component's links' shares, densely, and each link's index there.
  static constexpr std::size_t SCAN_MAX_LINKS = 1024;
  std::vector<double> scan_share_;
  std::vector<std::uint32_t> link_local_;

  std::uint64_t recomputations_ = 0;
  std::uint64_t flows_recomputed_ = 0;
};

}  // namespace gcsim::sim
