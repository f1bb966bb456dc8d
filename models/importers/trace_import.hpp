// The trace-importer framework (docs/traces.md): public GPU cluster traces read as a
// stream of jobs. Each format is one file here (alibaba_pai_2023, swf, helios) with a
// TraceSource that yields one TraceJob at a time from the file's bytes; the common part
// (this file) reads the `workload.trace` keys, applies the resubmit transforms (time
// window, speedup, GPU scaling) to each job as it passes and keeps the import report.
// Nothing here knows the scenario's specs: the workload reader (models/config) turns each
// TraceJob into a JobSpec and each TraceMachineGroup into a node type, so a streaming
// loader can consume the same stream later without expanding the trace up front.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec TRACE_KEYS[] = {
    {"format", "`alibaba-pai-2023` | `alibaba-pai-2020` | `philly` | `swf` | `helios`", "", true, "",
     "the trace's format (docs/traces.md)"},
    {"pods", "file", "", false, "", "alibaba-pai-2023: the pod list (openb_pod_list_*.csv)"},
    {"nodes", "file", "none", false, "", "alibaba-pai-2023: the node list (openb_node_list_*.csv); the cluster when the scenario has none"},
    {"file", "file", "", false, "", "swf: the .swf log"},
    {"jobs", "file", "", false, "",
     "helios: the cluster_log.csv; alibaba-pai-2020: pai_job_table.csv; philly: cluster_job_log (JSON)"},
    {"tasks", "file", "", false, "", "alibaba-pai-2020: pai_task_table.csv (the tasks' GPUs and run times)"},
    {"instances", "file", "none", false, "", "alibaba-pai-2020: pai_instance_table.csv (each job's recorded machine)"},
    {"machines", "file", "none", false, "",
     "alibaba-pai-2020: pai_machine_spec.csv; philly: cluster_machine_list; the cluster when the scenario has none"},
    {"mode", "`resubmit` | `as-recorded`", "`resubmit`", false, "",
     "resubmit: jobs arrive at their submit times and gcsim's scheduler places them; as-recorded: each starts at its "
     "recorded start, whatever the policy (docs/traces.md, \"Modes\")"},
    {.name = "skip_bad_rows", .type = "bool",
     .help = "skip malformed rows (counted in the import report) instead of stopping at the first",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 0},
    {.name = "speedup", .type = "number", .help = "divides the arrival times (after the window's start): 2 doubles the load",
     .kind = config::KeyKind::Number, .min = 0, .max = 1e6, .above_min = true, .below_min = "speedup must be > 0", .has_default = true,
     .default_number = 1},
    {.name = "scale_gpus", .type = "number",
     .help = "multiplies each job's GPU count (rounded, at least 1; shared-GPU jobs keep their share)",
     .kind = config::KeyKind::Number, .min = 0, .max = 1e3, .above_min = true, .below_min = "scale_gpus must be > 0", .has_default = true,
     .default_number = 1},
    {"time_window", "`[START, END]` durations from the trace's start", "the whole trace", false, "START < END",
     "only jobs submitted in [START, END), their submit times shifted by -START"},
    {"gpu_map", "map: trace GPU name -> catalog GPU", "none", false, "",
     "names for the trace's GPU types, needed for anonymized ones (PAI 2023's G1, G2, G3)"},
    {"gpu_prices", "map: GPU name -> USD per GPU-hour", "zero cost, with a note", false, ">= 0",
     "prices of the trace's machines when they are the cluster (keys: the trace's GPU names or the catalog names they map to)"},
};

enum class TraceMode { Resubmit, AsRecorded };

// One job as a trace gives it, after the resubmit transforms. Times in nanoseconds from
// the trace's start (docs/traces.md gives each format's origin).
struct TraceJob {
  std::string name;
  std::int64_t submit_ns = 0;
  std::int64_t duration_ns = 0;    // > 0
  std::int64_t start_ns = -1;      // its recorded start (as-recorded replay); -1: unknown
  std::string machine;             // its recorded machine ("" when the trace does not say)
  // A job the trace records over several machines, the same GPUs on each (gpus / (1 +
  // the count)): the machines after `machine`, in the trace's order. Empty for one machine,
  // and when the machines hold different numbers of its GPUs (then `machine` alone is kept).
  std::vector<std::string> more_machines;
  std::int64_t estimate_ns = 0;    // the user's requested time; 0: none
  std::int32_t gpus = 1;
  std::int16_t gpu_milli = 1000;
  std::vector<std::string> gpu_types;  // the GPUs it accepts (after gpu_map); empty: any
  std::string team;                    // "" for none
  std::string status;                  // as recorded ("" when the format has none)
  int line = 0;                        // its row's line in `file`
};

