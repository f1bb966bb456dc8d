// Output files that appear whole or not at all, under names no other run can take. Every
// file gcsim writes (traces, plots, CSVs) is first written to a temporary file in the
// destination folder and then renamed over the destination. The temporary name is fresh
// for every file ("<destination>.<pid>.<host>.<16 random hex digits>.tmp", <host> being 8
// hex digits of the machine's name) and is created with
// O_CREAT | O_EXCL | O_NOFOLLOW: a name that already exists, a symbolic link above all,
// is never opened, truncated or followed; another name is drawn instead. So many
// simulations in one process (or many processes) can write into one folder without
// overwriting each other's half-written files, and a link planted where gcsim writes does
// not redirect the write.
//
// What is already at the destination decides how it is written (docs/units.md, "Where
// output goes"): nothing or a regular file: the temporary file, then the rename. A
// character device or a FIFO (/dev/null, a terminal, a named pipe), or a symbolic link
// to one (/dev/stdout): written into directly, never replaced, when the writer only
// streams bytes (SpecialFiles::write_through); refused when it needs a regular file (a
// trace, a plot). A symbolic link to anything else (a regular file, a folder, nothing),
// a block device or a socket: refused. So neither a link nor a device node is ever
// replaced, and no write is redirected to a regular file elsewhere by a link.
//
// A run that ends early leaves nothing behind where gcsim can prevent it: the destructor
// removes the temporary file on every error path; install_temp_file_cleanup() makes
// SIGINT, SIGTERM and SIGHUP remove every temporary file still open (and every
// ScratchFolder, and every NewFolderGuard's folder left empty) before the process dies of
// the signal (and ignores SIGXFSZ, so a file-size limit is a write error, not a death);
// and remove_stale_temp_files() removes what a SIGKILL (or a crash)
// left, recognised by its name: a process id of this machine that no longer runs.
#pragma once

#include <string>
#include <string_view>

namespace gcsim::sim {

// What a destination that is not a regular file may be (see above).
enum class SpecialFiles {
  refuse,         // the writer needs a regular file (HDF5, a plot checked by its size)
  write_through,  // the writer only appends bytes: a device or FIFO is written directly
};

class AtomicFile {
 public:
  // Creates the temporary file (mode 0666 less the umask, like any new file), or opens
  // the device or FIFO at final_path for writing (write_through; a FIFO's open waits for
  // a reader). Throws gcsim::Error if the folder does not exist or cannot be written, or
  // the destination is refused (see above).
  explicit AtomicFile(std::string final_path, SpecialFiles special = SpecialFiles::refuse);
  // Removes the temporary file unless commit() succeeded. Never throws.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& final_path() const { return final_path_; }
  // "" when writing directly into a device or FIFO (direct()).
  const std::string& temp_path() const { return temp_path_; }
  // Writing straight into a character device or FIFO: no temporary file, no rename.
  bool direct() const { return direct_; }
  // The open descriptor of the temporary file, for writers that take one (and to check
  // that a writer that reopens temp_path() by name reached the same file).
  int fd() const { return fd_; }

  // Appends bytes. Throws gcsim::Error (disk full, I/O error).
  void write(std::string_view bytes);
  // Flushes the data to disk (fsync), closes, and renames the temporary file over
  // final_path(), replacing the regular file there if any. When direct(), only closes.
  // Throws gcsim::Error; the temporary file is then removed.
  void commit();
  // Closes and removes the temporary file now (idempotent; after commit(), a no-op).
  void discard() noexcept;
  bool committed() const { return committed_; }

 private:
  std::string final_path_;
  std::string temp_path_;
  int fd_ = -1;
  int slot_ = -1;  // where the signal handler finds temp_path_ (install_temp_file_cleanup), or -1
  bool committed_ = false;
  bool direct_ = false;
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every AtomicFile's
// temporary file not yet committed or discarded, then let the signal end the process as
// it would have (default action, re-raised). For programs (the CLI), once, early. Every
// temporary file open is tracked, however many (the registry grows in chunks the handler
// can walk); a path of 4096 bytes or more, which open() refuses anyway, is an Error.
void install_temp_file_cleanup();

// In folder `dir`: removes every "<name>.<pid>.<host>.<hex>.tmp" whose <host> is this
// machine's and whose process no longer exists (what a SIGKILL left); files of live
// processes, of other machines sharing the folder, and every other name are left alone.
// A link is removed, never followed. Returns how many were removed; never throws.
int remove_stale_temp_files(const std::string& dir) noexcept;

// A fresh folder "<parent>/<prefix>XXXXXX" (mkdtemp: a new name, mode 0700) for files that
// live only while a command runs (`gcsim compare`'s traces before they are moved into
// place, or all of them without -o). The destructor removes it with everything in it; and
// should SIGINT, SIGTERM or SIGHUP end the process first, the handlers of
// install_temp_file_cleanup() remove the files directly in it, then the folder (every
// ScratchFolder alive is tracked for the handlers, however many).
class ScratchFolder {
 public:
  // Throws gcsim::Error when the folder cannot be made.
  ScratchFolder(const std::string& parent, const std::string& prefix);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_ = -1;
};

// A folder this process has just made for its outputs: removed when the guard goes if it is
// still empty and keep() was not called (a command that failed before writing into it), and
// by the signal handlers of install_temp_file_cleanup() if it is empty then. Never removes
// a file.
class NewFolderGuard {
 public:
  explicit NewFolderGuard(std::string path);
  ~NewFolderGuard();
  NewFolderGuard(const NewFolderGuard&) = delete;
  NewFolderGuard& operator=(const NewFolderGuard&) = delete;
  void keep() noexcept;

 private:
  std::string path_;
  int slot_ = -1;
  bool kept_ = false;
};

// The whole of `bytes` at `path`, through an AtomicFile (SpecialFiles::write_through).
void write_file_atomically(const std::string& path, std::string_view bytes);

// True when descriptor `fd` and descriptor `other_fd` refer to the same file (device and
// inode): how a caller checks that a library that opened temp_path() by name wrote into
// the file AtomicFile created, not into something swapped in meanwhile.
bool same_file(int fd, int other_fd);

}  // namespace gcsim::sim
