// An elastic node pool as a scenario describes it (`autoscale:` on a node type;
// docs/autoscaling.md): its bounds, its scale-out and scale-in rules with their triggers,
// the cooldown between decisions, the provisioning delay, a pool sized by the clock
// (`schedule:`) and the pool that takes its demand when it cannot grow (`fallback:`).
// Read by models/config/autoscale_reader.cpp, acted on by models/controllers/autoscaler.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/calendar.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// What a rule watches (`when:`). Value order = the labels of the trace's
// /scale_decisions.trigger (trace::schema::SCALE_TRIGGERS).
enum class TriggerKind : std::uint8_t {
  WaitingGpus,     // GPUs asked by waiting jobs this pool could host (eligible type)
  GpuUtilization,  // share of the pool's up GPUs held by jobs, 0..1 (PoolGauges)
  GpuMemory,       // mean memory used per up GPU over its memory, 0..1 (PoolGauges)
  Idle,            // a node with no job (scale-in only; per node)
  Schedule,        // not a `when`: the clock's target size (`schedule:`); trace only
  Fallback,        // not a `when`: demand sent to another pool; trace only
  Budget,          // not a `when`: nodes a budget's stop_instances gave back; trace only
};

enum class Comparison : std::uint8_t { Greater, GreaterEqual, Less, LessEqual };

struct TriggerSpec {
  TriggerKind kind = TriggerKind::Idle;
  Comparison op = Comparison::GreaterEqual;
  double threshold = 0;  // GPUs (waiting_gpus) or a fraction 0..1 (gpu_utilization, gpu_memory)
  std::string text;      // as written, for messages and the trace

  // Whether `value` satisfies the comparison (not for Idle).
  bool holds(double value) const {
    switch (op) {
      case Comparison::Greater: return value > threshold;
      case Comparison::GreaterEqual: return value >= threshold;
      case Comparison::Less: return value < threshold;
      case Comparison::LessEqual: return value <= threshold;
    }
    return false;
  }
};

// The trigger names as written in `when:`, in TriggerKind order (the first four).
std::string_view trigger_name(TriggerKind kind);

// Parses a `when:` expression: `waiting_gpus >= 8`, `gpu_utilization > 80%`,
// `gpu_memory > 70%`, `idle` (spaces optional around the operator; >, >=, <, <=). nullopt
// with `error` set to what is wrong and `error_offset` to the 0-based offset of the
// offending part in `text` when it is not one of these.
std::optional<TriggerSpec> parse_trigger(std::string_view text, std::string& error, std::size_t& error_offset);

struct ScaleRuleSpec {
  TriggerSpec when;
  sim::SimTime hold = sim::SimTime::zero();  // `for`: how long the trigger must hold
  int by = 1;                                 // nodes added or removed by one decision
};

// `schedule: [{days, from, to, count}]`: the pool's target size inside the window.
struct ScheduleWindowSpec {
  sim::WeekCalendar calendar;
  int count = 0;
};

struct AutoscaleSpec {
  int min = 0;
  int max = 0;
  std::optional<ScaleRuleSpec> scale_out;
  std::optional<ScaleRuleSpec> scale_in;
  sim::SimTime cooldown = sim::SimTime::zero();
  sim::SimTime provisioning = sim::SimTime::zero();  // from a request to the node being up
  // Whether a node is billed while it provisions: the key `bill_provisioning`, else the
  // provider's rule (ProviderFacts::bills_provisioning; models/pricing/providers.cpp).
  bool bill_provisioning = true;
  std::vector<ScheduleWindowSpec> schedule;
  std::string fallback;   // the pool that takes the demand this one cannot; "" none
  int fallback_type = -1;  // its index among the node types (resolved by read_cluster)
  SourceMark mark;

  // The size the clock asks for at t: the largest count of the windows holding t, else min
  // (a pool without `schedule:` always min).
  int scheduled_count(sim::SimTime t) const {
    int n = -1;
    for (const ScheduleWindowSpec& w : schedule)
      if (w.calendar.contains(t) && w.count > n) n = w.count;
    return n < 0 ? min : n;
  }
  // The first time after t at which scheduled_count may change (max(): never).
  sim::SimTime next_schedule_change(sim::SimTime t) const {
    sim::SimTime next = sim::SimTime::max();
    for (const ScheduleWindowSpec& w : schedule) {
      const sim::SimTime c = w.calendar.next_change(t);
      if (c < next) next = c;
    }
    return next;
  }
};

}  // namespace gcsim::models
