// `workload.services` (see service_reader.hpp).
#include "models/config/service_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <vector>

#include "models/config/calendar_reader.hpp"
#include "models/config/distribution_reader.hpp"
#include "models/config/reader_common.hpp"
#include "sim/config/csv.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;
using serving::ServiceSpec;

namespace {

// `when:` of replicas.autoscale: `queue_length > N`, `utilization > P%`, `memory > P%` or
// `kv_cache > P%` (the last two need an LLM: `llm`); `gpu_utilization` and `gpu_memory`
// are the first two percentages under the cluster autoscaler's names.
serving::ReplicaAutoscaleSpec read_when(const ConfigNode& n, bool llm) {
  using Measure = serving::ReplicaAutoscaleSpec::Measure;
  const std::string text = config::read_string(n);
  serving::ReplicaAutoscaleSpec a;
  a.text = text;
  const auto gt = text.find('>');
  std::string name = text.substr(0, gt == std::string::npos ? text.size() : gt);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  while (!name.empty() && name.front() == ' ') name.erase(0, 1);
  // gpu_utilization and gpu_memory: the names of the cluster autoscaler's triggers
  // (pools.autoscale; docs/operations.md), for the same measures.
  const std::vector<std::string> measures{"queue_length", "utilization", "memory", "kv_cache", "gpu_utilization",
                                          "gpu_memory"};
  const auto m = std::find(measures.begin(), measures.end(), name);
  if (m == measures.end()) {
    const std::string near = did_you_mean(name, measures);
    n.fail(ErrorCode::UnknownName, "in '" + text + "': unknown measure '" + name + "'" +
                                       (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                       " (queue_length > N, utilization > P%, memory > P% or kv_cache > P%)");
  }
  if (gt == std::string::npos || (gt + 1 < text.size() && text[gt + 1] == '='))
    n.fail(ErrorCode::Syntax, "in '" + text + "': expected '>' and a value after '" + name + "'");
  std::string value = text.substr(gt + 1);
  while (!value.empty() && value.front() == ' ') value.erase(0, 1);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  const bool percent = !value.empty() && value.back() == '%';
  const std::string number = percent ? value.substr(0, value.size() - 1) : value;
  char* stop = nullptr;
  const double v = number.empty() ? NAN : std::strtod(number.c_str(), &stop);
  if (number.empty() || stop != number.c_str() + number.size() || !std::isfinite(v))
    n.fail(ErrorCode::Syntax, "in '" + text + "': '" + value + "' is not a number");
  if (name == "queue_length") {
    if (percent || v < 0 || v != std::floor(v))
      n.fail(ErrorCode::OutOfRange, "in '" + text + "': queue_length counts requests: a whole number >= 0");
    a.measure = Measure::QueueLength;
    a.threshold = v;
    return a;
  }
  if (!percent) n.fail(ErrorCode::BadUnit, "in '" + text + "': write " + name + " as a percentage (e.g. 80%)");
  if (v <= 0 || v > 100) n.fail(ErrorCode::OutOfRange, "in '" + text + "': " + name + " runs (0%, 100%]");
  if (name == "gpu_utilization") name = "utilization";
  if (name == "gpu_memory") name = "memory";
  if (name != "utilization" && !llm)
    n.fail(ErrorCode::Conflict, "in '" + text + "': " + name +
                                    " needs an LLM model (its KV cache is what fills the GPU's memory); use "
                                    "queue_length or utilization");
  a.measure = name == "utilization" ? Measure::Utilization : name == "memory" ? Measure::Memory : Measure::KvCache;
  a.threshold = v / 100.0;
  return a;
}

// The steps of a profile from its value at each of `starts` (sorted, distinct, the first
// 0), equal neighbours merged; and its largest value, which must be above 0.
void set_profile(const ConfigNode& n, ServiceSpec& s, const std::vector<std::int64_t>& starts,
                 const std::vector<double>& rates, const std::string& what) {
  s.profile.clear();
  for (std::size_t i = 0; i < starts.size(); ++i)
    if (s.profile.empty() || s.profile.back().rate != rates[i]) s.profile.push_back({starts[i], rates[i]});
  s.profile_max = 0;
  for (const ServiceSpec::ProfileStep& p : s.profile) s.profile_max = std::max(s.profile_max, p.rate);
  if (!(s.profile_max > 0)) n.fail(ErrorCode::OutOfRange, "every multiplier of " + what + " is 0: no request would ever come");
}

// `requests.profile` in the calendar's form: `windows` ({days, hours, rate}, the first
// that holds in force, as quota windows) and `otherwise`. Its steps start at every change
// of any window (to the minute), each with the rate in force there.
void read_profile_calendar(const ConfigNode& n, ServiceSpec& s) {
  MapReader r(n, SERVICE_PROFILE_KEYS);
  const ConfigNode& windows = r.required("windows");
  if (!windows.is_sequence()) windows.fail(ErrorCode::WrongType, "windows is a list of maps ({days, hours, rate})");
  if (windows.size() == 0) windows.fail(ErrorCode::MissingKey, "give at least one window (or leave the profile out)");
  std::vector<std::pair<sim::WeekCalendar, double>> in;
  for (const ConfigNode& item : windows.items()) {
    MapReader w(item, SERVICE_PROFILE_WINDOW_KEYS);
    sim::WeekCalendar when = read_week_calendar(w);
    const double rate = w.value<double>("rate");
    w.finish();
    in.emplace_back(std::move(when), rate);
  }
  const double otherwise = r.value<double>("otherwise");
  r.finish();
  std::vector<std::int64_t> starts{0};
  for (const auto& [when, rate] : in)
    for (const auto& [from, to] : when.spans()) {
      starts.push_back(from);
      if (to < sim::WEEK_NS) starts.push_back(to);
    }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<double> rates;
  for (const std::int64_t t : starts) {
    double rate = otherwise;
    for (const auto& [when, r_in] : in)
      if (when.contains(sim::SimTime::from_ns(t))) {
        rate = r_in;
        break;
      }
    rates.push_back(rate);
  }
  set_profile(n, s, starts, rates, "the profile");
}

// `requests.profile`: a CSV file `hour,multiplier`, one row per hour of the week (0..167,
// 0 = Monday 00:00-01:00) or of the day (0..23, every day alike), each hour once; or a map
// in the calendar's form (read_profile_calendar).
void read_profile(const ConfigNode& n, ServiceSpec& s, config::SourceResolver& sources) {
  if (n.is_map()) return read_profile_calendar(n, s);
  if (!n.is_scalar())
    n.fail(ErrorCode::WrongType, "a profile is a CSV file `hour,multiplier` or a map {windows: [{days, hours, rate}], otherwise}");
  const std::string path = config::SourceResolver::resolve(n.mark().file, config::read_string(n));
  std::istringstream in(sources.read(n, "request profile"));
  const auto fail = [&](int line, const std::string& why) {
    throw ConfigError(ErrorCode::Syntax, SourceMark{path, line, 1}, n.path(), why);
  };
  std::string text;
  int line = 0;
  std::vector<double> values;
  std::vector<bool> seen;
  bool header = false;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text[0] == '#') continue;
    if (!header) {
      if (text != "hour,multiplier") fail(line, "the header must be 'hour,multiplier', not '" + text + "'");
      header = true;
      continue;
    }
    const auto comma = text.find(',');
    if (comma == std::string::npos) fail(line, "expected 'hour,multiplier', got '" + text + "'");
    char* end = nullptr;
    const std::string hour_text = text.substr(0, comma), value_text = text.substr(comma + 1);
    const long hour = std::strtol(hour_text.c_str(), &end, 10);
    if (hour_text.empty() || *end != '\0' || hour < 0 || hour > 167)
      throw ConfigError(ErrorCode::OutOfRange, SourceMark{path, line, 1}, n.path(),
                        "'" + hour_text + "' is not an hour of the week (0..167; 0 is Monday 00:00-01:00)");
    const double v = std::strtod(value_text.c_str(), &end);
    if (value_text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
      throw ConfigError(ErrorCode::OutOfRange, SourceMark{path, line, 1 + static_cast<int>(comma) + 1}, n.path(),
                        "'" + value_text + "' is not a multiplier (a number >= 0)");
    const auto h = static_cast<std::size_t>(hour);
    if (seen.size() <= h) {
      seen.resize(h + 1, false);
      values.resize(h + 1, 0.0);
    }
    if (seen[h]) throw ConfigError(ErrorCode::Duplicate, SourceMark{path, line, 1}, n.path(), "hour " + hour_text + " is given twice");
    seen[h] = true;
    values[h] = v;
  }
  const std::size_t rows = static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
  if (!(rows == 24 && seen.size() == 24) && !(rows == 168 && seen.size() == 168))
    n.fail(ErrorCode::OutOfRange, "a profile gives every hour of the week (0..167) or of the day (0..23) once; " + path +
                                      " gives " + std::to_string(rows) + " rows");
  std::vector<std::int64_t> starts(168);
  std::vector<double> rates(168);
  for (std::size_t h = 0; h < 168; ++h) {
    starts[h] = static_cast<std::int64_t>(h) * 3'600 * sim::NS_PER_S;
    rates[h] = values[h % values.size()];
  }
  set_profile(n, s, starts, rates, path);
}

// The columns of a `requests.trace` file.
constexpr config::KeySpec REQUEST_TRACE_COLUMNS[] = {
    {"arrival_s", "seconds", "", true, ">= 0, in order", "the request's arrival, from the run's start"},
    {"prompt_tokens", "integer", "", false, "1..2^30, with output_tokens", "its prompt"},
    {"output_tokens", "integer", "", false, "1..2^30, with prompt_tokens", "its output"},
};

// `requests.trace`: a CSV file with the header `arrival_s` and optionally `prompt_tokens`
// and `output_tokens` (both or neither), one request per row, in arrival order; read as
// any CSV table (config::CsvTable: its header checked against the columns above).
void read_request_trace(const ConfigNode& n, ServiceSpec& s, config::SourceResolver& sources) {
  const std::unique_ptr<config::CsvTable> table = config::CsvTable::open_file(n, {}, &sources, REQUEST_TRACE_COLUMNS);
  const std::string path = config::SourceResolver::resolve(n.mark().file, config::read_string(n));
  const std::string_view known[] = {"arrival_s", "prompt_tokens", "output_tokens"};
  std::size_t at[3];
  for (std::size_t i = 0; i < 3; ++i) at[i] = table->column(known[i]);
  const int header_line = table->header_line();
  if (at[0] == config::CsvTable::npos)
    throw ConfigError(ErrorCode::MissingKey, SourceMark{path, header_line, 1}, n.path(), "the header has no column 'arrival_s'");
  if ((at[1] == config::CsvTable::npos) != (at[2] == config::CsvTable::npos))
    throw ConfigError(ErrorCode::MissingKey, SourceMark{path, header_line, 1}, n.path(),
                      "give both 'prompt_tokens' and 'output_tokens', or neither");
  s.trace_tokens = at[1] != config::CsvTable::npos;
  auto requests = std::make_shared<std::vector<serving::TraceRequest>>();
  sim::SimTime last = sim::SimTime::zero();
  config::csv::Row row;
  const auto cell = [&](std::size_t i) -> const config::csv::Field& {
    if (at[i] >= row.fields.size())
      config::csv::fail(ErrorCode::MissingKey, path, row.line, 1, std::string(known[i]),
                        "the row has no '" + std::string(known[i]) + "'");
    return row.fields[at[i]];
  };
  while (table->next(row)) {
    serving::TraceRequest q;
    const config::csv::Field& t = cell(0);
    char* end = nullptr;
    const double seconds = std::strtod(t.text.c_str(), &end);
    if (t.text.empty() || *end != '\0' || !std::isfinite(seconds) || seconds < 0 || seconds > 1e11)
      config::csv::fail(ErrorCode::OutOfRange, path, row.line, t.column, "arrival_s",
                        "'" + t.text + "' is not an arrival time (seconds from the run's start, >= 0)");
    q.arrival = sim::SimTime::from_seconds(seconds);
    if (q.arrival < last)
      config::csv::fail(ErrorCode::OutOfRange, path, row.line, t.column, "arrival_s",
                        "'" + t.text + "' is before the row above: the requests must be in arrival order");
    last = q.arrival;
    if (s.trace_tokens) {
      for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
        const config::csv::Field& f = cell(i);
        const long long v = std::strtoll(f.text.c_str(), &end, 10);
        if (f.text.empty() || *end != '\0' || v < 1 || v > (1LL << 30))
          config::csv::fail(ErrorCode::OutOfRange, path, row.line, f.column, std::string(known[i]),
                            "'" + f.text + "' is not a token count (a whole number, 1..2^30)");
        (i == 1 ? q.prompt : q.output) = static_cast<std::int32_t>(v);
      }
    }
    requests->push_back(q);
  }
  s.trace = std::move(requests);
}

