// HDF5 implementation of TraceFile and Table (sim/trace/table_writer.hpp).
//
// Each table is a 1-D dataset of a packed compound type, chunked (chunk_rows rows per
// chunk), shuffled, deflated at the trace's level and Fletcher32-checksummed (level 0:
// Fletcher32 alone), with unlimited maximum size. Rows are assembled in a packed byte
// buffer in the memory layout of that compound (string cells are their fixed-width bytes,
// null-padded; the packed memory layout is the file layout on a little-endian machine) and
// appended one whole chunk at a time, so every chunk is compressed exactly once and memory
// stays bounded however long the run.
//
// The filters run here, on the writing thread, not in HDF5 (ChunkEncoder): HDF5 gets the
// encoded chunk through H5Dwrite_chunk, which only stores it. In a thread-safe HDF5 every
// call holds one global lock, so this keeps the lock for the short write and lets runs in
// one process compress side by side. The chunk bytes are those HDF5's pipeline would have
// made, and the dataset declares the same filters, so any reader decodes them.
//
// The file format is bounded below by HDF5 1.10 (H5F_LIBVER_V110): its superblock, object
// headers, chunk indexes and heaps carry checksums, which the earliest format lacks.
// Reproducibility: object time tracking is off for the file (root group) and every
// dataset, so the same calls give the same bytes.
#include "sim/trace/table_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include <H5pubconf.h>

#include "sim/atomic_file.hpp"
#include "sim/check.hpp"
#include "sim/errors.hpp"
#include "sim/trace/hdf5_support.hpp"

namespace gcsim::trace {

namespace {

using detail::Hid;
using detail::with_hdf5_detail;

// HDF5's limit on one chunk (bytes), minus headroom for filter overhead.
constexpr std::size_t MAX_CHUNK_BYTES = std::size_t{1} << 31;
// The widest string column: a cell is stored whole in every row, so wider belongs in a
// byte array (TraceFile::add_bytes).
constexpr std::size_t MAX_STR_BYTES = 65536;
// Rows of a byte array per chunk.
constexpr hsize_t BYTES_CHUNK = 65536;
// A chunk is written whole, padding included, even when the table ends early: wide rows
// (fixed-width strings) get fewer rows per chunk so that a short table does not deflate
// megabytes of zeros.
constexpr std::size_t TARGET_CHUNK_BYTES = std::size_t{1} << 20;

std::size_t memory_size(const Column& c) {
  switch (c.type) {
    case ColumnType::F64:
    case ColumnType::I64: return 8;
    case ColumnType::I32: return 4;
    case ColumnType::Str: return c.str_bytes;
    case ColumnType::Enum8: return 1;
    case ColumnType::Enum: return enum_bytes(c.enum_labels.size());
  }
  throw std::logic_error("unknown ColumnType");
}

static_assert(H5_VERS_MAJOR > 1 || (H5_VERS_MAJOR == 1 && (H5_VERS_MINOR > 10 || (H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 2))),
              "H5Dwrite_chunk needs HDF5 1.10.2 or later");
#ifdef H5_WORDS_BIGENDIAN
#error "the trace writer stores chunks in memory byte order, which must be the file's little-endian order"
#endif

// Chunked, unlimited, deflated and checksummed, in the order ChunkEncoder applies them:
// [shuffle,] [deflate,] Fletcher32. Fletcher32 comes last, so it checks the bytes as stored
// (HDF5 requires it after the compressing filters). Level 0: Fletcher32 alone.
Hid dataset_properties(hsize_t chunk_rows, bool shuffle, int level) {
  Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const hsize_t chunk[1] = {chunk_rows};
  const bool deflate = level > 0;
  if (!dcpl.valid() || H5Pset_chunk(dcpl.get(), 1, chunk) < 0 ||
      (deflate && shuffle && H5Pset_shuffle(dcpl.get()) < 0) ||
      (deflate && H5Pset_deflate(dcpl.get(), static_cast<unsigned>(level)) < 0) ||
      H5Pset_fletcher32(dcpl.get()) < 0 || H5Pset_obj_track_times(dcpl.get(), false) < 0) {
    return Hid();
  }
  return dcpl;
}

// Stores one encoded chunk at element `offset` (a chunk boundary); the dataset's extent
// must already cover it. Filter mask 0: every filter of the dataset was applied.
bool write_encoded_chunk(hid_t dataset, hsize_t offset, std::span<const std::byte> encoded) {
  const hsize_t at[1] = {offset};
  return H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, at, encoded.size(), encoded.data()) >= 0;
}

const char* type_name(ColumnType type) {
  switch (type) {
    case ColumnType::F64: return "f64";
    case ColumnType::I64: return "i64";
    case ColumnType::I32: return "i32";
    case ColumnType::Str: return "str";
    case ColumnType::Enum8: return "enum8";
    case ColumnType::Enum: return "enum";
  }
  return "?";
}

bool valid_object_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

class Hdf5Table final : public Table {
 public:
  Hdf5Table(const std::string& file_path, hid_t file, ChunkPipeline& pipeline, const std::string& name,
            std::vector<Column> columns, std::size_t chunk_rows)
      : file_path_(file_path), name_(name), columns_(std::move(columns)), chunk_rows_(chunk_rows), pipeline_(pipeline) {
    if (!valid_object_name(name)) {
      throw Error("trace '" + file_path_ + "': invalid table name '" + name + "' (no '/', not empty)");
    }
    if (columns_.empty()) throw Error("trace '" + file_path_ + "': table '" + name + "' has no columns");
    if (chunk_rows_ == 0) throw Error("trace '" + file_path_ + "': table '" + name + "': chunk_rows must be > 0");
    if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) {
      throw Error("trace '" + file_path_ + "': table '" + name + "' added twice");
    }

