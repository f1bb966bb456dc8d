// Reading a table's chunks as stored and decoding them outside HDF5 (see raw_chunks.hpp).
#include "sim/trace/raw_chunks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "sim/errors.hpp"
#include "sim/trace/chunk_filters.hpp"

namespace gcsim::trace::detail {

namespace {
// H5Dread's blocks are of about this many rows, so the temporary row buffer (and HDF5's
// copies of strings) stay small next to the result.
constexpr hsize_t BLOCK_ROWS = 65536;
}  // namespace

RawPlan raw_plan(const Hid& dataset, hid_t file_type) {
  RawPlan p;
  Hid dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
  hsize_t chunk = 0;
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 ||
      chunk == 0) {
    detail::take_hdf5_error();
    return p;
  }
  const int filters = H5Pget_nfilters(dcpl.get());
  std::vector<H5Z_filter_t> ids;
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0, config = 0;
    unsigned values[1] = {0};
    std::size_t n_values = 1;
    const H5Z_filter_t id =
        H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &n_values, values, 0, nullptr, &config);
    if (id == H5Z_FILTER_SHUFFLE) p.shuffle_bytes = n_values >= 1 ? values[0] : 0;
    ids.push_back(id);
  }
  detail::take_hdf5_error();
  const std::vector<H5Z_filter_t> both{H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
  const std::vector<H5Z_filter_t> deflate{H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
  const std::vector<H5Z_filter_t> checksum{H5Z_FILTER_FLETCHER32};
  if (ids != both && ids != deflate && ids != checksum) return p;
  if (ids == both && p.shuffle_bytes == 0) return p;
  p.deflated = ids != checksum;
  p.file_row_bytes = H5Tget_size(file_type);
  p.chunk_rows = chunk;
  p.usable = p.file_row_bytes > 0;
  return p;
}

bool fetch_chunk_raw(const Hid& dataset, hsize_t start, RawBuffers& b) {
  hsize_t offset[1] = {start};
  hsize_t stored_bytes = 0;
  std::uint32_t skipped = 0;
  if (H5Dget_chunk_storage_size(dataset.get(), offset, &stored_bytes) < 0 || stored_bytes == 0) {
    detail::take_hdf5_error();
    return false;
  }
  b.stored.resize(static_cast<std::size_t>(stored_bytes));
  if (H5Dread_chunk(dataset.get(), H5P_DEFAULT, offset, &skipped, b.stored.data()) < 0) {
    detail::take_hdf5_error();
    return false;
  }
  return skipped == 0;
}

bool decode_chunk_raw(const RawPlan& p, hsize_t count, RawBuffers& b) {
  try {
    decode_chunk_into(b.stored, p.deflated, p.deflated ? p.shuffle_bytes : 0,
                      static_cast<std::size_t>(p.chunk_rows) * p.file_row_bytes, b.decoded, b.inflated);
  } catch (const Error&) {
    return false;
  }
  return b.decoded.size() >= static_cast<std::size_t>(count) * p.file_row_bytes;
}

bool convert_chunk_raw(hid_t file_type, hid_t mem, const RawPlan& p, hsize_t count, std::size_t row_size,
                       RawBuffers& b) {
  const std::size_t file_row = p.file_row_bytes;
  const std::size_t n = static_cast<std::size_t>(count);
  b.converted.assign(n * std::max(file_row, row_size), 0);
  std::memcpy(b.converted.data(), b.decoded.data(), n * file_row);
  b.background.assign(n * row_size, 0);
  if (H5Tconvert(file_type, mem, n, b.converted.data(), b.background.data(), H5P_DEFAULT) < 0) {
    detail::take_hdf5_error();
    return false;
  }
  return true;
}

bool read_chunk_raw(const Hid& dataset, hid_t file_type, hid_t mem, const RawPlan& p, hsize_t start,
                    hsize_t count, std::size_t row_size, RawBuffers& b) {
  if (!fetch_chunk_raw(dataset, start, b) || !decode_chunk_raw(p, count, b)) return false;
  return mem == H5I_INVALID_HID || convert_chunk_raw(file_type, mem, p, count, row_size, b);
}

DecodeThread::DecodeThread() : thread_([this] { work(); }) {}

DecodeThread::~DecodeThread() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !busy_; });
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void DecodeThread::start(std::function<void()> task) {
  wait();
  {
    std::lock_guard lock(mutex_);
    task_ = std::move(task);
    busy_ = true;
  }
  changed_.notify_all();
}

void DecodeThread::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void DecodeThread::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return busy_ || stop_; });
    if (!busy_) return;  // stopped
    std::function<void()> task = std::move(task_);
    lock.unlock();
    std::exception_ptr error;
    try {
      task();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    busy_ = false;
    changed_.notify_all();
  }
}

hsize_t block_rows_for(const Hid& dataset) {
  hsize_t chunk = 0;
  Hid dcpl(H5Dget_create_plist(dataset.get()), H5Pclose);
  if (dcpl.valid() && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) H5Pget_chunk(dcpl.get(), 1, &chunk);
  detail::take_hdf5_error();
  if (chunk == 0) return BLOCK_ROWS;
  return chunk * std::max<hsize_t>(1, BLOCK_ROWS / chunk);
}

}  // namespace gcsim::trace::detail
