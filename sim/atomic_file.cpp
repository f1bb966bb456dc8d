// Write to a fresh temporary name, then rename (see atomic_file.hpp). POSIX only.
#include "sim/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "sim/errors.hpp"

namespace gcsim::sim {
namespace {

// Enough tries that only a folder we cannot write ends the loop, never bad luck.
constexpr int MAX_NAME_TRIES = 100;

std::string errno_text(int err) { return std::strerror(err); }

// 64 unpredictable bits for a name. The name's uniqueness rests on O_EXCL, not on these
// bits; they only make the name hard to guess in advance. Should getrandom fail (a
// kernel without it), a per-process counter mixed with the clock and the pid still
// gives distinct names, which is all correctness needs.
std::uint64_t name_bits() {
  std::uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) return bits;
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t z = counter.fetch_add(1, std::memory_order_relaxed) ^
                    static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                    (static_cast<std::uint64_t>(getpid()) << 40);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;  // splitmix64's finalizer
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 32 bits of this machine's name (FNV-1a), so that a folder shared between machines does
// not take another machine's live process for a dead one of ours.
std::uint32_t host_key() {
  static const std::uint32_t key = [] {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
    std::uint32_t h = 2166136261u;
    for (const char* c = name; *c != '\0'; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 16777619u;
    return h;
  }();
  return key;
}

std::string candidate_name(const std::string& final_path) {
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".%ld.%08x.%016llx.tmp", static_cast<long>(getpid()),
                static_cast<unsigned>(host_key()), static_cast<unsigned long long>(name_bits()));
  return final_path + suffix;
}

// The temporary files alive now, for the signal handler. A slot goes FREE -> CLAIMED
// (path being copied) -> LIVE -> FREE; the handler unlinks LIVE slots only. Slots come in
// chunks: the first is static; when every slot is taken, track() allocates another and
// links it at the end of the chain with a release store, after building it, and chunks
// are never freed. So the registry has no size limit, and the handler, which allocates
// nothing and takes no lock, only follows atomic pointers to memory that stays valid.
constexpr std::size_t SLOT_PATH = 4096;  // PATH_MAX: open() refuses a longer name anyway
enum : int { FREE = 0, CLAIMED = 1, LIVE = 2 };
struct Slot {
  std::atomic<int> state{FREE};
  char path[SLOT_PATH];
};

template <int N>
class SlotRegistry {
  struct Chunk {
    Slot slots[N];
    std::atomic<Chunk*> next{nullptr};
  };

 public:
  // A slot holding `path`, as an index over the chain (chunk k holds N*k .. N*k + N-1).
  // Throws gcsim::Error for a path too long to hold, std::bad_alloc when a chunk cannot
  // be allocated: a path is tracked or the caller hears why not.
  int track(const std::string& path) {
    if (path.size() >= SLOT_PATH)
      throw Error("cannot track '" + path.substr(0, 64) + "...' for removal on a signal: the path has " +
                  std::to_string(path.size()) + " characters, at most " + std::to_string(SLOT_PATH - 1));
    int base = 0;
    for (Chunk* c = &first_;; base += N) {
      for (int i = 0; i < N; ++i) {
        int expected = FREE;
        if (!c->slots[i].state.compare_exchange_strong(expected, CLAIMED)) continue;
        std::memcpy(c->slots[i].path, path.c_str(), path.size() + 1);
        c->slots[i].state.store(LIVE, std::memory_order_release);
        return base + i;
      }
      Chunk* next = c->next.load(std::memory_order_acquire);
      if (next == nullptr) {
        auto* fresh = new Chunk;  // all FREE
        if (c->next.compare_exchange_strong(next, fresh, std::memory_order_acq_rel)) {
          next = fresh;
        } else {
          delete fresh;  // another thread linked one first: `next` is now that one
        }
      }
      c = next;
    }
  }

  void untrack(int index) noexcept {
    if (index < 0) return;
    Chunk* c = &first_;
    for (; index >= N; index -= N) c = c->next.load(std::memory_order_acquire);
    c->slots[index].state.store(FREE, std::memory_order_release);
  }

  // Calls f(path) for every LIVE slot. Async-signal-safe as long as f is.
  template <class F>
  void for_each_live(F f) noexcept {
    for (Chunk* c = &first_; c != nullptr; c = c->next.load(std::memory_order_acquire))
      for (Slot& slot : c->slots)
        if (slot.state.load(std::memory_order_acquire) == LIVE) f(slot.path);
  }

