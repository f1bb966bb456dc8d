// The Alibaba PAI 2020 importer (docs/traces.md, "Alibaba PAI 2020"): the trace of Weng et
// al., "MLaaS in the Wild: Workload Analysis and Scheduling in Large-Scale Heterogeneous GPU
// Clusters" (NSDI '22), github.com/alibaba/clusterdata cluster-trace-gpu-v2020. Its tables
// are CSV without a header row; the columns are those of the repository's *.header files:
//   pai_job_table      job_name, inst_id, user, status, start_time, end_time
//   pai_task_table     job_name, task_name, inst_num, status, start_time, end_time,
//                      plan_cpu, plan_mem, plan_gpu, gpu_type
//   pai_instance_table job_name, task_name, inst_name, worker_name, inst_id, status,
//                      start_time, end_time, machine
//   pai_machine_spec   machine, gpu_type, cap_cpu, cap_mem, cap_gpu
// (a file whose first row is a header, its columns in any order, is read by their names).
// Times are seconds ("4550879.0") shifted by a constant that keeps the time of day in
// UTC+8; plan_gpu is a percentage of one GPU (50 = half a GPU). A job is its tasks: the
// task table is read first into one summary per job, then the job table is streamed
// against it.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/importers/trace_import.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

constexpr std::int64_t NS_PER_S = 1'000'000'000;
// The trace keeps the time of day of UTC+8 (its README): days start at 16:00 UTC.
constexpr std::int64_t UTC8_OFFSET_S = 8 * 3600;
constexpr std::int64_t NO_TIME = std::numeric_limits<std::int64_t>::min();

enum JobCol : std::size_t { J_NAME, J_INST_ID, J_USER, J_STATUS, J_START, J_END };
const std::vector<std::string_view> JOB_NAMES{"job_name", "inst_id", "user", "status", "start_time", "end_time"};
enum TaskCol : std::size_t { T_JOB, T_TASK, T_INST_NUM, T_STATUS, T_START, T_END, T_PLAN_CPU, T_PLAN_MEM, T_PLAN_GPU, T_GPU_TYPE };
const std::vector<std::string_view> TASK_NAMES{"job_name", "task_name", "inst_num", "status",   "start_time",
                                               "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};
enum InstanceCol : std::size_t { I_JOB, I_TASK, I_INST_NAME, I_WORKER, I_INST_ID, I_STATUS, I_START, I_END, I_MACHINE };
const std::vector<std::string_view> INSTANCE_NAMES{"job_name", "task_name", "inst_name",  "worker_name", "inst_id",
                                                   "status",   "start_time", "end_time", "machine"};
enum MachineCol : std::size_t { M_MACHINE, M_GPU_TYPE, M_CAP_CPU, M_CAP_MEM, M_CAP_GPU };
const std::vector<std::string_view> MACHINE_NAMES{"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};

// A non-negative decimal ("50", "50.0", "4550879.0", "12.5") in units of 10^-scale,
// rounded to the nearest unit; false for anything else (a sign, an exponent, text, "").
bool parse_fixed(std::string_view t, int scale, std::int64_t& out) {
  std::size_t i = 0;
  std::int64_t whole = 0;
  int whole_digits = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    if (++whole_digits + scale > 18) return false;
    whole = whole * 10 + (t[i] - '0');
  }
  std::int64_t fraction = 0;
  int fraction_digits = 0, seen = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++seen) {
      if (fraction_digits < scale) {
        fraction = fraction * 10 + (t[i] - '0');
        ++fraction_digits;
      } else if (seen == scale) {
        round_up = t[i] >= '5';
      }
    }
  }
  if (i != t.size() || whole_digits + seen == 0) return false;
  for (; fraction_digits < scale; ++fraction_digits) fraction *= 10;
  std::int64_t unit = 1;
  for (int k = 0; k < scale; ++k) unit *= 10;
  out = whole * unit + fraction + (round_up ? 1 : 0);
  return true;
}

