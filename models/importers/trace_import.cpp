// The trace-importer framework (see trace_import.hpp): the `workload.trace` keys, the
// resubmit transforms and the import report.
#include "models/importers/trace_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

constexpr std::int64_t NS_PER_S = 1'000'000'000;

// The keys each format takes besides the common ones, and the ones it needs.
struct FormatFiles {
  const char* format;
  std::vector<const char*> required;
  std::vector<const char*> optional;
};
const std::vector<FormatFiles>& format_files() {
  static const std::vector<FormatFiles> f{
      {"alibaba-pai-2023", {"pods"}, {"nodes"}},
      {"alibaba-pai-2020", {"jobs", "tasks"}, {"instances", "machines"}},
      {"philly", {"jobs"}, {"machines"}},
      {"swf", {"file"}, {}},
      {"helios", {"jobs"}, {}},
  };
  return f;
}

TraceOptions read_options(MapReader& r) {
  TraceOptions o;
  const ConfigNode& format = r.required("format");
  o.format = config::read_enum(format, {"alibaba-pai-2023", "swf", "helios", "alibaba-pai-2020", "philly"});
  if (const ConfigNode* mode = r.optional("mode"))
    if (config::read_enum(*mode, {"resubmit", "as-recorded"}) == "as-recorded") o.mode = TraceMode::AsRecorded;
  o.skip_bad_rows = r.value<bool>("skip_bad_rows");
  o.speedup = r.value<double>("speedup");
  o.scale_gpus = r.value<double>("scale_gpus");
  // As recorded, the occupancy is the trace's: a transform that changes times or sizes
  // would make it another one (docs/traces.md, "Modes").
  if (o.mode == TraceMode::AsRecorded) {
    if (o.speedup != 1)
      r.where("speedup")->fail(ErrorCode::Conflict, "speedup changes the recorded times, which mode: as-recorded replays "
                                                    "as they are: drop it, or use mode: resubmit");
    if (o.scale_gpus != 1)
      r.where("scale_gpus")->fail(ErrorCode::Conflict, "scale_gpus changes the recorded GPU counts, which mode: as-recorded "
                                                       "replays as they are: drop it, or use mode: resubmit");
  }
  if (const ConfigNode* w = r.optional("time_window")) {
    if (!w->is_sequence() || w->size() != 2)
      w->fail(ErrorCode::WrongType, "time_window is a list of two durations from the trace's start: [START, END], e.g. [0s, 7d]");
    o.window_start_ns = config::read_duration(w->at(0)).ns();
    o.window_end_ns = config::read_duration(w->at(1)).ns();
    if (o.window_end_ns <= o.window_start_ns)
      w->at(1).fail(ErrorCode::OutOfRange, "the window's end must come after its start");
  }
  if (const ConfigNode* m = r.optional("gpu_map")) {
    if (!m->is_map()) m->fail(ErrorCode::WrongType, "gpu_map is a map of trace GPU names to catalog GPUs, e.g. {G2: A100-40GB-SXM}");
    for (const auto& [key, value] : m->entries()) o.gpu_map[std::string(key)] = config::read_string(value);
  }
  if (const ConfigNode* p = r.optional("gpu_prices")) {
    if (!p->is_map()) p->fail(ErrorCode::WrongType, "gpu_prices is a map of GPU names to prices per GPU-hour, e.g. {T4: $0.35/h}");
    for (const auto& [key, value] : p->entries()) o.gpu_prices[std::string(key)] = config::read_usd_per_hour(value);
  }
  // Each format's files: the ones it needs, and none of another format's.
  for (const FormatFiles& f : format_files()) {
    const bool mine = o.format == f.format;
    for (const auto* list : {&f.required, &f.optional})
      for (const char* key : *list) {
        const ConfigNode* at = r.where(key);
        if (mine && at == nullptr && list == &f.required)
          r.node().fail(ErrorCode::MissingKey, std::string("format ") + f.format + " needs `" + key + ": FILE`");
        if (!mine && at != nullptr) {
          // A key two formats share (none yet) is this format's when it lists it.
          bool also_mine = false;
          for (const FormatFiles& g : format_files())
            if (o.format == g.format)
              for (const auto* l : {&g.required, &g.optional})
                for (const char* k : *l) also_mine = also_mine || std::string_view(k) == key;
          if (!also_mine) at->fail(ErrorCode::Conflict, std::string(key) + " is a file of format " + f.format + ", not of " + o.format);
        }
      }
  }
  return o;
}