 private:
  Chunk first_;
};

SlotRegistry<64> g_files;
// The same for ScratchFolders (removed with the files in them) and NewFolderGuards
// (removed when empty).
SlotRegistry<8> g_scratch;
SlotRegistry<8> g_new_folders;

// Removes the files directly in folder `path`, then the folder, with async-signal-safe
// calls only (open, getdents64, unlinkat, rmdir): what a signal handler may do. Runs that
// are still writing may add a file meanwhile, so it reads the folder again while rmdir
// finds it not empty, a few times.
void remove_folder_in_handler(const char* path) noexcept {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      // struct linux_dirent64: u64 inode, s64 offset, u16 record length, u8 type, name.
      for (long at = 0; at + 19 < n;) {
        unsigned short length = 0;
        std::memcpy(&length, buf + at + 16, sizeof length);
        if (length == 0) break;
        const char* name = buf + at + 19;
        if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
          ::unlinkat(fd, name, 0);  // a link itself, never its target; a subfolder stays
        at += length;
      }
    }
    ::close(fd);
    if (::rmdir(path) == 0 || (errno != ENOTEMPTY && errno != EEXIST)) return;
  }
}

extern "C" void remove_temp_files_and_reraise(int sig) {
  const int saved = errno;
  g_files.for_each_live([](const char* path) { ::unlink(path); });  // async-signal-safe
  g_scratch.for_each_live([](const char* path) { remove_folder_in_handler(path); });
  g_new_folders.for_each_live([](const char* path) { ::rmdir(path); });  // only when empty
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);  // delivered when the handler returns: the process ends as the signal says
}

// "<anything>.<pid>.<8 hex>.<16 hex>.tmp": the pid and host key, or false.
bool parse_temp_name(std::string_view name, long& pid, std::uint32_t& host) {
  constexpr std::string_view TAIL = ".tmp";
  if (name.size() < TAIL.size() + 1 + 16 + 1 + 8 + 2 || !name.ends_with(TAIL)) return false;
  name.remove_suffix(TAIL.size());
  const auto hex_field = [&](std::size_t digits, std::uint64_t& value) {
    if (name.size() < digits + 1 || name[name.size() - digits - 1] != '.') return false;
    value = 0;
    for (char c : name.substr(name.size() - digits)) {
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      value = value * 16 + static_cast<std::uint64_t>(d);
    }
    name.remove_suffix(digits + 1);
    return true;
  };
  std::uint64_t random = 0, host_value = 0;
  if (!hex_field(16, random) || !hex_field(8, host_value)) return false;
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == name.size() || dot == 0) return false;
  long p = 0;
  for (char c : name.substr(dot + 1)) {
    if (c < '0' || c > '9' || p > 100000000) return false;
    p = p * 10 + (c - '0');
  }
  pid = p;
  host = static_cast<std::uint32_t>(host_value);
  return p > 0;
}

// What a stat says the file is, for messages.
std::string file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

bool streamable(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw Error("will not write '" + path + "': " + why);
}

// The descriptor of the device or FIFO at `path` (through a link if it is one), opened for
// writing, never created or truncated. Checked again on the open descriptor, so that a
// regular file swapped in after the stat is refused rather than written through.
int open_direct(const std::string& path) {
  int fd = -1;
  do fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw Error("cannot open '" + path + "' for writing: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !streamable(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    refuse(path, "it changed while being opened (now " + file_kind(mode) + ")");
  }
  return fd;
}

}  // namespace

void install_temp_file_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = remove_temp_files_and_reraise;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  // Past a file-size limit (ulimit -f) a write fails with EFBIG instead of the process
  // being killed by SIGXFSZ with its temporary files left behind: the writer then reports
  // the file and the reason, exit code 2, and removes what it had written.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGXFSZ, &ignore, nullptr);
}