// One of the trace's tables: headerless with the published columns, or, when its first row
// is the published header, read by the header's names.
struct Table {
  Table(const std::string& bytes, const std::string& label, const std::vector<std::string_view>& names,
        const std::vector<std::string_view>& required, std::string_view what)
      : stream(bytes), reader(stream, label, false), label(label), names(names), what(what) {
    at.resize(names.size());
    for (std::size_t c = 0; c < names.size(); ++c) at[c] = c;
    width = names.size();
    if (!reader.next(row))
      throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 1, 1}, "", std::string(what) + " is empty");
    // A data row never holds the first column's name (a hex job or machine id is there).
    const bool header = std::any_of(row.fields.begin(), row.fields.end(), [&](const config::csv::Field& f) { return f.text == names[0]; });
    if (header) {
      std::vector<std::string> h;
      for (const auto& f : row.fields) h.push_back(f.text);
      width = h.size();
      at = trace_detail::header_columns(h, names, required, label, row.line, what);
    } else {
      pending = true;  // the first row is data
    }
  }
  bool next() {
    if (pending) {
      pending = false;
      return true;
    }
    return reader.next(row);
  }
  const config::csv::Field* cell(std::size_t c) const {
    const std::size_t i = at[c];
    return i == std::string::npos || i >= row.fields.size() ? nullptr : &row.fields[i];
  }
  std::string_view text(std::size_t c) const {
    const config::csv::Field* f = cell(c);
    return f ? std::string_view(f->text) : std::string_view();
  }
  [[noreturn]] void bad(std::size_t c, const std::string& why) const {
    const config::csv::Field* f = cell(c);
    config::csv::fail(ErrorCode::WrongType, label, row.line, f ? f->column : 1, names[c], why);
  }
  void check_width() const {
    if (row.fields.size() != width)
      config::csv::fail(ErrorCode::WrongType, label, row.line, 1, names[0],
                        "the row has " + std::to_string(row.fields.size()) + " columns; " + std::string(what) + " has " +
                            std::to_string(width));
  }
  // A decimal cell in units of 10^-scale; false when empty.
  bool fixed(std::size_t c, int scale, std::int64_t& v) const {
    const std::string_view t = text(c);
    if (t.empty()) return false;
    if (!parse_fixed(t, scale, v)) bad(c, "not a non-negative number");
    return true;
  }
  // A time cell in nanoseconds; false when empty or 0 (the trace's "never": its own
  // analysis treats a start_time of 0 as missing).
  bool time(std::size_t c, std::int64_t& ns) const { return fixed(c, 9, ns) && ns > 0; }

  trace_detail::ByteStream stream;
  config::csv::Reader reader;
  std::string label;
  const std::vector<std::string_view>& names;
  std::string what;
  std::vector<std::size_t> at;
  std::size_t width = 0;
  config::csv::Row row;
  bool pending = false;
};

// Job names -> their summaries' index, without a string allocated per job (a million jobs
// of the real trace): the names in one arena, an open-addressing table of indices.
class NameIndex {
 public:
  static constexpr std::uint32_t NONE = std::numeric_limits<std::uint32_t>::max();
  void reserve(std::size_t names) {
    ends_.reserve(names);
    rehash(std::max<std::size_t>(16, std::bit_ceil(2 * names)));
  }
  std::size_t size() const { return ends_.size(); }
  std::uint32_t find(std::string_view name) const {
    if (slots_.empty()) return NONE;
    for (std::size_t at = std::hash<std::string_view>{}(name) & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
      const std::uint32_t i = slots_[at];
      if (i == NONE || this->name(i) == name) return i;
    }
  }
  // The index of `name`; a new one (the next index) when absent.
  std::uint32_t add(std::string_view name) {
    if (2 * (ends_.size() + 1) > slots_.size()) rehash(std::max<std::size_t>(16, 2 * slots_.size()));
    std::size_t at = std::hash<std::string_view>{}(name) & (slots_.size() - 1);
    for (; slots_[at] != NONE; at = (at + 1) & (slots_.size() - 1))
      if (this->name(slots_[at]) == name) return slots_[at];
    slots_[at] = static_cast<std::uint32_t>(ends_.size());
    arena_.append(name);
    ends_.push_back(arena_.size());
    return slots_[at];
  }
  std::string_view name(std::uint32_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(arena_).substr(begin, ends_[i] - begin);
  }

 private:
  void rehash(std::size_t slots) {
    slots_.assign(slots, NONE);
    for (std::uint32_t i = 0; i < ends_.size(); ++i) {
      std::size_t at = std::hash<std::string_view>{}(name(i)) & (slots - 1);
      while (slots_[at] != NONE) at = (at + 1) & (slots - 1);
      slots_[at] = i;
    }
  }
  std::string arena_;
  std::vector<std::size_t> ends_;      // the end of each name in arena_
  std::vector<std::uint32_t> slots_;   // a power of two, at most half full
};

