// The spot market at run time: per pool of spot nodes, the interruption process (Poisson,
// Weibull, trace replay or price-driven), zone-wide correlated events, availability and
// replacement with a provisioning delay. It tells a NodeEventSink (the cluster) when a node
// gets its notice, goes down and comes back up. Semantics and equations: docs/spot.md.
//
// Determinism: each node draws its lifetimes from its own stream "spot.<pool>.node<i>" (i
// the index within the pool), each pool's correlated events from "spot.<pool>.correlated"
// (times) and "spot.<pool>.correlated.victims" (who is hit). Nothing here reads the sink's
// state, so the interruptions depend on the pool alone: two scheduling policies compared on
// one seed see the same interruptions, and adding a pool leaves the others unchanged.
//
// An elastic pool (`autoscale:` on a spot node type): the pool has `slots` slots, `count`
// of them wanted at the start; the autoscaler changes the wanted size through the cluster
// (ElasticSupply: acquire a released slot when the market has capacity, give an up node
// back on scale-in). A slot keeps its stream whoever wants it: its k-th time up draws its
// k-th lifetime. The policy decides which slots are wanted when, so two policies share
// each slot's sequence of lifetimes, the capacity profile (availability, trace, price) and
// the correlated events' times, not which nodes are up to be hit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/core/event_priorities.hpp"
#include "models/pricing/price_profile.hpp"
#include "models/spot/node_events.hpp"
#include "models/spot/spot_spec.hpp"
#include "sim/engine.hpp"
#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

struct SpotPoolSpec {
  std::string name;                       // names the streams: keep it stable
  std::uint32_t first_node = 0;           // the pool's nodes are first_node .. first_node + count - 1
  int count = 0;                          // nodes the pool wants at the start (0 only when elastic)
  int slots = 0;                          // its slots (an elastic pool's max); 0: count
  int type = -1;                          // its node type (ElasticSupply's argument); -1: none
  InterruptionSpec interruptions;
  AvailabilitySpec availability;
  sim::SimTime notice;                    // before each interruption
  sim::SimTime provisioning;              // from a replacement request (with capacity) to up
  const PriceProfile* spot_price = nullptr;  // needed by price-driven pools; not owned
  double max_usd_per_hour = 0;            // price-driven: taken while the price is above this
};

struct SpotPoolCounters {
  std::uint64_t notices = 0;            // notice() calls (one per interruption)
  std::uint64_t interruptions = 0;      // down() calls after a notice
  std::uint64_t replacements = 0;       // up() calls (nodes brought back after t = start)
  std::uint64_t correlated_events = 0;  // zone-wide events, including those that hit no node
  std::uint64_t cancelled_requests = 0; // replacements still provisioning when capacity fell
  std::uint64_t initially_down = 0;     // nodes the pool could not supply at the start
  std::uint64_t scale_outs = 0;         // slots acquired by a controller (elastic pools)
  std::uint64_t given_back = 0;         // up nodes given back by a controller (scale-in)
};

class SpotMarket final : public ElasticSupply {
 public:
  // Priorities of the market's events among others at the same instant: defined, with the
  // reasons for their order, in models/core/event_priorities.hpp.
  static constexpr int PRIORITY_START = PRIORITY_MARKET_START;
  static constexpr int PRIORITY_ANNOUNCE = PRIORITY_MARKET_ANNOUNCE;
  static constexpr int PRIORITY_CAPACITY = PRIORITY_MARKET_CAPACITY;
  static constexpr int PRIORITY_NODE = PRIORITY_STATE;

  // Throws gcsim::Error for a price-driven pool without a price profile, an empty trace
  // profile or a pool of no nodes (the scenario loader reports these first, with positions).
  SpotMarket(sim::Engine& engine, std::uint64_t seed, std::uint64_t replication, std::vector<SpotPoolSpec> pools,
             NodeEventSink& sink);
  SpotMarket(const SpotMarket&) = delete;
  SpotMarket& operator=(const SpotMarket&) = delete;

  // Schedules each pool's start at now(): nodes the pool cannot supply go down (no notice),
  // the others start their processes. Call once, before engine.run().
  void start();

