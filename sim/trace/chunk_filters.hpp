// HDF5's shuffle, deflate and Fletcher32 filters, applied by gcsim itself so that a run's
// trace chunks are compressed on the run's own thread. In a thread-safe HDF5 every API
// call runs under one global lock, filters included, so runs sharing a process (gcsim
// compare -j N, sweeps) would otherwise take turns compressing. The encoded chunk is
// handed to H5Dwrite_chunk, which only writes it (sim/trace/table_writer.cpp).
//
// The bytes are those HDF5 1.10's own pipeline produces for the same filters and
// parameters (H5Zshuffle.c, H5Zdeflate.c: zlib's compress2 at the level, H5Zfletcher32.c:
// H5_checksum_fletcher32, stored little-endian after the data), so stock readers (h5py,
// h5dump) decode them and check the checksum; tests/sim/test_chunk_filters.cpp compares
// them with chunks HDF5 filtered itself.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace gcsim::trace {

// The deflate levels a trace accepts: 0 writes chunks uncompressed (Fletcher32 only),
// 1-9 are zlib's levels (with the shuffle filter before deflate on tables).
inline constexpr int MIN_COMPRESSION_LEVEL = 0;
inline constexpr int MAX_COMPRESSION_LEVEL = 9;
// Chosen by measurement (docs/trace-format.md, "Compression"): on 100k- and 1M-job
// traces level 1 writes about 3x faster than level 4 for a file about 10% larger.
inline constexpr int DEFAULT_COMPRESSION_LEVEL = 1;

// HDF5's Fletcher32 (H5_checksum_fletcher32): 16-bit big-endian words, a trailing odd
// byte as the high byte of a last word.
std::uint32_t hdf5_fletcher32(std::span<const std::byte> data);

// HDF5's shuffle: byte j of element i goes to j * n + i (n = whole elements); a trailing
// partial element is copied as is. `out` is resized to in.size().
void hdf5_shuffle(std::span<const std::byte> in, std::size_t element_bytes, std::vector<std::byte>& out);
// The inverse of hdf5_shuffle (tests and readers).
void hdf5_unshuffle(std::span<const std::byte> in, std::size_t element_bytes, std::vector<std::byte>& out);

// Encodes whole chunks through [shuffle,] [deflate,] Fletcher32, reusing its buffers and
// one zlib stream, so a long run allocates nothing per chunk once the largest chunk has
// been seen. One encoder per thread (per trace file); not thread-safe.
class ChunkEncoder {
 public:
  // level: MIN_COMPRESSION_LEVEL..MAX_COMPRESSION_LEVEL (0: no shuffle, no deflate).
  explicit ChunkEncoder(int level);
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  int level() const { return level_; }
  // The filtered bytes of one chunk, valid until the next call. `shuffle_element_bytes`:
  // the element size for the shuffle filter, 0 when the dataset has no shuffle filter.
  std::span<const std::byte> encode(std::span<const std::byte> chunk, std::size_t shuffle_element_bytes);

 private:
  struct Zlib;
  int level_;
  std::unique_ptr<Zlib> zlib_;
  std::vector<std::byte> shuffled_;
  std::vector<std::byte> out_;
};

