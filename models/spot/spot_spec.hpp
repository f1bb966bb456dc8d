// What a spot node type's `interruptions:` and `availability:` values describe, parsed into
// validated specs (docs/spot.md): the interruption process of a pool (Poisson, Weibull,
// replay of a recorded skypilot-spot trace, or price-driven), an optional zone-wide
// correlated process, the pool's availability (recurring windows or a capacity trace) and
// the AWS Spot Instance Advisor's interruption bands. The providers' notice times are in
// the provider table (models/pricing/providers.hpp).
//
// External timelines are profiles (STYLE 6): a trace becomes a CapacityProfile, a
// sim::Profile of node counts, as a spot price is a sim::Profile of USD per hour.
//
// Sources: advisor bands: AWS
// Spot Instance Advisor data feed (spot-advisor-data.json, "ranges"), as bundled in
// scenarios/catalog/aws_spot_advisor_gpu.csv. Traces: skypilot-org/spot-traces (Wu et al.,
// "Can't Be Late", NSDI 2024).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/core/limits.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/profile.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// ---------------------------------------------------------------------------------------
// Capacity profiles: how many nodes a pool may hold, piecewise constant over time.

using CapacityPoint = sim::ProfilePoint<int>;  // value: nodes, >= 0
// Built with consecutive capacities differing (trace_profile merges equal ticks).
using CapacityProfile = sim::Profile<int>;

// A skypilot-spot trace file: {"metadata": {"gap_seconds": G}, "data": [v0, v1, ...]} (an
// optional "prices" list, present in some files, is accepted and ignored). data[k] is the
// number of instances up at tick k, at k * G from the trace's start.
struct SpotTrace {
  std::string file;
  sim::SimTime gap;
  std::vector<int> values;
  sim::SimTime length() const { return gap * static_cast<std::int64_t>(values.size()); }
};

// Validates a trace already read (through the run's SourceResolver; `path` names it in
// errors). Throws ConfigError: EmptyFile, Syntax (with the trace's line and column),
// UnknownKey, MissingKey, WrongType, OutOfRange (negative or non-integer counts, a gap
// under 1 s, an empty data list, a trace longer than the time range).
SpotTrace parse_spot_trace(const std::string& path, const std::string& text);

// The trace as a profile in simulation time: simulation time t reads the trace at
// `start + t` (start < the trace's length). Without `loop` the last value holds after the
// trace ends; with it the trace repeats with period length().
CapacityProfile trace_profile(const SpotTrace& trace, sim::SimTime start, bool loop);

// ---------------------------------------------------------------------------------------
// Interruptions.

enum class InterruptionProcess { None, Poisson, Weibull, Trace, Price };
std::string_view interruption_process_name(InterruptionProcess p);  // "none", "poisson", ...

// Zone-wide events: a Poisson process of events, each taking ceil(fraction x up nodes).
struct CorrelatedSpec {
  double rate_per_s = 0;  // events per second, > 0
  double fraction = 0;    // (0, 1]
};

struct InterruptionSpec {
  InterruptionProcess process = InterruptionProcess::None;
  double rate_per_s = 0;              // poisson: per node, per second of up time (>= 0)
  double weibull_shape = 0;           // weibull: k > 0
  sim::SimTime weibull_scale;         // weibull: lambda > 0
  CapacityProfile trace;              // trace: nodes the pool may hold (change points)
  std::string trace_file;             // trace: the resolved path, for reports
  sim::SimTime trace_start;           // trace: the trace instant at simulation time 0
  bool loop = false;                  // trace: repeat it
  std::optional<CorrelatedSpec> correlated;

  bool price_driven() const { return process == InterruptionProcess::Price; }
};

// The AWS Spot Instance Advisor's band per (region, instance type), read from the bundled
// CSV (scenarios/catalog/aws_spot_advisor_gpu.csv; '#' lines are comments).
struct AdvisorEntry {
  std::string region;
  std::string instance;
  int savings_pct = 0;  // savings against on-demand over the trailing month
  int band = 0;         // 0 "<5%", 1 "5-10%", 2 "10-15%", 3 "15-20%", 4 ">20%"
};

