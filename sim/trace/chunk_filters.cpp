// HDF5's shuffle, deflate and Fletcher32 filters outside HDF5 (see chunk_filters.hpp).
#include "sim/trace/chunk_filters.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/check.hpp"
#include "sim/errors.hpp"

namespace gcsim::trace {

std::uint32_t hdf5_fletcher32(std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t words = data.size() / 2;
  std::uint32_t sum1 = 0;
  std::uint32_t sum2 = 0;
  const auto word = [](const std::uint8_t* q) { return (static_cast<std::uint32_t>(q[0]) << 8) | q[1]; };
  // 360 words is the most that can be summed before the 32-bit sums could overflow. Within
  // a block the sums are those of H5_checksum_fletcher32's word-by-word loop (sum1 += w;
  // sum2 += sum1), four words a step: sum2 gains 4 sum1 + 4 w0 + 3 w1 + 2 w2 + w3 and sum1
  // w0 + w1 + w2 + w3. The same integers, so the same folds and the same checksum, with a
  // quarter of the loop's chain of dependent adds (it ran at a word every few cycles).
  while (words > 0) {
    std::size_t n = words > 360 ? 360 : words;
    words -= n;
    for (; n >= 4; n -= 4, p += 8) {
      const std::uint32_t w0 = word(p), w1 = word(p + 2), w2 = word(p + 4), w3 = word(p + 6);
      sum2 += 4 * sum1 + 4 * w0 + 3 * w1 + 2 * w2 + w3;
      sum1 += w0 + w1 + w2 + w3;
    }
    for (; n > 0; --n, p += 2) {
      sum1 += word(p);
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (data.size() % 2 != 0) {
    sum1 += static_cast<std::uint32_t>(*p) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

namespace {
// The shuffle is a transpose of an n x element_bytes byte matrix. Done a block of BLOCK
// elements at a time, every byte column of the block is one contiguous run on the shuffled
// side (BLOCK bytes: a cache line) and the block's elements (BLOCK x element_bytes bytes:
// 12 KiB for a 190-byte /jobs row) stay in the L1 cache on the other, whatever the element
// size; a whole column at a time strides the full chunk (16 KiB for 16 Ki elements) and
// maps every stream to the same cache sets (measured: 3 to 4 times slower on /jobs chunks).
constexpr std::size_t BLOCK = 64;

#if defined(__SSE2__)
// An 8 x 8 byte transpose in SSE2 registers (part of every x86-64): byte m of row k (8
// bytes at src + k * src_stride) becomes byte k of row m (at dst + m * dst_stride). The
// shuffle and its inverse are made of these tiles, a sixteenth of the byte moves of the
// plain loop: shuffling, the rows are 8 elements' bytes j..j+7 and the result planes
// j..j+7 of those elements; unshuffling, the other way round.
inline void transpose_8x8(const std::byte* src, std::size_t src_stride, std::byte* dst, std::size_t dst_stride) {
  const auto load = [&](std::size_t k) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + k * src_stride)); };
  // a: rows (0 1), (2 3), (4 5), (6 7) interleaved byte by byte
  const __m128i a0 = _mm_unpacklo_epi8(load(0), load(1));
  const __m128i a1 = _mm_unpacklo_epi8(load(2), load(3));
  const __m128i a2 = _mm_unpacklo_epi8(load(4), load(5));
  const __m128i a3 = _mm_unpacklo_epi8(load(6), load(7));
  // b: rows 0..3 (b0: bytes 0..3, b1: 4..7), rows 4..7 (b2: bytes 0..3, b3: 4..7)
  const __m128i b0 = _mm_unpacklo_epi16(a0, a1);
  const __m128i b1 = _mm_unpackhi_epi16(a0, a1);
  const __m128i b2 = _mm_unpacklo_epi16(a2, a3);
  const __m128i b3 = _mm_unpackhi_epi16(a2, a3);
  // c: two result rows each (byte m of all eight rows, then byte m + 1)
  const __m128i c[4] = {_mm_unpacklo_epi32(b0, b2), _mm_unpackhi_epi32(b0, b2), _mm_unpacklo_epi32(b1, b3),
                        _mm_unpackhi_epi32(b1, b3)};
  for (std::size_t k = 0; k < 4; ++k) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 2 * k * dst_stride), c[k]);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + (2 * k + 1) * dst_stride), _mm_srli_si128(c[k], 8));
  }
}
#endif

