// Write to a fresh temporary name, then rename (see atomic_file.hpp). POSIX only.
#include "sim/atomic_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

std::string candidate_name(const std::string& final_path) {
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".%016llx.tmp", static_cast<unsigned long long>(name_bits()));
  return final_path + suffix;
}

}  // namespace

AtomicFile::AtomicFile(std::string final_path) : final_path_(std::move(final_path)) {
  if (final_path_.empty()) throw Error("cannot write a file with an empty name");
  for (int attempt = 0; attempt < MAX_NAME_TRIES; ++attempt) {
    std::string candidate = candidate_name(final_path_);
    const int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
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
      throw Error("cannot write '" + temp_path_ + "': " + errno_text(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error("cannot commit '" + final_path_ + "': the file is already closed");
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
}

void AtomicFile::discard() noexcept {
  if (committed_ || temp_path_.empty()) return;
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  ::unlink(temp_path_.c_str());  // the name we created: unlink removes a link, never its target
  temp_path_.clear();
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  AtomicFile file(path);
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