// Encodes a file's chunks, inline or on a thread of its own, and hands each encoded chunk
// to its `store` function on the caller's thread, in the order the chunks were submitted.
// Inline, submit() encodes and stores at once. With the thread, the encoding runs up to
// `depth` chunks ahead of the caller, and a chunk is stored from a later submit() (once
// encoded) or from drain(). A caller that would wait for the thread (the queue full, or
// draining) encodes the newest chunk not yet taken itself, with its own encoder: the two
// cores share a burst of chunks (a million-row /jobs table written at the run's end)
// instead of one waiting for the other. The encoding is the same whichever thread does
// it. Either way every store() runs on the caller's thread, in submission order, so a caller that drains before each call of its own that must stay
// in sequence with the stores (HDF5: creating a dataset, writing an attribute, closing)
// makes the same calls in the same order: the same file, byte for byte
// (tests/sim/test_chunk_filters.cpp, tests/analysis/test_trace_compression.cpp).
// The thread touches nothing but the chunks' bytes and its own encoder. Not thread-safe
// for callers: one caller thread per pipeline (a trace file is written from one thread).
class ChunkPipeline {
 public:
  using Store = std::function<void(std::span<const std::byte> encoded)>;
  // level: as ChunkEncoder's; thread: encode on a thread of its own; depth >= 1.
  ChunkPipeline(int level, bool thread, std::size_t depth = 4);
  // Stops the thread; chunks not yet stored are dropped (the file is being abandoned).
  ~ChunkPipeline();
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  int level() const { return inline_.level(); }
  bool threaded() const { return thread_.joinable(); }
  // An empty buffer for a chunk's raw bytes, reusing one whose chunk has been stored.
  std::vector<std::byte> buffer();
  // Encodes `raw` (shuffle_element_bytes as ChunkEncoder::encode) and calls store with
  // the result, now or later (above). An error of an earlier chunk's encoding or store
  // is thrown here or from drain().
  void submit(std::vector<std::byte> raw, std::size_t shuffle_element_bytes, Store store);
  // Stores every chunk submitted, waiting for their encoding.
  void drain();
  // How many chunks the caller encoded itself rather than wait for the thread (above).
  std::size_t encoded_by_caller() const { return encoded_by_caller_; }
  // Encodes one chunk now, on the caller's thread (valid until the next call); drain()
  // first where the order of stores matters.
  std::span<const std::byte> encode_now(std::span<const std::byte> chunk, std::size_t shuffle_element_bytes) {
    return inline_.encode(chunk, shuffle_element_bytes);
  }

 private:
  struct Item {
    std::vector<std::byte> raw;
    std::size_t shuffle_element_bytes = 0;
    Store store;
    std::vector<std::byte> encoded;
    std::exception_ptr error;
    bool taken = false;  // being encoded, by the thread or the caller
    bool done = false;
  };
  void work();
  bool take_done(Item& item);
  void store(Item& item);
  // Waits until the oldest chunk is encoded, encoding the newest one nobody has taken
  // meanwhile (on the caller's thread). `lock` holds mutex_ and items_ is not empty.
  void help_or_wait(std::unique_lock<std::mutex>& lock);
  // Encodes `item` without the lock (taken under it), with `encoder`, and marks it done.
  void encode_item(std::unique_lock<std::mutex>& lock, Item& item, ChunkEncoder& encoder);

  ChunkEncoder inline_;                    // the caller's thread
  std::unique_ptr<ChunkEncoder> worker_;   // the pipeline's thread
  std::size_t depth_;
  std::vector<std::vector<std::byte>> free_;  // raw buffers of stored chunks (caller's thread)
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;  // submitted, not stored, in submission order
  bool stop_ = false;
  std::size_t encoded_by_caller_ = 0;  // the caller's thread only
  std::thread thread_;  // last: started when everything above is ready
};

// Decodes a chunk HDF5 or ChunkEncoder filtered (for tests; the trace reader goes through
// HDF5). Throws gcsim::Error on a checksum mismatch or a bad deflate stream.
std::vector<std::byte> decode_chunk(std::span<const std::byte> stored, bool deflated, std::size_t shuffle_element_bytes,
                                    std::size_t raw_bytes);
// The same into `out`, through `scratch` (the inflated bytes, when a shuffle is undone):
// both keep their capacity from call to call, so a reader decoding chunk after chunk
// allocates and zeroes nothing per chunk (fresh buffers of a few MiB each were mapped,
// faulted in and unmapped again for every chunk).
void decode_chunk_into(std::span<const std::byte> stored, bool deflated, std::size_t shuffle_element_bytes,
                       std::size_t raw_bytes, std::vector<std::byte>& out, std::vector<std::byte>& scratch);

}  // namespace gcsim::trace
