// `gcsim trace fit SCENARIO -o OUT.yaml [--scale-rate X] [--count N | --span D]`: a
// workload generator fitted to a scenario's jobs (its trace through the importers, its
// written jobs, or what its generators draw), written as an ordinary scenario: the input's
// cluster and scheduler, and a workload of generators (docs/traces.md, "Growing a trace").
//
// What is fitted, and why it is faithful:
// - the arrival rate by hour of the week (168 bins; 24 for a trace shorter than a week, one
//   for one shorter than a day): jobs in each bin over the hours the trace covers of it,
//   written once as `rate: {per_hour: &profile [...]}` and shared by every generator
//   through the alias, each with `scale:` its share of the jobs. Splitting a Poisson
//   process by independent marks gives Poisson processes of rate share x rate, so the
//   generators together arrive as the whole did (the marks' independence of the arrival
//   time is the assumption);
// - one generator per GPU-count class (each distinct count when there are at most six,
//   else 1, 2-4, 5-8, >8) and GPU-type constraint (`gpu:`), with the class's GPU counts as
//   a `choice`, one-GPU jobs' shares (`gpu_milli`) as a `choice`, the duration as an
//   `empirical` distribution of up to 101 quantiles (the group's own when it has at least
//   MIN_OWN_DURATIONS jobs, else its class's), and the team mix as a `team` choice.
// The quality report draws from the written file as `gcsim run` would (load it, expand its
// workload with the simulator's code) and sets the drawn quantiles beside the trace's.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "models/config/scheduler_variant.hpp"
#include "models/config/workload_reader.hpp"
#include "models/coupling/expand_workload.hpp"
#include "sim/atomic_file.hpp"
#include "sim/calendar.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

struct TraceFitCommand {
  CLI::App* trace = nullptr;
  CLI::App* fit = nullptr;
  std::string scenario;
  std::string out;
  double scale_rate = 1;
  std::string count_text;
  std::string span_text;
};

namespace {

constexpr std::int64_t HOUR_NS = 3'600'000'000'000;
constexpr std::size_t MIN_OWN_DURATIONS = 100;  // fewer: the group takes its class's durations
constexpr std::size_t MAX_QUANTILE_STEPS = 100;  // an empirical distribution's knots: at most 101
constexpr std::size_t MAX_CHOICE_VALUES = 64;    // more distinct values: an empirical distribution

// One job as the fit sees it.
struct Sample {
  std::int64_t submit_ns = 0;
  double duration_s = 0;
  int gpus = 1;
  int milli = 1000;
  std::string team;               // empty: none
  std::vector<std::string> gpus_allowed;  // `gpu`, sorted; empty: any
  std::string gpu_key;            // gpus_allowed joined by '+'
};

std::string join(const std::vector<std::string>& names, const char* sep) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : sep) + n;
  return s;
}

// Type 7 (linear between order statistics, Hyndman and Fan 1996) of sorted values.
double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto k = static_cast<std::size_t>(std::floor(h));
  if (k + 1 >= sorted.size()) return sorted.back();
  return sorted[k] + (h - static_cast<double>(k)) * (sorted[k + 1] - sorted[k]);
}

// A number as a scenario reads it back exactly enough: up to 9 decimals, no exponent.
std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}
std::string rate_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}
std::string seconds_text(double s) { return number_text(s) + "s"; }

// The bins of the rate by time of the week: 168 (a trace of a week or more), 24 (a day or
// more), else 1. Each bin's rate is its arrivals over the hours of [t0, t1] in it.
struct RateBins {
  int bins = 1;
  std::vector<double> exposure_h;
  std::vector<double> jobs;
  int bin_of(std::int64_t ns) const {
    if (bins == 168) return static_cast<int>((ns % sim::WEEK_NS) / HOUR_NS);
    if (bins == 24) return static_cast<int>((ns % sim::DAY_NS) / HOUR_NS);
    return 0;
  }
  std::vector<double> rates() const {
    std::vector<double> r(static_cast<std::size_t>(bins));
    for (std::size_t b = 0; b < r.size(); ++b) r[b] = exposure_h[b] > 0 ? jobs[b] / exposure_h[b] : 0;
    return r;
  }
};