    std::unordered_set<std::string> seen;
    for (const Column& c : columns_) {
      if (c.name.empty() || c.name.find('\0') != std::string::npos || !seen.insert(c.name).second) {
        throw Error("trace '" + file_path_ + "': table '" + name + "': empty or duplicate column name '" +
                    c.name + "'");
      }
      if (c.type == ColumnType::Enum8 || c.type == ColumnType::Enum) {
        const std::size_t most = c.type == ColumnType::Enum8 ? 256 : MAX_ENUM_LABELS;
        if (c.enum_labels.empty() || c.enum_labels.size() > most) {
          throw Error("trace '" + file_path_ + "': enum column '" + name + "." + c.name + "' needs 1 to " +
                      std::to_string(most) + " labels");
        }
        std::unordered_set<std::string> labels;
        for (const std::string& l : c.enum_labels) {
          if (l.empty() || !labels.insert(l).second) {
            throw Error("trace '" + file_path_ + "': enum column '" + name + "." + c.name +
                        "': empty or duplicate label '" + l + "'");
          }
        }
      } else if (!c.enum_labels.empty()) {
        throw Error("trace '" + file_path_ + "': column '" + name + "." + c.name +
                    "' has enum labels but is not an enum");
      }
      if ((c.type == ColumnType::Str) != (c.str_bytes > 0) || c.str_bytes > MAX_STR_BYTES) {
        throw Error("trace '" + file_path_ + "': column '" + name + "." + c.name +
                    "': a string column needs a width of 1 to " + std::to_string(MAX_STR_BYTES) +
                    " bytes, other columns none");
      }
      offsets_.push_back(row_size_);
      row_size_ += memory_size(c);
    }
    chunk_rows_ = std::min(chunk_rows_, std::max<std::size_t>(1, TARGET_CHUNK_BYTES / row_size_));
    if (row_size_ * chunk_rows_ / chunk_rows_ != row_size_ || row_size_ * chunk_rows_ > MAX_CHUNK_BYTES) {
      throw Error("trace '" + file_path_ + "': table '" + name + "': chunk of " + std::to_string(chunk_rows_) +
                  " rows is too large");
    }

