// The Microsoft Philly importer (docs/traces.md, "Microsoft Philly"): the trace of Jeon et
// al., "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads"
// (USENIX ATC '19), github.com/msr-fiddle/philly-traces. cluster_job_log is a JSON list of
// jobs {status, vc, jobid, attempts: [{start_time, end_time, detail: [{ip, gpus: [...]}]}],
// submitted_time, user}, times "2017-10-07 01:12:09" (None: not recorded);
// cluster_machine_list is CSV: machineId, number of GPUs, single GPU mem ("m31,8, 24GB").
// The JSON is read by the scenario loader's YAML parser (JSON is YAML's flow syntax), so a
// bad value is reported at its file:line:column with its path ("[12].attempts[0].end_time").
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/importers/trace_import.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;

constexpr std::int64_t NS_PER_S = 1'000'000'000;
constexpr std::int64_t NO_TIME = std::numeric_limits<std::int64_t>::min();

// The GPUs of the machine list's "single GPU mem": the trace names only the memory. The
// 2-GPU machines (12 GB) are read as Tesla P100 12 GB and the 8-GPU ones (24 GB) as Tesla
// P40, as others who replay the trace assume (scenarios/catalog/gpus.yaml cites them).
const std::map<std::string, std::string, std::less<>> MEMORY_GPUS{{"12GB", "P100-PCIe-12GB"}, {"24GB", "P40"}};

// A time value in seconds since 1970 (no time zone); false when not recorded (JSON null,
// "None" or ""). Anything else that is not a datetime is malformed.
bool time_of(const ConfigNode* n, std::int64_t& seconds) {
  if (n == nullptr || n->is_null()) return false;
  const std::string_view t = n->scalar();
  if (t.empty() || t == "None" || (t == "null" && !n->quoted())) return false;
  if (!trace_detail::parse_datetime(t, seconds))
    n->fail(ErrorCode::WrongType, "not a datetime like 2017-10-07 01:12:09 (or None)");
  return true;
}

// A datetime for the first pass: false for anything that is not one.
bool quiet_time(const ConfigNode* n, std::int64_t& seconds) {
  if (n == nullptr || !n->is_scalar()) return false;
  return trace_detail::parse_datetime(n->scalar(), seconds);
}

class PhillySource : public TraceSource {
 public:
  PhillySource(const std::string& bytes, const std::string& label, const std::string* machines,
               const std::string& machines_label, const TraceOptions& options)
      : doc_(config::load_yaml_data(bytes, label)), options_(options) {
    report_.file = label;
    if (!doc_.root.is_sequence())
      doc_.root.fail(ErrorCode::WrongType, "the Philly job log (cluster_job_log) is a JSON list of jobs, [{\"jobid\": ...}, ...]");
    row_bound_ = doc_.root.size();
    report_.document_bytes = config::document_memory_bytes(doc_);
    scan();
    if (machines) read_machines(*machines, machines_label);
  }

  bool next(TraceJob& job) override {
    while (true) {
      if (pending_at_ < pending_.size()) {
        job = std::move(pending_[pending_at_++]);
        return true;
      }
      if (item_ >= doc_.root.size()) return false;
      pending_.clear();
      pending_at_ = 0;
      const ConfigNode& item = doc_.root.at(item_++);
      take_row(options_.skip_bad_rows, [&] {
        read_job(item);
        return !pending_.empty();
      });
    }
  }

 private:
  // The origin (the earliest submission in the file) and the last time it records
  // anywhere (where a run still going when the trace was taken is cut).
  void scan() {
    std::int64_t earliest = NO_TIME;
    for (const ConfigNode& item : doc_.root.items()) {
      if (!item.is_map()) continue;
      std::int64_t s = 0;
      if (quiet_time(item.find("submitted_time"), s)) {
        earliest = earliest == NO_TIME ? s : std::min(earliest, s);
        latest_s_ = std::max(latest_s_, s);
      }
      const ConfigNode* attempts = item.find("attempts");
      if (attempts == nullptr || !attempts->is_sequence()) continue;
      for (const ConfigNode& a : attempts->items()) {
        if (!a.is_map()) continue;
        if (quiet_time(a.find("start_time"), s)) latest_s_ = std::max(latest_s_, s);
        if (quiet_time(a.find("end_time"), s)) latest_s_ = std::max(latest_s_, s);
      }
    }
    origin_s_ = earliest == NO_TIME ? 0 : earliest;
  }

