// AtomicFile: fresh temporary names created exclusively (never reused, never followed
// through a link), the rename on commit, cleanup on every failure path; and the trace
// file built on it.
#include <fcntl.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/atomic_file.hpp"
#include "sim/errors.hpp"
#include "sim/trace/table_writer.hpp"

namespace fs = std::filesystem;
using gcsim::sim::AtomicFile;

namespace {

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh folder under the build tree, removed afterwards.
struct Folder {
  fs::path path;
  explicit Folder(const std::string& name)
      : path(fs::path(GCSIM_BINARY_DIR) / "test-tmp" / (name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  // Every entry but the given one(s): what a failed or finished write left behind.
  std::set<std::string> entries() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.insert(e.path().filename().string());
    return out;
  }
};

}  // namespace

TEST_CASE("AtomicFile writes a temporary file and renames it on commit", "[unit]") {
  Folder dir("atomic-commit");
  const std::string target = dir.file("out.csv");
  {
    AtomicFile f(target);
    CHECK(f.temp_path() != target);
    CHECK(f.temp_path().rfind(target + ".", 0) == 0);  // next to the destination
    CHECK(fs::exists(f.temp_path()));
    CHECK_FALSE(fs::exists(target));
    f.write("a,b\n");
    f.write("1,2\n");
    f.commit();
    CHECK(f.committed());
    CHECK_FALSE(fs::exists(f.temp_path()));
  }
  CHECK(read_bytes(target) == "a,b\n1,2\n");
  CHECK(dir.entries() == std::set<std::string>{"out.csv"});
  // Replacing: the old file is replaced whole.
  gcsim::sim::write_file_atomically(target, "new\n");
  CHECK(read_bytes(target) == "new\n");
  CHECK(dir.entries() == std::set<std::string>{"out.csv"});
}

TEST_CASE("AtomicFile removes its temporary file when not committed", "[unit]") {
  Folder dir("atomic-abandon");
  const std::string target = dir.file("out.csv");
  std::string temp;
  {
    AtomicFile f(target);
    temp = f.temp_path();
    f.write("half");
  }
  CHECK_FALSE(fs::exists(temp));
  CHECK(dir.entries().empty());
  {
    AtomicFile f(target);
    f.discard();
    f.discard();  // idempotent
    CHECK_THROWS_AS(f.write("x"), gcsim::Error);
    CHECK_THROWS_AS(f.commit(), gcsim::Error);
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("AtomicFile never reuses a name: each file gets a fresh one", "[unit]") {
  Folder dir("atomic-unique");
  const std::string target = dir.file("trace.h5");
  std::set<std::string> names;
  std::vector<std::unique_ptr<AtomicFile>> open;
  for (int i = 0; i < 64; ++i) {
    open.push_back(std::make_unique<AtomicFile>(target));
    names.insert(open.back()->temp_path());
  }
  CHECK(names.size() == 64);  // 64 writers of one destination at once, 64 temporary files
}

TEST_CASE("AtomicFile refuses a missing or unwritable folder with gcsim::Error", "[unit]") {
  CHECK_THROWS_AS(AtomicFile("/nonexistent/gcsim/out.csv"), gcsim::Error);
  CHECK_THROWS_AS(AtomicFile(""), gcsim::Error);
  if (geteuid() != 0) {  // root writes anywhere
    Folder dir("atomic-readonly");
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
    CHECK_THROWS_AS(AtomicFile(dir.file("out.csv")), gcsim::Error);
    fs::permissions(dir.path, fs::perms::owner_all);
  }
}

TEST_CASE("a rename that fails leaves no temporary file", "[unit]") {
  Folder dir("atomic-rename");
  // The destination is a non-empty folder: rename() over it fails.
  fs::create_directories(dir.path / "busy" / "inside");
  {
    AtomicFile f(dir.file("busy"));
    f.write("x");
    CHECK_THROWS_AS(f.commit(), gcsim::Error);
  }
  CHECK(dir.entries() == std::set<std::string>{"busy"});
}

TEST_CASE("a link planted at the old temporary name of a trace is not followed", "[unit]") {
  // Until 2026-12 a trace was written to "<trace>.tmp", opened with truncation: a link
  // planted there made gcsim truncate and overwrite whatever it pointed to.
  Folder dir("atomic-symlink");
  const std::string victim = dir.file("victim.txt");
  gcsim::sim::write_file_atomically(victim, "precious\n");
  const std::string trace_path = dir.file("run.h5");
  fs::create_symlink(victim, trace_path + ".tmp");
  {
    auto trace = gcsim::trace::TraceFile::create(trace_path);
    trace->set_attribute("seed", std::int64_t{1});
    trace->commit();
  }
  CHECK(read_bytes(victim) == "precious\n");
  CHECK(fs::is_symlink(trace_path + ".tmp"));  // left alone
  CHECK(fs::is_regular_file(trace_path));
  CHECK_FALSE(fs::is_symlink(trace_path));
  CHECK(dir.entries() == std::set<std::string>{"victim.txt", "run.h5", "run.h5.tmp"});

  // A link at the destination itself to a regular file is neither written through nor
  // replaced (until 2026-12 it was replaced, which also replaced /dev/stdout): refused.
  const std::string csv = dir.file("out.csv");
  fs::create_symlink(victim, csv);
  CHECK_THROWS_AS(gcsim::sim::write_file_atomically(csv, "new\n"), gcsim::Error);
  CHECK(read_bytes(victim) == "precious\n");
  CHECK(fs::is_symlink(csv));
  CHECK(dir.entries() == std::set<std::string>{"victim.txt", "run.h5", "run.h5.tmp", "out.csv"});
}

TEST_CASE("a trace not committed leaves nothing behind", "[unit]") {
  Folder dir("atomic-trace-abandon");
  {
    auto trace = gcsim::trace::TraceFile::create(dir.file("run.h5"));
    trace->set_attribute("seed", std::int64_t{1});
  }
  CHECK(dir.entries().empty());
}

namespace {

// The "<pid>.<host>" part of a temporary name of ours, from a real AtomicFile.
std::string host_field(const AtomicFile& f) {
  const std::string& t = f.temp_path();
  const std::size_t end = t.size() - std::string(".tmp").size() - 17;  // before ".<16 hex>"
  return t.substr(end - 8, 8);
}

// A process id that existed and is gone: a child that exits at once, reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return child;
}

}  // namespace

TEST_CASE("temporary names carry the process and the machine", "[unit]") {
  Folder dir("atomic-names");
  AtomicFile f(dir.file("t.h5"));
  const std::string name = fs::path(f.temp_path()).filename().string();
  const std::string prefix = "t.h5." + std::to_string(getpid()) + ".";
  CHECK(name.rfind(prefix, 0) == 0);
  CHECK(name.size() == prefix.size() + 8 + 1 + 16 + 4);
  CHECK(name.ends_with(".tmp"));
}

TEST_CASE("remove_stale_temp_files removes what a killed run left, and nothing else", "[unit]") {
  Folder dir("atomic-stale");
  AtomicFile live(dir.file("live.h5"));  // ours, open: must stay
  const std::string host = host_field(live);
  const std::string other_host = host == "00000000" ? "00000001" : "00000000";
  const std::string dead = std::to_string(dead_pid());
  const std::string parent = std::to_string(getppid());  // alive
  const std::string hex = "0123456789abcdef";
  std::ofstream(dir.file("victim.txt")) << "precious\n";
  const std::string stale = "run.h5." + dead + "." + host + "." + hex + ".tmp";
  const std::string stale_link = "out.csv." + dead + "." + host + "." + hex + ".tmp";
  const std::string alive = "run.h5." + parent + "." + host + "." + hex + ".tmp";
  const std::string elsewhere = "run.h5." + dead + "." + other_host + "." + hex + ".tmp";
  for (const std::string& n : {stale, alive, elsewhere}) std::ofstream(dir.file(n)) << "x";
  fs::create_symlink(dir.file("victim.txt"), dir.file(stale_link));
  // Names that only look alike: an old-style name, a short hex, no pid.
  for (const char* n : {"run.h5.tmp", "run.h5.0123456789abcdef.tmp", "run.h5.12.abc.0123456789abcdef.tmp", "notes.tmp"})
    std::ofstream(dir.file(n)) << "x";
  CHECK(gcsim::sim::remove_stale_temp_files(dir.path.string()) == 2);
  const std::set<std::string> left = dir.entries();
  CHECK_FALSE(left.count(stale));
  CHECK_FALSE(left.count(stale_link));
  CHECK(read_bytes(dir.path / "victim.txt") == "precious\n");  // the link went, not its target
  for (const std::string& n : {alive, elsewhere, fs::path(live.temp_path()).filename().string(), std::string("run.h5.tmp"),
                               std::string("run.h5.0123456789abcdef.tmp"), std::string("notes.tmp")}) {
    INFO(n);
    CHECK(left.count(n) == 1);
  }
  CHECK(gcsim::sim::remove_stale_temp_files(dir.file("no-such-folder")) == 0);
}

TEST_CASE("SIGTERM and SIGINT remove the temporary files of a run before it dies", "[unit]") {
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO(sig);
    Folder dir("atomic-signal-" + std::to_string(sig));
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      gcsim::sim::install_temp_file_cleanup();
      AtomicFile a(dir.file("run.h5"));
      AtomicFile b(dir.file("out.csv"));
      a.write("half");
      ::raise(sig);
      ::_exit(3);  // not reached: the signal ends the process
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("A ScratchFolder goes with its files, a NewFolderGuard removes its folder only when empty", "[unit]") {
  Folder dir("atomic-scratch");
  std::string kept;
  {
    gcsim::sim::ScratchFolder scratch(dir.path.string(), "work-");
    kept = scratch.path();
    CHECK(fs::path(kept).parent_path() == dir.path);
    CHECK(fs::path(kept).filename().string().starts_with("work-"));
    CHECK(fs::is_directory(kept));
    std::ofstream(fs::path(kept) / "a.h5") << "trace";
  }
  CHECK_FALSE(fs::exists(kept));
  CHECK_THROWS_AS(gcsim::sim::ScratchFolder(dir.file("no-such-folder"), "work-"), gcsim::Error);
  fs::create_directories(dir.file("empty"));
  { gcsim::sim::NewFolderGuard guard(dir.file("empty")); }
  CHECK_FALSE(fs::exists(dir.file("empty")));
  fs::create_directories(dir.file("written"));
  std::ofstream(dir.file("written/keep.txt")) << "x";
  { gcsim::sim::NewFolderGuard guard(dir.file("written")); }
  CHECK(fs::exists(dir.file("written/keep.txt")));
  fs::create_directories(dir.file("kept"));
  {
    gcsim::sim::NewFolderGuard guard(dir.file("kept"));
    guard.keep();
  }
  CHECK(fs::is_directory(dir.file("kept")));
}

TEST_CASE("SIGTERM and SIGINT remove a ScratchFolder with its files, and an output folder left empty", "[unit]") {
  for (const int sig : {SIGTERM, SIGINT}) {
    INFO(sig);
    Folder dir("atomic-scratch-signal-" + std::to_string(sig));
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      gcsim::sim::install_temp_file_cleanup();
      fs::create_directories(dir.file("out"));
      gcsim::sim::NewFolderGuard made(dir.file("out"));
      gcsim::sim::ScratchFolder scratch(dir.file("out"), ".staging-");
      // Committed files, one half written, and more than one getdents64 buffer of names.
      for (int i = 0; i < 200; ++i)
        gcsim::sim::write_file_atomically((fs::path(scratch.path()) / ("trace-" + std::string(40, 'x') + "-r" +
                                                                         std::to_string(i) + ".h5"))
                                              .string(),
                                          "whole");
      AtomicFile half((fs::path(scratch.path()) / "last.h5").string());
      half.write("half");
      ::raise(sig);
      ::_exit(3);  // not reached: the signal ends the process
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(dir.entries().empty());
  }
}

TEST_CASE("SIGTERM removes every temporary file, scratch folder and new folder, however many are open",
          "[unit]") {
  // The registry once had 64 slots for files and 8 for folders, and silently left the
  // rest behind. 300 files (past four chunks of 64), some discarded on the way so that
  // slots are reused across chunks, 20 scratch folders and 20 new folders (past 8).
  Folder dir("atomic-many-signal");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    gcsim::sim::install_temp_file_cleanup();
    std::vector<std::unique_ptr<AtomicFile>> files;
    for (int i = 0; i < 300; ++i) {
      files.push_back(std::make_unique<AtomicFile>(dir.file("f" + std::to_string(i) + ".h5")));
      if (i % 7 == 3) files[static_cast<std::size_t>(i / 2)].reset();  // its slot is free again
    }
    std::vector<std::unique_ptr<gcsim::sim::ScratchFolder>> scratch;
    std::vector<std::unique_ptr<gcsim::sim::NewFolderGuard>> made;
    for (int i = 0; i < 20; ++i) {
      scratch.push_back(std::make_unique<gcsim::sim::ScratchFolder>(dir.path.string(), "scratch-"));
      std::ofstream(fs::path(scratch.back()->path()) / "x.h5") << "x";
      fs::create_directory(dir.file("new" + std::to_string(i)));
      made.push_back(std::make_unique<gcsim::sim::NewFolderGuard>(dir.file("new" + std::to_string(i))));
    }
    int open_files = 0;
    for (const auto& f : files) open_files += f != nullptr;
    if (fs::exists(dir.file("f0.h5")) || open_files < 250) ::_exit(4);  // nothing committed
    if (std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) != open_files + 40) ::_exit(5);
    ::raise(SIGTERM);
    ::_exit(3);  // not reached: the signal ends the process
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(dir.entries().empty());
}

namespace {

// Everything that can be read now from a FIFO opened without blocking.
std::string drain(int fd) {
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

// Issue 27.1: renaming a temporary file over the destination replaced a device node (as
// root, `-o /dev/null` left a regular file there for the whole system) or a link
// (/dev/stdout). Only nodes and links made in a test folder are used here, never /dev.
TEST_CASE("AtomicFile writes into a FIFO or device directly and never replaces it", "[unit]") {
  Folder dir("atomic-special");
  SECTION("a FIFO is written through, and stays a FIFO") {
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader: the writer's open does not wait
    REQUIRE(reader >= 0);
    gcsim::sim::write_file_atomically(fifo, "flow_id,finish\n");
    CHECK(drain(reader) == "flow_id,finish\n");
    ::close(reader);
    CHECK(fs::is_fifo(fifo));
    CHECK(dir.entries() == std::set<std::string>{"pipe"});
    // Through a link (as /dev/stdout is one): the link stays, the FIFO gets the bytes.
    const std::string link = dir.file("stdout");
    fs::create_symlink(fifo, link);
    const int reader2 = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader2 >= 0);
    gcsim::sim::write_file_atomically(link, "x\n");
    CHECK(drain(reader2) == "x\n");
    ::close(reader2);
    CHECK(fs::is_symlink(link));
    CHECK(fs::is_fifo(fifo));
    // A writer that needs a regular file (a trace, a plot) refuses it, creating nothing.
    CHECK_THROWS_AS(AtomicFile(fifo), gcsim::Error);
    CHECK_THROWS_AS(AtomicFile(link), gcsim::Error);
    CHECK_THROWS_AS(gcsim::trace::TraceFile::create(fifo), gcsim::Error);
    CHECK(dir.entries() == std::set<std::string>{"pipe", "stdout"});
  }
  SECTION("a character device like /dev/null is written through, and stays a device") {
    const std::string null = dir.file("null");
    if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
      WARN("mknod needs root: skipped");
      return;
    }
    const int probe = ::open(null.c_str(), O_WRONLY);
    if (probe < 0) {
      WARN("device nodes cannot be opened here (a nodev mount): skipped");
      return;
    }
    ::close(probe);
    gcsim::sim::write_file_atomically(null, "discarded\n");
    struct stat st {};
    REQUIRE(::lstat(null.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == makedev(1, 3));
    CHECK(dir.entries() == std::set<std::string>{"null"});
    CHECK_THROWS_AS(AtomicFile(null), gcsim::Error);
  }
  SECTION("a link to nothing or to a folder, and a socket, are refused and left alone") {
    const std::string dangling = dir.file("dangling");
    fs::create_symlink(dir.file("absent"), dangling);
    CHECK_THROWS_AS(gcsim::sim::write_file_atomically(dangling, "x"), gcsim::Error);
    const std::string to_dir = dir.file("to-dir");
    fs::create_directory(dir.path / "sub");
    fs::create_symlink(dir.path / "sub", to_dir);
    CHECK_THROWS_AS(gcsim::sim::write_file_atomically(to_dir, "x"), gcsim::Error);
    CHECK(fs::is_symlink(dangling));
    CHECK(fs::is_symlink(to_dir));
    CHECK(fs::is_empty(dir.path / "sub"));
    CHECK(dir.entries() == std::set<std::string>{"dangling", "to-dir", "sub"});
  }
}