void read_requests(const ConfigNode& n, ServiceSpec& s, bool llm, config::SourceResolver& sources) {
  MapReader r(n, SERVICE_REQUEST_KEYS);
  const ConfigNode* arrival = r.optional("arrival");
  const ConfigNode* trace = r.optional("trace");
  if (arrival && trace) trace->fail(ErrorCode::Conflict, "give `arrival` or `trace`, not both");
  if (!arrival && !trace) n.fail(ErrorCode::MissingKey, "missing key 'arrival' (or 'trace': the requests of a file)");
  if (arrival) {
    s.arrival = read_distribution(*arrival, ValueKind::Duration);
    if (!(s.arrival.highest() > 0))
      arrival->fail(ErrorCode::OutOfRange, "the time between arrivals is always 0: requests would never stop coming");
  }
  if (const ConfigNode* p = r.optional("profile")) {
    if (trace) p->fail(ErrorCode::Conflict, "a profile thins drawn arrivals; a `trace` gives every request's time");
    read_profile(*p, s, sources);
  }
  if (trace) read_request_trace(*trace, s, sources);
  const ConfigNode* prompt = r.optional("prompt_tokens");
  const ConfigNode* output = r.optional("output_tokens");
  if (s.trace_tokens && !llm)
    trace->fail(ErrorCode::Conflict, s.latency ? std::string("the trace gives tokens, which need a model with tokens (an LLM), not `latency`")
                                               : "the trace gives tokens; model '" + s.model + "' has no tokens (not an LLM)");
  if (s.trace_tokens && (prompt || output))
    (prompt ? prompt : output)->fail(ErrorCode::Conflict, "the trace gives each request's tokens");
  if (llm && !s.trace_tokens) {
    if (!prompt || !output)
      n.fail(ErrorCode::MissingKey, "service '" + s.name + "' serves an LLM (" + s.model +
                                        "): give requests.prompt_tokens and requests.output_tokens");
    s.prompt_tokens = read_distribution(*prompt, ValueKind::Integer);
    s.output_tokens = read_distribution(*output, ValueKind::Integer);
  } else if (prompt || output) {
    (prompt ? prompt : output)
        ->fail(ErrorCode::Conflict, s.latency ? std::string("tokens need a model with tokens (an LLM), not `latency`")
                                              : "model '" + s.model + "' has no tokens (not an LLM)");
  }
  r.finish();
}