  static const ConfigNode& need(const ConfigNode& map, std::string_view key) {
    const ConfigNode* n = map.find(key);
    if (n == nullptr) map.fail(ErrorCode::MissingKey, "a Philly job has `" + std::string(key) + "`");
    return *n;
  }

  struct Run {
    std::int64_t start_s = NO_TIME, end_s = NO_TIME;  // end cut at the trace's end when it was None
    std::int64_t gpus = 0;
    std::string ip;                       // its first machine
    std::vector<std::string> more_ips;    // the others, when each holds the same GPUs (TraceJob::more_machines)
    int k = 0;  // 1-based attempt number
  };

  // The GPUs an attempt held: the lengths of its detail's gpus lists. Its first machine in
  // run.ip, and the others in run.more_ips when every machine holds the same number of its
  // GPUs and none is named twice (an uneven split keeps the first alone).
  static std::int64_t attempt_gpus(const ConfigNode& attempt, Run& run) {
    const ConfigNode* detail = attempt.find("detail");
    if (detail == nullptr || detail->is_null()) return 0;
    if (!detail->is_sequence()) detail->fail(ErrorCode::WrongType, "detail is a list of {ip, gpus}");
    std::int64_t gpus = 0;
    std::int64_t each = -1;  // the GPUs of every named machine so far; -2: not the same
    for (const ConfigNode& d : detail->items()) {
      if (!d.is_map()) d.fail(ErrorCode::WrongType, "a detail entry is a map {ip, gpus}");
      const ConfigNode* list = d.find("gpus");
      std::int64_t here = 0;
      if (list != nullptr && !list->is_null()) {
        if (!list->is_sequence()) list->fail(ErrorCode::WrongType, "gpus is a list of GPU names, e.g. [\"gpu0\", \"gpu1\"]");
        here = static_cast<std::int64_t>(list->size());
        gpus += here;
      }
      const ConfigNode* at = d.find("ip");
      if (at == nullptr || !at->is_scalar()) {
        each = -2;  // a machine without its name: the machines are not all known
        continue;
      }
      if (at->scalar().size() > 256) at->fail(ErrorCode::WrongType, "a machine name longer than 256 characters");
      if (run.ip.empty()) {
        run.ip = at->scalar();
        if (each == -1) each = here;
        continue;
      }
      if (each != here || at->scalar() == run.ip ||
          std::find(run.more_ips.begin(), run.more_ips.end(), at->scalar()) != run.more_ips.end())
        each = -2;
      if (each >= 0) run.more_ips.push_back(at->scalar());
    }
    if (each < 0) run.more_ips.clear();
    return gpus;
  }