int bins_for_span(std::int64_t span_ns) { return span_ns >= sim::WEEK_NS ? 168 : span_ns >= sim::DAY_NS ? 24 : 1; }

// `submits` sorted; the window is [first, last].
RateBins rate_bins(const std::vector<std::int64_t>& submits, int bins) {
  RateBins r;
  r.bins = bins;
  r.exposure_h.assign(static_cast<std::size_t>(bins), 0);
  r.jobs.assign(static_cast<std::size_t>(bins), 0);
  const std::int64_t t0 = submits.front(), t1 = submits.back();
  for (std::int64_t t = t0; t < t1;) {
    const std::int64_t end = std::min(t1, (t / HOUR_NS + 1) * HOUR_NS);
    r.exposure_h[static_cast<std::size_t>(r.bin_of(t))] += static_cast<double>(end - t) / static_cast<double>(HOUR_NS);
    t = end;
  }
  for (const std::int64_t s : submits) r.jobs[static_cast<std::size_t>(r.bin_of(s))] += 1;
  return r;
}

// GPU-count classes: every distinct count when there are at most six, else 1, 2-4, 5-8, >8.
struct Classes {
  std::vector<int> distinct;  // when by value
  int of(int gpus) const {
    if (!distinct.empty())
      return static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), gpus) - distinct.begin());
    return gpus <= 1 ? 0 : gpus <= 4 ? 1 : gpus <= 8 ? 2 : 3;
  }
  std::string label(int c) const {
    if (!distinct.empty()) return std::to_string(distinct[static_cast<std::size_t>(c)]);
    static const char* const LABELS[] = {"1", "2-4", "5-8", "9plus"};
    return LABELS[c];
  }
  int count() const { return distinct.empty() ? 4 : static_cast<int>(distinct.size()); }
};

Classes make_classes(const std::vector<Sample>& jobs) {
  std::set<int> values;
  for (const Sample& j : jobs) values.insert(j.gpus);
  Classes c;
  if (values.size() <= 6) c.distinct.assign(values.begin(), values.end());
  return c;
}

// A choice (distinct values, weighted by how often each occurs) or, past MAX_CHOICE_VALUES,
// an empirical distribution; a constant when there is one value. `whole`: integer values.
std::string discrete_yaml(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::vector<std::pair<double, std::size_t>> counts;
  for (const double v : values) {
    if (counts.empty() || counts.back().first != v) counts.emplace_back(v, 0);
    ++counts.back().second;
  }
  if (counts.size() == 1) return number_text(counts[0].first);
  if (counts.size() > MAX_CHOICE_VALUES) {
    std::string s = "{dist: empirical, quantiles: [";
    const std::size_t steps = std::min(MAX_QUANTILE_STEPS, values.size() - 1);
    for (std::size_t k = 0; k <= steps; ++k)
      s += (k ? ", " : "") + number_text(quantile(values, static_cast<double>(k) / static_cast<double>(steps)));
    return s + "]}";
  }
  std::string v = "{choice: [", w = "], weights: [";
  for (std::size_t i = 0; i < counts.size(); ++i) {
    v += (i ? ", " : "") + number_text(counts[i].first);
    w += (i ? ", " : "") + std::to_string(counts[i].second);
  }
  return v + w + "]}";
}

// Durations as an empirical distribution of min(100, n - 1) steps (a constant for one value).
std::string duration_yaml(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  if (seconds.front() == seconds.back()) return seconds_text(seconds.front());
  const std::size_t steps = std::min(MAX_QUANTILE_STEPS, seconds.size() - 1);
  std::string s = "{dist: empirical, quantiles: [";
  for (std::size_t k = 0; k <= steps; ++k)
    s += (k ? ", " : "") + seconds_text(quantile(seconds, static_cast<double>(k) / static_cast<double>(steps)));
  return s + "]}";
}

