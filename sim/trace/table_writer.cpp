// HDF5 implementation of TraceFile and Table (sim/trace/table_writer.hpp).
//
// Each table is a 1-D dataset of a packed compound type, chunked (chunk_rows rows per
// chunk), shuffled and deflated at level 4, with unlimited maximum size. Rows are
// assembled in a packed byte buffer in the memory layout of that compound and appended
// one whole chunk at a time, so every chunk is compressed exactly once and memory stays
// bounded however long the run. String cells hold an offset into a per-table arena until
// the chunk is written; the offsets become char* only just before H5Dwrite, because the
// arena may move while it grows.
//
// Reproducibility: object time tracking is off for the file (root group) and every
// dataset, and the library's default (earliest) file format is kept, so the same calls
// give the same bytes.
#include "sim/trace/table_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "sim/atomic_file.hpp"
#include "sim/errors.hpp"
#include "sim/trace/hdf5_support.hpp"

namespace gcsim::trace {

namespace {

using detail::Hid;
using detail::with_hdf5_detail;

// HDF5's limit on one chunk (bytes), minus headroom for filter overhead.
constexpr std::size_t MAX_CHUNK_BYTES = std::size_t{1} << 31;

std::size_t memory_size(ColumnType type) {
  switch (type) {
    case ColumnType::F64:
    case ColumnType::I64: return 8;
    case ColumnType::I32: return 4;
    case ColumnType::Str: return sizeof(char*);
    case ColumnType::Enum8: return 1;
  }
  throw std::logic_error("unknown ColumnType");
}

const char* type_name(ColumnType type) {
  switch (type) {
    case ColumnType::F64: return "f64";
    case ColumnType::I64: return "i64";
    case ColumnType::I32: return "i32";
    case ColumnType::Str: return "str";
    case ColumnType::Enum8: return "enum8";
  }
  return "?";
}

bool valid_object_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

class Hdf5Table final : public Table {
 public:
  Hdf5Table(const std::string& file_path, hid_t file, const std::string& name, std::vector<Column> columns,
            std::size_t chunk_rows)
      : file_path_(file_path), name_(name), columns_(std::move(columns)), chunk_rows_(chunk_rows) {
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
      if (c.type == ColumnType::Enum8) {
        if (c.enum_labels.empty() || c.enum_labels.size() > 256) {
          throw Error("trace '" + file_path_ + "': enum column '" + name + "." + c.name +
                      "' needs 1 to 256 labels");
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
                    "' has enum labels but is not Enum8");
      }
      offsets_.push_back(row_size_);
      row_size_ += memory_size(c.type);
    }
    if (row_size_ * chunk_rows_ / chunk_rows_ != row_size_ || row_size_ * chunk_rows_ > MAX_CHUNK_BYTES) {
      throw Error("trace '" + file_path_ + "': table '" + name + "': chunk of " + std::to_string(chunk_rows_) +
                  " rows is too large");
    }