  void read_job(const ConfigNode& item) {
    if (!item.is_map()) item.fail(ErrorCode::WrongType, "a Philly job is a map {status, vc, jobid, attempts, submitted_time, user}");
    const ConfigNode& id = need(item, "jobid");
    if (!id.is_scalar() || id.scalar().empty()) id.fail(ErrorCode::WrongType, "the job id is empty");
    const ConfigNode& attempts = need(item, "attempts");
    if (!attempts.is_null() && !attempts.is_sequence()) attempts.fail(ErrorCode::WrongType, "attempts is a list");
    std::int64_t submitted = 0;
    const bool has_submit = time_of(&need(item, "submitted_time"), submitted);
    std::string status = "unknown";
    if (const ConfigNode* s = item.find("status"); s != nullptr && s->is_scalar() && !s->scalar().empty()) {
      status = s->scalar();
      if (status.size() > 32) s->fail(ErrorCode::WrongType, "a status longer than 32 characters");
    }
    // Every attempt's times and GPUs are read (so that a malformed one is reported
    // whatever else is wrong with the job).
    const std::size_t n = attempts.is_sequence() ? attempts.size() : 0;
    std::vector<Run> runs;
    std::int64_t first_gpus = 0;
    bool gap = false, cut = false;
    for (std::size_t k = 0; k < n; ++k) {
      const ConfigNode& a = attempts.at(k);
      if (!a.is_map()) a.fail(ErrorCode::WrongType, "an attempt is a map {start_time, end_time, detail}");
      Run r;
      r.k = static_cast<int>(k) + 1;
      r.gpus = attempt_gpus(a, r);
      if (k == 0) first_gpus = r.gpus;
      std::int64_t s = 0, e = 0;
      const bool started = time_of(a.find("start_time"), s);
      const bool ended = time_of(a.find("end_time"), e);
      if (started && ended && e < s) a.find("end_time")->fail(ErrorCode::WrongType, "the attempt ends before it starts");
      if (started && !ended && k + 1 == n) {  // the last attempt still running when the trace was taken
        e = std::max(s, latest_s_);
        cut = true;
      } else if (!started || !ended) {
        gap = true;  // a logging error (the trace's README): the attempt's run is unknown
        continue;
      }
      r.start_s = s;
      r.end_s = e;
      runs.push_back(std::move(r));
    }
    if (n == 0) {
      ++report_.skipped["no attempts (never scheduled)"];
      return;
    }
    if (first_gpus == 0) {
      ++report_.skipped["no GPUs in its first attempt"];
      return;
    }
    if (first_gpus > (1 << 20)) attempts.fail(ErrorCode::WrongType, "more than 2^20 GPUs");
    if (!has_submit) {
      ++report_.skipped["no submitted_time"];
      return;
    }
    if (runs.empty()) {
      ++report_.skipped["no attempt with a start_time and an end_time (logging gaps)"];
      return;
    }
    std::int64_t total_s = 0;
    for (const Run& r : runs) total_s += r.end_s - r.start_s;
    // Datetimes up to the year 9999: from the trace's start, their nanoseconds may not fit
    // (the latest of its times; the sum of its runs is checked too).
    std::int64_t last_s = submitted;
    for (const Run& r : runs) last_s = std::max(last_s, r.end_s);
    if (last_s - origin_s_ > trace_detail::MAX_SECONDS || total_s > trace_detail::MAX_SECONDS)
      item.fail(ErrorCode::OutOfRange, std::string(trace_detail::PAST_MAX_SECONDS) + " after the trace's start");
    if (total_s == 0) {
      ++report_.skipped["run time 0"];
      return;
    }
    if (gap) ++report_.notes["an attempt without a start_time or end_time (a logging gap): its run left out"];
    if (cut) ++report_.notes["still running at the trace's end (end_time None): run cut at the trace's last recorded time"];
    TraceJob base;
    base.gpus = static_cast<std::int32_t>(first_gpus);
    if (const ConfigNode* vc = item.find("vc"); vc != nullptr && vc->is_scalar() && !vc->scalar().empty()) base.team = vc->scalar();
    base.status = status;
    base.line = item.mark().line;
    const std::string name = id.scalar();
    if (options_.mode == TraceMode::AsRecorded) {
      // One run per attempt, as the trace records it: each submitted when the one before it
      // ended (the job's first at its submission), so the gap is its wait.
      std::int64_t queued_s = submitted;
      for (const Run& r : runs) {
        if (r.end_s == r.start_s) {
          ++report_.notes["an attempt of run time 0 left out"];
          continue;
        }
        TraceJob j = base;
        j.name = name + "#" + std::to_string(r.k);
        j.submit_ns = (std::min(queued_s, r.start_s) - origin_s_) * NS_PER_S;
        j.start_ns = (r.start_s - origin_s_) * NS_PER_S;
        j.duration_ns = (r.end_s - r.start_s) * NS_PER_S;
        if (r.gpus > 0 && r.gpus <= (1 << 20)) j.gpus = static_cast<std::int32_t>(r.gpus);
        j.machine = r.ip;
        j.more_machines = r.more_ips;
        pending_.push_back(std::move(j));
        queued_s = r.end_s;
      }
      return;
    }
    // Resubmit: one job holding the first attempt's GPUs for the sum of its attempts' runs;
    // the gaps between attempts were the old scheduler's waits, which ours replaces.
    if (runs.size() > 1) ++report_.notes["several attempts: their run times summed into one job"];
    TraceJob j = std::move(base);
    j.name = name;
    j.submit_ns = (submitted - origin_s_) * NS_PER_S;
    j.duration_ns = total_s * NS_PER_S;
    j.start_ns = (runs.front().start_s - origin_s_) * NS_PER_S;
    j.machine = runs.front().ip;  // where that first run was
    pending_.push_back(std::move(j));
  }