    // An empty row: NaN in floats, zeros elsewhere (an all-NUL string cell is "").
    default_row_.assign(row_size_, std::byte{0});
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].type == ColumnType::F64) std::memcpy(default_row_.data() + offsets_[i], &nan, sizeof nan);
    }

    Hid file_type = make_compound();

    const hsize_t dims[1] = {0};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    Hid space(H5Screate_simple(1, dims, maxdims), H5Sclose);
    Hid dcpl = dataset_properties(static_cast<hsize_t>(chunk_rows_), /*shuffle=*/true, pipeline_.level());
    if (!space.valid() || !dcpl.valid()) {
      throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot set up table '" + name + "'"));
    }
    dataset_ = Hid(H5Dcreate2(file, name.c_str(), file_type.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                              H5P_DEFAULT),
                   H5Dclose);
    if (!dataset_.valid()) {
      throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot create table '" + name + "'"));
    }
  }

  Table& begin_row() override {
    check_open();
    if (buffered_ == chunk_rows_) flush();
    if (buffer_.empty()) buffer_.reserve(row_size_ * std::min<std::size_t>(chunk_rows_, 1024));
    buffer_.insert(buffer_.end(), default_row_.begin(), default_row_.end());
    ++buffered_;
    row_open_ = true;
    return *this;
  }

  Table& f64(std::size_t column, double value) override {
    std::memcpy(cell(column, ColumnType::F64), &value, sizeof value);
    return *this;
  }
  Table& i64(std::size_t column, std::int64_t value) override {
    std::memcpy(cell(column, ColumnType::I64), &value, sizeof value);
    return *this;
  }
  Table& i32(std::size_t column, std::int32_t value) override {
    std::memcpy(cell(column, ColumnType::I32), &value, sizeof value);
    return *this;
  }
  Table& str(std::size_t column, std::string_view value) override {
    std::byte* slot = cell(column, ColumnType::Str);
    // Cells are null-padded: an embedded NUL would silently cut the value.
    if (value.find('\0') != std::string_view::npos) {
      throw Error("trace '" + file_path_ + "': " + name_ + "." + columns_[column].name +
                  ": string contains a NUL byte");
    }
    const std::size_t width = columns_[column].str_bytes;
    if (value.size() > width) {
      throw InternalError("trace '" + file_path_ + "': a string of " + std::to_string(value.size()) +
                          " bytes for column " + name_ + "." + columns_[column].name + ", " +
                          std::to_string(width) + " bytes wide (its source should have been bounded at load)");
    }
    if (!value.empty()) std::memcpy(slot, value.data(), value.size());  // an empty view's data() may be null
    return *this;
  }
  Table& enum8(std::size_t column, std::uint8_t value) override {
    std::byte* slot = cell(column, ColumnType::Enum8);
    if (value >= columns_[column].enum_labels.size()) {
      throw std::logic_error("trace table " + name_ + "." + columns_[column].name + ": enum value " +
                             std::to_string(value) + " has no label");
    }
    std::memcpy(slot, &value, 1);
    return *this;
  }
  Table& enum_value(std::size_t column, std::uint32_t value) override {
    std::byte* slot = cell(column, ColumnType::Enum);
    const Column& c = columns_[column];
    if (value >= c.enum_labels.size()) {
      throw std::logic_error("trace table " + name_ + "." + c.name + ": enum value " + std::to_string(value) +
                             " has no label");
    }
    // Little-endian in memory (checked above), so the low bytes are the value.
    std::memcpy(slot, &value, enum_bytes(c.enum_labels.size()));
    return *this;
  }

  // Whole chunks' rows at a time, each column copied into its place in every row of the
  // part that fits in the chunk being filled: no call, check or default row per cell.
  void write_block(std::size_t rows, std::span<const BlockColumn> block) override {
    check_open();
    check_block(file_path_, name_, columns_, rows, block);
    for (std::size_t done = 0; done < rows;) {
      if (buffered_ == chunk_rows_) flush();
      if (buffer_.empty()) buffer_.reserve(row_size_ * chunk_rows_);
      const std::size_t n = std::min(rows - done, chunk_rows_ - buffered_);
      const std::size_t first = buffer_.size();
      buffer_.resize(first + n * row_size_);  // zeros: every cell is set below, a string's padding stays NUL
      std::byte* rows_at = buffer_.data() + first;
      for (std::size_t c = 0; c < columns_.size(); ++c) copy_column(rows_at, n, c, block[c], done);
      buffered_ += n;
      done += n;
    }
    row_open_ = false;  // the block's last row is finished: a cell set now is a programming error
  }

  std::size_t rows() const override { return written_ + buffered_; }

  // Appends the buffered rows to the dataset as one chunk. A last, partial chunk is padded
  // with the fill value (zeros), as HDF5 pads a chunk it writes itself; the dataset's
  // extent stops at the last row, so readers never see the padding. The file's pipeline
  // encodes it (maybe on its own thread) and stores it in order (ChunkPipeline).
  void flush() {
    if (buffered_ == 0) return;
    buffer_.resize(chunk_rows_ * row_size_, std::byte{0});
    const auto offset = static_cast<hsize_t>(written_);
    const auto new_size = static_cast<hsize_t>(written_ + buffered_);
    // The rows are handed over either way: a failed write leaves a file that will not be
    // committed.
    written_ += buffered_;
    buffered_ = 0;
    row_open_ = false;
    std::vector<std::byte> raw = std::move(buffer_);
    buffer_ = pipeline_.buffer();
    pipeline_.submit(std::move(raw), row_size_, [this, offset, new_size](std::span<const std::byte> encoded) {
      const hsize_t size[1] = {new_size};
      if (H5Dset_extent(dataset_.get(), size) < 0 || !write_encoded_chunk(dataset_.get(), offset, encoded)) {
        throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot write table '" + name_ + "'"));
      }
    });
  }

  // Closes the dataset after its last chunk is flushed and stored; later row calls are a
  // programming error.
  void close() {
    if (closed_) return;
    closed_ = true;
    if (!dataset_.reset()) {
      throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot close table '" + name_ + "'"));
    }
  }

  // Closes without writing what is buffered (the file is being abandoned).
  void abandon() noexcept {
    closed_ = true;
    dataset_.reset();
  }

 private:
  // The row type as stored: little-endian members at the packed offsets. Rows are packed
  // in this layout in memory too and stored as encoded chunks, so no memory type is needed.
  Hid make_compound() const {
    Hid type(H5Tcreate(H5T_COMPOUND, row_size_), H5Tclose);
    if (!type.valid()) throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot create a row type"));
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const Column& c = columns_[i];
      Hid owned;  // for member types we create
      hid_t member = H5I_INVALID_HID;
      switch (c.type) {
        case ColumnType::F64: member = H5T_IEEE_F64LE; break;
        case ColumnType::I64: member = H5T_STD_I64LE; break;
        case ColumnType::I32: member = H5T_STD_I32LE; break;
        case ColumnType::Str:
          owned = detail::make_fixed_string_type(c.str_bytes);
          member = owned.get();
          break;
        case ColumnType::Enum8:  // an Enum of one byte
        case ColumnType::Enum: {
          const std::size_t bytes = memory_size(c);
          owned = Hid(H5Tenum_create(bytes == 1 ? H5T_STD_U8LE : bytes == 2 ? H5T_STD_U16LE : H5T_STD_U32LE), H5Tclose);
          bool ok = owned.valid();
          for (std::size_t v = 0; ok && v < c.enum_labels.size(); ++v) {
            const auto value = static_cast<std::uint32_t>(v);  // the low `bytes` bytes, little-endian
            ok = H5Tenum_insert(owned.get(), c.enum_labels[v].c_str(), &value) >= 0;
          }
          if (!ok) {
            throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot create enum type for '" + name_ +
                                         "." + c.name + "'"));
          }
          member = owned.get();
          break;
        }
      }
      if (H5Tinsert(type.get(), c.name.c_str(), offsets_[i], member) < 0) {
        throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot add column '" + name_ + "." + c.name +
                                     "'"));
      }
    }
    return type;
  }

  void check_open() const {
    if (closed_) throw std::logic_error("trace table " + name_ + ": written after commit");
  }

  // Cells [from, from + n) of block column `b` into column `column` of the n rows at `at`.
  void copy_column(std::byte* at, std::size_t n, std::size_t column, const BlockColumn& b, std::size_t from) const {
    std::byte* cell = at + offsets_[column];
    const std::size_t stride = row_size_;
    const auto each = [&](auto&& put) {
      for (std::size_t r = 0; r < n; ++r, cell += stride) put(cell, from + r);
    };
    switch (columns_[column].type) {
      case ColumnType::F64: each([&](std::byte* d, std::size_t i) { std::memcpy(d, &b.f64[i], 8); }); break;
      case ColumnType::I64: each([&](std::byte* d, std::size_t i) { std::memcpy(d, &b.ints[i], 8); }); break;
      case ColumnType::I32:
        each([&](std::byte* d, std::size_t i) {
          const auto v = static_cast<std::int32_t>(b.ints[i]);
          std::memcpy(d, &v, 4);
        });
        break;
      case ColumnType::Str:
        each([&](std::byte* d, std::size_t i) {
          if (!b.str[i].empty()) std::memcpy(d, b.str[i].data(), b.str[i].size());
        });
        break;
      case ColumnType::Enum8:
      case ColumnType::Enum: {
        // Little-endian in memory (checked above), so the low bytes are the value.
        const std::size_t width = memory_size(columns_[column]);
        each([&](std::byte* d, std::size_t i) {
          const auto v = static_cast<std::uint32_t>(b.ints[i]);
          std::memcpy(d, &v, width);
        });
        break;
      }
    }
  }

  // The current row's cell for `column`, checking the setter matches the column type:
  // a mismatch is a bug in the recorder, not something a user can cause.
  std::byte* cell(std::size_t column, ColumnType type) {
    check_open();
    if (!row_open_) throw std::logic_error("trace table " + name_ + ": cell set before begin_row()");
    if (column >= columns_.size()) {
      throw std::logic_error("trace table " + name_ + ": column index " + std::to_string(column) +
                             " out of range");
    }
    if (columns_[column].type != type) {
      throw std::logic_error("trace table " + name_ + "." + columns_[column].name + " is " +
                             type_name(columns_[column].type) + ", set as " + type_name(type));
    }
    return buffer_.data() + (buffered_ - 1) * row_size_ + offsets_[column];
  }

  std::string file_path_;
  std::string name_;
  std::vector<Column> columns_;
  std::vector<std::size_t> offsets_;
  std::size_t row_size_ = 0;
  std::size_t chunk_rows_;
  std::vector<std::byte> default_row_;
  std::vector<std::byte> buffer_;  // buffered_ rows, packed in the memory layout
  std::size_t buffered_ = 0;
  std::size_t written_ = 0;
  bool row_open_ = false;
  bool closed_ = false;
  ChunkPipeline& pipeline_;  // the file's: tables of one file are written from one thread
  Hid dataset_;
};

