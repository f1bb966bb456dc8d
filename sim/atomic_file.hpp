// Output files that appear whole or not at all, under names no other run can take. Every
// file gcsim writes (traces, plots, CSVs) is first written to a temporary file in the
// destination folder and then renamed over the destination. The temporary name is fresh
// for every file ("<destination>.<16 random hex digits>.tmp") and is created with
// O_CREAT | O_EXCL | O_NOFOLLOW: a name that already exists, a symbolic link above all,
// is never opened, truncated or followed; another name is drawn instead. So many
// simulations in one process (or many processes) can write into one folder without
// overwriting each other's half-written files, and a link planted where gcsim writes does
// not redirect the write.
#pragma once

#include <string>
#include <string_view>

namespace gcsim::sim {

class AtomicFile {
 public:
  // Creates the temporary file (mode 0666 less the umask, like any new file). Throws
  // gcsim::Error if the folder does not exist or cannot be written.
  explicit AtomicFile(std::string final_path);
  // Removes the temporary file unless commit() succeeded. Never throws.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& final_path() const { return final_path_; }
  const std::string& temp_path() const { return temp_path_; }
  // The open descriptor of the temporary file, for writers that take one (and to check
  // that a writer that reopens temp_path() by name reached the same file).
  int fd() const { return fd_; }

  // Appends bytes. Throws gcsim::Error (disk full, I/O error).
  void write(std::string_view bytes);
  // Flushes the data to disk (fsync), closes, and renames the temporary file over
  // final_path(), replacing any file there (a link there is replaced, not followed).
  // Throws gcsim::Error; the temporary file is then removed.
  void commit();
  // Closes and removes the temporary file now (idempotent; after commit(), a no-op).
  void discard() noexcept;
  bool committed() const { return committed_; }

 private:
  std::string final_path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// The whole of `bytes` at `path`, through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view bytes);

// True when descriptor `fd` and descriptor `other_fd` refer to the same file (device and
// inode): how a caller checks that a library that opened temp_path() by name wrote into
// the file AtomicFile created, not into something swapped in meanwhile.
bool same_file(int fd, int other_fd);

}  // namespace gcsim::sim