void read_batching(const ConfigNode& n, ServiceSpec& s) {
  MapReader r(n, SERVICE_BATCHING_KEYS);
  if (const ConfigNode* m = r.optional("mode")) {
    const std::string mode = config::read_enum(*m, {"dynamic", "continuous"});
    s.batching.mode = mode == "continuous" ? serving::BatchingMode::Continuous : serving::BatchingMode::Dynamic;
    if (s.batching.mode == serving::BatchingMode::Continuous && !s.model_tokens)
      m->fail(ErrorCode::Conflict, s.latency ? std::string("continuous batching runs an LLM's iterations: give a model, not `latency`")
                                             : "continuous batching needs an LLM; model '" + s.model + "' has no tokens");
  }
  s.batching.max_batch = static_cast<int>(r.value<std::int64_t>("max_batch"));
  s.batching.max_wait = r.value<sim::SimTime>("max_wait");
  if (r.where("max_wait") && s.batching.mode == serving::BatchingMode::Continuous)
    r.where("max_wait")->fail(ErrorCode::Conflict, "max_wait is dynamic batching's: continuous batching admits requests at every iteration");
  if (const auto t = r.get<std::int64_t>("max_tokens")) {
    if (s.batching.mode != serving::BatchingMode::Continuous)
      r.where("max_tokens")->fail(ErrorCode::Conflict, "max_tokens caps an iteration of continuous batching (mode: continuous)");
    s.batching.max_tokens = *t;
  }
  r.finish();
}