class Hdf5TraceFile final : public TraceFile {
 public:
  // The temporary file is created by AtomicFile (a fresh name, O_EXCL | O_NOFOLLOW) and
  // HDF5 then opens that name with truncation. Between the two, only someone allowed to
  // rename entries in the destination folder could swap the name for something else; the
  // device/inode check below then refuses the file before a byte is written to it.
  Hdf5TraceFile(const std::string& final_path, const TraceOptions& options)
      : final_path_(final_path), pipeline_(options.compression_level, options.encoding_thread), temp_(final_path) {
    detail::silence_hdf5_errors();
    Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    // Strong close: H5Fclose fails loudly rather than leaving the file open behind a
    // forgotten handle, so commit() never renames a file that was not fully written.
    // sec2 (plain POSIX I/O, HDF5's default) is named so that the handle check below
    // may read the descriptor as an int.
    // The 1.10 format at least: checksummed metadata (see the top of this file).
    if (!fcpl.valid() || !fapl.valid() || H5Pset_obj_track_times(fcpl.get(), false) < 0 ||
        H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0 || H5Pset_fapl_sec2(fapl.get()) < 0 ||
        H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_LATEST) < 0) {
      throw Error(with_hdf5_detail("trace '" + final_path_ + "': cannot set up HDF5 file properties"));
    }
    file_ = Hid(H5Fcreate(temp_.temp_path().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!file_.valid()) throw Error(with_hdf5_detail("cannot create trace file '" + temp_.temp_path() + "'"));
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file_.get(), H5P_DEFAULT, &handle) < 0 || handle == nullptr ||
        !sim::same_file(*static_cast<int*>(handle), temp_.fd())) {
      file_.reset();
      throw Error(with_hdf5_detail("trace '" + final_path_ + "': the temporary file '" + temp_.temp_path() +
                                   "' was replaced while it was being opened"));
    }
    set_attribute(TRACE_FORMAT_ATTRIBUTE, TRACE_FORMAT);
  }

  ~Hdf5TraceFile() override {
    if (committed_) return;
    for (auto& t : tables_) t->abandon();
    file_.reset();
    detail::take_hdf5_error();
    // ~AtomicFile removes the temporary file.
  }

  Table& add_table(const std::string& name, std::vector<Column> columns, std::size_t chunk_rows) override {
    check_open();
    pipeline_.drain();  // every HDF5 call in the order an inline pipeline makes them
    tables_.push_back(std::make_unique<Hdf5Table>(final_path_, file_.get(), pipeline_, name, std::move(columns), chunk_rows));
    return *tables_.back();
  }

  void add_bytes(const std::string& name, std::string_view bytes) override {
    check_open();
    pipeline_.drain();
    if (!valid_object_name(name) || H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) > 0) {
      throw Error("trace '" + final_path_ + "': invalid or repeated dataset name '" + name + "'");
    }
    const hsize_t dims[1] = {static_cast<hsize_t>(bytes.size())};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    Hid space(H5Screate_simple(1, dims, maxdims), H5Sclose);
    Hid dcpl = dataset_properties(BYTES_CHUNK, /*shuffle=*/false, pipeline_.level());
    Hid dataset(space.valid() && dcpl.valid() ? H5Dcreate2(file_.get(), name.c_str(), H5T_STD_U8LE, space.get(),
                                                           H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)
                                              : H5I_INVALID_HID,
                H5Dclose);
    bool ok = dataset.valid();
    std::vector<std::byte> chunk;
    for (std::size_t at = 0; ok && at < bytes.size(); at += BYTES_CHUNK) {
      const std::size_t n = std::min<std::size_t>(BYTES_CHUNK, bytes.size() - at);
      chunk.assign(BYTES_CHUNK, std::byte{0});  // the last chunk's tail is fill value
      std::memcpy(chunk.data(), bytes.data() + at, n);
      ok = write_encoded_chunk(dataset.get(), at, pipeline_.encode_now(chunk, 0));
    }
    if (!ok || !dataset.reset()) {
      throw Error(with_hdf5_detail("trace '" + final_path_ + "': cannot write dataset '" + name + "'"));
    }
  }

  void set_attribute(const std::string& name, std::string_view value) override {
    if (value.find('\0') != std::string_view::npos) {
      throw Error("trace '" + final_path_ + "': attribute '" + name + "' contains a NUL byte");
    }
    // HDF5 has no zero-length string type: "" is one NUL of padding.
    Hid type = detail::make_fixed_string_type(std::max<std::size_t>(value.size(), 1));
    std::string text(value);
    if (text.empty()) text.push_back('\0');
    write_attribute(name, type.get(), type.get(), text.data());
  }
  void set_attribute(const std::string& name, double value) override {
    write_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }
  void set_attribute(const std::string& name, std::int64_t value) override {
    write_attribute(name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
  }
  void set_attribute(const std::string& name, std::uint64_t value) override {
    write_attribute(name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
  }

  void commit() override {
    check_open();
    for (auto& t : tables_) {  // each table's last chunk stored before it is closed
      t->flush();
      pipeline_.drain();
      t->close();
    }
    if (!file_.reset()) throw Error(with_hdf5_detail("cannot close trace file '" + temp_.temp_path() + "'"));
    temp_.commit();  // fsync, rename over final_path_; on failure the temporary file is gone
    committed_ = true;
  }

 private:
  void check_open() const {
    if (committed_ || !file_.valid()) throw std::logic_error("trace '" + final_path_ + "' used after commit()");
  }

  void write_attribute(const std::string& name, hid_t file_type, hid_t mem_type, const void* value) {
    check_open();
    pipeline_.drain();
    if (name.empty() || name.find('\0') != std::string::npos) {
      throw Error("trace '" + final_path_ + "': invalid attribute name '" + name + "'");
    }
    const hid_t root = file_.get();
    const htri_t exists = H5Aexists(root, name.c_str());
    if (exists > 0 && H5Adelete(root, name.c_str()) < 0) exists_error(name);
    Hid space(H5Screate(H5S_SCALAR), H5Sclose);
    Hid attr(space.valid() ? H5Acreate2(root, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT)
                           : H5I_INVALID_HID,
             H5Aclose);
    if (!attr.valid() || H5Awrite(attr.get(), mem_type, value) < 0) exists_error(name);
  }

  [[noreturn]] void exists_error(const std::string& name) const {
    throw Error(with_hdf5_detail("trace '" + final_path_ + "': cannot write attribute '" + name + "'"));
  }

  std::string final_path_;
  ChunkPipeline pipeline_;  // before the tables: their stores run from its drain()
  sim::AtomicFile temp_;  // declared before file_: HDF5 closes its handle first
  Hid file_;
  std::vector<std::unique_ptr<Hdf5Table>> tables_;
  bool committed_ = false;
};

}  // namespace

