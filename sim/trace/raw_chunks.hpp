// Internal to sim/trace: reading a table's chunks as stored (H5Dread_chunk) and decoding
// them outside HDF5 (sim/trace/chunk_filters.hpp), for the trace reader
// (sim/trace/trace_reader.cpp). In a thread-safe HDF5 every call holds one global lock, and
// H5Dread inflates under it, so traces read back side by side (gcsim compare -j N) took
// turns. Only for a chunked dataset whose filters are those gcsim writes, [shuffle,
// deflate,] Fletcher32 or deflate and Fletcher32; the rows are then converted to the
// memory type by H5Tconvert, as H5Dread converts them. Anything else, and a chunk that is
// missing, skipped a filter or does not decode (a damaged file), is for the caller to read
// with H5Dread, so its values and its errors are H5Dread's.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/trace/hdf5_support.hpp"

namespace gcsim::trace::detail {

// How a dataset's chunks can be read as stored; usable false: through H5Dread.
struct RawPlan {
  bool usable = false;
  hsize_t chunk_rows = 0;
  std::size_t file_row_bytes = 0;
  bool deflated = false;
  std::size_t shuffle_bytes = 0;  // the shuffle filter's element size; 0: no shuffle
};

// Buffers kept from chunk to chunk (nothing is allocated per chunk once they are grown).
struct RawBuffers {
  std::vector<std::byte> stored;
  std::vector<std::byte> decoded;        // the file rows
  std::vector<std::byte> inflated;       // before the shuffle is undone
  std::vector<unsigned char> converted;  // a copy of them, then (in place) the memory rows
  std::vector<unsigned char> background;
};

RawPlan raw_plan(const Hid& dataset, hid_t file_type);

// The `count` rows of the chunk at row `start`: decoded into buffers.decoded (rows of the
// file's type) and, unless `mem` is H5I_INVALID_HID, converted into buffers.converted as
// rows of `mem` (row_size bytes each). False: read them with H5Dread. It is the three
// steps below in turn.
bool read_chunk_raw(const Hid& dataset, hid_t file_type, hid_t mem, const RawPlan& p, hsize_t start, hsize_t count,
                    std::size_t row_size, RawBuffers& b);

// The chunk at row `start` as stored, into b.stored (HDF5: the thread that owns the file).
bool fetch_chunk_raw(const Hid& dataset, hsize_t start, RawBuffers& b);
// b.stored decoded into b.decoded, `count` rows at least. No HDF5 call: any thread, one
// RawBuffers each.
bool decode_chunk_raw(const RawPlan& p, hsize_t count, RawBuffers& b);
// b.decoded's `count` rows converted into b.converted as rows of `mem` (HDF5's H5Tconvert).
bool convert_chunk_raw(hid_t file_type, hid_t mem, const RawPlan& p, hsize_t count, std::size_t row_size,
                       RawBuffers& b);

// A thread that runs one task at a time for its owner: the trace reader decodes the next
// block's chunks on it while its own thread fetches chunks and takes the rows of the block
// before. A task must make no HDF5 call.
class DecodeThread {
 public:
  DecodeThread();
  ~DecodeThread();
  DecodeThread(const DecodeThread&) = delete;
  DecodeThread& operator=(const DecodeThread&) = delete;
  // Runs `task` there (after the task before it is done).
  void start(std::function<void()> task);
  // Waits for the task to be done; what it threw is thrown here.
  void wait();

 private:
  void work();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> task_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

// Rows per H5Dread: whole chunks (so each is decompressed once), about 64 Ki rows.
hsize_t block_rows_for(const Hid& dataset);

}  // namespace gcsim::trace::detail