// The shuffle (ToPlanes: byte j of element i from i * element_bytes + j to j * n + i) and
// its inverse, a block of BLOCK elements at a time, in 8 x 8 tiles where they fit.
template <bool ToPlanes>
void shuffle_bytes(std::span<const std::byte> in, std::size_t element_bytes, std::vector<std::byte>& out) {
  out.resize(in.size());
  const std::size_t n = element_bytes == 0 ? 0 : in.size() / element_bytes;
  if (element_bytes <= 1 || n <= 1) {  // HDF5 leaves these as they are
    if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  const std::byte* src = in.data();
  std::byte* dst = out.data();
  const auto element_at = [&](std::size_t i, std::size_t j) { return i * element_bytes + j; };
  const auto plane_at = [&](std::size_t i, std::size_t j) { return j * n + i; };
  const auto from = [&](std::size_t i, std::size_t j) { return ToPlanes ? element_at(i, j) : plane_at(i, j); };
  const auto to = [&](std::size_t i, std::size_t j) { return ToPlanes ? plane_at(i, j) : element_at(i, j); };
  const auto bytes = [&](std::size_t j0, std::size_t j1, std::size_t i0, std::size_t i1) {
    for (std::size_t j = j0; j < j1; ++j)
      for (std::size_t i = i0; i < i1; ++i) dst[to(i, j)] = src[from(i, j)];
  };
  for (std::size_t i0 = 0; i0 < n; i0 += BLOCK) {
    const std::size_t i1 = std::min(n, i0 + BLOCK);
    std::size_t j0 = 0;
#if defined(__SSE2__)
    // Whole 8 x 8 tiles (the rows of a tile: 8 elements' bytes, or 8 planes' elements);
    // the bytes and elements they leave over take the plain loops.
    const std::size_t i8 = i0 + (i1 - i0) / 8 * 8;
    for (; j0 + 8 <= element_bytes; j0 += 8)
      for (std::size_t i = i0; i < i8; i += 8)
        transpose_8x8(src + from(i, j0), ToPlanes ? element_bytes : n, dst + to(i, j0), ToPlanes ? n : element_bytes);
    bytes(0, j0, i8, i1);
#endif
    bytes(j0, element_bytes, i0, i1);
  }
  const std::size_t whole = n * element_bytes;
  if (whole < in.size()) std::memcpy(dst + whole, src + whole, in.size() - whole);
}

}  // namespace

void hdf5_shuffle(std::span<const std::byte> in, std::size_t element_bytes, std::vector<std::byte>& out) {
  shuffle_bytes<true>(in, element_bytes, out);
}

void hdf5_unshuffle(std::span<const std::byte> in, std::size_t element_bytes, std::vector<std::byte>& out) {
  shuffle_bytes<false>(in, element_bytes, out);
}

// libdeflate's compressor at the level: a zlib stream (RFC 1950) as HDF5's deflate filter
// stores and decodes, made in one call over the whole chunk, about 2.5 times as fast as
// zlib's compress2 at level 1 (docs/trace-format.md, "Compression"). Allocated once per
// encoder (a few hundred KiB), reused for every chunk.
struct ChunkEncoder::Zlib {
  libdeflate_compressor* compressor = nullptr;
  ~Zlib() {
    if (compressor) libdeflate_free_compressor(compressor);
  }
};

ChunkEncoder::ChunkEncoder(int level) : level_(level) {
  GCSIM_CHECK(level >= MIN_COMPRESSION_LEVEL && level <= MAX_COMPRESSION_LEVEL, "trace compression level " + std::to_string(level));
  if (level_ > 0) {
    zlib_ = std::make_unique<Zlib>();
    zlib_->compressor = libdeflate_alloc_compressor(level_);
    if (zlib_->compressor == nullptr) throw Error("trace: cannot set up libdeflate's compressor");
  }
}

ChunkEncoder::~ChunkEncoder() = default;

std::span<const std::byte> ChunkEncoder::encode(std::span<const std::byte> chunk, std::size_t shuffle_element_bytes) {
  std::size_t size = 0;
  if (level_ == 0) {
    out_.resize(chunk.size() + 4);
    if (!chunk.empty()) std::memcpy(out_.data(), chunk.data(), chunk.size());
    size = chunk.size();
  } else {
    std::span<const std::byte> input = chunk;
    if (shuffle_element_bytes > 0) {
      hdf5_shuffle(chunk, shuffle_element_bytes, shuffled_);
      input = shuffled_;
    }
    const std::size_t bound = libdeflate_zlib_compress_bound(zlib_->compressor, input.size());
    out_.resize(bound + 4);
    size = libdeflate_zlib_compress(zlib_->compressor, input.data(), input.size(), out_.data(), bound);
    // The bound leaves room for the whole stream, so 0 (did not fit) cannot happen.
    GCSIM_CHECK(size > 0, "libdeflate zlib compression of a whole chunk");
  }
  const std::uint32_t sum = hdf5_fletcher32(std::span<const std::byte>(out_.data(), size));
  for (int b = 0; b < 4; ++b) out_[size + static_cast<std::size_t>(b)] = static_cast<std::byte>(sum >> (8 * b));
  return {out_.data(), size + 4};
}

ChunkPipeline::ChunkPipeline(int level, bool thread, std::size_t depth) : inline_(level), depth_(depth) {
  GCSIM_CHECK(depth >= 1, "chunk pipeline depth " + std::to_string(depth));
  if (thread) {
    worker_ = std::make_unique<ChunkEncoder>(level);
    thread_ = std::thread([this] { work(); });
  }
}

ChunkPipeline::~ChunkPipeline() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::vector<std::byte> ChunkPipeline::buffer() {
  if (free_.empty()) return {};
  std::vector<std::byte> b = std::move(free_.back());
  free_.pop_back();
  b.clear();
  return b;
}