// A name for a generator (config::read_name: no '/', '\' or control characters).
std::string safe_name(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == ' ' || c == ':' || c == ',') c = '_';
  return s;
}

// A name or text as a YAML scalar: quoted when it could be read as anything else.
std::string yaml_text(const std::string& s) {
  bool plain = !s.empty();
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) plain = false;
  if (plain && (std::isdigit(static_cast<unsigned char>(s[0])) || s == "true" || s == "false" || s == "null" || s == "yes" ||
                s == "no" || s == "on" || s == "off" || s[0] == '-'))
    plain = false;
  if (plain) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

// The jobs of a loaded scenario: its written and traced jobs (with their `gpu` names), and
// what its generators draw (with each generator's). Work and model jobs have no recorded
// duration: counted, not fitted.
std::vector<Sample> scenario_samples(const models::Scenario& s, std::size_t& without_duration) {
  std::vector<Sample> out;
  out.reserve(s.workload.jobs.size());
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  for (const models::JobSpec& j : s.workload.jobs) {
    if (!j.duration) {
      ++without_duration;
      continue;
    }
    Sample x;
    x.submit_ns = j.submit.ns();
    x.duration_s = j.duration->seconds();
    x.gpus = j.gpus;
    x.milli = j.gpu_milli;
    x.team = std::string(s.workload.team_name(j.team));
    x.gpus_allowed = sorted(j.gpu_types);
    x.gpu_key = join(x.gpus_allowed, "+");
    out.push_back(std::move(x));
  }
  // Each generator on its own (to know each job's `gpu` names), over one copy of the
  // scenario without its written jobs.
  models::Scenario one;
  if (!s.workload.generators.empty()) {
    one = s;
    one.workload.jobs = {};
  }
  for (const models::GeneratorSpec& g : s.workload.generators) {
    one.workload.generators = {g};
    const std::vector<std::string> allowed = sorted(g.gpu_types);
    for (const models::Job& j : models::expand_workload(one, s.seed, 0)) {
      if (!j.has_duration) {
        ++without_duration;
        continue;
      }
      Sample x;
      x.submit_ns = j.submit.ns();
      x.duration_s = j.duration.seconds();
      x.gpus = j.gpus;
      x.milli = j.gpu_milli;
      x.team = std::string(s.workload.team_name(j.team));
      x.gpus_allowed = allowed;
      x.gpu_key = join(allowed, "+");
      out.push_back(std::move(x));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Sample& a, const Sample& b) { return a.submit_ns < b.submit_ns; });
  return out;
}

// The input's top-level sections a fitted scenario keeps: all but its name, horizon,
// workload and output (the trace's file name is the input's); the cluster made from a
// trace's machines when the input has no cluster.
std::string kept_sections(const config::ConfigDocument& doc, const models::LoadOptions& options) {
  std::vector<std::pair<std::string, config::ConfigNode>> kept;
  bool has_cluster = false;
  for (const auto& [key, node] : doc.root.entries()) {
    if (key == "name" || key == "horizon" || key == "workload" || key == "output") continue;
    has_cluster = has_cluster || key == "cluster";
    kept.emplace_back(key, node);
  }
  if (!has_cluster) {
    if (const config::ConfigNode* w = doc.root.find("workload"); w && w->find("trace")) {
      config::SourceResolver sources;
      const models::Catalogs catalogs = models::load_bundled_catalogs(options);
      const models::WorkloadSection section = models::read_workload(*w, catalogs.models, sources);
      if (section.trace_cluster) kept.emplace_back("cluster", *section.trace_cluster);
    }
  }
  if (kept.empty()) return "";
  return models::block_yaml(config::ConfigNode::make_map(std::move(kept), doc.root.mark(), ""), 0);
}

// One generator's jobs, and the class it belongs to.
struct Group {
  int cls = 0;
  std::string gpu_key;
  std::vector<std::string> gpus_allowed;
  std::vector<std::size_t> jobs;
  std::int64_t count = 0;
  std::string name;
};