class SpotAdvisor {
 public:
  // The advisor CSV already read (through the run's SourceResolver; `csv_path` names it in
  // errors). Throws ConfigError: EmptyFile, Syntax (a row with the wrong number of fields,
  // with line and column), WrongType / OutOfRange (a bad band or savings), Duplicate.
  static SpotAdvisor parse(const std::string& csv_path, const std::string& text);

  const std::vector<AdvisorEntry>& entries() const { return entries_; }
  const AdvisorEntry* find(std::string_view region, std::string_view instance) const;
  // The band's Poisson rate (advisor_band_rate_per_s); throws ConfigError(UnknownName) with
  // a did-you-mean when the pair is not listed.
  double advisor_rate_per_s(std::string_view region, std::string_view instance) const;

 private:
  std::vector<AdvisorEntry> entries_;
  std::string file_;
};

inline constexpr int ADVISOR_BANDS = 5;
// The probability p that an instance is interrupted within a month that a band stands for:
// the band's midpoint (2.5%, 7.5%, 12.5%, 17.5%) and 22.5% for the open ">20%" band.
double advisor_band_monthly_probability(int band);
// lambda = -ln(1 - p) / 730 h: the Poisson rate whose chance of at least one interruption
// in a 730-hour month is p.
double advisor_band_rate_per_s(int band);

// The keys of an `interruptions:` map (of every process: a key of another process is a
// Conflict, not an unknown key), of its `advisor:` and `correlated:` maps, and of an
// `availability:` map and its windows, as the parsers below read them (docs/spot.md).
// Why an event rate is bounded (limits::MAX_EVENT_RATE_PER_S), after "'<rate>' is out of range: ".
inline constexpr std::string_view EVENT_RATE_ABOVE_MAX =
    "at most 60/h (once a minute; a replacement node takes minutes to provision, so faster interruptions make no "
    "physical sense)";

inline constexpr config::KeySpec INTERRUPTION_KEYS[] = {
    {"process", "`none` | `poisson` | `weibull` | `trace` | `price`", "", true, "", "what interrupts the nodes"},
    {.name = "rate", .type = "rate", .help = "poisson: interruptions per node-hour of up time (or `advisor`)",
     .kind = config::KeyKind::Rate, .min = 0, .max = limits::MAX_EVENT_RATE_PER_S, .above_max = EVENT_RATE_ABOVE_MAX},
    {"advisor", "map", "", false, "", "poisson: the rate of an AWS Spot Advisor band (or `rate`)"},
    {.name = "shape", .type = "number", .help = "weibull (required): k", .kind = config::KeyKind::Number, .min = 0,
     .above_min = true, .below_min = "must be greater than zero"},
    {.name = "scale", .type = "duration", .help = "weibull (required): lambda", .kind = config::KeyKind::Duration,
     .min = 60e9},
    {"file", "path", "", false, "", "trace (required): a skypilot-spot JSON trace"},
    {.name = "start", .type = "duration", .range = "within the trace",
     .help = "trace: the trace instant that is simulation time 0", .kind = config::KeyKind::Duration, .min = 0,
     .has_default = true, .default_number = 0},
    {.name = "loop", .type = "bool", .help = "trace: repeat the trace", .kind = config::KeyKind::Bool, .has_default = true,
     .default_number = 0},
    {"correlated", "map", "none", false, "", "zone-wide events"},
};
inline constexpr config::KeySpec ADVISOR_KEYS[] = {
    {"region", "name", "", true, "", "the AWS region"},
    {"instance", "name", "", true, "", "the instance type"},
};
inline constexpr config::KeySpec CORRELATED_KEYS[] = {
    {.name = "rate", .type = "rate", .required = true, .help = "zone-wide events per hour", .kind = config::KeyKind::Rate,
     .min = 0, .max = limits::MAX_EVENT_RATE_PER_S, .above_min = true,
     .below_min = "a correlated event rate must be greater than zero", .above_max = EVENT_RATE_ABOVE_MAX},
    {.name = "fraction", .type = "fraction", .required = true, .help = "of the pool's nodes each event hits",
     .kind = config::KeyKind::Percent, .min = 0, .max = 1, .above_min = true,
     .below_min = "a correlated event must hit more than 0% of the nodes"},
};
inline constexpr config::KeySpec AVAILABILITY_KEYS[] = {
    {"windows", "list of maps", "", false, "non-empty", "recurring windows (or `file`)"},
    {.name = "otherwise", .type = "fraction", .help = "windows: outside every window", .kind = config::KeyKind::Percent,
     .min = 0, .max = 1, .has_default = true, .default_number = 1},
    {"file", "path", "", false, "", "a skypilot-spot JSON trace (or `windows`)"},
    {.name = "start", .type = "duration", .range = "within the trace",
     .help = "file: the trace instant that is simulation time 0", .kind = config::KeyKind::Duration, .min = 0,
     .has_default = true, .default_number = 0},
    {.name = "loop", .type = "bool", .help = "file: repeat the trace", .kind = config::KeyKind::Bool, .has_default = true,
     .default_number = 0},
};
inline constexpr config::KeySpec AVAILABILITY_WINDOW_KEYS[] = {
    {.name = "every", .type = "duration", .required = true, .help = "the period", .kind = config::KeyKind::Duration,
     .min = 60e9},
    {.name = "from", .type = "duration", .required = true, .range = "before `every`",
     .help = "offset of the window's start in the period", .kind = config::KeyKind::Duration, .min = 0},
    {.name = "to", .type = "duration", .required = true, .range = "after `from`, at most `from + every`",
     .help = "its end", .kind = config::KeyKind::Duration, .min = 0},
    {.name = "available", .type = "fraction", .required = true, .help = "of the pool's count",
     .kind = config::KeyKind::Percent, .min = 0, .max = 1},
};