// What the task table says of one job: no allocation of its own (GPU types, task names and
// machines are indices into small tables).
struct JobTasks {
  std::int64_t gpus = 0;            // whole GPUs over its GPU instances
  std::int64_t gpu_instances = 0;
  std::int16_t single_milli = 0;    // the share of its one GPU instance, when below a GPU
  bool shared_instances = false;    // an instance of less than a GPU
  bool rounded_up = false;          // a plan_gpu above 100 and not whole
  std::int64_t start_ns = NO_TIME;  // its GPU tasks' earliest start
  std::int64_t end_ns = NO_TIME;    // their latest end
  bool open_end = false;            // a GPU task started and never ended
  bool bad = false;                 // a task row malformed (skip_bad_rows)
  std::uint64_t gpu_types = 0;      // bit k: its GPU tasks ran on gpu_types_[k]
  std::uint64_t gpu_tasks = 0;      // bit k: task name k is one of its GPU tasks (names past 63 share bit 63)
  std::uint32_t machine = NameIndex::NONE;  // its recorded machine in machine_names_
  // Whole GPUs of each of its GPU instances when every one holds the same (0: none yet;
  // -1: they differ, or share GPUs), and how many of them ran on `machine`; `spread`: some
  // ran on other machines (Pai2020Source::spread_ counts them).
  std::int32_t instance_gpus = 0;
  std::uint32_t machine_instances = 0;
  bool spread = false;
};

class Pai2020Source : public TraceSource {
 public:
  Pai2020Source(const Pai2020Files& files, const TraceOptions& options)
      : jobs_(*files.jobs, files.jobs_label, JOB_NAMES, {"job_name", "user", "status", "start_time", "end_time"},
              "the PAI 2020 job table (pai_job_table)"),
        options_(options) {
    report_.file = files.jobs_label;
    row_bound_ = lines_in(*files.jobs);
    read_tasks(*files.tasks, files.tasks_label);
    if (files.instances) read_instances(*files.instances, files.instances_label);
    if (files.machines) read_machines(*files.machines, files.machines_label);
    scan_jobs(*files.jobs);
  }

  bool next(TraceJob& job) override {
    while (jobs_.next())
      if (take_row(options_.skip_bad_rows, [&] { return read_job(job); })) return true;
    return false;
  }

 private:
  // The catalog name of a gpu_type: gpu_map first; `V100` is the 16 GB part (the trace
  // names the 32 GB one V100M32); `MISC` (older GPUs of several models) must be mapped.
  std::string gpu_name(const std::string& name, const std::string& label, int line, int column) const {
    if (const auto it = options_.gpu_map.find(name); it != options_.gpu_map.end()) return it->second;
    if (name == "MISC")
      throw ConfigError(ErrorCode::UnknownName, SourceMark{label, line, column}, "gpu_type",
                        "the trace's GPU type 'MISC' stands for older GPUs of several models (K40m, K80, M60 and the like, "
                        "its README says): say which catalog GPU to use for it under workload.trace, e.g. "
                        "gpu_map: {MISC: K80} (`gcsim gpus` lists the catalog)");
    if (name == "V100") return "V100M16";
    return trace_detail::map_gpu(name, options_, label, line, column, "gpu_type");
  }

  std::uint32_t job_index(std::string_view name) {
    const std::uint32_t i = index_.add(name);
    if (i == tasks_.size()) tasks_.emplace_back();
    return i;
  }
  static std::uint64_t task_bit(std::uint32_t name) { return std::uint64_t{1} << std::min<std::uint32_t>(name, 63); }

  void read_tasks(const std::string& bytes, const std::string& label) {
    Table t(bytes, label, TASK_NAMES, {"job_name", "task_name", "inst_num", "start_time", "end_time", "plan_gpu"},
            "the PAI 2020 task table (pai_task_table)");
    index_.reserve(lines_in(bytes));
    tasks_.reserve(lines_in(bytes));
    while (t.next()) {
      try {
        read_task(t);
      } catch (const ConfigError&) {
        if (!options_.skip_bad_rows) throw;
        ++report_.notes["malformed task row skipped (skip_bad_rows); its job is skipped"];
        if (const std::string_view name = t.text(T_JOB); !name.empty()) tasks_[job_index(name)].bad = true;
      }
    }
  }