struct Comparison {
  std::string label;
  std::vector<double> real, fitted;  // sorted
};

std::string cell(double real, double fitted) {
  auto fmt = [](double v) {
    char buf[32];
    if (std::fabs(v) >= 1e6 || (v != 0 && std::fabs(v) < 1e-3)) std::snprintf(buf, sizeof buf, "%.3g", v);
    else std::snprintf(buf, sizeof buf, "%.4g", v);
    return std::string(buf);
  };
  return fmt(real) + " / " + fmt(fitted);
}

std::string share_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

}  // namespace

std::shared_ptr<TraceFitCommand> add_trace_fit_command(CLI::App& app) {
  auto c = std::make_shared<TraceFitCommand>();
  c->trace = app.add_subcommand("trace", "Work with cluster traces: fit a workload generator to one");
  c->trace->require_subcommand(1);
  c->fit = c->trace->add_subcommand(
      "fit", "Fit generators to a scenario's jobs (its trace) and write them as a scenario, with a quality report");
  c->fit->add_option("scenario", c->scenario, "Scenario whose workload (trace, jobs) is fitted")->required();
  c->fit->add_option("-o,--output", c->out, "The fitted scenario (YAML) to write")->required();
  c->fit->add_option("--scale-rate", c->scale_rate, "Multiply the arrival rates (default 1)")
      ->check(CLI::Range(1e-6, 1e6));
  auto* count = c->fit->add_option("--count", c->count_text, "Jobs to generate in all (default: as many as the trace's span holds)");
  auto* span = c->fit->add_option("--span", c->span_text, "Generate the jobs expected in this long (e.g. 365d; default: the trace's span)");
  count->excludes(span);
  return c;
}