void ChunkPipeline::encode_item(std::unique_lock<std::mutex>& lock, Item& item, ChunkEncoder& encoder) {
  // The caller only pushes at the back and pops stored (done) items at the front, so a
  // taken item stays where it is while it is encoded without the lock.
  item.taken = true;
  lock.unlock();
  try {
    const std::span<const std::byte> out = encoder.encode(item.raw, item.shuffle_element_bytes);
    item.encoded.assign(out.begin(), out.end());
  } catch (...) {
    item.error = std::current_exception();
  }
  lock.lock();
  item.done = true;
  changed_.notify_all();
}

void ChunkPipeline::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    Item* next = nullptr;
    changed_.wait(lock, [this, &next] {
      if (stop_) return true;
      for (Item& i : items_)  // the oldest not taken (the queue is a few chunks deep)
        if (!i.taken) {
          next = &i;
          return true;
        }
      return false;
    });
    if (stop_) return;
    encode_item(lock, *next, *worker_);
  }
}

void ChunkPipeline::help_or_wait(std::unique_lock<std::mutex>& lock) {
  while (!items_.front().done) {
    // The newest not taken: the thread takes them oldest first, so the two rarely meet.
    Item* newest = nullptr;
    for (auto it = items_.rbegin(); it != items_.rend(); ++it)
      if (!it->taken) {
        newest = &*it;
        break;
      }
    if (newest == nullptr) {
      changed_.wait(lock, [this] { return items_.front().done; });
      return;
    }
    ++encoded_by_caller_;
    encode_item(lock, *newest, inline_);
  }
}

bool ChunkPipeline::take_done(Item& item) {
  std::lock_guard lock(mutex_);
  if (items_.empty() || !items_.front().done) return false;
  item = std::move(items_.front());
  items_.pop_front();
  return true;
}

void ChunkPipeline::store(Item& item) {
  if (item.error) std::rethrow_exception(item.error);
  item.store(item.encoded);
  free_.push_back(std::move(item.raw));
}

void ChunkPipeline::submit(std::vector<std::byte> raw, std::size_t shuffle_element_bytes, Store store_fn) {
  if (!threaded()) {
    store_fn(inline_.encode(raw, shuffle_element_bytes));
    free_.push_back(std::move(raw));
    return;
  }
  for (;;) {
    for (Item done; take_done(done);) store(done);
    std::unique_lock lock(mutex_);
    if (items_.size() < depth_) {
      items_.push_back(Item{std::move(raw), shuffle_element_bytes, std::move(store_fn), {}, {}, false, false});
      lock.unlock();
      changed_.notify_all();
      return;
    }
    help_or_wait(lock);
  }
}

void ChunkPipeline::drain() {
  if (!threaded()) return;
  for (;;) {
    for (Item done; take_done(done);) store(done);
    std::unique_lock lock(mutex_);
    if (items_.empty()) return;
    help_or_wait(lock);
  }
}

std::vector<std::byte> decode_chunk(std::span<const std::byte> stored, bool deflated, std::size_t shuffle_element_bytes,
                                    std::size_t raw_bytes) {
  std::vector<std::byte> out, scratch;
  decode_chunk_into(stored, deflated, shuffle_element_bytes, raw_bytes, out, scratch);
  return out;
}

void decode_chunk_into(std::span<const std::byte> stored, bool deflated, std::size_t shuffle_element_bytes,
                       std::size_t raw_bytes, std::vector<std::byte>& out, std::vector<std::byte>& scratch) {
  if (stored.size() < 4) throw Error("trace chunk: shorter than its checksum");
  const std::span<const std::byte> body = stored.first(stored.size() - 4);
  std::uint32_t sum = 0;
  for (int b = 0; b < 4; ++b) sum |= std::to_integer<std::uint32_t>(stored[body.size() + static_cast<std::size_t>(b)]) << (8 * b);
  if (sum != hdf5_fletcher32(body)) throw Error("trace chunk: Fletcher32 checksum mismatch");
  if (!deflated) {
    out.assign(body.begin(), body.end());
    return;
  }
  std::vector<std::byte>& inflated = shuffle_element_bytes == 0 ? out : scratch;
  inflated.resize(raw_bytes);
  // Any zlib stream (zlib's own, from traces written before, or libdeflate's), inflated to
  // exactly raw_bytes: a stream that ends early or runs past is refused.
  struct Decompressor {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~Decompressor() {
      if (d) libdeflate_free_decompressor(d);
    }
  };
  thread_local Decompressor inflater;
  if (inflater.d == nullptr) throw Error("trace: cannot set up libdeflate's decompressor");
  if (libdeflate_zlib_decompress(inflater.d, body.data(), body.size(), inflated.data(), raw_bytes, nullptr) !=
      LIBDEFLATE_SUCCESS) {
    throw Error("trace chunk: bad deflate stream");
  }
  if (shuffle_element_bytes != 0) hdf5_unshuffle(inflated, shuffle_element_bytes, out);
}

}  // namespace gcsim::trace