  void read_task(const Table& t) {
    t.check_width();
    const std::string_view name = t.text(T_JOB);
    if (name.empty()) t.bad(T_JOB, "the job's name is empty");
    std::int64_t inst = 0, milli = 0, start = 0, end = 0;
    // inst_num is written as a float ("1.0"): a whole count is read in thousandths.
    if (!t.fixed(T_INST_NUM, 3, inst)) t.bad(T_INST_NUM, "the instance count is empty");
    if (inst % 1000 != 0) t.bad(T_INST_NUM, "not a whole number of instances");
    inst /= 1000;
    if (inst > (1 << 20)) t.bad(T_INST_NUM, "more than 2^20 instances");
    // plan_gpu is percent of a GPU: in tenths of a percent it is thousandths of a GPU.
    const bool has_gpu = t.fixed(T_PLAN_GPU, 1, milli) && milli > 0;
    if (milli > 1000 * 1024) t.bad(T_PLAN_GPU, "more than 1024 GPUs per instance");
    const bool started = t.time(T_START, start);
    const bool ended = t.time(T_END, end);
    if (started && ended && end < start) t.bad(T_END, "the task ends before it starts");
    std::string type;
    if (has_gpu && inst > 0) {
      if (const config::csv::Field* f = t.cell(T_GPU_TYPE); f && !f->text.empty())
        type = gpu_name(f->text, t.label, t.row.line, f->column);
    }
    if (started) latest_ns_ = std::max(latest_ns_, start);
    if (ended) latest_ns_ = std::max(latest_ns_, end);
    JobTasks& j = tasks_[job_index(name)];
    if (!has_gpu || inst == 0) return;  // a CPU task (a parameter server, say): no GPU held
    const std::int64_t per_instance = (milli + 999) / 1000;
    const std::int32_t whole = milli % 1000 == 0 ? static_cast<std::int32_t>(milli / 1000) : -1;
    j.instance_gpus = j.instance_gpus == 0 || j.instance_gpus == whole ? whole : -1;
    j.gpus += inst * per_instance;
    j.gpu_instances += inst;
    if (milli < 1000) {
      j.shared_instances = true;
      if (inst == 1) j.single_milli = static_cast<std::int16_t>(milli);
    } else if (milli % 1000 != 0) {
      j.rounded_up = true;
    }
    if (started) {
      j.start_ns = std::min(j.start_ns == NO_TIME ? start : j.start_ns, start);
      if (ended) j.end_ns = std::max(j.end_ns, end);
      else j.open_end = true;
    }
    if (!type.empty()) {
      auto k = std::find(gpu_types_.begin(), gpu_types_.end(), type);
      if (k == gpu_types_.end()) {
        if (gpu_types_.size() == 64) t.bad(T_GPU_TYPE, "more than 64 GPU types in the trace");
        k = gpu_types_.insert(k, type);
      }
      j.gpu_types |= std::uint64_t{1} << (k - gpu_types_.begin());
    }
    j.gpu_tasks |= task_bit(task_names_.add(t.text(T_TASK)));
  }

  // The instance table: each job's recorded machine, its first GPU instance's, and the
  // machines its other GPU instances ran on, with how many on each (a job over several
  // machines, the same GPUs on each, keeps them all: read_job).
  void read_instances(const std::string& bytes, const std::string& label) {
    Table t(bytes, label, INSTANCE_NAMES, {"job_name", "task_name", "machine"}, "the PAI 2020 instance table (pai_instance_table)");
    std::size_t rows = 0, placed = 0;
    while (t.next()) {
      ++rows;
      try {
        t.check_width();
        const std::uint32_t i = index_.find(t.text(I_JOB));
        if (i == NameIndex::NONE) continue;
        JobTasks& j = tasks_[i];
        const std::string_view machine = t.text(I_MACHINE);
        if (machine.empty()) continue;
        const std::uint32_t task = task_names_.find(t.text(I_TASK));
        if (task == NameIndex::NONE || (j.gpu_tasks & task_bit(task)) == 0) continue;
        if (machine.size() > 256) t.bad(I_MACHINE, "a machine name longer than 256 characters");
        const std::uint32_t m = machine_names_.add(machine);
        if (j.machine == NameIndex::NONE) {
          j.machine = m;
          ++placed;
        }
        if (m == j.machine) {
          ++j.machine_instances;
          continue;
        }
        // Another machine: counted beside the job (few jobs have one).
        std::vector<std::pair<std::uint32_t, std::uint32_t>>& others = spread_[i];
        const auto at = std::find_if(others.begin(), others.end(), [&](const auto& o) { return o.first == m; });
        if (at != others.end()) ++at->second;
        else others.emplace_back(m, 1);
        j.spread = true;
      } catch (const ConfigError&) {
        if (!options_.skip_bad_rows) throw;
        ++report_.notes["malformed instance row skipped (skip_bad_rows)"];
      }
    }
    report_.header_notes.push_back("instance table: " + std::to_string(rows) + " rows, a recorded machine for " +
                                   std::to_string(placed) + " jobs");
  }