void read_replicas(const ConfigNode& n, ServiceSpec& s) {
  MapReader r(n, SERVICE_REPLICA_KEYS);
  const auto count = r.get<std::int64_t>("count");
  const auto min = r.get<std::int64_t>("min");
  const auto max = r.get<std::int64_t>("max");
  if (count && (min || max))
    r.where(min ? "min" : "max")->fail(ErrorCode::Conflict, "give count (fixed replicas) or min and max, not both");
  if (min.has_value() != max.has_value())
    n.fail(ErrorCode::MissingKey, std::string("give both min and max (") + (min ? "max" : "min") + " is missing)");
  if (count) {
    s.replicas.count = s.replicas.min = s.replicas.max = static_cast<int>(*count);
  } else if (min) {
    if (*max < *min)
      r.where("max")->fail(ErrorCode::OutOfRange, "max (" + std::to_string(*max) + ") is below min (" + std::to_string(*min) + ")");
    s.replicas.count = s.replicas.min = static_cast<int>(*min);
    s.replicas.max = static_cast<int>(*max);
  }
  s.replicas.gpus = static_cast<int>(r.value<std::int64_t>("gpus"));
  if (const ConfigNode* a = r.optional("autoscale")) {
    if (!min) a->fail(ErrorCode::Conflict, "autoscale needs min and max (the replicas it moves between), not count");
    MapReader ar(*a, SERVICE_AUTOSCALE_KEYS);
    serving::ReplicaAutoscaleSpec spec = read_when(ar.required("when"), s.model_tokens);
    spec.hold = ar.value<sim::SimTime>("for");
    ar.finish();
    s.replicas.autoscale = spec;
  } else if (min && *min != *max) {
    n.fail(ErrorCode::MissingKey, "min and max differ but there is no autoscale: give autoscale, or count");
  }
  r.finish();
}