    // An empty row: NaN in floats, zeros elsewhere (string slot 0 means "").
    default_row_.assign(row_size_, std::byte{0});
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].type == ColumnType::F64) std::memcpy(default_row_.data() + offsets_[i], &nan, sizeof nan);
    }

    mem_type_ = make_compound(/*file_layout=*/false);
    Hid file_type = make_compound(/*file_layout=*/true);

    const hsize_t dims[1] = {0};
    const hsize_t maxdims[1] = {H5S_UNLIMITED};
    Hid space(H5Screate_simple(1, dims, maxdims), H5Sclose);
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    const hsize_t chunk[1] = {static_cast<hsize_t>(chunk_rows_)};
    if (!space.valid() || !dcpl.valid() || H5Pset_chunk(dcpl.get(), 1, chunk) < 0 ||
        H5Pset_shuffle(dcpl.get()) < 0 || H5Pset_deflate(dcpl.get(), 4) < 0 ||
        H5Pset_obj_track_times(dcpl.get(), false) < 0) {
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
    // HDF5 strings are NUL-terminated: an embedded NUL would silently cut the value.
    if (value.find('\0') != std::string_view::npos) {
      throw Error("trace '" + file_path_ + "': " + name_ + "." + columns_[column].name +
                  ": string contains a NUL byte");
    }
    std::uint64_t tag = 0;  // 0: the empty string, no arena bytes needed
    if (!value.empty()) {
      tag = arena_.size() + 1;
      arena_.append(value);
      arena_.push_back('\0');
    }
    static_assert(sizeof(char*) == sizeof(std::uint64_t), "string slots hold a 64-bit tag before flush");
    std::memcpy(slot, &tag, sizeof tag);
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

  std::size_t rows() const override { return written_ + buffered_; }

  // Appends the buffered rows to the dataset and frees their string bytes.
  void flush() {
    if (buffered_ == 0) return;
    static const char EMPTY[] = "";
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].type != ColumnType::Str) continue;
      for (std::size_t r = 0; r < buffered_; ++r) {
        std::byte* slot = buffer_.data() + r * row_size_ + offsets_[i];
        std::uint64_t tag = 0;
        std::memcpy(&tag, slot, sizeof tag);
        const char* p = tag == 0 ? EMPTY : arena_.data() + (tag - 1);
        std::memcpy(slot, &p, sizeof p);
      }
    }
    const hsize_t new_size[1] = {static_cast<hsize_t>(written_ + buffered_)};
    const hsize_t start[1] = {static_cast<hsize_t>(written_)};
    const hsize_t count[1] = {static_cast<hsize_t>(buffered_)};
    bool ok = H5Dset_extent(dataset_.get(), new_size) >= 0;
    Hid file_space(ok ? H5Dget_space(dataset_.get()) : H5I_INVALID_HID, H5Sclose);
    Hid mem_space(H5Screate_simple(1, count, nullptr), H5Sclose);
    ok = ok && file_space.valid() && mem_space.valid() &&
         H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0 &&
         H5Dwrite(dataset_.get(), mem_type_.get(), mem_space.get(), file_space.get(), H5P_DEFAULT,
                  buffer_.data()) >= 0;
    // The rows are dropped either way: a failed write leaves a file that will not be
    // committed, and retrying with dangling string pointers would be worse.
    written_ += buffered_;
    buffered_ = 0;
    row_open_ = false;
    buffer_.clear();
    arena_.clear();
    if (arena_.capacity() > (std::size_t{64} << 20)) arena_.shrink_to_fit();
    if (!ok) throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot write table '" + name_ + "'"));
  }

  // Flushes and closes the dataset; later row calls are a programming error.
  void close() {
    if (closed_) return;
    closed_ = true;
    flush();
    if (!dataset_.reset() || !mem_type_.reset()) {
      throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot close table '" + name_ + "'"));
    }
  }

  // Closes without writing what is buffered (the file is being abandoned).
  void abandon() noexcept {
    closed_ = true;
    dataset_.reset();
    mem_type_.reset();
  }

 private:
  Hid make_compound(bool file_layout) const {
    Hid type(H5Tcreate(H5T_COMPOUND, row_size_), H5Tclose);
    if (!type.valid()) throw Error(with_hdf5_detail("trace '" + file_path_ + "': cannot create a row type"));
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const Column& c = columns_[i];
      Hid owned;  // for member types we create
      hid_t member = H5I_INVALID_HID;
      switch (c.type) {
        case ColumnType::F64: member = file_layout ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE; break;
        case ColumnType::I64: member = file_layout ? H5T_STD_I64LE : H5T_NATIVE_INT64; break;
        case ColumnType::I32: member = file_layout ? H5T_STD_I32LE : H5T_NATIVE_INT32; break;
        case ColumnType::Str:
          owned = detail::make_vlen_string_type(H5T_CSET_UTF8);
          member = owned.get();
          break;
        case ColumnType::Enum8: {
          owned = Hid(H5Tenum_create(file_layout ? H5T_STD_U8LE : H5T_NATIVE_UINT8), H5Tclose);
          bool ok = owned.valid();
          for (std::size_t v = 0; ok && v < c.enum_labels.size(); ++v) {
            const auto value = static_cast<std::uint8_t>(v);
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
  std::string arena_;              // NUL-terminated string bytes of the buffered rows
  std::size_t buffered_ = 0;
  std::size_t written_ = 0;
  bool row_open_ = false;
  bool closed_ = false;
  Hid mem_type_;
  Hid dataset_;
};

class Hdf5TraceFile final : public TraceFile {
 public:
  // The temporary file is created by AtomicFile (a fresh name, O_EXCL | O_NOFOLLOW) and
  // HDF5 then opens that name with truncation. Between the two, only someone allowed to
  // rename entries in the destination folder could swap the name for something else; the
  // device/inode check below then refuses the file before a byte is written to it.
  explicit Hdf5TraceFile(const std::string& final_path) : final_path_(final_path), temp_(final_path) {
    detail::silence_hdf5_errors();
    Hid fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    // Strong close: H5Fclose fails loudly rather than leaving the file open behind a
    // forgotten handle, so commit() never renames a file that was not fully written.
    // sec2 (plain POSIX I/O, HDF5's default) is named so that the handle check below
    // may read the descriptor as an int.
    if (!fcpl.valid() || !fapl.valid() || H5Pset_obj_track_times(fcpl.get(), false) < 0 ||
        H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0 || H5Pset_fapl_sec2(fapl.get()) < 0) {
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
    tables_.push_back(std::make_unique<Hdf5Table>(final_path_, file_.get(), name, std::move(columns), chunk_rows));
    return *tables_.back();
  }

  void set_attribute(const std::string& name, std::string_view value) override {
    if (value.find('\0') != std::string_view::npos) {
      throw Error("trace '" + final_path_ + "': attribute '" + name + "' contains a NUL byte");
    }
    Hid type = detail::make_vlen_string_type(H5T_CSET_UTF8);
    const std::string text(value);
    const char* p = text.c_str();
    write_attribute(name, type.get(), type.get(), &p);
  }
  void set_attribute(const std::string& name, double value) override {
    write_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }
  void set_attribute(const std::string& name, std::int64_t value) override {
    write_attribute(name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
  }

  void commit() override {
    check_open();
    for (auto& t : tables_) t->close();
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
  sim::AtomicFile temp_;  // declared before file_: HDF5 closes its handle first
  Hid file_;
  std::vector<std::unique_ptr<Hdf5Table>> tables_;
  bool committed_ = false;
};

}  // namespace

std::unique_ptr<TraceFile> TraceFile::create(const std::string& final_path) {
  return std::make_unique<Hdf5TraceFile>(final_path);
}

}  // namespace gcsim::trace
