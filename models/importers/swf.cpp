// The Standard Workload Format importer (docs/traces.md, "SWF"): the Parallel Workloads
// Archive's logs, as defined by Chapin, Cirne, Feitelson et al., "Benchmarks and Standards
// for the Evaluation of Parallel Job Schedulers" (JSSPP 1999) and the archive's page
// https://www.cs.huji.ac.il/labs/parallel/workload/swf.html. One line a job, 18
// whitespace-separated integer fields, -1 where unknown; `;` starts a header comment.
// One processor is one GPU.
#include <array>
#include <cctype>
#include <string>
#include <string_view>

#include "models/importers/trace_import.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

constexpr std::int64_t NS_PER_S = 1'000'000'000;
constexpr int SWF_FIELDS = 18;

// The 18 fields, 1-based in the standard; names as errors give them.
constexpr std::array<const char*, SWF_FIELDS> FIELD_NAMES{
    "job_number (field 1)",       "submit_time (field 2)",      "wait_time (field 3)",
    "run_time (field 4)",         "allocated_processors (field 5)", "average_cpu_time (field 6)",
    "used_memory (field 7)",      "requested_processors (field 8)", "requested_time (field 9)",
    "requested_memory (field 10)", "status (field 11)",          "user_id (field 12)",
    "group_id (field 13)",        "executable (field 14)",      "queue (field 15)",
    "partition (field 16)",       "preceding_job (field 17)",   "think_time (field 18)"};

class SwfSource : public TraceSource {
 public:
  SwfSource(const std::string& bytes, std::string label, const TraceOptions& options)
      : bytes_(bytes), label_(std::move(label)), options_(options) {
    report_.file = label_;
    row_bound_ = lines_in(bytes);
  }

  bool next(TraceJob& job) override {
    while (pos_ < bytes_.size()) {
      const std::size_t end = std::min(bytes_.find('\n', pos_), bytes_.size());
      const std::string_view line(bytes_.data() + pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      const std::size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string_view::npos) continue;  // blank
      if (line[first] == ';') {
        header(line.substr(first + 1));
        continue;
      }
      if (take_row(options_.skip_bad_rows, [&] { return read_row(line, job); })) return true;
    }
    return false;
  }

 private:
  // `; MaxProcs: 128` and the like: the ones a replay needs are kept for the report.
  void header(std::string_view text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return;
    auto trim = [](std::string_view s) {
      const std::size_t a = s.find_first_not_of(" \t\r");
      if (a == std::string_view::npos) return std::string_view();
      const std::size_t b = s.find_last_not_of(" \t\r");
      return s.substr(a, b - a + 1);
    };
    const std::string_view key = trim(text.substr(0, colon));
    const std::string_view value = trim(text.substr(colon + 1));
    for (const char* wanted : {"MaxProcs", "MaxNodes", "MaxJobs", "MaxRecords", "UnixStartTime", "TimeZoneString", "StartTime", "EndTime"})
      if (key == wanted && value.size() <= 64) report_.header_notes.push_back(std::string(key) + ": " + std::string(value));
  }

  [[noreturn]] void bad(int field, int column, const std::string& why) const {
    throw ConfigError(ErrorCode::WrongType, SourceMark{label_, line_, column}, FIELD_NAMES[static_cast<std::size_t>(field)], why);
  }

  bool read_row(std::string_view line, TraceJob& job) {
    std::array<std::int64_t, SWF_FIELDS> v{};
    std::array<int, SWF_FIELDS> col{};
    int n = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      if (i == line.size()) break;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (n == SWF_FIELDS)
        throw ConfigError(ErrorCode::WrongType, SourceMark{label_, line_, static_cast<int>(i) + 1}, "think_time (field 18)",
                          "an SWF line has 18 fields; this one has more");
      const std::string_view text = line.substr(i, j - i);
      col[static_cast<std::size_t>(n)] = static_cast<int>(i) + 1;
      std::int64_t value = 0;
      if (!trace_detail::parse_int(text, value)) {
        // Some archive logs write fractional seconds in the time fields: whole seconds are kept.
        const std::size_t dot = text.find('.');
        if (dot == std::string_view::npos || !trace_detail::parse_int(text.substr(0, dot), value) ||
            text.find_first_not_of("0123456789", dot + 1) != std::string_view::npos)
          bad(n, static_cast<int>(i) + 1, "not an integer (SWF fields are integers, -1 for unknown)");
      }
      v[static_cast<std::size_t>(n)] = value;
      ++n;
      i = j;
    }
    if (n < SWF_FIELDS)
      bad(n, static_cast<int>(line.size()) + 1, "an SWF line has 18 fields; this one has " + std::to_string(n));
    const std::int64_t submit = v[1], run = v[3], allocated = v[4], requested = v[7], requested_time = v[8];
    if (submit < 0) {
      ++report_.skipped["submit time unknown (-1)"];
      return false;
    }
    if (run < 0) {
      ++report_.skipped["run time unknown (-1)"];
      return false;
    }
    if (run == 0) {
      ++report_.skipped["run time 0"];
      return false;
    }
    std::int64_t procs = allocated;
    if (procs < 0) {
      procs = requested;
      if (procs > 0) ++report_.notes["processors from requested (field 8): allocated is -1"];
    }
    if (procs <= 0) {
      ++report_.skipped[procs == 0 ? "0 processors" : "processor count unknown (fields 5 and 8 are -1)"];
      return false;
    }
    if (procs > (1 << 20)) bad(allocated < 0 ? 7 : 4, col[allocated < 0 ? 7 : 4], "more than 2^20 processors");
    // Fields of up to 18 digits: their sums fit, their nanoseconds may not.
    for (const auto& [field, seconds] : {std::pair{1, submit}, std::pair{3, run}, std::pair{2, submit + std::max<std::int64_t>(v[2], 0)},
                                         std::pair{8, requested_time}})
      if (seconds > trace_detail::MAX_SECONDS) bad(field, col[static_cast<std::size_t>(field)], std::string(trace_detail::PAST_MAX_SECONDS));
    job = TraceJob{};
    job.name = "swf-" + std::to_string(v[0]);
    job.submit_ns = submit * NS_PER_S;
    job.duration_ns = run * NS_PER_S;
    // Field 3, the wait: the recorded start is submit + wait (-1: unknown, as-recorded skips it).
    if (v[2] >= 0) job.start_ns = (submit + v[2]) * NS_PER_S;
    if (requested_time > 0) job.estimate_ns = requested_time * NS_PER_S;
    job.gpus = static_cast<std::int32_t>(procs);
    if (v[11] >= 0) job.team = "user-" + std::to_string(v[11]);
    // Status (field 11): 1 completed, 0 failed, 5 cancelled; 2, 3, 4 the parts of a
    // checkpointed job. Replayed alike; the count of each is reported.
    switch (v[10]) {
      case 1: job.status = "completed"; break;
      case 0: job.status = "failed"; break;
      case 5: job.status = "cancelled"; break;
      case -1: job.status = "unknown"; break;
      default: job.status = "status " + std::to_string(v[10]); break;
    }
    job.line = line_;
    return true;
  }

  const std::string& bytes_;
  std::string label_;
  const TraceOptions& options_;
  std::size_t pos_ = 0;
  int line_ = 0;
};

}  // namespace

std::unique_ptr<TraceSource> open_swf(const std::string& bytes, const std::string& label, const TraceOptions& options) {
  return std::make_unique<SwfSource>(bytes, label, options);
}

}  // namespace gcsim::models