void read_slo(const ConfigNode& n, ServiceSpec& s) {
  MapReader r(n, SERVICE_SLO_KEYS);
  if (const auto v = r.get<sim::SimTime>("p99")) s.slo.p99_s = v->seconds();
  for (const char* key : {"ttft_p99", "tpot_p99"}) {
    const auto v = r.get<sim::SimTime>(key);
    if (!v) continue;
    if (!s.model_tokens) r.where(key)->fail(ErrorCode::Conflict, std::string(key) + " needs an LLM (a model with tokens)");
    (std::string_view(key) == "ttft_p99" ? s.slo.ttft_p99_s : s.slo.tpot_p99_s) = v->seconds();
  }
  r.finish();
}

// One read of `cold_start` (image or model): its tier's name (resolved against `storage:` by
// the resolve step) and its size.
serving::ColdStartRead read_cold_start_read(const ConfigNode& n, config::KeyTable keys) {
  MapReader r(n, keys);
  serving::ColdStartRead read;
  read.tier = config::read_string(r.required("tier"));
  if (const auto size = r.get<double>("size")) read.bytes = *size;
  r.finish();
  return read;
}

// `cold_start`: a duration (the fixed part alone), or {image, model, fixed}.
void read_cold_start(const ConfigNode& n, ServiceSpec& s) {
  if (!n.is_map()) {
    s.cold_start.fixed = config::read_duration(n);
    return;
  }
  MapReader r(n, SERVICE_COLD_START_KEYS);
  if (const ConfigNode* image = r.optional("image")) s.cold_start.image = read_cold_start_read(*image, SERVICE_COLD_START_IMAGE_KEYS);
  if (const ConfigNode* model = r.optional("model")) {
    s.cold_start.model = read_cold_start_read(*model, SERVICE_COLD_START_MODEL_KEYS);
    if (s.latency && s.cold_start.model.bytes == 0)
      model->fail(ErrorCode::MissingKey, "a service with `latency` has no catalog model to size its weights: give "
                                         "`size` (e.g. {tier: shared-fs, size: 14GB})");
  }
  s.cold_start.fixed = r.value<sim::SimTime>("fixed");
  r.finish();
}

}  // namespace

