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

#include <cstddef>
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
// rows of `mem` (row_size bytes each). False: read them with H5Dread.
bool read_chunk_raw(const Hid& dataset, hid_t file_type, hid_t mem, const RawPlan& p, hsize_t start, hsize_t count,
                    std::size_t row_size, RawBuffers& b);

// Rows per H5Dread: whole chunks (so each is decompressed once), about 64 Ki rows.
hsize_t block_rows_for(const Hid& dataset);

}  // namespace gcsim::trace::detail