int remove_stale_temp_files(const std::string& dir) noexcept {
  int removed = 0;
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) return 0;
  while (const dirent* e = ::readdir(d)) {
    long pid = 0;
    std::uint32_t host = 0;
    if (!parse_temp_name(e->d_name, pid, host) || host != host_key()) continue;
    if (pid == static_cast<long>(getpid())) continue;                       // ours: alive
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    // unlinkat removes a link itself, never what it points to.
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

AtomicFile::AtomicFile(std::string final_path, SpecialFiles special) : final_path_(std::move(final_path)) {
  if (final_path_.empty()) throw Error("cannot write a file with an empty name");
  // Renaming over a device node or a link would replace it (as root, `-o /dev/null` would
  // leave a regular file there for the whole system): what is there decides.
  struct stat st {};
  if (::lstat(final_path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const bool link = S_ISLNK(st.st_mode);
    struct stat target = st;
    if (link && ::stat(final_path_.c_str(), &target) != 0)
      refuse(final_path_, "it is a symbolic link to nothing; gcsim replaces no link: remove it or name another file");
    const std::string what = link ? "a symbolic link to " + file_kind(target.st_mode) : file_kind(target.st_mode);
    if (!streamable(target.st_mode)) {
      refuse(final_path_, "it is " + what +
                              (link ? "; gcsim neither replaces a link nor writes a file through one: name the file itself"
                                    : ", not a regular file"));
    }
    if (special != SpecialFiles::write_through)
      refuse(final_path_, "it is " + what + ", and this output needs a regular file");
    fd_ = open_direct(final_path_);
    direct_ = true;
    return;
  }
  // A folder there makes the rename fail, with the temporary file removed (commit()).
  for (int attempt = 0; attempt < MAX_NAME_TRIES; ++attempt) {
    std::string candidate = candidate_name(final_path_);
    const int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      try {
        slot_ = g_files.track(candidate);
      } catch (...) {
        ::close(fd);
        ::unlink(candidate.c_str());
        throw;
      }
      fd_ = fd;
      temp_path_ = std::move(candidate);
      return;
    }
    if (errno == EEXIST || errno == EINTR) continue;  // taken (by a file or a link): draw again
    throw Error("cannot create a temporary file for '" + final_path_ + "': " + errno_text(errno));
  }
  throw Error("cannot create a temporary file for '" + final_path_ + "': " + std::to_string(MAX_NAME_TRIES) +
              " fresh names were all taken");
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) throw Error("cannot write '" + final_path_ + "': the file is already closed");
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write '" + (direct_ ? final_path_ : temp_path_) + "': " + errno_text(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error("cannot commit '" + final_path_ + "': the file is already closed");
  if (direct_) {  // a device or FIFO: nothing to sync (fsync would fail) and nothing to rename
    if (::close(std::exchange(fd_, -1)) != 0 && errno != EINTR)
      throw Error("cannot write '" + final_path_ + "': " + errno_text(errno));
    committed_ = true;
    return;
  }
  // Without the fsync a crash soon after the rename can leave an empty file under the
  // final name on some file systems (ext4 with delalloc, XFS): the rename is durable
  // before the data is.
  if (::fsync(fd_) != 0) {
    const int err = errno;
    discard();
    throw Error("cannot write '" + final_path_ + "': " + errno_text(err));
  }
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    const int err = errno;
    discard();
    throw Error("cannot write '" + final_path_ + "': " + errno_text(err));
  }
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int err = errno;
    const std::string temp = temp_path_;
    discard();
    throw Error("cannot rename '" + temp + "' to '" + final_path_ + "': " + errno_text(err));
  }
  committed_ = true;
  g_files.untrack(std::exchange(slot_, -1));
}

void AtomicFile::discard() noexcept {
  if (committed_) return;
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));  // a device or FIFO written directly: only closed
  if (temp_path_.empty()) return;
  ::unlink(temp_path_.c_str());  // the name we created: unlink removes a link, never its target
  g_files.untrack(std::exchange(slot_, -1));
  temp_path_.clear();
}

ScratchFolder::ScratchFolder(const std::string& parent, const std::string& prefix) {
  std::string pattern = (std::filesystem::path(parent.empty() ? "." : parent) / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error("cannot create a temporary folder in '" + (parent.empty() ? std::string(".") : parent) +
                "': " + errno_text(errno));
  path_ = std::move(pattern);
  try {
    slot_ = g_scratch.track(path_);
  } catch (...) {
    ::rmdir(path_.c_str());  // just made, still empty
    throw;
  }
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  g_scratch.untrack(slot_);
}

NewFolderGuard::NewFolderGuard(std::string path) : path_(std::move(path)) {
  try {
    slot_ = g_new_folders.track(path_);
  } catch (...) {
    ::rmdir(path_.c_str());  // only when empty, as the guard would have
    throw;
  }
}

NewFolderGuard::~NewFolderGuard() {
  if (!kept_) ::rmdir(path_.c_str());  // only when empty
  keep();
}

void NewFolderGuard::keep() noexcept {
  kept_ = true;
  g_new_folders.untrack(std::exchange(slot_, -1));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFile file(path, SpecialFiles::write_through);
  file.write(bytes);
  file.commit();
}

bool same_file(int fd, int other_fd) {
  struct stat a {};
  struct stat b {};
  if (::fstat(fd, &a) != 0 || ::fstat(other_fd, &b) != 0) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace gcsim::sim
