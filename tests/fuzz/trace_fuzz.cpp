// libFuzzer harness for the trace reader (`make fuzz`): each input is written to one
// temporary file and read as `gcsim analyze` and `gcsim rerun` read a trace: read_trace,
// the metrics and the report, then the recorded inputs (/inputs and /input_bytes). A
// damaged or foreign file must end in gcsim::Error; anything else that escapes
// (std::bad_alloc, an internal error, a crash or a hang inside libhdf5, a sanitizer report)
// is a finding. The corpus (tests/fuzz/trace_corpus) is a few small valid traces made by
// tests/fuzz/make_trace_corpus.sh.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/metrics.hpp"
#include "analysis/report.hpp"
#include "analysis/trace_data.hpp"
#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"

namespace {

std::string g_path;  // the temporary file every input is written to

void write_input(const std::uint8_t* data, std::size_t size) {
  const int fd = ::open(g_path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW);
  std::size_t done = 0;
  while (fd >= 0 && done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (fd < 0 || done != size || ::close(fd) != 0) {
    std::fprintf(stderr, "trace_fuzz: cannot write %s\n", g_path.c_str());  // a setup failure, not a finding
    std::abort();
  }
}

}  // namespace

// libhdf5 (the system's, uninstrumented) leaks a few hundred bytes on some error paths
// through damaged files, even after every identifier we opened is closed: not a finding
// of ours. Leaks with gcsim frames on top are still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5\n"; }
// Without this, every leak check (each run that allocates more than it frees) prints the
// suppression table.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gcsim-trace-fuzz-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    std::fprintf(stderr, "trace_fuzz: cannot create a temporary file from %s\n", pattern.c_str());
    std::abort();
  }
  ::close(fd);
  g_path = pattern;
  std::atexit([] { ::unlink(g_path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_input(data, size);
  try {
    const gcsim::analysis::TraceData trace = gcsim::analysis::read_trace(g_path);
    (void)gcsim::analysis::format_report(trace, gcsim::analysis::compute_metrics(trace));
    const auto reader = gcsim::trace::TraceReader::open(g_path);
    (void)gcsim::analysis::read_inputs(*reader, g_path);
  } catch (const gcsim::Error&) {
    // expected: a damaged or foreign trace reported as a user error
  }
  return 0;
}
