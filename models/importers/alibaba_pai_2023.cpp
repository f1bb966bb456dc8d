// The Alibaba PAI 2023 importer (docs/traces.md, "Alibaba PAI 2023"): the GPU-sharing
// trace of Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent" (USENIX ATC '23), github.com/alibaba/clusterdata
// cluster-trace-gpu-v2023: a pod list (name, cpu_milli, memory_mib, num_gpu, gpu_milli,
// gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time; times in
// seconds from the trace's start) and a node list (sn, cpu_milli, memory_mib, gpu, model).
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "models/importers/trace_import.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

constexpr std::int64_t NS_PER_S = 1'000'000'000;

enum PodCol : std::size_t { NAME, NUM_GPU, GPU_MILLI, GPU_SPEC, PHASE, CREATION, DELETION, SCHEDULED };
const std::vector<std::string_view> POD_NAMES{"name",     "num_gpu",       "gpu_milli",     "gpu_spec",
                                              "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
enum NodeCol : std::size_t { SN, CPU_MILLI, MEMORY_MIB, GPU, MODEL };
const std::vector<std::string_view> NODE_NAMES{"sn", "cpu_milli", "memory_mib", "gpu", "model"};

// A CSV of the trace with its columns found by name.
struct Table {
  Table(const std::string& bytes, const std::string& label, const std::vector<std::string_view>& names,
        const std::vector<std::string_view>& required, std::string_view what)
      : stream(bytes), reader(stream, label, false), label(label), names(names) {
    config::csv::Row header;
    if (!reader.next(header))
      throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 1, 1}, "", std::string(what) + " is empty (no header)");
    std::vector<std::string> h;
    for (const auto& f : header.fields) h.push_back(f.text);
    width = h.size();
    at = trace_detail::header_columns(h, names, required, label, header.line, what);
  }
  const config::csv::Field* cell(std::size_t c) const {
    const std::size_t i = at[c];
    return i == std::string::npos || i >= row.fields.size() ? nullptr : &row.fields[i];
  }
  [[noreturn]] void bad(std::size_t c, const std::string& why) const {
    const config::csv::Field* f = cell(c);
    config::csv::fail(ErrorCode::WrongType, label, row.line, f ? f->column : 1, names[c], why);
  }
  std::int64_t integer(std::size_t c) const {
    const config::csv::Field* f = cell(c);
    std::int64_t v = 0;
    if (f == nullptr || !trace_detail::parse_int(f->text, v)) bad(c, "not an integer");
    return v;
  }
  // An integer cell; false when empty.
  bool maybe_integer(std::size_t c, std::int64_t& v) const {
    const config::csv::Field* f = cell(c);
    if (f == nullptr || f->text.empty()) return false;
    if (!trace_detail::parse_int(f->text, v)) bad(c, "not an integer");
    return true;
  }
  void check_width() const {
    if (row.fields.size() != width)
      config::csv::fail(ErrorCode::WrongType, label, row.line, 1, names[0],
                        "the row has " + std::to_string(row.fields.size()) + " columns; the header has " + std::to_string(width));
  }

  trace_detail::ByteStream stream;
  config::csv::Reader reader;
  std::string label;
  const std::vector<std::string_view>& names;
  std::vector<std::size_t> at;
  std::size_t width = 0;
  config::csv::Row row;
};

class PaiSource : public TraceSource {
 public:
  PaiSource(const std::string& pods, const std::string& pods_label, const std::string* nodes, const std::string& nodes_label,
            const TraceOptions& options)
      : pods_(pods, pods_label, POD_NAMES,
              {"name", "num_gpu", "gpu_milli", "pod_phase", "creation_time", "deletion_time", "scheduled_time"},
              "the PAI 2023 pod list (the resampled lists without times cannot be replayed)"),
        options_(options) {
    report_.file = pods_label;
    row_bound_ = lines_in(pods);
    if (nodes) read_nodes(*nodes, nodes_label);
  }

  bool next(TraceJob& job) override {
    while (pods_.reader.next(pods_.row))
      if (take_row(options_.skip_bad_rows, [&] { return read_pod(job); })) return true;
    return false;
  }

