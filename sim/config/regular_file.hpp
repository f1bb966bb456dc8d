// Reading an input file whole, safely: every file gcsim reads as text (scenarios, CSV
// tables, catalogs, spot traces, flows, catalog imports) comes through read_regular_file.
// The file is opened without blocking (a FIFO with no writer would otherwise hang the
// open), checked to be a regular file before a byte is read (a FIFO, a socket or a
// device such as /dev/zero never ends), and refused when larger than `limit_bytes`
// (by its size, and again while reading, in case it grows).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/errors.hpp"

namespace gcsim::config {

// The limit on an input data file (CSV tables, catalogs, traces of spot prices, flows):
// far above any real one, and below what would exhaust a machine's memory to hold.
inline constexpr std::uint64_t MAX_INPUT_FILE_BYTES = std::uint64_t{1} << 30;  // 1 GiB

// Outcome of a read: Ok with the bytes, or why not.
enum class FileReadStatus { Ok, NotFound, NotRegular, Unreadable, TooLarge };

struct FileRead {
  FileReadStatus status = FileReadStatus::Ok;
  std::string bytes;   // the whole file when Ok
  std::string reason;  // a sentence when not Ok: "no such file", "is a FIFO, not a regular file"
};

// Reads `path` whole, or says why not (never throws for the file's state).
FileRead try_read_regular_file(const std::string& path, std::uint64_t limit_bytes);

// The error code of a failed read: OutOfRange for a file over the limit, FileNotFound for
// every other reason (missing, not a regular file, unreadable).
ErrorCode error_code(const FileRead& failed);

// Reads `path` whole; throws ConfigError(FileNotFound, or OutOfRange for a file over the
// limit) at the file (the mark names the path), the detail saying `what` it is
// ("instance catalog: is a FIFO (named pipe), not a regular file").
std::string read_regular_file(const std::string& path, std::uint64_t limit_bytes, std::string_view what);

}  // namespace gcsim::config