namespace {
// The cells a block column of `type` gives, and how many of them.
std::size_t block_cells(const BlockColumn& c, ColumnType type) {
  switch (type) {
    case ColumnType::F64: return c.f64.size();
    case ColumnType::Str: return c.str.size();
    default: return c.ints.size();
  }
}
// Throws std::logic_error unless block column `c` (of its own type) gives `rows` cells and
// nothing in the spans its type does not read.
void check_block_column(const std::string& table, std::size_t index, const BlockColumn& c, std::size_t rows) {
  const std::size_t given = c.f64.size() + c.ints.size() + c.str.size();
  if (block_cells(c, c.type) != rows || given != rows)
    throw std::logic_error("trace table " + table + ": block column " + std::to_string(index) + " (" +
                           type_name(c.type) + ") has " + std::to_string(given) + " cells for " +
                           std::to_string(rows) + " rows");
}
}  // namespace

void check_block(const std::string& label, const std::string& table, const std::vector<Column>& columns,
                 std::size_t rows, std::span<const BlockColumn> block) {
  if (block.size() != columns.size())
    throw std::logic_error("trace table " + table + ": a block of " + std::to_string(block.size()) +
                           " columns for " + std::to_string(columns.size()));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const Column& col = columns[c];
    const BlockColumn& b = block[c];
    if (b.type != col.type)
      throw std::logic_error("trace table " + table + "." + col.name + " is " + type_name(col.type) +
                             ", given a block of " + type_name(b.type));
    check_block_column(table, c, b, rows);
    switch (col.type) {
      case ColumnType::F64:
      case ColumnType::I64: break;
      case ColumnType::I32:
        for (const std::int64_t v : b.ints)
          if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
            throw std::logic_error("trace table " + table + "." + col.name + ": " + std::to_string(v) +
                                   " is not an int32");
        break;
      case ColumnType::Enum8:
      case ColumnType::Enum:
        for (const std::int64_t v : b.ints)
          if (v < 0 || static_cast<std::uint64_t>(v) >= col.enum_labels.size())
            throw std::logic_error("trace table " + table + "." + col.name + ": enum value " + std::to_string(v) +
                                   " has no label");
        break;
      case ColumnType::Str:
        for (const std::string_view v : b.str) {
          // As the one-cell setter: cells are null-padded, so an embedded NUL would cut the value.
          if (v.find('\0') != std::string_view::npos)
            throw Error("trace '" + label + "': " + table + "." + col.name + ": string contains a NUL byte");
          if (v.size() > col.str_bytes)
            throw InternalError("trace '" + label + "': a string of " + std::to_string(v.size()) +
                                " bytes for column " + table + "." + col.name + ", " + std::to_string(col.str_bytes) +
                                " bytes wide (its source should have been bounded at load)");
        }
        break;
    }
  }
}

