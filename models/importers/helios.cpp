// The SenseTime Helios importer (docs/traces.md, "Helios"): a cluster's cluster_log.csv
// from github.com/S-Lab-System-Group/HeliosData (Hu et al., "Characterization and
// Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters", SC '21). Columns
// by header name: job_id, user, vc, gpu_num, cpu_num, node_num, state, submit_time,
// start_time, end_time (datetimes "2020-06-09 18:41:01"), duration and queue (seconds).
#include <string>
#include <string_view>

#include "models/importers/trace_import.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

constexpr std::int64_t NS_PER_S = 1'000'000'000;

enum Col : std::size_t { JOB_ID, USER, VC, GPU_NUM, STATE, SUBMIT, START, END, DURATION, COLUMNS };
const std::vector<std::string_view> NAMES{"job_id", "user", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time", "duration"};

class HeliosSource : public TraceSource {
 public:
  HeliosSource(const std::string& bytes, std::string label, const TraceOptions& options)
      : stream_(bytes), reader_(stream_, label, false), label_(std::move(label)), options_(options) {
    report_.file = label_;
    row_bound_ = lines_in(bytes);
    config::csv::Row header;
    if (!reader_.next(header))
      throw ConfigError(ErrorCode::EmptyFile, SourceMark{label_, 1, 1}, "", "the Helios cluster log is empty (no header)");
    std::vector<std::string> names;
    for (const auto& f : header.fields) names.push_back(f.text);
    width_ = names.size();
    at_ = trace_detail::header_columns(names, NAMES, {"job_id", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time"},
                                       label_, header.line, "the Helios cluster log");
  }

  bool next(TraceJob& job) override {
    while (reader_.next(row_))
      if (take_row(options_.skip_bad_rows, [&] { return read_row(job); })) return true;
    return false;
  }

 private:
  const config::csv::Field* cell(Col c) const {
    const std::size_t i = at_[c];
    if (i == std::string::npos || i >= row_.fields.size()) return nullptr;
    return &row_.fields[i];
  }
  [[noreturn]] void bad(Col c, const std::string& why) const {
    const config::csv::Field* f = cell(c);
    config::csv::fail(ErrorCode::WrongType, label_, row_.line, f ? f->column : 1, NAMES[c], why);
  }
  std::int64_t integer(Col c) const {
    const config::csv::Field* f = cell(c);
    std::int64_t v = 0;
    if (f == nullptr || !trace_detail::parse_int(f->text, v)) bad(c, "not an integer");
    return v;
  }
  // A datetime cell in seconds; false when empty.
  bool time(Col c, std::int64_t& seconds) const {
    const config::csv::Field* f = cell(c);
    if (f == nullptr || f->text.empty()) return false;
    if (!trace_detail::parse_datetime(f->text, seconds)) bad(c, "not a datetime like 2020-06-09 18:41:01");
    return true;
  }

  bool read_row(TraceJob& job) {
    if (row_.fields.size() != width_)
      config::csv::fail(ErrorCode::WrongType, label_, row_.line, 1, NAMES[JOB_ID],
                        "the row has " + std::to_string(row_.fields.size()) + " columns; the header has " + std::to_string(width_));
    const std::int64_t gpus = integer(GPU_NUM);
    if (gpus < 0) bad(GPU_NUM, "a GPU count below 0");
    std::int64_t submit = 0, start = 0, end = 0;
    if (!time(SUBMIT, submit)) bad(SUBMIT, "the submit time is empty");
    const bool started = time(START, start);
    const bool ended = time(END, end);
    if (gpus == 0) {
      ++report_.skipped["CPU-only (gpu_num 0)"];
      return false;
    }
    if (gpus > (1 << 20)) bad(GPU_NUM, "more than 2^20 GPUs");
    if (!started || !ended) {
      ++report_.skipped["no start or end time (never ran, or still running at the trace's end)"];
      return false;
    }
    if (end < start) bad(END, "the end time is before the start time");
    if (!origin_set_) {
      // The trace's start: midnight of the first row's submit day, so that times keep their
      // hour of the day (job_id orders the rows by submission).
      origin_s_ = submit - ((submit % 86400) + 86400) % 86400;
      origin_set_ = true;
    }
    if (submit < origin_s_) {
      ++report_.skipped["submitted before the first row's day (the trace's start)"];
      return false;
    }
    const std::int64_t run = end - start;
    if (const config::csv::Field* d = cell(DURATION); d && !d->text.empty()) {
      std::int64_t recorded = 0;
      if (!trace_detail::parse_int(d->text, recorded)) bad(DURATION, "not an integer (seconds)");
      if (recorded != run) ++report_.notes["duration column differs from end_time - start_time (the times are used)"];
    }
    if (run == 0) {
      ++report_.skipped["run time 0 (start_time = end_time)"];
      return false;
    }
    // Datetimes up to the year 9999: from the trace's start, their nanoseconds may not fit.
    if (end - origin_s_ > trace_detail::MAX_SECONDS) bad(END, std::string(trace_detail::PAST_MAX_SECONDS) + " after the trace's start");
    if (submit - origin_s_ > trace_detail::MAX_SECONDS) bad(SUBMIT, std::string(trace_detail::PAST_MAX_SECONDS) + " after the trace's start");
    job = TraceJob{};
    const config::csv::Field* id = cell(JOB_ID);
    if (id == nullptr || id->text.empty()) bad(JOB_ID, "the job id is empty");
    job.name = id->text;
    job.submit_ns = (submit - origin_s_) * NS_PER_S;
    job.duration_ns = run * NS_PER_S;
    job.start_ns = (start - origin_s_) * NS_PER_S;
    job.gpus = static_cast<std::int32_t>(gpus);
    if (const config::csv::Field* vc = cell(VC); vc && !vc->text.empty()) job.team = vc->text;
    const config::csv::Field* state = cell(STATE);
    job.status = state && !state->text.empty() ? state->text : "unknown";
    if (job.status.size() > 32) bad(STATE, "a state longer than 32 characters");
    job.line = row_.line;
    return true;
  }

  trace_detail::ByteStream stream_;
  config::csv::Reader reader_;
  std::string label_;
  const TraceOptions& options_;
  std::vector<std::size_t> at_;
  std::size_t width_ = 0;
  config::csv::Row row_;
  std::int64_t origin_s_ = 0;
  bool origin_set_ = false;
};

}  // namespace

std::unique_ptr<TraceSource> open_helios(const std::string& bytes, const std::string& label, const TraceOptions& options) {
  return std::make_unique<HeliosSource>(bytes, label, options);
}

}  // namespace gcsim::models