ServiceSpec read_service(const ConfigNode& n, const ModelCatalog& models, config::SourceResolver& sources) {
  MapReader r(n, SERVICE_KEYS);
  ServiceSpec s;
  s.mark = n.mark();
  s.path = n.path();
  s.name = read_name(r.required("name"));
  if (s.name.find('/') != std::string::npos) r.where("name")->fail(ErrorCode::Syntax, "a service's name has no '/'");
  if (const ConfigNode* t = r.optional("team")) s.team = read_name(*t);
  const ConfigNode* model = r.optional("model");
  const ConfigNode* latency = r.optional("latency");
  if (model && latency) latency->fail(ErrorCode::Conflict, "give model (what a replica runs) or latency (a batch's time), not both");
  if (!model && !latency)
    n.fail(ErrorCode::MissingKey, "a service needs model (a catalog model) or latency (the time of one batch, e.g. 20ms)");
  if (model) {
    s.model = config::read_string(*model);
    const ModelSpec* m = models.find_model(s.model);
    if (!m) {
      const std::string near = did_you_mean(s.model, models.model_names());
      model->fail(ErrorCode::UnknownName, "unknown model '" + s.model + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                              " (`gcsim models` lists the catalog)");
    }
    s.model = m->name;
    s.model_spec = std::make_shared<const ModelSpec>(*m);
    s.model_tokens = m->transformer && m->transformer->llm();
    if (const ConfigNode* p = r.optional("precision")) s.precision = read_precision(*p);
  } else {
    s.latency = read_distribution(*latency, ValueKind::Duration);
    if (const ConfigNode* p = r.optional("precision"))
      p->fail(ErrorCode::Conflict, "precision is the model's: a service with latency has none");
  }
  if (const ConfigNode* b = r.optional("batching")) read_batching(*b, s);
  read_requests(r.required("requests"), s, s.model_tokens, sources);
  if (const ConfigNode* rep = r.optional("replicas")) read_replicas(*rep, s);
  if (const ConfigNode* slo = r.optional("slo")) read_slo(*slo, s);
  if (const ConfigNode* g = r.optional("gpu")) {
    if (g->is_sequence()) {
      if (g->size() == 0) g->fail(ErrorCode::OutOfRange, "gpu: name at least one GPU (or leave the key out: any)");
      for (const ConfigNode& item : g->items()) s.gpu_types.push_back(config::read_string(item));
    } else {
      s.gpu_types.push_back(config::read_string(*g));
    }
  }
  s.replicas.gpu_milli = static_cast<std::int16_t>(r.value<std::int64_t>("gpu_milli"));
  if (s.replicas.gpu_milli < 1000 && s.replicas.gpus != 1)
    r.where("gpu_milli")->fail(ErrorCode::Conflict, "a GPU share (gpu_milli below 1000) is for one-GPU replicas (replicas.gpus: 1)");
  s.priority = static_cast<std::int16_t>(r.value<std::int64_t>("priority"));
  if (const ConfigNode* c = r.optional("cold_start")) read_cold_start(*c, s);
  r.finish();
  return s;
}

}  // namespace gcsim::models