std::string count_text(std::size_t n) { return std::to_string(n); }

std::string hours_text(double h) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", h);
  return buf;
}

}  // namespace

std::size_t TraceSource::lines_in(const std::string& bytes) {
  return static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n')) + 1;
}

std::size_t TraceImportReport::skipped_total() const {
  std::size_t n = 0;
  for (const auto& [reason, rows] : skipped) n += rows;
  return n;
}

std::vector<std::string> TraceImportReport::lines() const {
  std::vector<std::string> out;
  out.push_back("trace " + format + " '" + file + "': " + count_text(rows) + " rows read, " + count_text(jobs) +
                " jobs made, " + count_text(skipped_total()) + " skipped");
  for (const std::string& h : header_notes) out.push_back("trace header: " + h);
  for (const auto& [reason, n] : skipped) out.push_back("trace skipped " + count_text(n) + ": " + reason);
  for (const auto& [reason, n] : notes) out.push_back("trace note " + count_text(n) + ": " + reason);
  if (!statuses.empty()) {
    std::string s = "trace statuses (replayed with their recorded run times):";
    for (const auto& [status, n] : statuses) s += " " + status + " " + count_text(n);
    out.push_back(s);
  }
  if (jobs > 0) {
    const auto secs = [](std::int64_t ns) { return static_cast<double>(ns) / NS_PER_S; };
    out.push_back("trace time span: submits from " + units::format_duration_s(secs(first_submit_ns)) + " to " +
                  units::format_duration_s(secs(last_submit_ns)) + ", last recorded end " +
                  units::format_duration_s(secs(last_end_ns)) + "; " + hours_text(gpu_hours) + " GPU-hours");
  }
  if (machines > 0)
    out.push_back("trace machines: " + count_text(machines) + " GPU machines, " + count_text(machine_gpus) + " GPUs");
  return out;
}

TraceImport::TraceImport(const ConfigNode& trace, config::SourceResolver& sources) : node_(trace) {
  MapReader r(trace, TRACE_KEYS);
  options_ = read_options(r);
  auto label = [&](const ConfigNode& at) {
    return config::SourceResolver::resolve(at.mark().file, std::string(config::read_string(at)));
  };
  if (options_.format == "alibaba-pai-2023") {
    const ConfigNode& pods = *r.where("pods");
    const std::string& pod_bytes = sources.read(pods, "trace pod list");
    const ConfigNode* nodes = r.where("nodes");
    const std::string* node_bytes = nodes ? &sources.read(*nodes, "trace node list") : nullptr;
    source_ = open_alibaba_pai_2023(pod_bytes, label(pods), node_bytes, nodes ? label(*nodes) : std::string(), options_);
  } else if (options_.format == "alibaba-pai-2020") {
    Pai2020Files f;
    const ConfigNode& jobs = *r.where("jobs");
    f.jobs = &sources.read(jobs, "PAI 2020 job table");
    f.jobs_label = label(jobs);
    const ConfigNode& tasks = *r.where("tasks");
    f.tasks = &sources.read(tasks, "PAI 2020 task table");
    f.tasks_label = label(tasks);
    if (const ConfigNode* at = r.where("instances")) {
      f.instances = &sources.read(*at, "PAI 2020 instance table");
      f.instances_label = label(*at);
    }
    if (const ConfigNode* at = r.where("machines")) {
      f.machines = &sources.read(*at, "PAI 2020 machine spec");
      f.machines_label = label(*at);
    }
    source_ = open_alibaba_pai_2020(f, options_);
  } else if (options_.format == "philly") {
    const ConfigNode& jobs = *r.where("jobs");
    const std::string& job_bytes = sources.read(jobs, "Philly job log");
    const ConfigNode* machines = r.where("machines");
    const std::string* machine_bytes = machines ? &sources.read(*machines, "Philly machine list") : nullptr;
    source_ = open_philly(job_bytes, label(jobs), machine_bytes, machines ? label(*machines) : std::string(), options_);
  } else if (options_.format == "swf") {
    const ConfigNode& file = *r.where("file");
    source_ = open_swf(sources.read(file, "SWF trace"), label(file), options_);
  } else {
    const ConfigNode& jobs = *r.where("jobs");
    source_ = open_helios(sources.read(jobs, "Helios cluster log"), label(jobs), options_);
  }
  source_->report().format = options_.format;
  // Every price must name a GPU of the machines (a typo would price nothing).
  if (const ConfigNode* p = r.where("gpu_prices")) {
    std::vector<std::string> have;
    for (const TraceMachineGroup& g : source_->machines()) {
      have.push_back(g.trace_gpu);
      if (g.gpu != g.trace_gpu) have.push_back(g.gpu);
    }
    for (const auto& [key, value] : p->entries()) {
      if (std::find(have.begin(), have.end(), std::string(key)) != have.end()) continue;
      const std::string near = did_you_mean(std::string(key), have);
      value.fail(ErrorCode::UnknownName,
                 "no machine of the trace has GPU '" + std::string(key) + "'" +
                     (near.empty() ? "" : "; did you mean '" + near + "'?") +
                     (have.empty() ? " (prices apply to a machine list: `nodes:` or `machines:`)" : ""));
    }
  }
}

