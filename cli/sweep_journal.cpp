// A sweep's journal (see sweep_journal.hpp).
#include "cli/sweep_journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/source_resolver.hpp"
#include "sim/errors.hpp"

namespace gcsim::cli {

namespace {

constexpr const char* MAGIC = "gcsim-sweep-journal 1";

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool parse_hex64(std::string_view s, std::uint64_t& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && end == s.data() + s.size() && s.size() == 16;
}

// Backslash, newline and carriage return escaped: a message on one line.
std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char n = s[++i];
      out += n == 'n' ? '\n' : n == 'r' ? '\r' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "<body> #<checksum>": the body's FNV-1a, so that a torn or altered line is seen.
std::string sealed(const std::string& body) { return body + " #" + config::fnv1a64_hex(body) + "\n"; }

bool unseal(const std::string& line, std::string& body) {
  const auto hash = line.rfind(" #");
  if (hash == std::string::npos) return false;
  body = line.substr(0, hash);
  return line.substr(hash + 2) == config::fnv1a64_hex(body);
}

// One run's record: "<index> ok <figure bits>..." or "<index> fail <0|1> <message>".
bool parse_run(const std::string& body, std::size_t runs, std::size_t& index, JournalRun& run) {
  std::istringstream in(body);
  std::string kind;
  if (!(in >> index >> kind) || index >= runs) return false;
  if (kind == "ok") {
    for (double& f : run.figures) {
      std::string bits;
      std::uint64_t v = 0;
      if (!(in >> bits) || !parse_hex64(bits, v)) return false;
      f = std::bit_cast<double>(v);
    }
    run.ok = true;
  } else if (kind == "fail") {
    int internal = 0;
    if (!(in >> internal)) return false;
    run.internal = internal != 0;
    std::string rest;
    std::getline(in, rest);
    run.error = unescape(rest.empty() ? rest : rest.substr(1));
  } else {
    return false;
  }
  run.done = true;
  return true;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("cannot write the sweep's journal '" + path + "': " + std::strerror(errno));
    at += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string SweepJournal::path_in(const std::string& dir) { return (std::filesystem::path(dir) / "sweep.journal").string(); }

namespace {

std::string header_of(const std::string& fingerprint, std::size_t runs) {
  return std::string(MAGIC) + " " + fingerprint + " " + std::to_string(runs);
}

// Reads a journal: its header must be `header`; every valid record goes into `runs_done`
// where that run is not done yet. Returns the sweep file named on the second line.
std::string read_journal(const std::string& path, const std::string& header, std::size_t runs,
                         std::vector<JournalRun>& runs_done) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("no sweep journal '" + path + "'");
  std::string line, body, sweep_file;
  if (!std::getline(in, line) || !unseal(line, body) || !body.starts_with(MAGIC))
    throw Error("'" + path + "' is not a sweep journal gcsim can read; rerun with --restart to start the sweep afresh");
  if (body != header)
    throw Error("'" + path + "' is the journal of another sweep: the sweep file, the base scenario, a file they "
                "read, the --set settings or gcsim itself changed since it was written. Rerun with --restart to "
                "start afresh (its finished runs are then run again), or with another -o folder");
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a last line without its newline: torn by a crash
    if (!unseal(line, body)) continue;
    if (body.starts_with("file ")) {
      sweep_file = unescape(std::string_view(body).substr(5));
      continue;
    }
    std::size_t index = 0;
    JournalRun run;
    if (parse_run(body, runs, index, run) && !runs_done[index].done) runs_done[index] = std::move(run);
  }
  return sweep_file;
}

}  // namespace

SweepJournal::SweepJournal(const std::string& dir, const std::string& fingerprint, std::size_t runs, bool restart,
                           const std::string& sweep_file, std::vector<JournalRun>& runs_done)
    : path_(path_in(dir)) {
  runs_done.assign(runs, JournalRun{});
  const std::string header = header_of(fingerprint, runs);
  std::error_code ec;
  const bool fresh = restart || !std::filesystem::exists(path_, ec);
  if (!fresh) read_journal(path_, header, runs, runs_done);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (fresh ? O_TRUNC : 0), 0644);
  if (fd_ < 0) throw Error("cannot open the sweep's journal '" + path_ + "': " + std::strerror(errno));
  if (fresh) {
    write_all(fd_, sealed(header) + sealed("file " + escape(std::filesystem::absolute(sweep_file).lexically_normal().string())), path_);
  } else {
    // A torn last line would run into the next record: end it first (it stays invalid).
    std::ifstream in(path_, std::ios::binary | std::ios::ate);
    const auto size = in.tellg();
    if (size > 0) {
      in.seekg(size - std::streamoff(1));
      char last = '\n';
      in.get(last);
      if (last != '\n') write_all(fd_, "\n", path_);
    }
  }
}

void SweepJournal::merge_from(const std::string& dir, const std::string& fingerprint, std::size_t runs,
                              std::vector<JournalRun>& runs_done) {
  read_journal(path_in(dir), header_of(fingerprint, runs), runs, runs_done);
}

std::string SweepJournal::sweep_file_of(const std::string& dir) {
  const std::string path = path_in(dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("no sweep journal '" + path + "' (a folder a sweep or a shard wrote with -o)");
  std::string line, body;
  if (!std::getline(in, line) || !unseal(line, body) || !body.starts_with(MAGIC) || !std::getline(in, line) ||
      !unseal(line, body) || !body.starts_with("file "))
    throw Error("'" + path + "' is not a sweep journal gcsim can read");
  return unescape(std::string_view(body).substr(5));
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepJournal::record(std::size_t index, const JournalRun& run) {
  std::string body = std::to_string(index);
  if (run.ok) {
    body += " ok";
    for (const double f : run.figures) body += " " + hex64(std::bit_cast<std::uint64_t>(f));
  } else {
    body += std::string(" fail ") + (run.internal ? "1" : "0") + " " + escape(run.error);
  }
  const std::string line = sealed(body);
  const std::lock_guard<std::mutex> lock(mutex_);
  write_all(fd_, line, path_);
}

}  // namespace gcsim::cli
