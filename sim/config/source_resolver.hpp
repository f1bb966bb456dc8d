// Every file a scenario reads goes through one SourceResolver: the extra catalogs, the
// instance CSVs, spot and availability traces, price CSVs, CSV tables, and the bundled
// catalogs the run resolves names against. One rule for relative paths: a path is relative
// to the directory of the file that names it (the file holding the naming node), or
// absolute. One error: FileNotFound at the naming node (so with its file:line:column and
// key path), naming the resolved file. And one record per file read (the path as written,
// the resolved path, the size, a digest and the bytes), which the trace embeds (/inputs,
// docs/trace-format.md) so that a run can be redone from the trace alone after the files
// change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/regular_file.hpp"

namespace gcsim::config {

// The longest key path and file path a record holds (a trace's /inputs columns are this
// wide, models/trace/schema.hpp); read() refuses longer ones at the node that names them.
inline constexpr std::size_t MAX_SOURCE_KEY_BYTES = 1024;
inline constexpr std::size_t MAX_SOURCE_PATH_BYTES = 4096;  // PATH_MAX on Linux

struct SourceRecord {
  std::string key;       // the dotted key path that named it ("catalogs.instances[0]"); "" for a bundled catalog
  std::string written;   // the path as written
  std::string resolved;  // the path read
  std::string digest;    // "fnv1a64:<16 hex digits>" of the bytes
  std::shared_ptr<const std::string> bytes;
};

// FNV-1a, 64 bits, as 16 lowercase hex digits. A change detector for inputs, not a
// cryptographic hash: no digest library is a build dependency of gcsim.
std::string fnv1a64_hex(std::string_view bytes);

// How a trace records the paths of its scenario and inputs (docs/trace-format.md, /inputs).
// By default without the layout of the machine that ran: the scenario file by its name
// alone; a file the scenario names by a relative path (or one such file names) by its path
// relative to the scenario's folder, `written` as written; a path written absolute as
// written; a bundled catalog file as "<bundled>/<its path in the catalog folder>". With
// `absolute`, every path as an absolute one on this machine (fs::absolute, normalised).
// A rerun loads the scenario under the recorded name, so resolve() gives the recorded
// paths again (and from_records finds a file by key and path as written otherwise).
inline constexpr std::string_view BUNDLED_FOLDER = "<bundled>";
struct RecordedSources {
  std::string scenario_file;
  std::vector<SourceRecord> records;
};
RecordedSources paths_for_trace(const std::string& scenario_file, const std::vector<SourceRecord>& records,
                                bool absolute);

class SourceResolver {
 public:
  // Reads files from the disk.
  SourceResolver() = default;
  // Serves only the given records (a rerun from a trace's /inputs): a file is found by its
  // resolved path, which the same rule gives for the same scenario file and path as written
  // wherever the rerun runs, else by the one record with the naming key path and the same
  // path as written (a path the trace keeps relative to the scenario where the run saw an
  // absolute one); a file not among them is FileNotFound at the naming node
  // ("cannot read <what> '<resolved>': not among the recorded inputs"), never read from
  // disk. Throws Error naming the file when a record's digest does not match its bytes (a
  // tampered or damaged record).
  static SourceResolver from_records(std::vector<SourceRecord> recorded);

  // Where `written` points when named from the file `naming_file`: itself when absolute,
  // else relative to the directory of naming_file; lexically normalised.
  static std::string resolve(std::string_view naming_file, std::string_view written);

  // Reads the file that the scalar `at` names, relative to the file holding `at`. A file
  // that is missing, not a regular file (a directory, a FIFO, a device) or unreadable is
  // FileNotFound at `at`, one larger than config::MAX_INPUT_FILE_BYTES OutOfRange:
  // "cannot read <what> '<resolved>': <why>". The bytes stay valid as long as the resolver.
  const std::string& read(const ConfigNode& at, std::string_view what);
  // Reads a file the program names itself (a bundled catalog); FileNotFound at the file.
  const std::string& read_bundled(const std::string& path, std::string_view what);

  // Every file read, in the order first read (a file read twice is recorded once), each
  // with its digest (waiting for those still being computed: see record()).
  const std::vector<SourceRecord>& records();
  // The records a from_records resolver serves; empty for one reading the disk.
  const std::vector<SourceRecord>& recorded() const { return recorded_; }
  // Adds records read by another resolver (the bundled catalogs, read once for many runs).
  void add_records(const std::vector<SourceRecord>& records);

 private:
  const std::string* find(const std::string& resolved) const;
  // The bytes at `resolved`, from the records or the disk; nullptr when there are none,
  // with `why` saying why (its status and reason).
  std::shared_ptr<const std::string> fetch(const std::string& resolved, FileRead& why) const;
  const std::string& record(std::string key, std::string written, std::string resolved,
                            std::shared_ptr<const std::string> bytes);
  std::string missing(std::string_view what, const std::string& resolved, const FileRead& why) const;

  std::vector<SourceRecord> records_;
  // Digests of large files computed on a thread of their own while the load goes on: the
  // record's index and the digest to come. Emptied by records(); a resolver destroyed
  // before that waits for them (std::future from std::async).
  std::vector<std::pair<std::size_t, std::future<std::string>>> pending_digests_;
  bool replay_ = false;
  std::vector<SourceRecord> recorded_;
};

}  // namespace gcsim::config