// Machines of one kind in a trace's machine list: a node type of the derived cluster.
struct TraceMachineGroup {
  std::string gpu;          // the catalog name (after gpu_map)
  std::string trace_gpu;    // as the trace names it
  int gpus = 0;             // per machine
  int cpu_cores = 0;
  double memory_bytes = 0;
  int count = 0;
  int line = 0;             // the first machine's line in the machine list
  std::vector<std::string> names;  // its machines' names in file order (the derived type's nodes, in order)
  double usd_per_gpu_hour = 0;
  bool priced = false;
};

// What an import read, made and skipped, by reason: nothing is dropped silently.
struct TraceImportReport {
  std::string format;
  std::string file;                          // the job file's path as resolved
  std::string machines_file;                 // the machine list's, when one is read
  std::size_t rows = 0;                      // data rows read
  std::size_t jobs = 0;                      // jobs made
  std::map<std::string, std::size_t> skipped;  // reason -> rows
  std::map<std::string, std::size_t> notes;    // kept, but worth saying (runs cut at the trace's end...)
  std::map<std::string, std::size_t> statuses; // recorded status -> jobs made
  std::int64_t first_submit_ns = 0, last_submit_ns = 0, last_end_ns = 0;  // of the jobs made
  double gpu_hours = 0;                      // sum of gpus x share x duration of the jobs made
  // What the job file's parsed document held while it was read (a JSON log's tree: Philly);
  // 0 for a format read row by row. For the memory estimate of the load.
  std::size_t document_bytes = 0;
  std::size_t machines = 0, machine_gpus = 0;  // the machine list's GPU machines and their GPUs
  std::vector<std::string> header_notes;     // e.g. SWF's MaxProcs
  std::size_t skipped_total() const;
  // The report, one line each (validate prints them).
  std::vector<std::string> lines() const;
};

// The keys of `workload.trace`, read and checked.
struct TraceOptions {
  std::string format;
  TraceMode mode = TraceMode::Resubmit;
  bool skip_bad_rows = false;
  double speedup = 1;
  double scale_gpus = 1;
  std::int64_t window_start_ns = 0;
  std::int64_t window_end_ns = -1;  // -1: none
  std::map<std::string, std::string> gpu_map;
  std::map<std::string, double> gpu_prices;  // name -> USD per GPU-hour
};

// A format's reader: one job at a time, in file order. A malformed row throws ConfigError
// at file:line:column with the column's name as key path, unless skip_bad_rows: then it is
// counted in the report's `skipped` ("malformed row") and passed over.
class TraceSource {
 public:
  virtual ~TraceSource() = default;
  // The next job (raw: before the resubmit transforms); false at the end.
  virtual bool next(TraceJob& job) = 0;
  // The trace's machines, read up front; empty when the format or the scenario gives none.
  const std::vector<TraceMachineGroup>& machines() const { return machines_; }
  TraceImportReport& report() { return report_; }
  const TraceImportReport& report() const { return report_; }
  // At least the jobs it can yield (the job file's lines): room to reserve up front.
  std::size_t row_bound() const { return row_bound_; }

 protected:
  // The lines of `bytes`, for row_bound.
  static std::size_t lines_in(const std::string& bytes);
  // One row of the job file: counted, then `read` (true: it made a job). A row whose read
  // throws ConfigError is counted as skipped under skip_bad_rows; otherwise the error goes on.
  template <class Read>
  bool take_row(bool skip_bad_rows, Read&& read) {
    ++report_.rows;
    try {
      return read();
    } catch (const ConfigError&) {
      if (!skip_bad_rows) throw;
      ++report_.skipped["malformed row (skip_bad_rows)"];
      return false;
    }
  }
  // A new machine group's price per GPU-hour from gpu_prices: by the trace's GPU name,
  // else by the catalog name it maps to; unpriced when neither is there.
  static void price(TraceMachineGroup& group, const TraceOptions& options);
  // One more machine, of group `index`, with `gpus` GPUs: counted in the group and the report.
  void add_machine(std::size_t index, std::int64_t gpus);
  std::size_t row_bound_ = 0;
  std::vector<TraceMachineGroup> machines_;
  TraceImportReport report_;
};

