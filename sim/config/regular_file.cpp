// Reading input files whole, regular files only, within a size limit (see regular_file.hpp).
#include "sim/config/regular_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::config {
namespace {

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

FileRead failed(FileReadStatus status, std::string reason) { return FileRead{status, {}, std::move(reason)}; }

std::string too_large(std::uint64_t limit_bytes) {
  return "larger than the limit of " + units::format_bytes(static_cast<double>(limit_bytes)) + " for an input file";
}

}  // namespace

FileRead try_read_regular_file(const std::string& path, std::uint64_t limit_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return failed(FileReadStatus::NotFound, "no such file");
    return failed(FileReadStatus::Unreadable, std::string("cannot open the file: ") + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    return failed(FileReadStatus::Unreadable, std::string("cannot stat the file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return failed(FileReadStatus::NotRegular, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > limit_bytes) return failed(FileReadStatus::TooLarge, too_large(limit_bytes));
  // A regular file never blocks; clear the flag anyway so a short read is only the end.
  ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  FileRead out;
  out.bytes.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed(FileReadStatus::Unreadable, std::string("cannot read the file: ") + std::strerror(errno));
    }
    if (n == 0) break;
    out.bytes.append(buffer, static_cast<std::size_t>(n));
    if (out.bytes.size() > limit_bytes) return failed(FileReadStatus::TooLarge, too_large(limit_bytes));
  }
  return out;
}

ErrorCode error_code(const FileRead& failed) {
  return failed.status == FileReadStatus::TooLarge ? ErrorCode::OutOfRange : ErrorCode::FileNotFound;
}

std::string read_regular_file(const std::string& path, std::uint64_t limit_bytes, std::string_view what) {
  FileRead r = try_read_regular_file(path, limit_bytes);
  if (r.status == FileReadStatus::Ok) return std::move(r.bytes);
  throw ConfigError(error_code(r), SourceMark{path, 0, 0}, "", std::string(what) + ": " + r.reason);
}

}  // namespace gcsim::config