 private:
  bool read_pod(TraceJob& job) {
    const Table& t = pods_;
    t.check_width();
    const std::int64_t gpus = t.integer(NUM_GPU);
    if (gpus < 0 || gpus > (1 << 20)) t.bad(NUM_GPU, "a GPU count outside 0..2^20");
    const std::int64_t milli = t.integer(GPU_MILLI);
    if (gpus > 0 && (milli < 1 || milli > 1000)) t.bad(GPU_MILLI, "a share of a GPU outside 1..1000 thousandths");
    std::int64_t created = 0, deleted = 0, scheduled = 0;
    if (!t.maybe_integer(CREATION, created)) t.bad(CREATION, "the creation time is empty");
    if (created < 0) t.bad(CREATION, "a time below 0");
    const bool has_deleted = t.maybe_integer(DELETION, deleted);
    const bool has_scheduled = t.maybe_integer(SCHEDULED, scheduled);
    const config::csv::Field* phase_cell = t.cell(PHASE);
    const std::string phase = phase_cell && !phase_cell->text.empty() ? phase_cell->text : "unknown";
    if (phase.size() > 32) t.bad(PHASE, "a pod_phase longer than 32 characters");
    if (gpus == 0) {
      ++report_.skipped["CPU-only (num_gpu 0)"];
      return false;
    }
    if (!has_scheduled) {
      ++report_.skipped["never scheduled (no scheduled_time; pod_phase " + phase + "): no recorded run"];
      return false;
    }
    if (!has_deleted) {
      ++report_.skipped["no deletion_time: no recorded end"];
      return false;
    }
    if (scheduled < created) t.bad(SCHEDULED, "scheduled before its creation");
    if (deleted < scheduled) t.bad(DELETION, "deleted before it was scheduled");
    if (deleted == scheduled) {
      ++report_.skipped["run time 0 (deletion_time = scheduled_time)"];
      return false;
    }
    // created <= scheduled < deleted: the last is the largest.
    if (deleted > trace_detail::MAX_SECONDS) t.bad(DELETION, std::string(trace_detail::PAST_MAX_SECONDS));
    job = TraceJob{};
    const config::csv::Field* name = t.cell(NAME);
    if (name == nullptr || name->text.empty()) t.bad(NAME, "the pod's name is empty");
    job.name = name->text;
    job.submit_ns = created * NS_PER_S;
    job.duration_ns = (deleted - scheduled) * NS_PER_S;
    job.start_ns = scheduled * NS_PER_S;
    job.gpus = static_cast<std::int32_t>(gpus);
    if (gpus == 1) {
      job.gpu_milli = static_cast<std::int16_t>(milli);
    } else if (milli != 1000) {
      ++report_.notes["gpu_milli below 1000 on a pod of several GPUs (whole GPUs taken)"];
    }
    if (phase == "Running") ++report_.notes["still running at the trace's end (pod_phase Running): run cut at deletion_time"];
    job.status = phase;
    if (const config::csv::Field* spec = t.cell(GPU_SPEC); spec && !spec->text.empty()) {
      std::string_view rest = spec->text;
      while (true) {
        const std::size_t bar = rest.find('|');
        const std::string one(rest.substr(0, bar));
        if (one.empty()) t.bad(GPU_SPEC, "an empty GPU name in the list (names are separated by '|')");
        const std::string mapped = trace_detail::map_gpu(one, options_, t.label, t.row.line, spec->column, "gpu_spec");
        if (std::find(job.gpu_types.begin(), job.gpu_types.end(), mapped) == job.gpu_types.end())
          job.gpu_types.push_back(mapped);
        if (bar == std::string_view::npos) break;
        rest.remove_prefix(bar + 1);
      }
    }
    job.line = t.row.line;
    return true;
  }

  void read_nodes(const std::string& bytes, const std::string& label) {
    Table t(bytes, label, NODE_NAMES, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, "the PAI 2023 node list");
    report_.machines_file = label;
    using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>;  // model, gpus, cpu_milli, memory_mib
    std::map<Key, std::size_t> groups;
    std::size_t cpu_only = 0;
    while (t.reader.next(t.row)) {
      try {
        t.check_width();
        const std::int64_t gpus = t.integer(GPU);
        const std::int64_t cpu = t.integer(CPU_MILLI);
        const std::int64_t mem = t.integer(MEMORY_MIB);
        if (gpus < 0 || gpus > 64) t.bad(GPU, "a GPU count outside 0..64");
        if (cpu < 0 || mem < 0) t.bad(cpu < 0 ? CPU_MILLI : MEMORY_MIB, "a value below 0");
        if (gpus == 0) {
          ++cpu_only;
          continue;
        }
        const config::csv::Field* model = t.cell(MODEL);
        if (model == nullptr || model->text.empty()) t.bad(MODEL, "a GPU node without its GPU model");
        const Key key{model->text, gpus, cpu, mem};
        auto it = groups.find(key);
        if (it == groups.end()) {
          TraceMachineGroup g;
          g.trace_gpu = model->text;
          g.gpu = trace_detail::map_gpu(model->text, options_, label, t.row.line, model->column, "model");
          g.gpus = static_cast<int>(gpus);
          // cpu_milli counts the CPUs Kubernetes allocates (vCPUs): cpu_cores is a count of
          // them here, as the trace gives no other.
          g.cpu_cores = static_cast<int>(std::max<std::int64_t>(1, cpu / 1000));
          g.memory_bytes = static_cast<double>(mem) * 1024 * 1024;
          g.line = t.row.line;
          price(g, options_);
          it = groups.emplace(key, machines_.size()).first;
          machines_.push_back(g);
        }
        add_machine(it->second, gpus);
        const config::csv::Field* sn = t.cell(SN);
        machines_[it->second].names.push_back(sn ? sn->text : std::string());
      } catch (const ConfigError&) {
        if (!options_.skip_bad_rows) throw;
        ++report_.notes["malformed node row skipped (skip_bad_rows)"];
      }
    }
    if (cpu_only > 0) report_.header_notes.push_back(std::to_string(cpu_only) + " CPU-only nodes of the node list left out");
  }

  Table pods_;
  const TraceOptions& options_;
};

}  // namespace

std::unique_ptr<TraceSource> open_alibaba_pai_2023(const std::string& pods_bytes, const std::string& pods_label,
                                                   const std::string* nodes_bytes, const std::string& nodes_label,
                                                   const TraceOptions& options) {
  return std::make_unique<PaiSource>(pods_bytes, pods_label, nodes_bytes, nodes_label, options);
}

}  // namespace gcsim::models
