// The parts a run is composed of (STYLE 5c; docs/engine.md, "A run composed of parts").
// run_simulation builds the engine, the ledger and the cluster, then every part over one
// RunContext: first the registered parts (models/register_builtins.cpp: model speeds,
// cost meter, budgets, trace recorder, spot market, network, storage), in their build
// order, each deciding from the scenario whether the run needs it; then the caller's
// (RunOptions::components). A new capability is its own files and a registration, never
// an edit of run_simulation (SimGrid's plugins, ns-3's ObjectFactory).
//
// Order. A part is built after the parts it uses (build order), starts in build order
// (its first events' sequence at a tie), and finishes in reverse build order, like
// destructors, so that it finishes before what it depends on. The order in which parts see
// one signal is not their build order but each connection's declared order
// (models/core/event_priorities.hpp, ORDER_*); the order of their events at one instant is each
// event's priority (PRIORITY_*).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.hpp"
#include "sim/registry.hpp"
#include "sim/rng.hpp"

namespace gcsim::trace {
class TraceFile;
}
namespace gcsim::network {
class FlowNetwork;
}
namespace gcsim::topology {
class Topology;
}

namespace gcsim::models {

struct Scenario;
struct SchedulerSpec;
struct RunOptions;
struct RunSummary;
class Cluster;
class Ledger;
class CostMeter;
class ModelSpeeds;
class BudgetWatcher;
class TraceRecorder;

class Component {
 public:
  Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;
  virtual ~Component() = default;
  // At the run's start, after the cluster's (its first arrival and end are scheduled) and
  // before the engine runs: schedule the first events. Not called on a part built for a
  // run that fails before it starts.
  virtual void start() {}
  // After the engine ran, the summary's cluster figures and wall clock set: write what is
  // left to write, and add the part's figures to the summary.
  virtual void finish(RunSummary& /*summary*/) {}
};

// A part that acts on the cluster in response to what it observes (budgets today;
// autoscalers, preempting schedulers, request generators next). It acts only through
// events it schedules on the engine at its declared priority (act_at), never from inside a
// signal (docs/engine.md, "Controllers"): the priority says where, among the transitions,
// controls and scheduling pass of one instant, its actions run.
class Controller : public Component {
 public:
  // Between the cluster's transitions (PRIORITY_STATE) and the end of the run
  // (PRIORITY_END), exclusive: an InternalError otherwise.
  Controller(sim::Engine& engine, int priority);
  int priority() const { return priority_; }

 protected:
  template <auto Method, class T>
  sim::EventId act_at(sim::SimTime t, T* self, std::uint64_t arg = 0) {
    return engine_.schedule_at<Method>(t, self, arg, priority_);
  }
  template <auto Method, class T>
  sim::EventId act_after(sim::SimTime delay, T* self, std::uint64_t arg = 0) {
    return engine_.schedule_after<Method>(delay, self, arg, priority_);
  }

  sim::Engine& engine_;

 private:
  int priority_;
};

// What every part of one run is built over. The references live for the whole run.
class RunContext {
 public:
  RunContext(sim::Engine& engine, Cluster& cluster, Ledger& ledger, const Scenario& scenario,
             const SchedulerSpec& scheduler, const RunOptions& options, std::uint64_t seed, std::uint64_t replication,
             trace::TraceFile* trace)
      : engine(engine), cluster(cluster), ledger(ledger), scenario(scenario), scheduler(scheduler), options(options),
        seed(seed), replication(replication), trace(trace) {}
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  sim::Engine& engine;
  Cluster& cluster;  // its public interface: signals, queries, hold/release, node events
  Ledger& ledger;
  const Scenario& scenario;
  const SchedulerSpec& scheduler;  // this run's (RunOptions::scheduler, or the scenario's)
  const RunOptions& options;
  const std::uint64_t seed;
  const std::uint64_t replication;
  trace::TraceFile* const trace;  // null: the run writes no trace

  // The built-in parts others use, set by their factories as they are built (null before,
  // and for a part the run does not have: budgets without `budgets:`, no trace).
  ModelSpeeds* speeds = nullptr;
  CostMeter* costs = nullptr;
  BudgetWatcher* budgets = nullptr;
  TraceRecorder* recorder = nullptr;
  // The run's flow network and the topology it runs on (with a `network:` section).
  const network::FlowNetwork* network = nullptr;
  const topology::Topology* topology = nullptr;

  // The run's random stream `name`, derived from (seed, replication, name): each random
  // process owns one (docs/engine.md, "Random streams"). A name is handed out once per run
  // (a second claim is an InternalError): two parts drawing from one stream would perturb
  // each other.
  sim::RngStream stream(std::string_view name);

  // A part already built, by its type (null when there is none); for building only.
  template <class T>
  T* find() const {
    for (Component* c : built_)
      if (auto* t = dynamic_cast<T*>(c)) return t;
    return nullptr;
  }
  // run_simulation's: a part becomes findable once built.
  void add_built(Component& c) { built_.push_back(&c); }

 private:
  std::vector<Component*> built_;
  std::set<std::string, std::less<>> streams_;
};

// Makes one part for a run, or null when the run does not need it (the scenario has no
// such section). May throw gcsim::Error for the scenario (the run fails, as a user error).
using ComponentFactory = std::function<std::unique_ptr<Component>(RunContext&)>;

// The build orders of the built-in parts (a part is built after those it uses).
inline constexpr int BUILD_SPEEDS = 100;
inline constexpr int BUILD_COSTS = 200;
inline constexpr int BUILD_BUDGETS = 300;  // uses the cost meter
inline constexpr int BUILD_TRACE = 400;    // uses speeds, costs and budgets
inline constexpr int BUILD_MARKET = 500;
inline constexpr int BUILD_NETWORK = 600;  // uses speeds; sets network and topology
inline constexpr int BUILD_STORAGE = 700;  // uses speeds
// The trace's service tables (models/trace/service_tables.hpp), a serving::ServiceSink: before
// the serving part, an extension, which finds it by ctx.find<serving::ServiceSink>().
inline constexpr int BUILD_SERVICE_TABLES = 800;
// Registered parts from here on see every built-in part already built.
inline constexpr int BUILD_EXTENSIONS = 1000;

struct ComponentEntry {
  std::string name;
  std::string description;
  int build_order = BUILD_EXTENSIONS;
  ComponentFactory factory;
};

// Name -> description, build order and factory, filled by register_builtins() (and by a
// test or a later capability with entries of its own).
class ComponentRegistry {
 public:
  using Registry = sim::Registry<std::unique_ptr<Component>, RunContext&>;
  // A name registered twice is an InternalError (sim::Registry).
  void add(ComponentEntry entry);
  std::vector<std::string> names() const { return registry_.names(); }
  const Registry::Entry* find(const std::string& name) const { return registry_.find(name); }
  // Every entry's name, in build order (ties by name).
  std::vector<std::string> build_order() const;

  // Builds, in build order, every part the run needs into `parts`, each findable in `ctx`
  // once built.
  void build(RunContext& ctx, std::vector<std::unique_ptr<Component>>& parts) const;

 private:
  Registry registry_;
  std::map<std::string, int> build_order_;
};

}  // namespace gcsim::models