bool TraceImport::next(TraceJob& job) {
  TraceImportReport& rep = source_->report();
  while (source_->next(job)) {
    if (previous_raw_submit_ns_ >= 0 && job.submit_ns < previous_raw_submit_ns_)
      ++rep.notes["submitted before the row above (unsorted submit times; kept, the simulator orders arrivals)"];
    previous_raw_submit_ns_ = job.submit_ns;
    if (job.submit_ns < options_.window_start_ns) {
      ++rep.skipped["submitted before time_window's start"];
      continue;
    }
    if (options_.window_end_ns >= 0 && job.submit_ns >= options_.window_end_ns) {
      ++rep.skipped["submitted at or after time_window's end"];
      continue;
    }
    if (options_.mode == TraceMode::AsRecorded) {
      // Its recorded start is what the replay needs; without it the job cannot be placed in time.
      if (job.start_ns < 0) {
        ++rep.skipped["no recorded start (mode: as-recorded needs one)"];
        continue;
      }
      if (job.start_ns < job.submit_ns) {
        if (job.start_ns < options_.window_start_ns) {
          ++rep.skipped["recorded start before its submit and before time_window's start"];
          continue;
        }
        ++rep.notes["recorded start before its submit (as-recorded: submitted at its start, a wait of 0)"];
        job.submit_ns = job.start_ns;
      }
      job.start_ns -= options_.window_start_ns;
    }
    const std::int64_t from_start = job.submit_ns - options_.window_start_ns;
    job.submit_ns = options_.speedup == 1 ? from_start
                                          : std::llround(static_cast<double>(from_start) / options_.speedup);
    if (options_.scale_gpus != 1 && job.gpu_milli == 1000) {
      const double scaled = std::max(1.0, std::round(job.gpus * options_.scale_gpus));
      if (scaled > (1 << 20)) {
        ++rep.skipped["more than 2^20 GPUs after scale_gpus"];
        continue;
      }
      job.gpus = static_cast<std::int32_t>(scaled);
    }
    if (!any_ || job.submit_ns < rep.first_submit_ns) rep.first_submit_ns = job.submit_ns;
    if (!any_ || job.submit_ns > rep.last_submit_ns) rep.last_submit_ns = job.submit_ns;
    // As recorded, a job ends at its recorded start plus its run (resubmitted, at the earliest
    // after its submit).
    rep.last_end_ns = std::max(rep.last_end_ns, (job.start_ns >= 0 && options_.mode == TraceMode::AsRecorded
                                                     ? job.start_ns
                                                     : job.submit_ns) + job.duration_ns);
    any_ = true;
    ++rep.jobs;
    if (!job.status.empty()) ++rep.statuses[job.status];
    rep.gpu_hours += static_cast<double>(job.gpus) * job.gpu_milli / 1000.0 * static_cast<double>(job.duration_ns) /
                     (3600.0 * NS_PER_S);
    return true;
  }
  return false;
}