  // cluster_machine_list: machines grouped by (GPU memory, GPUs per machine).
  void read_machines(const std::string& bytes, const std::string& label) {
    report_.machines_file = label;
    trace_detail::ByteStream stream(bytes);
    config::csv::Reader reader(stream, label, false);
    config::csv::Row row;
    const std::string_view names[] = {"machineId", "number of GPUs", "single GPU mem"};
    auto bad = [&](std::size_t c, const std::string& why) {
      const int column = c < row.fields.size() ? row.fields[c].column : 1;
      config::csv::fail(ErrorCode::WrongType, label, row.line, column, names[c], why);
    };
    std::map<std::pair<std::string, std::int64_t>, std::size_t> groups;
    bool first = true;
    std::size_t none = 0;
    while (reader.next(row)) {
      if (first && !row.fields.empty() && row.fields[0].text == "machineId") {  // the header
        first = false;
        continue;
      }
      first = false;
      try {
        if (row.fields.size() != 3)
          bad(0, "the row has " + std::to_string(row.fields.size()) + " columns; the machine list has 3 (machineId, "
                                                                      "number of GPUs, single GPU mem)");
        std::int64_t gpus = 0;
        if (!trace_detail::parse_int(row.fields[1].text, gpus) || gpus < 0 || gpus > 64)
          bad(1, "not a GPU count in 0..64");
        if (gpus == 0) {
          ++none;
          continue;
        }
        const std::string& memory = row.fields[2].text;
        if (memory.empty()) bad(2, "the GPU memory is empty");
        const auto key = std::make_pair(memory, gpus);
        auto it = groups.find(key);
        if (it == groups.end()) {
          TraceMachineGroup g;
          g.trace_gpu = memory;
          if (const auto m = options_.gpu_map.find(memory); m != options_.gpu_map.end()) {
            g.gpu = m->second;
          } else if (const auto d = MEMORY_GPUS.find(memory); d != MEMORY_GPUS.end()) {
            g.gpu = d->second;
          } else {
            throw ConfigError(ErrorCode::UnknownName, SourceMark{label, row.line, row.fields[2].column}, "single GPU mem",
                              "the machine list names its GPUs only by their memory, and '" + memory +
                                  "' is not one gcsim knows (12GB, 24GB): say which catalog GPU it is under "
                                  "workload.trace, e.g. gpu_map: {" + memory + ": V100-SXM2-16GB} (`gcsim gpus` lists the catalog)");
          }
          g.gpus = static_cast<int>(gpus);
          g.line = row.line;  // the list gives no CPUs or host memory: cpu_cores and memory stay 0
          price(g, options_);
          it = groups.emplace(key, machines_.size()).first;
          machines_.push_back(g);
        }
        add_machine(it->second, gpus);
        machines_[it->second].names.push_back(row.fields[0].text);  // machineId: what an attempt's ip names
      } catch (const ConfigError&) {
        if (!options_.skip_bad_rows) throw;
        ++report_.notes["malformed machine row skipped (skip_bad_rows)"];
      }
    }
    if (none > 0) report_.header_notes.push_back(std::to_string(none) + " machines without GPUs of the machine list left out");
  }

  config::ConfigDocument doc_;
  const TraceOptions& options_;
  std::int64_t origin_s_ = 0;
  std::int64_t latest_s_ = 0;
  std::size_t item_ = 0;
  std::vector<TraceJob> pending_;
  std::size_t pending_at_ = 0;
};

}  // namespace

std::unique_ptr<TraceSource> open_philly(const std::string& jobs_bytes, const std::string& jobs_label,
                                         const std::string* machines_bytes, const std::string& machines_label,
                                         const TraceOptions& options) {
  return std::make_unique<PhillySource>(jobs_bytes, jobs_label, machines_bytes, machines_label, options);
}

}  // namespace gcsim::models