  std::size_t pool_count() const { return pools_.size(); }
  const SpotPoolSpec& pool(std::size_t p) const { return pools_[p].spec; }
  const SpotPoolCounters& counters(std::size_t p) const { return pools_[p].counters; }
  int up_nodes(std::size_t p) const { return pools_[p].up_live + pools_[p].noticed; }  // incl. under notice
  int waiting_nodes(std::size_t p) const { return static_cast<int>(pools_[p].waiting.size()); }
  int provisioning_nodes(std::size_t p) const { return pools_[p].provisioning; }
  // The size the pool wants now (elastic pools: changed by acquire and give_back).
  int wanted_nodes(std::size_t p) const { return pools_[p].wanted; }

  // ElasticSupply (node_events.hpp): for the pool of node type `type` (InternalError for a
  // type that is no pool's).
  int supply_now(int type) const override;
  sim::SimTime next_supply_change(int type) const override;
  bool acquire(std::uint32_t node) override;
  void give_back(std::uint32_t node) override;

 private:
  // Released: a slot beyond the wanted size (an elastic pool's), not the market's.
  enum class Phase : std::uint8_t { Up, Noticed, Waiting, Provisioning, Released };
  struct Node {
    explicit Node(sim::RngStream stream) : rng(stream) {}
    Phase phase = Phase::Up;
    sim::SimTime own_down_at;   // when the node's own process takes it
    sim::EventId own_notice;    // the notice of its own process
    sim::EventId down_event;    // while Noticed
    sim::EventId up_event;      // while Provisioning
    sim::RngStream rng;
    bool scale_out = false;     // provisioning for a controller's request, not a replacement
  };
  struct PendingDrop {
    sim::SimTime at;
    int capacity;
  };
  struct Pool {
    Pool(SpotPoolSpec s, std::uint64_t seed, std::uint64_t replication);
    SpotPoolSpec spec;
    std::vector<Node> nodes;
    SpotPoolCounters counters;
    int up_live = 0;       // up, not under notice
    int noticed = 0;       // up, under notice
    int provisioning = 0;  // replacement requested with capacity, coming up
    int wanted = 0;        // slots not released: up, noticed, provisioning or waiting
    int slots = 0;
    std::vector<std::uint32_t> waiting;  // min-heap of node indices: down, wanting capacity
    int reclaim_now = 0;                 // trace / price capacity in force
    sim::SimTime drop_at;                // the next drop to announce
    int drop_capacity = 0;
    std::vector<PendingDrop> pending;    // announced drops, in time order
    sim::RngStream correlated_times;
    sim::RngStream correlated_victims;
    sim::SimTime correlated_at;          // the announced correlated event's time
    sim::EventId wake;                   // waiting for an availability change
    std::vector<std::uint32_t> scratch;
  };

  static std::uint64_t arg_of(std::size_t pool, std::uint32_t node) {
    return static_cast<std::uint64_t>(pool) << 32 | node;
  }

  // Events.
  void on_start(std::uint64_t pool);
  void on_own_notice(std::uint64_t arg);
  void on_down(std::uint64_t arg);
  void on_up(std::uint64_t arg);
  void on_drop_announce(std::uint64_t pool);
  void on_capacity_change(std::uint64_t pool);
  void on_correlated(std::uint64_t pool);
  void on_wake(std::uint64_t pool);

  void start_own_process(std::size_t p, std::uint32_t i);
  void give_notice(std::size_t p, std::uint32_t i, sim::SimTime down_at);
  void try_acquire(std::size_t p);
  void enforce_capacity(std::size_t p, int capacity);
  int supply_capacity(const Pool& pool, sim::SimTime t, int reclaim) const;
  std::size_t pool_of_type(int type) const;
  std::size_t pool_of_node(std::uint32_t node, std::uint32_t& index) const;

  // The trace / price capacity (count when the process is neither) and its next change.
  int reclaim_capacity_at(const Pool& pool, sim::SimTime t) const;
  sim::SimTime next_reclaim_change(const Pool& pool, sim::SimTime t, int current) const;
  void schedule_next_drop(std::size_t p, sim::SimTime after, int current);
  void schedule_next_correlated(std::size_t p);

  sim::Engine& engine_;
  NodeEventSink& sink_;
  std::vector<Pool> pools_;
  bool started_ = false;
};

}  // namespace gcsim::models