// An importer over the files named in `trace` (read through `sources`), with the resubmit
// transforms applied: next() yields the jobs that pass the time window, shifted and
// compressed, their GPUs scaled, and keeps the report's totals.
class TraceImport {
 public:
  TraceImport(const config::ConfigNode& trace, config::SourceResolver& sources);
  TraceImport(const TraceImport&) = delete;  // its source holds a reference to options_
  TraceImport& operator=(const TraceImport&) = delete;
  bool next(TraceJob& job);
  const TraceOptions& options() const { return options_; }
  const std::vector<TraceMachineGroup>& machines() const { return source_->machines(); }
  const TraceImportReport& report() const { return source_->report(); }
  std::size_t row_bound() const { return source_->row_bound(); }
  const config::ConfigNode& node() const { return node_; }

 private:
  const config::ConfigNode& node_;
  TraceOptions options_;
  std::unique_ptr<TraceSource> source_;
  std::int64_t previous_raw_submit_ns_ = -1;
  bool any_ = false;
};

// The node each machine of `groups` is in the cluster they make (node types in group
// order, each type's machines in file order, as the workload reader derives the cluster):
// what a job's recorded machine (TraceJob::machine) names in the as-recorded replay.
std::unordered_map<std::string, std::int32_t> machine_nodes(const std::vector<TraceMachineGroup>& groups);

// The formats' sources (one file each). `bytes` stay valid as long as the source.
std::unique_ptr<TraceSource> open_alibaba_pai_2023(const std::string& pods_bytes, const std::string& pods_label,
                                                   const std::string* nodes_bytes, const std::string& nodes_label,
                                                   const TraceOptions& options);
std::unique_ptr<TraceSource> open_swf(const std::string& bytes, const std::string& label, const TraceOptions& options);
std::unique_ptr<TraceSource> open_helios(const std::string& bytes, const std::string& label, const TraceOptions& options);
// PAI 2020: the job and task tables are needed; the instance table and the machine spec
// (null when not given) add each job's recorded machine and the trace's machines.
struct Pai2020Files {
  const std::string* jobs = nullptr;
  std::string jobs_label;
  const std::string* tasks = nullptr;
  std::string tasks_label;
  const std::string* instances = nullptr;
  std::string instances_label;
  const std::string* machines = nullptr;
  std::string machines_label;
};
std::unique_ptr<TraceSource> open_alibaba_pai_2020(const Pai2020Files& files, const TraceOptions& options);
std::unique_ptr<TraceSource> open_philly(const std::string& jobs_bytes, const std::string& jobs_label,
                                         const std::string* machines_bytes, const std::string& machines_label,
                                         const TraceOptions& options);

// ---- Helpers the formats share (trace_import.cpp).
namespace trace_detail {
// An istream over bytes held elsewhere (no copy): what csv::Reader reads a trace from.
class ByteStream : private std::streambuf, public std::istream {
 public:
  explicit ByteStream(const std::string& bytes) : std::istream(static_cast<std::streambuf*>(this)) {
    char* begin = const_cast<char*>(bytes.data());  // read only: the get area is never written
    setg(begin, begin, begin + bytes.size());
  }
};
// A non-negative or negative decimal integer in `text` (digits, an optional leading '-');
// false for anything else. `-1` reads as -1.
bool parse_int(std::string_view text, std::int64_t& out);
// "2020-06-09 18:41:01" (or with a 'T') -> seconds since 1970-01-01 00:00:00 (no time zone).
bool parse_datetime(std::string_view text, std::int64_t& seconds);
// The most seconds a trace's time (from its start) or duration may be: its nanoseconds
// must fit gcsim's time, about 292 years. Importers check every time they multiply into
// nanoseconds against it (past it the product overflowed, a wrong time and undefined
// behaviour), and refuse it at its column.
inline constexpr std::int64_t MAX_SECONDS = std::numeric_limits<std::int64_t>::max() / 1'000'000'000;
inline constexpr std::string_view PAST_MAX_SECONDS = "a time past the largest gcsim takes (about 292 years, 9223372036 s)";
// The trace GPU name as the catalog name: gpu_map first, then the PAI aliases; the
// anonymized G1/G2/G3 unmapped are refused at label:line:column.
// A CSV header's columns by name: the index of each of `names` (npos when absent); a
// name in `required` that is absent is MissingKey at the header's line.
std::vector<std::size_t> header_columns(const std::vector<std::string>& header, const std::vector<std::string_view>& names,
                                        const std::vector<std::string_view>& required, const std::string& label,
                                        int line, std::string_view what);
std::string map_gpu(const std::string& name, const TraceOptions& options, const std::string& label, int line,
                    int column, std::string_view column_name);
}  // namespace trace_detail

}  // namespace gcsim::models