// Parses an `interruptions:` value:
//   {process: poisson, rate: 0.05/h} | {process: poisson, advisor: {region: R, instance: I}}
//   {process: weibull, shape: 0.7, scale: 20h}
//   {process: trace, file: F, start: 0h, loop: false}   (F read through sources: relative to the file naming it)
//   {process: price} | {process: none}
// each with an optional correlated: {rate: 0.01/h, fraction: 50%}. Keys of another process
// are Conflict errors. `advisor` may be null when no advisor catalog is loaded; an
// `advisor:` key then fails with UnknownName.
InterruptionSpec parse_interruptions(const config::ConfigNode& node, config::SourceResolver& sources,
                                     const SpotAdvisor* advisor = nullptr);

// ---------------------------------------------------------------------------------------
// Availability: how many nodes the pool can supply (bring up) at a time.

// In force when (t - from) mod every < to - from: a window may wrap past the period's end.
struct AvailabilityWindow {
  sim::SimTime every;            // period, > 0
  sim::SimTime from;             // [0, every)
  sim::SimTime to;               // (from, from + every]
  double available_fraction = 1;  // [0, 1] of the pool's count
};

struct AvailabilitySpec {
  std::vector<AvailabilityWindow> windows;  // the first window in force wins
  double otherwise_fraction = 1;            // outside every window
  CapacityProfile profile;                  // from a trace file: absolute node counts
  std::string trace_file;

  bool always() const { return windows.empty() && profile.empty(); }
  // Nodes the pool can hold at t: floor(fraction x count) for windows, min(count, value)
  // for a trace, count when always().
  int capacity_at(sim::SimTime t, int count) const;
  // The next instant after t at which capacity_at may change; SimTime::max() when never.
  sim::SimTime next_change_after(sim::SimTime t) const;
};

// floor(fraction x count), with a 1e-9 guard so that 0.29 x 100 gives 29.
int nodes_of_fraction(double fraction, int count);

// Parses an `availability:` value:
//   {windows: [{every: 1w, from: 3d12h, to: 3d18h, available: 100%}, ...], otherwise: 25%}
//   {file: F, start: 0h, loop: false}
AvailabilitySpec parse_availability(const config::ConfigNode& node, config::SourceResolver& sources);

}  // namespace gcsim::models