void Table::write_block(std::size_t rows, std::span<const BlockColumn> block) {
  for (std::size_t c = 0; c < block.size(); ++c) check_block_column("(a block)", c, block[c], rows);
  for (std::size_t r = 0; r < rows; ++r) {
    begin_row();
    for (std::size_t c = 0; c < block.size(); ++c) {
      const BlockColumn& b = block[c];
      switch (b.type) {
        case ColumnType::F64: f64(c, b.f64[r]); break;
        case ColumnType::I64: i64(c, b.ints[r]); break;
        case ColumnType::I32:
          if (b.ints[r] < std::numeric_limits<std::int32_t>::min() || b.ints[r] > std::numeric_limits<std::int32_t>::max())
            throw std::logic_error("trace table: block column " + std::to_string(c) + ": " + std::to_string(b.ints[r]) +
                                   " is not an int32");
          i32(c, static_cast<std::int32_t>(b.ints[r]));
          break;
        case ColumnType::Str: str(c, b.str[r]); break;
        case ColumnType::Enum8:
          if (b.ints[r] < 0 || b.ints[r] > 255)
            throw std::logic_error("trace table: block column " + std::to_string(c) + ": enum value " +
                                   std::to_string(b.ints[r]) + " has no label");
          enum8(c, static_cast<std::uint8_t>(b.ints[r]));
          break;
        case ColumnType::Enum:
          if (b.ints[r] < 0 || b.ints[r] > std::numeric_limits<std::uint32_t>::max())
            throw std::logic_error("trace table: block column " + std::to_string(c) + ": enum value " +
                                   std::to_string(b.ints[r]) + " has no label");
          enum_value(c, static_cast<std::uint32_t>(b.ints[r]));
          break;
      }
    }
  }
}

std::unique_ptr<TraceFile> TraceFile::create(const std::string& final_path, const TraceOptions& options) {
  return std::make_unique<Hdf5TraceFile>(final_path, options);
}

}  // namespace gcsim::trace