std::unordered_map<std::string, std::int32_t> machine_nodes(const std::vector<TraceMachineGroup>& groups) {
  std::unordered_map<std::string, std::int32_t> at;
  std::int32_t first = 0;  // the group's first node: its type's nodes follow the earlier types' counts
  for (const TraceMachineGroup& g : groups) {
    for (std::size_t k = 0; k < g.names.size(); ++k) at.emplace(g.names[k], first + static_cast<std::int32_t>(k));
    first += g.count;
  }
  return at;
}

void TraceSource::price(TraceMachineGroup& group, const TraceOptions& options) {
  if (auto p = options.gpu_prices.find(group.trace_gpu); p != options.gpu_prices.end()) {
    group.usd_per_gpu_hour = p->second;
    group.priced = true;
  } else if (auto q = options.gpu_prices.find(group.gpu); q != options.gpu_prices.end()) {
    group.usd_per_gpu_hour = q->second;
    group.priced = true;
  }
}

void TraceSource::add_machine(std::size_t index, std::int64_t gpus) {
  ++machines_[index].count;
  ++report_.machines;
  report_.machine_gpus += static_cast<std::size_t>(gpus);
}

namespace trace_detail {

bool parse_int(std::string_view text, std::int64_t& out) {
  std::size_t i = 0;
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    i = 1;
  }
  if (i == text.size() || text.size() - i > 18) return false;
  std::int64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = negative ? -v : v;
  return true;
}

namespace {
// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's
// days_from_civil algorithm, public domain, rewritten here).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
}  // namespace

bool parse_datetime(std::string_view t, std::int64_t& seconds) {
  // YYYY-MM-DD HH:MM:SS, exactly 19 characters.
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || (t[10] != ' ' && t[10] != 'T') || t[13] != ':' || t[16] != ':')
    return false;
  auto num = [&](std::size_t at, std::size_t len, std::int64_t& v) { return parse_int(t.substr(at, len), v) && v >= 0; };
  std::int64_t y, mo, d, h, mi, s;
  if (!num(0, 4, y) || !num(5, 2, mo) || !num(8, 2, d) || !num(11, 2, h) || !num(14, 2, mi) || !num(17, 2, s)) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
  seconds = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + s;
  return true;
}

std::vector<std::size_t> header_columns(const std::vector<std::string>& header, const std::vector<std::string_view>& names,
                                        const std::vector<std::string_view>& required, const std::string& label,
                                        int line, std::string_view what) {
  std::vector<std::size_t> at(names.size(), std::string::npos);
  for (std::size_t n = 0; n < names.size(); ++n)
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == names[n]) at[n] = c;
  for (std::size_t n = 0; n < names.size(); ++n)
    if (at[n] == std::string::npos &&
        std::find(required.begin(), required.end(), names[n]) != required.end())
      throw ConfigError(ErrorCode::MissingKey, SourceMark{label, line, 1}, std::string(names[n]),
                        std::string(what) + " has no column '" + std::string(names[n]) + "' in its header");
  return at;
}

std::string map_gpu(const std::string& name, const TraceOptions& options, const std::string& label, int line, int column,
                    std::string_view column_name) {
  if (const auto it = options.gpu_map.find(name); it != options.gpu_map.end()) return it->second;
  // PAI's undisclosed internal codes: G followed by digits.
  const bool anonymized = name.size() >= 2 && name[0] == 'G' &&
                          std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (anonymized)
    throw ConfigError(ErrorCode::UnknownName, SourceMark{label, line, column}, std::string(column_name),
                      "the trace's GPU type '" + name +
                          "' is anonymized (an undisclosed internal code): say which catalog GPU it stands for under "
                          "workload.trace, e.g. gpu_map: {" + name + ": A100-40GB-SXM} (`gcsim gpus` lists the catalog)");
  return name;
}

}  // namespace trace_detail

}  // namespace gcsim::models