  // The machine spec: its GPU machines grouped into node types.
  void read_machines(const std::string& bytes, const std::string& label) {
    Table t(bytes, label, MACHINE_NAMES, {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"},
            "the PAI 2020 machine spec (pai_machine_spec)");
    report_.machines_file = label;
    using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>;  // gpu_type, gpus, cpus, GB
    std::map<Key, std::size_t> groups;
    std::size_t cpu_only = 0;
    while (t.next()) {
      try {
        t.check_width();
        std::int64_t gpus = 0, cpus = 0, mem = 0;
        if (!t.fixed(M_CAP_GPU, 0, gpus)) t.bad(M_CAP_GPU, "the GPU count is empty");
        if (!t.fixed(M_CAP_CPU, 0, cpus)) t.bad(M_CAP_CPU, "the CPU count is empty");
        if (!t.fixed(M_CAP_MEM, 0, mem)) t.bad(M_CAP_MEM, "the memory is empty");
        if (gpus > 64) t.bad(M_CAP_GPU, "a GPU count above 64");
        if (gpus == 0) {
          ++cpu_only;
          continue;
        }
        if (cpus < 1 || cpus > (1 << 20)) t.bad(M_CAP_CPU, "a CPU count outside 1..2^20");
        const config::csv::Field* type = t.cell(M_GPU_TYPE);
        if (type == nullptr || type->text.empty()) t.bad(M_GPU_TYPE, "a GPU machine without its GPU type");
        const Key key{type->text, gpus, cpus, mem};
        auto it = groups.find(key);
        if (it == groups.end()) {
          TraceMachineGroup g;
          g.trace_gpu = type->text;
          g.gpu = gpu_name(type->text, label, t.row.line, type->column);
          g.gpus = static_cast<int>(gpus);
          g.cpu_cores = static_cast<int>(cpus);
          g.memory_bytes = static_cast<double>(mem) * 1024 * 1024 * 1024;  // cap_mem: GB, read as GiB
          g.line = t.row.line;
          price(g, options_);
          it = groups.emplace(key, machines_.size()).first;
          machines_.push_back(g);
        }
        add_machine(it->second, gpus);
        if (const config::csv::Field* name = t.cell(M_MACHINE)) machines_[it->second].names.push_back(name->text);
      } catch (const ConfigError&) {
        if (!options_.skip_bad_rows) throw;
        ++report_.notes["malformed machine row skipped (skip_bad_rows)"];
      }
    }
    if (cpu_only > 0) report_.header_notes.push_back(std::to_string(cpu_only) + " CPU-only machines of the machine spec left out");
  }

  // A first pass over the job table for the trace's start (the UTC+8 midnight before the
  // earliest submission, so that hours of the day are the trace's) and its last recorded
  // time (where runs still going at the end are cut). Rows it cannot read are left to the
  // second pass, which reports them.
  void scan_jobs(const std::string& bytes) {
    Table t(bytes, jobs_.label, JOB_NAMES, {}, "the PAI 2020 job table (pai_job_table)");
    std::int64_t earliest = NO_TIME;
    while (t.next()) {
      std::int64_t v = 0;
      if (parse_fixed(t.text(J_START), 9, v) && v > 0) {
        earliest = earliest == NO_TIME ? v : std::min(earliest, v);
        latest_ns_ = std::max(latest_ns_, v);
      }
      if (parse_fixed(t.text(J_END), 9, v)) latest_ns_ = std::max(latest_ns_, v);
    }
    if (earliest != NO_TIME) {
      const std::int64_t day = 86400 * NS_PER_S, shift = UTC8_OFFSET_S * NS_PER_S;
      origin_ns_ = (earliest + shift) / day * day - shift;
    }
  }

  bool read_job(TraceJob& job) {
    const Table& t = jobs_;
    t.check_width();
    const config::csv::Field* name = t.cell(J_NAME);
    if (name == nullptr || name->text.empty()) t.bad(J_NAME, "the job's name is empty");
    std::int64_t submit = 0;
    if (!t.time(J_START, submit)) t.bad(J_START, "the submission time (start_time) is empty or 0");
    const std::string_view status_text = t.text(J_STATUS);
    const std::string status = status_text.empty() ? "unknown" : std::string(status_text);
    if (status.size() > 32) t.bad(J_STATUS, "a status longer than 32 characters");
    if (status == "Waiting") {
      ++report_.skipped["never scheduled (status Waiting)"];
      return false;
    }
    const std::uint32_t found = index_.find(name->text);
    if (found == NameIndex::NONE) {
      ++report_.skipped["no task in the task table"];
      return false;
    }
    const JobTasks& j = tasks_[found];
    if (j.bad) {
      ++report_.skipped["a task row malformed (skip_bad_rows)"];
      return false;
    }
    if (j.gpus == 0) {
      ++report_.skipped["CPU-only (no task with plan_gpu > 0)"];
      return false;
    }
    if (j.gpus > (1 << 20)) t.bad(J_NAME, "more than 2^20 GPUs over its tasks");
    if (j.start_ns == NO_TIME) {
      ++report_.skipped["never started (no GPU task has a start_time)"];
      return false;
    }
    std::int64_t end = j.end_ns;
    if (j.open_end && status == "Running") {
      end = std::max(end, latest_ns_);
      ++report_.notes["still running at the trace's end (status Running): run cut at the trace's last recorded time"];
    }
    if (end == NO_TIME) {
      ++report_.skipped["no recorded end (no GPU task has an end_time)"];
      return false;
    }
    if (end == j.start_ns) {
      ++report_.skipped["run time 0 (its GPU tasks end when they start)"];
      return false;
    }
    job = TraceJob{};
    job.name = name->text;
    job.submit_ns = submit - origin_ns_;
    job.duration_ns = end - j.start_ns;
    job.start_ns = j.start_ns - origin_ns_;
    if (j.machine != NameIndex::NONE) job.machine = machine_names_.name(j.machine);
    // Its GPU instances over several machines, as many on each and the same whole GPUs
    // each: all of them (TraceJob::more_machines); otherwise the first machine alone.
    if (j.spread && j.instance_gpus > 0) {
      const auto& others = spread_.at(found);
      const bool even = std::all_of(others.begin(), others.end(),
                                    [&](const auto& o) { return o.second == j.machine_instances; });
      if (even && static_cast<std::int64_t>(1 + others.size()) * j.machine_instances * j.instance_gpus == j.gpus)
        for (const auto& o : others) job.more_machines.emplace_back(machine_names_.name(o.first));
    }
    if (j.gpu_instances == 1 && j.single_milli > 0) {
      job.gpus = 1;
      job.gpu_milli = j.single_milli;
    } else {
      job.gpus = static_cast<std::int32_t>(j.gpus);
      if (j.shared_instances)
        ++report_.notes["instances of less than a GPU in a job of several GPU instances (whole GPUs taken)"];
    }
    if (j.rounded_up) ++report_.notes["plan_gpu above 100 and not whole (rounded up to whole GPUs)"];
    if (submit > j.start_ns) ++report_.notes["a task started before its job's submission (kept)"];
    for (std::size_t k = 0; k < gpu_types_.size(); ++k)
      if ((j.gpu_types >> k) & 1) job.gpu_types.push_back(gpu_types_[k]);
    if (const std::string_view user = t.text(J_USER); !user.empty()) job.team = user;
    job.status = status;
    job.line = t.row.line;
    return true;
  }

  Table jobs_;
  const TraceOptions& options_;
  NameIndex index_;                      // job name -> tasks_
  std::vector<JobTasks> tasks_;
  std::vector<std::string> gpu_types_;   // catalog names, in the order first seen
  NameIndex task_names_;
  NameIndex machine_names_;
  // By job index: the machines its GPU instances ran on besides its recorded one, in the
  // order met, with how many instances on each.
  std::unordered_map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::uint32_t>>> spread_;
  std::int64_t origin_ns_ = 0;
  std::int64_t latest_ns_ = 0;
};

}  // namespace

std::unique_ptr<TraceSource> open_alibaba_pai_2020(const Pai2020Files& files, const TraceOptions& options) {
  return std::make_unique<Pai2020Source>(files, options);
}

}  // namespace gcsim::models