int run_trace_fit_command(const TraceFitCommand& c, const models::LoadOptions& options) {
  if (!*c.fit) return -1;
  // Options first: nothing is read for a bad one.
  std::optional<std::int64_t> want_count;
  std::optional<std::int64_t> want_span_ns;
  if (!c.count_text.empty()) {
    double n = 0;
    try {
      n = units::parse_count(c.count_text);
    } catch (const units::UnitError& e) {
      throw Error("--count '" + c.count_text + "': " + e.what());
    }
    if (!(n >= 1 && n <= 1e9 && n == std::floor(n)))
      throw Error("--count '" + c.count_text + "': expected a whole number of jobs from 1 to 1e9");
    want_count = static_cast<std::int64_t>(n);
  }
  if (!c.span_text.empty()) {
    try {
      want_span_ns = units::parse_duration_ns(c.span_text);
    } catch (const units::UnitError& e) {
      throw Error("--span '" + c.span_text + "': " + e.what());
    }
    if (*want_span_ns < HOUR_NS) throw Error("--span '" + c.span_text + "': expected at least 1h");
  }

  const config::ConfigDocument doc = config::load_yaml_file(c.scenario);
  const models::Scenario input = models::load_scenario(doc, models::load_bundled_catalogs(options), options.schedulers);
  std::size_t without_duration = 0;
  const std::vector<Sample> jobs = scenario_samples(input, without_duration);
  if (jobs.size() < 2 || jobs.front().submit_ns == jobs.back().submit_ns)
    throw Error("trace fit: " + c.scenario + ": the workload has " + std::to_string(jobs.size()) +
                " job(s) with a duration" + (jobs.size() < 2 ? "" : ", all submitted at one time") +
                ": a rate needs at least two submit times apart (work and model jobs have no recorded duration)");

  // The arrival profile.
  std::vector<std::int64_t> submits;
  submits.reserve(jobs.size());
  for (const Sample& j : jobs) submits.push_back(j.submit_ns);
  const std::int64_t trace_span_ns = submits.back() - submits.front();
  const int bins = bins_for_span(trace_span_ns);
  const RateBins real_bins = rate_bins(submits, bins);
  const std::vector<double> real_rates = real_bins.rates();
  std::vector<double> profile(168);
  for (int h = 0; h < 168; ++h)
    profile[static_cast<std::size_t>(h)] =
        c.scale_rate * real_rates[static_cast<std::size_t>(bins == 168 ? h : bins == 24 ? h % 24 : 0)];
  const models::WeekRate week = models::WeekRate::from_hours(profile.data(), profile.size());

  // How many jobs, and over how long.
  std::int64_t total = 0;
  std::int64_t span_ns = 0;
  if (want_count) {
    total = *want_count;
    span_ns = week.advance(sim::SimTime::zero(), static_cast<double>(total)).ns();
  } else {
    span_ns = want_span_ns ? *want_span_ns : trace_span_ns;
    total = std::max<std::int64_t>(1, std::llround(week.expected_before(sim::SimTime::from_ns(span_ns))));
  }

  // The groups: class x GPU-type constraint, in class order, then by size.
  const Classes classes = make_classes(jobs);
  std::map<std::pair<int, std::string>, Group> by_key;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    Group& g = by_key[{classes.of(jobs[i].gpus), jobs[i].gpu_key}];
    g.cls = classes.of(jobs[i].gpus);
    g.gpu_key = jobs[i].gpu_key;
    g.gpus_allowed = jobs[i].gpus_allowed;
    g.jobs.push_back(i);
  }
  std::vector<Group> groups;
  for (auto& [key, g] : by_key) groups.push_back(std::move(g));
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.cls != b.cls ? a.cls < b.cls : a.jobs.size() > b.jobs.size();
  });
  // With --count, counts by largest remainder, so they sum to `total`. Else each generator
  // ends at the span with a count that only caps it: a count alone would let a rare
  // group's last job trail far past the others (a group expecting one job in the span
  // draws it after three spans one time in twenty), and its count is Poisson anyway.
  const bool by_span = !want_count;
  if (by_span) {
    for (Group& g : groups) {
      const double expected = static_cast<double>(total) * static_cast<double>(g.jobs.size()) / static_cast<double>(jobs.size());
      g.count = static_cast<std::int64_t>(std::ceil(expected + 6 * std::sqrt(expected) + 10));
    }
  } else {
    std::vector<std::pair<double, std::size_t>> rest;
    std::int64_t given = 0;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const double want = static_cast<double>(total) * static_cast<double>(groups[k].jobs.size()) / static_cast<double>(jobs.size());
      groups[k].count = static_cast<std::int64_t>(std::floor(want));
      given += groups[k].count;
      rest.emplace_back(want - std::floor(want), k);
    }
    std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < total && k < rest.size(); ++k, ++given) ++groups[rest[k].second].count;
  }
  std::vector<std::vector<double>> class_durations(static_cast<std::size_t>(classes.count()));
  for (const Sample& j : jobs) class_durations[static_cast<std::size_t>(classes.of(j.gpus))].push_back(j.duration_s);

  // The written scenario.
  std::string body;
  body += "name: " + yaml_text(safe_name(input.name + "-fitted")) + "\n";
  // The horizon grows with the span: the input's margin after its last submit, scaled.
  const double grow = static_cast<double>(span_ns) / static_cast<double>(std::max<std::int64_t>(trace_span_ns, 1));
  const double horizon_days = std::ceil(std::max(1.0, grow) * input.horizon.seconds() / 86400.0);
  body += "horizon: " + number_text(std::max(horizon_days, std::ceil(static_cast<double>(span_ns) / 8.64e13) + 1)) + "d\n";
  body += kept_sections(doc, options);
  body += "workload:\n  generators:\n";
  std::size_t written = 0, dropped_jobs = 0, pooled = 0;
  std::set<std::string> names;
  for (Group& g : groups) {
    if (g.count == 0) {
      dropped_jobs += g.jobs.size();
      continue;
    }
    std::string name = safe_name("gpus-" + classes.label(g.cls) + (g.gpu_key.empty() ? "" : "-" + g.gpu_key));
    for (int k = 2; !names.insert(name).second; ++k) name = safe_name("gpus-" + classes.label(g.cls) + "-" + std::to_string(k));
    g.name = name;
    std::vector<double> gpus, milli, durations;
    std::map<std::string, std::size_t> teams;
    for (const std::size_t i : g.jobs) {
      gpus.push_back(jobs[i].gpus);
      if (jobs[i].gpus == 1) milli.push_back(jobs[i].milli);
      durations.push_back(jobs[i].duration_s);
      if (!jobs[i].team.empty()) ++teams[jobs[i].team];
    }
    if (durations.size() < MIN_OWN_DURATIONS) {
      durations = class_durations[static_cast<std::size_t>(g.cls)];
      ++pooled;
    }
    const double share = static_cast<double>(g.jobs.size()) / static_cast<double>(jobs.size());
    body += "    # " + std::to_string(g.jobs.size()) + " jobs of the input (" + share_text(share) + "), GPUs " +
            classes.label(g.cls) + ", gpu " + (g.gpu_key.empty() ? "any" : g.gpu_key) +
            (g.jobs.size() < MIN_OWN_DURATIONS ? "; durations of the class" : "") + "\n";
    body += "    - name: " + yaml_text(name) + "\n";
    body += "      count: " + std::to_string(g.count) + "\n";
    if (by_span) body += "      end: " + seconds_text(static_cast<double>(span_ns) / 1e9) + "\n";
    body += "      rate: {per_hour: ";
    if (written == 0) {
      body += "&profile [";
      for (std::size_t h = 0; h < profile.size(); ++h) body += (h ? ", " : "") + rate_text(profile[h]);
      body += "]";
    } else {
      body += "*profile";
    }
    body += ", scale: " + rate_text(share) + "}\n";
    body += "      gpus: " + discrete_yaml(gpus) + "\n";
    const bool shared = std::any_of(milli.begin(), milli.end(), [](double m) { return m < 1000; });
    if (shared) {
      // gpu_milli is drawn for every job and used by one-GPU ones: the one-GPU jobs' mix.
      body += "      gpu_milli: " + discrete_yaml(milli) + "\n";
    }
    body += "      duration: " + duration_yaml(durations) + "\n";
    if (teams.size() == 1) {
      body += "      team: " + yaml_text(teams.begin()->first) + "\n";
    } else if (teams.size() > 1) {
      std::string v, w;
      for (const auto& [team, n] : teams) {
        v += (v.empty() ? "" : ", ") + yaml_text(team);
        w += (w.empty() ? "" : ", ") + std::to_string(n);
      }
      body += "      team: {choice: [" + v + "], weights: [" + w + "]}\n";
    }
    if (!g.gpus_allowed.empty()) {
      std::string v;
      for (const std::string& n : g.gpus_allowed) v += (v.empty() ? "" : ", ") + yaml_text(n);
      body += "      gpu: [" + v + "]\n";
    }
    ++written;
  }

  // Header: the source, the span, what was fitted.
  // Times to a tenth of a day, or of an hour for a trace shorter than two days.
  const bool short_trace = trace_span_ns < 2 * sim::DAY_NS;
  auto at = [&](std::int64_t ns) {
    return short_trace ? number_text(std::round(static_cast<double>(ns) / 3.6e11) / 10.0) + "h"
                       : number_text(std::round(static_cast<double>(ns) / 8.64e12) / 10.0) + "d";
  };
  auto span_text = [](std::int64_t ns) {
    return ns < 2 * sim::DAY_NS ? number_text(std::round(static_cast<double>(ns) / 3.6e11) / 10.0) + " hours"
                                : number_text(std::round(static_cast<double>(ns) / 8.64e12) / 10.0) + " days";
  };
  std::string header;
  header += "# Fitted by `gcsim trace fit` to " + c.scenario + " (scenario " + input.name + ")";
  if (const config::ConfigNode* t = doc.root.find("workload")->find("trace")) {
    header += ", its trace";
    for (const char* key : {"format", "pods", "file", "jobs", "time_window", "speedup", "scale_gpus"})
      if (const config::ConfigNode* v = t->find(key); v && v->is_scalar()) header += std::string(" ") + key + ": " + std::string(v->scalar());
  }
  header += "\n";
  header += "# Source: " + std::to_string(jobs.size()) + " jobs with a duration, submitted from " +
            at(submits.front()) + " to " + at(submits.back()) + " (a span of " + span_text(trace_span_ns) + ")" +
            (without_duration ? "; " + std::to_string(without_duration) + " work or model jobs left out" : "") + ".\n";
  header += "# Fitted: the arrival rate " +
            std::string(bins == 168 ? "by hour of the week (168 bins, averaged over the weeks covered)"
                        : bins == 24 ? "by hour of the day (24 bins: the trace is shorter than a week)"
                                     : "as a constant (the trace is shorter than a day)") +
            (c.scale_rate != 1 ? ", times " + number_text(c.scale_rate) : std::string()) + "; one generator per GPU-count class and `gpu` constraint, " +
            "each with the rate times its share of the jobs (a Poisson process split by independent marks), its GPU " +
            "counts, one-GPU shares (gpu_milli), durations (empirical quantiles, log-linear between them) and teams.\n";
  header += "# Generated: " +
            (by_span ? "about " + std::to_string(total) + " jobs (a Poisson count; each generator's `count` is a cap) in " +
                           std::to_string(written) + " generators, over " + span_text(span_ns) + " (`end`)"
                     : std::to_string(total) + " jobs in " + std::to_string(written) + " generators, over about " +
                           span_text(span_ns)) +
            " from time 0 (Monday 00:00)" +
            (dropped_jobs ? "; groups too rare for one job (" + std::to_string(dropped_jobs) + " input jobs) left out" : "") +
            (pooled ? "; " + std::to_string(pooled) + " generators of fewer than " + std::to_string(MIN_OWN_DURATIONS) +
                          " jobs take their class's durations"
                    : "") +
            ".\n";

  // Written once, loaded back and drawn from as a run would; then written with the report.
  sim::write_file_atomically(c.out, header + body);
  models::Scenario fitted_s;
  try {
    fitted_s = models::load_scenario_file(c.out, options);
  } catch (const Error& e) {
    std::error_code ec;
    std::filesystem::remove(c.out, ec);
    // A section kept from the input may name a file by a path relative to the input's
    // folder, which the output's folder does not have.
    throw Error(std::string("trace fit: the fitted scenario does not load, and is not written: ") + e.what() +
                " (a relative file path in a section kept from the input, such as catalogs:, is read from the "
                "output's folder: write the output beside the input)");
  }
  std::size_t unused = 0;
  const std::vector<Sample> drawn = scenario_samples(fitted_s, unused);

  // The report: the real against the drawn, side by side.
  const double x = c.scale_rate;
  std::vector<Comparison> rows;
  auto sorted = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  {
    Comparison gaps{"inter-arrival time (s)", {}, {}};
    for (std::size_t i = 1; i < jobs.size(); ++i) gaps.real.push_back(static_cast<double>(jobs[i].submit_ns - jobs[i - 1].submit_ns) / 1e9);
    for (std::size_t i = 1; i < drawn.size(); ++i)
      gaps.fitted.push_back(x * static_cast<double>(drawn[i].submit_ns - drawn[i - 1].submit_ns) / 1e9);
    rows.push_back({gaps.label, sorted(gaps.real), sorted(gaps.fitted)});
    std::vector<std::int64_t> drawn_submits;
    for (const Sample& d : drawn) drawn_submits.push_back(d.submit_ns);
    std::vector<double> fitted_rates = drawn_submits.size() >= 2 ? rate_bins(drawn_submits, bins).rates() : std::vector<double>{};
    for (double& r : fitted_rates) r /= x;
    rows.push_back({std::string("jobs per hour, by hour of the ") + (bins == 168 ? "week" : bins == 24 ? "day" : "trace"),
                    sorted(real_rates), sorted(fitted_rates)});
  }
  {
    std::vector<double> a, b, ma, mb;
    for (const Sample& j : jobs) {
      a.push_back(j.gpus);
      if (j.gpus == 1) ma.push_back(j.milli);
    }
    for (const Sample& j : drawn) {
      b.push_back(j.gpus);
      if (j.gpus == 1) mb.push_back(j.milli);
    }
    rows.push_back({"GPUs per job", sorted(a), sorted(b)});
    if (std::any_of(ma.begin(), ma.end(), [](double m) { return m < 1000; }))
      rows.push_back({"gpu_milli of one-GPU jobs", sorted(ma), sorted(mb)});
  }
  for (int k = 0; k < classes.count(); ++k) {
    std::vector<double> a, b;
    for (const Sample& j : jobs)
      if (classes.of(j.gpus) == k) a.push_back(j.duration_s);
    for (const Sample& j : drawn)
      if (classes.of(j.gpus) == k) b.push_back(j.duration_s);
    if (!a.empty()) rows.push_back({"duration (s), " + classes.label(k) + " GPU" + (classes.label(k) == "1" ? "" : "s"), sorted(a), sorted(b)});
  }
  std::string table = "| quantity | n (trace / fitted) | p10 | p50 | p90 | p99 |\n|---|---|---|---|---|---|\n";
  for (const Comparison& r : rows) {
    table += "| " + r.label + " | " + std::to_string(r.real.size()) + " / " + std::to_string(r.fitted.size());
    for (const double p : {0.10, 0.50, 0.90, 0.99}) table += " | " + cell(quantile(r.real, p), quantile(r.fitted, p));
    table += " |\n";
  }
  // The mixes: GPU-type constraints and teams, the most common first.
  auto mix = [&](const char* what, auto key) {
    std::map<std::string, std::pair<double, double>> m;
    for (const Sample& j : jobs) m[key(j)].first += 1.0 / static_cast<double>(jobs.size());
    for (const Sample& j : drawn) m[key(j)].second += 1.0 / static_cast<double>(std::max<std::size_t>(1, drawn.size()));
    if (m.size() <= 1) return std::string();
    std::vector<std::pair<std::string, std::pair<double, double>>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    std::string s = std::string("\n| ") + what + " | share (trace / fitted) |\n|---|---|\n";
    for (std::size_t i = 0; i < v.size() && i < 10; ++i)
      s += "| " + (v[i].first.empty() ? std::string("(any)") : v[i].first) + " | " + share_text(v[i].second.first) + " / " +
           share_text(v[i].second.second) + " |\n";
    if (v.size() > 10) s += "| (" + std::to_string(v.size() - 10) + " more) | |\n";
    return s;
  };
  table += mix("gpu", [](const Sample& j) { return j.gpu_key; });
  table += mix("team", [](const Sample& j) { return j.team.empty() ? std::string("(none)") : j.team; });

  std::string note = "Fit quality: quantiles of the trace / of " + std::to_string(drawn.size()) +
                     " jobs drawn from this file (seed " + std::to_string(fitted_s.seed) + ", replication 0, as `gcsim run` draws them)" +
                     (x != 1 ? "; drawn rates divided by " + number_text(x) + " and gaps multiplied by it" : "") + ".\n";
  std::string comment = "#\n# " + note;
  for (std::size_t at = 0; at < table.size();) {
    const std::size_t end = table.find('\n', at);
    comment += "# " + table.substr(at, end - at) + "\n";
    at = end + 1;
  }
  sim::write_file_atomically(c.out, header + comment + "\n" + body);
  std::cout << "wrote " << c.out << ": " << (by_span ? "about " : "") << total << " jobs in " << written
            << " generators over " << (by_span ? "" : "about ") << span_text(span_ns) << "\n\n" << note << "\n" << table;
  return 0;
}

}  // namespace gcsim::cli
