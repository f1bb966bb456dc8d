// HDF5 implementation of TraceReader (sim/trace/trace_reader.hpp).
//
// Untrusted files: nothing variable-length is ever read. HDF5 keeps such data in its
// global heap, which has no checksum, and a damaged heap crashes the library; so a file
// without the trace_format attribute (gcsim's format 1, variable-length strings) is refused
// with a message to re-run it, and a variable-length string anywhere else is refused too.
// Everything gcsim writes is checksummed (sim/trace/table_writer.hpp), so a damaged file
// gives an HDF5 failure here, which becomes a gcsim::Error naming the file and object.
// Declared sizes (rows, string widths, byte arrays) are checked against the file's size
// before anything is allocated for them.
//
// Columns are read through a memory compound type that holds only the requested members:
// HDF5 matches compound members by name, so readers are unaffected by added or
// reordered columns and never pay for converting the others (notably the strings).
// Reading is done in chunk-aligned blocks of rows; decompression dominates, which is why
// read_columns() and read_blocks() read several columns per pass. Integer and enum columns are widened to
// int64 here; HDF5 has no enum-to-integer conversion, so enums are read in their native
// base type and widened by hand.
#include "sim/trace/trace_reader.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include "sim/errors.hpp"
#include "sim/trace/chunk_filters.hpp"
#include "sim/trace/hdf5_support.hpp"
#include "sim/trace/raw_chunks.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::trace {

namespace {

using detail::Hid;
using detail::RawBuffers;
using detail::RawPlan;
using detail::block_rows_for;
using detail::raw_plan;
using detail::with_hdf5_detail;

// read_blocks() hands out blocks of whole chunks of at least this many rows: a few MiB of
// /jobs' columns, which stay in the cache while the caller moves them into its records,
// and few enough calls for small chunks (/preemptions' 1,024 rows).
constexpr hsize_t VISIT_ROWS = 16384;

std::string class_name(H5T_class_t cls) {
  switch (cls) {
    case H5T_INTEGER: return "an integer";
    case H5T_FLOAT: return "a float";
    case H5T_STRING: return "a string";
    case H5T_ENUM: return "an enum";
    case H5T_COMPOUND: return "a compound";
    default: return "of another HDF5 class";
  }
}

// Widens one integer of `size` bytes and the given signedness (native byte order).
std::int64_t widen(const unsigned char* p, std::size_t size, bool is_signed) {
  switch (size) {
    case 1: {
      std::uint8_t u;
      std::memcpy(&u, p, 1);
      return is_signed ? static_cast<std::int8_t>(u) : u;
    }
    case 2: {
      std::uint16_t u;
      std::memcpy(&u, p, 2);
      return is_signed ? static_cast<std::int16_t>(u) : u;
    }
    case 4: {
      std::uint32_t u;
      std::memcpy(&u, p, 4);
      return is_signed ? static_cast<std::int64_t>(static_cast<std::int32_t>(u)) : static_cast<std::int64_t>(u);
    }
    default: {
      std::uint64_t u;
      std::memcpy(&u, p, 8);
      return static_cast<std::int64_t>(u);
    }
  }
}

class Hdf5TraceReader final : public TraceReader {
 public:
  explicit Hdf5TraceReader(const std::string& path) : path_(path) {
    detail::silence_hdf5_errors();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error("trace '" + path + "': no such file");
    if (std::filesystem::is_directory(path, ec)) throw Error("trace '" + path + "': is a directory");
    // A FIFO or a device would make HDF5 wait for bytes forever (or read /dev/zero forever).
    if (!std::filesystem::is_regular_file(path, ec)) throw Error("trace '" + path + "': not a regular file");
    file_bytes_ = std::filesystem::file_size(path, ec);
    if (ec) throw Error("trace '" + path + "': cannot read its size: " + ec.message());
    const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    if (is_hdf5 == 0) {
      detail::take_hdf5_error();
      throw Error("trace '" + path + "': not an HDF5 file");
    }
    if (is_hdf5 < 0) throw Error(with_hdf5_detail("trace '" + path + "': cannot open"));
    file_ = Hid(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) throw Error(with_hdf5_detail("trace '" + path + "': cannot open"));
    check_format();
  }

  void check_format() const {
    const std::string& path = path_;
    if (!has_attribute(TRACE_FORMAT_ATTRIBUTE)) {
      throw Error("trace '" + path + "': no root attribute '" + TRACE_FORMAT_ATTRIBUTE +
                  "': written by an older gcsim (variable-length strings, no checksums), or not a gcsim trace; "
                  "re-run its scenario with this gcsim");
    }
    const std::int64_t format = attribute_int(TRACE_FORMAT_ATTRIBUTE);
    if (format != TRACE_FORMAT) {
      throw Error("trace '" + path + "': trace format " + std::to_string(format) + " is not supported (this gcsim reads format " +
                  std::to_string(TRACE_FORMAT) + ")");
    }
  }

  bool has_attribute(const std::string& name) const override {
    detail::silence_hdf5_errors_here();
    const htri_t r = H5Aexists(file_.get(), name.c_str());
    // Negative is not "absent": HDF5 could not look (the root's object header or its
    // attribute index failed its checksum or does not parse). Taking it for absent called
    // a damaged trace one "written by an older gcsim".
    if (r < 0) {
      throw Error(with_hdf5_detail("trace '" + path_ + "': cannot read the root attributes (looking for '" + name +
                                   "'): the file is damaged"));
    }
    return r > 0;
  }

  std::string attribute_string(const std::string& name) const override {
    detail::silence_hdf5_errors_here();
    Hid attr = open_attribute(name);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_STRING) type_error_attr(name, type.get(), "a string");
    if (H5Tis_variable_str(type.get()) != 0) variable_length_error("root attribute '" + name + "'");
    // Fixed-length: read the raw bytes and trim the padding. An attribute is stored whole,
    // so it cannot be larger than the file.
    const std::size_t size = H5Tget_size(type.get());
    Hid space(H5Aget_space(attr.get()), H5Sclose);
    if (size == 0 || size > file_bytes_ || H5Sget_simple_extent_npoints(space.get()) != 1) {
      throw Error("trace '" + path_ + "': root attribute '" + name + "' is not one string the file can hold");
    }
    std::string raw(size, '\0');
    if (H5Aread(attr.get(), type.get(), raw.data()) < 0) read_error("attribute '" + name + "'");
    return trim_fixed(raw.data(), size, H5Tget_strpad(type.get()));
  }

  double attribute_double(const std::string& name) const override {
    detail::silence_hdf5_errors_here();
    Hid attr = open_attribute(name);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) type_error_attr(name, type.get(), "a number");
    double value = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0) read_error("attribute '" + name + "'");
    return value;
  }

  std::int64_t attribute_int(const std::string& name) const override {
    detail::silence_hdf5_errors_here();
    Hid attr = open_attribute(name);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER) type_error_attr(name, type.get(), "an integer");
    std::int64_t value = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_INT64, &value) < 0) read_error("attribute '" + name + "'");
    return value;
  }

  std::uint64_t attribute_uint(const std::string& name) const override {
    detail::silence_hdf5_errors_here();
    Hid attr = open_attribute(name);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER) type_error_attr(name, type.get(), "an integer");
    if (H5Tget_sign(type.get()) == H5T_SGN_2 && H5Tget_size(type.get()) == sizeof(std::int64_t)) {
      // Written as int64 by a gcsim before 2026-12 from the uint64 it ran with: the same bits.
      std::int64_t value = 0;
      if (H5Aread(attr.get(), H5T_NATIVE_INT64, &value) < 0) read_error("attribute '" + name + "'");
      return static_cast<std::uint64_t>(value);
    }
    std::uint64_t value = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_UINT64, &value) < 0) read_error("attribute '" + name + "'");
    return value;
  }

  bool has_table(const std::string& table) const override {
    detail::silence_hdf5_errors_here();
    const htri_t exists = H5Lexists(file_.get(), table.c_str(), H5P_DEFAULT);
    if (exists <= 0) {
      detail::take_hdf5_error();  // intermediate groups missing also land here
      return false;
    }
    Hid obj(H5Oopen(file_.get(), table.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) {
      detail::take_hdf5_error();
      return false;
    }
    return H5Iget_type(obj.get()) == H5I_DATASET;
  }

  bool has_column(const std::string& table, const std::string& column) const override {
    detail::silence_hdf5_errors_here();
    Hid dataset = open_table(table);
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    if (H5Tget_member_index(type.get(), column.c_str()) >= 0) return true;
    detail::take_hdf5_error();
    return false;
  }

  // Only where HDF5 was built thread-safe (Debian's is; a build configured with
  // GCSIM_ALLOW_SERIAL_HDF5 may not be).
  bool concurrent_reads() const override {
    hbool_t thread_safe = 0;
    return H5is_library_threadsafe(&thread_safe) >= 0 && thread_safe;
  }

  std::size_t rows(const std::string& table) const override { return row_count(open_table(table), table); }

  std::vector<double> column_f64(const std::string& table, const std::string& column) const override {
    detail::silence_hdf5_errors_here();
    Columns c = read_columns(table, {column});
    if (auto it = c.f64.find(column); it != c.f64.end()) return std::move(it->second);
    if (auto it = c.ints.find(column); it != c.ints.end()) {
      std::vector<std::int64_t>& ints = it->second;
      return std::vector<double>(ints.begin(), ints.end());
    }
    type_error_column(table, column, H5T_STRING, "a number");
  }

  std::vector<std::int64_t> column_int(const std::string& table, const std::string& column) const override {
    detail::silence_hdf5_errors_here();
    Columns c = read_columns(table, {column});
    if (auto it = c.ints.find(column); it != c.ints.end()) return std::move(it->second);
    type_error_column(table, column, c.f64.count(column) > 0 ? H5T_FLOAT : H5T_STRING, "an integer or enum");
  }

  std::vector<std::string> column_str(const std::string& table, const std::string& column) const override {
    detail::silence_hdf5_errors_here();
    Columns c = read_columns(table, {column});
    if (auto it = c.str.find(column); it != c.str.end()) return std::move(it->second);
    type_error_column(table, column, c.f64.count(column) > 0 ? H5T_FLOAT : H5T_INTEGER, "a string");
  }

  Columns read_columns(const std::string& table, const std::vector<std::string>& names) const override {
    detail::silence_hdf5_errors_here();
    Columns out;
    read_rows(table, names, /*whole=*/true, [&](std::size_t, Columns& block) { out = std::move(block); });
    return out;
  }

  void read_blocks(const std::string& table, const std::vector<std::string>& names,
                   const BlockVisitor& visit) const override {
    detail::silence_hdf5_errors_here();
    read_rows(table, names, /*whole=*/false, visit);
  }

  // The rows of `names` in blocks of whole chunks (VISIT_ROWS or more), or in one block
  // when `whole`, which is then handed out even for a table without rows (so that its
  // columns' kinds show).
  void read_rows(const std::string& table, const std::vector<std::string>& names, bool whole,
                 const BlockVisitor& visit) const {
    Hid dataset = open_table(table);
    const std::size_t rows = row_count(dataset, table);
    Hid file_type(H5Dget_type(dataset.get()), H5Tclose);

    // One memory compound with just the requested members, each in the type we widen from.
    std::vector<Field> fields;
    std::size_t row_size = 0;
    for (const std::string& name : names) {
      if (std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; })) continue;
      Field f = plan_field(table, file_type.get(), name);
      f.offset = row_size;
      row_size += f.size;
      fields.push_back(std::move(f));
    }
    Columns block;
    if (fields.empty()) {
      if (whole) visit(0, block);
      return;
    }
    Hid mem(H5Tcreate(H5T_COMPOUND, row_size), H5Tclose);
    if (!mem.valid()) read_error("table '/" + table + "'");
    for (Field& f : fields) {
      if (H5Tinsert(mem.get(), f.name.c_str(), f.offset, f.mem_type.get()) < 0) read_error(table + "." + f.name);
      switch (f.kind) {
        case Kind::Float: f.f64 = &block.f64[f.name]; break;
        case Kind::Int:
        case Kind::Enum: f.ints = &block.ints[f.name]; break;
        case Kind::FixedStr: f.str = &block.str[f.name]; break;
      }
    }
    // Every column of the block `count` rows long (strings kept, to be assigned over).
    const auto size_block = [&](std::size_t count) {
      for (Field& f : fields) {
        switch (f.kind) {
          case Kind::Float: f.f64->resize(count); break;
          case Kind::Int:
          case Kind::Enum: f.ints->resize(count); break;
          case Kind::FixedStr: f.str->resize(count); break;
        }
      }
    };
    if (rows == 0) {
      if (whole) visit(0, block);
      return;
    }

    Hid file_space(H5Dget_space(dataset.get()), H5Sclose);
    std::vector<unsigned char> buffer;
    // Rows [start, start + count) of the table into the block from its row `at`.
    const auto scatter_rows = [&](const unsigned char* rows_at, hsize_t count, std::size_t at) {
      for (hsize_t i = 0; i < count; ++i) {
        const unsigned char* row = rows_at + i * row_size;
        for (const Field& f : fields) scatter(f, row + f.offset, at + static_cast<std::size_t>(i));
      }
    };
    const auto read_through_hdf5 = [&](hsize_t start, hsize_t count, std::size_t at) {
      buffer.assign(count * row_size, 0);
      Hid mem_space(H5Screate_simple(1, &count, nullptr), H5Sclose);
      if (!mem_space.valid() ||
          H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr) < 0 ||
          H5Dread(dataset.get(), mem.get(), mem_space.get(), file_space.get(), H5P_DEFAULT, buffer.data()) < 0) {
        read_error("table '/" + table + "'");
      }
      scatter_rows(buffer.data(), count, at);
    };
    const RawPlan raw = raw_plan(dataset, file_type.get());
    const hsize_t chunk_rows = raw.usable ? raw.chunk_rows : block_rows_for(dataset);
    const hsize_t block_rows = whole ? static_cast<hsize_t>(rows) : chunk_rows * std::max<hsize_t>(1, VISIT_ROWS / chunk_rows);
    // When every column's file type is its memory type (a little-endian machine reading
    // what gcsim writes), the cells are taken from the decoded rows as they are, as
    // H5Tconvert's no-op conversion would, and narrower integers are widened by hand;
    // otherwise H5Tconvert converts them.
    const bool as_stored =
        std::all_of(fields.begin(), fields.end(), [](const Field& f) { return f.as_stored || f.stored_int_size != 0; });
    // The rows go by batches of whole chunks (a block's rows, or VISIT_ROWS or more of the
    // one block `whole` asks for). Each batch's chunks are fetched as stored (HDF5, on this
    // thread), decoded (inflated, unshuffled, checked: no HDF5), then copied into the
    // block's columns. With more than one batch of rows taken as stored, a second thread
    // decodes batch k + 1 while this one fetches the batch after it and copies batch k:
    // decoding is about half of reading a table (a million-job trace: 0.6 of 1.4 s).
    const hsize_t batch_rows = chunk_rows * std::max<hsize_t>(1, VISIT_ROWS / chunk_rows);
    struct Batch {
      hsize_t first = 0;
      hsize_t count = 0;
      std::vector<RawBuffers> chunks;
      std::vector<char> ok;  // fetched and decoded; else the chunk is read through H5Dread
    };
    Batch slots[2];
    const auto fetch = [&](Batch& b, hsize_t first) {
      b.first = first;
      b.count = std::min<hsize_t>(batch_rows, rows - first);
      const std::size_t n = static_cast<std::size_t>((b.count + chunk_rows - 1) / chunk_rows);
      if (b.chunks.size() < n) b.chunks.resize(n);
      b.ok.assign(n, 0);
      for (std::size_t i = 0; i < n; ++i)
        b.ok[i] = raw.usable && detail::fetch_chunk_raw(dataset, first + i * chunk_rows, b.chunks[i]);
    };
    const auto decode = [&](Batch& b) {
      for (std::size_t i = 0; i < b.ok.size(); ++i) {
        const hsize_t count = std::min<hsize_t>(chunk_rows, b.count - i * chunk_rows);
        if (b.ok[i]) b.ok[i] = detail::decode_chunk_raw(raw, count, b.chunks[i]);
      }
    };
    hsize_t block_first = 0;
    const auto copy = [&](Batch& b) {
      if (b.first % block_rows == 0) {
        block_first = b.first;
        size_block(static_cast<std::size_t>(std::min<hsize_t>(block_rows, rows - block_first)));
      }
      for (std::size_t i = 0; i < b.ok.size(); ++i) {
        const hsize_t start = b.first + i * chunk_rows;
        const hsize_t count = std::min<hsize_t>(chunk_rows, b.count - i * chunk_rows);
        const auto at = static_cast<std::size_t>(start - block_first);
        RawBuffers& c = b.chunks[i];
        if (!b.ok[i] || (!as_stored && !detail::convert_chunk_raw(file_type.get(), mem.get(), raw, count, row_size, c))) {
          read_through_hdf5(start, count, at);
        } else if (!as_stored) {
          scatter_rows(c.converted.data(), count, at);
        } else {
          const unsigned char* stored_rows = reinterpret_cast<const unsigned char*>(c.decoded.data());
          // Column by column, each a loop over one kind and size of cell.
          for (const Field& f : fields)
            copy_column(f, stored_rows + f.file_offset, raw.file_row_bytes, static_cast<std::size_t>(count), at);
        }
      }
      const hsize_t end = b.first + b.count;
      if (end == rows || end % block_rows == 0) visit(static_cast<std::size_t>(block_first), block);
    };
    // Declared after what its tasks use: it is gone (waiting for its task) before they are.
    std::optional<detail::DecodeThread> helper;
    if (raw.usable && as_stored && rows > batch_rows) {
      try {
        helper.emplace();
      } catch (const std::system_error&) {  // no thread to be had: decoded on this one
      }
    }
    fetch(slots[0], 0);
    if (helper) helper->start([&] { decode(slots[0]); });
    else decode(slots[0]);
    for (std::size_t k = 0;; ++k) {
      Batch& b = slots[k % 2];
      Batch& next = slots[(k + 1) % 2];
      const hsize_t after = b.first + b.count;
      if (after < rows) fetch(next, after);
      if (helper) helper->wait();
      if (after < rows) {
        if (helper) helper->start([&decode, &next] { decode(next); });
        else decode(next);
      }
      copy(b);
      if (after >= rows) break;
    }
  }

  std::string bytes(const std::string& name, std::uint64_t offset, std::uint64_t size) const override {
    detail::silence_hdf5_errors_here();
    if (!has_table(name)) throw Error("trace '" + path_ + "': no dataset '/" + name + "'");
    Hid dataset(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) read_error("dataset '/" + name + "'");
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != 1 || !space.valid() ||
        H5Sget_simple_extent_ndims(space.get()) != 1) {
      throw Error("trace '" + path_ + "': '/" + name + "' is not a byte array (a 1-D dataset of 8-bit integers)");
    }
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (offset > dims[0] || size > dims[0] - offset) {
      throw Error("trace '" + path_ + "': bytes " + std::to_string(offset) + " to " + std::to_string(offset + size) +
                  " are outside '/" + name + "' (" + std::to_string(dims[0]) + " bytes; a damaged file)");
    }
    check_declared(static_cast<double>(size), "dataset '/" + name + "'");
    std::string out(size, '\0');
    if (size == 0) return out;
    const hsize_t start[1] = {offset};
    const hsize_t count[1] = {size};
    Hid mem_space(H5Screate_simple(1, count, nullptr), H5Sclose);
    if (!mem_space.valid() || H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(dataset.get(), H5T_NATIVE_UCHAR, mem_space.get(), space.get(), H5P_DEFAULT, out.data()) < 0) {
      read_error("dataset '/" + name + "'");
    }
    return out;
  }

  std::vector<std::string> enum_labels(const std::string& table, const std::string& column) const override {
    detail::silence_hdf5_errors_here();
    Member m = open_member(table, column);
    if (m.cls != H5T_ENUM) type_error_column(table, column, m.cls, "an enum");
    Hid native(H5Tget_native_type(m.type.get(), H5T_DIR_ASCEND), H5Tclose);
    Hid base(native.valid() ? H5Tget_super(native.get()) : H5I_INVALID_HID, H5Tclose);
    const int n = native.valid() ? H5Tget_nmembers(native.get()) : -1;
    if (!base.valid() || n < 0) read_error(table + "." + column);
    const std::size_t size = H5Tget_size(native.get());
    const bool is_signed = H5Tget_sign(base.get()) == H5T_SGN_2;
    std::vector<std::string> labels;
    std::vector<unsigned char> value(size);
    for (int i = 0; i < n; ++i) {
      char* name = H5Tget_member_name(native.get(), static_cast<unsigned>(i));
      if (name == nullptr || H5Tget_member_value(native.get(), static_cast<unsigned>(i), value.data()) < 0) {
        if (name != nullptr) H5free_memory(name);
        read_error(table + "." + column);
      }
      const std::string label = name;
      H5free_memory(name);
      const std::int64_t v = widen(value.data(), size, is_signed);
      // Labels are indexed by value; a sparse or huge mapping is not one TraceFile writes.
      if (v < 0 || v >= static_cast<std::int64_t>(MAX_ENUM_LABELS)) {
        throw Error("trace '" + path_ + "': enum " + table + "." + column + " has value " + std::to_string(v) +
                    " out of the supported range 0.." + std::to_string(MAX_ENUM_LABELS - 1));
      }
      if (static_cast<std::size_t>(v) >= labels.size()) labels.resize(static_cast<std::size_t>(v) + 1);
      labels[static_cast<std::size_t>(v)] = label;
    }
    return labels;
  }

 private:
  enum class Kind { Float, Int, Enum, FixedStr };

  // How one requested column is read and where it goes.
  struct Field {
    std::string name;
    Kind kind = Kind::Float;
    Hid mem_type;
    std::size_t offset = 0;
    std::size_t size = 0;
    std::size_t file_offset = 0;         // in a row of the file's type
    bool as_stored = false;              // the member's file type is its memory type: copied, not converted
    // Int: the member is a native-order integer that int64 holds whatever its value (signed of
    // 1, 2, 4 or 8 bytes, unsigned of 1, 2 or 4), widened by hand from the stored row as
    // H5Tconvert would (which holds HDF5's lock); 0: converted by HDF5.
    std::size_t stored_int_size = 0;
    bool is_signed = true;               // Enum: signedness of the base type; Int: of the member
    H5T_str_t pad = H5T_STR_NULLTERM;    // FixedStr
    std::vector<double>* f64 = nullptr;
    std::vector<std::int64_t>* ints = nullptr;
    std::vector<std::string>* str = nullptr;
  };

  Field plan_field(const std::string& table, hid_t file_type, const std::string& name) const {
    const int index = H5Tget_member_index(file_type, name.c_str());
    if (index < 0) {
      detail::take_hdf5_error();
      throw Error("trace '" + path_ + "': table '/" + table + "' has no column '" + name + "'");
    }
    Hid member(H5Tget_member_type(file_type, static_cast<unsigned>(index)), H5Tclose);
    if (!member.valid()) read_error(table + "." + name);
    Field f;
    f.name = name;
    switch (H5Tget_class(member.get())) {
      case H5T_FLOAT:
        f.kind = Kind::Float;
        f.mem_type = Hid(H5Tcopy(H5T_NATIVE_DOUBLE), H5Tclose);
        break;
      case H5T_INTEGER: {
        f.kind = Kind::Int;
        f.mem_type = Hid(H5Tcopy(H5T_NATIVE_INT64), H5Tclose);
        const std::size_t bytes = H5Tget_size(member.get());
        f.is_signed = H5Tget_sign(member.get()) == H5T_SGN_2;
        const bool native_order = H5Tget_order(member.get()) == H5Tget_order(H5T_NATIVE_INT64);
        const bool fits = f.is_signed ? (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)
                                      : (bytes == 1 || bytes == 2 || bytes == 4);
        if (native_order && fits) f.stored_int_size = bytes;
        break;
      }
      case H5T_ENUM: {
        // No enum-to-integer conversion exists in HDF5: read the native enum, widen by hand.
        f.kind = Kind::Enum;
        f.mem_type = Hid(H5Tget_native_type(member.get(), H5T_DIR_ASCEND), H5Tclose);
        Hid base(f.mem_type.valid() ? H5Tget_super(f.mem_type.get()) : H5I_INVALID_HID, H5Tclose);
        if (!base.valid()) read_error(table + "." + name);
        f.is_signed = H5Tget_sign(base.get()) == H5T_SGN_2;
        break;
      }
      case H5T_STRING:
        if (H5Tis_variable_str(member.get()) != 0) variable_length_error("column " + table + "." + name);
        f.kind = Kind::FixedStr;
        f.mem_type = Hid(H5Tcopy(member.get()), H5Tclose);
        f.pad = H5Tget_strpad(member.get());
        break;
      default:
        type_error_column(table, name, H5Tget_class(member.get()), "a number, enum or string");
    }
    if (!f.mem_type.valid()) read_error(table + "." + name);
    f.size = H5Tget_size(f.mem_type.get());
    f.file_offset = H5Tget_member_offset(file_type, static_cast<unsigned>(index));
    f.as_stored = H5Tequal(member.get(), f.mem_type.get()) > 0;
    detail::take_hdf5_error();
    return f;
  }

  // `count` cells `stride` bytes apart, as stored (Field::as_stored or stored_int_size),
  // into rows [at, at + count) of the field's column.
  static void copy_column(const Field& f, const unsigned char* cell, std::size_t stride, std::size_t count,
                          std::size_t at) {
    const auto ints = [&](auto stored) {
      using Stored = decltype(stored);
      std::int64_t* out = f.ints->data() + at;
      for (std::size_t i = 0; i < count; ++i, cell += stride) {
        Stored v;
        std::memcpy(&v, cell, sizeof v);
        out[i] = static_cast<std::int64_t>(v);
      }
    };
    if (f.kind == Kind::Float) {
      double* out = f.f64->data() + at;
      for (std::size_t i = 0; i < count; ++i, cell += stride) std::memcpy(&out[i], cell, sizeof(double));
      return;
    }
    const std::size_t int_size = f.kind == Kind::Int ? f.stored_int_size : f.kind == Kind::Enum ? f.size : 0;
    if (int_size != 0) {
      switch (int_size + (f.is_signed ? 8 : 0)) {
        case 1: return ints(std::uint8_t{});
        case 2: return ints(std::uint16_t{});
        case 4: return ints(std::uint32_t{});
        case 8: return ints(std::uint64_t{});  // as widen() does: the same bits
        case 9: return ints(std::int8_t{});
        case 10: return ints(std::int16_t{});
        case 12: return ints(std::int32_t{});
        case 16: return ints(std::int64_t{});
        default: break;
      }
    }
    for (std::size_t i = 0; i < count; ++i, cell += stride) {
      if (f.kind == Kind::Int && f.stored_int_size != 0)
        (*f.ints)[at + i] = widen(cell, f.stored_int_size, f.is_signed);
      else
        scatter(f, cell, at + i);
    }
  }

  static void scatter(const Field& f, const unsigned char* cell, std::size_t row) {
    switch (f.kind) {
      case Kind::Float: std::memcpy(&(*f.f64)[row], cell, sizeof(double)); break;
      case Kind::Int: std::memcpy(&(*f.ints)[row], cell, sizeof(std::int64_t)); break;
      case Kind::Enum: (*f.ints)[row] = widen(cell, f.size, f.is_signed); break;
      case Kind::FixedStr: assign_trimmed((*f.str)[row], reinterpret_cast<const char*>(cell), f.size, f.pad); break;
    }
  }

  struct Member {
    Hid dataset;
    Hid type;  // the member's file type
    H5T_class_t cls = H5T_NO_CLASS;
    std::size_t rows = 0;
  };

  static std::size_t trimmed_size(const char* p, std::size_t size, H5T_str_t pad) {
    std::size_t n = 0;
    while (n < size && p[n] != '\0') ++n;
    if (pad == H5T_STR_SPACEPAD) {
      while (n > 0 && p[n - 1] == ' ') --n;
    }
    return n;
  }
  static std::string trim_fixed(const char* p, std::size_t size, H5T_str_t pad) {
    return std::string(p, trimmed_size(p, size, pad));
  }
  // Into a string of the block: its capacity is reused from block to block.
  static void assign_trimmed(std::string& out, const char* p, std::size_t size, H5T_str_t pad) {
    out.assign(p, trimmed_size(p, size, pad));
  }

  Hid open_attribute(const std::string& name) const {
    if (!has_attribute(name)) throw Error("trace '" + path_ + "': no root attribute '" + name + "'");
    Hid attr(H5Aopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) read_error("attribute '" + name + "'");
    return attr;
  }

  Hid open_table(const std::string& table) const {
    if (!has_table(table)) throw Error("trace '" + path_ + "': no table '/" + table + "'");
    Hid dataset(H5Dopen2(file_.get(), table.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) read_error("table '/" + table + "'");
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_COMPOUND) {
      throw Error("trace '" + path_ + "': '/" + table + "' is not a table (not a compound dataset)");
    }
    return dataset;
  }

  std::size_t row_count(const Hid& dataset, const std::string& table) const {
    Hid space(H5Dget_space(dataset.get()), H5Sclose);
    if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1) {
      throw Error("trace '" + path_ + "': table '/" + table + "' is not one-dimensional");
    }
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    // A crafted file may declare billions of rows in a few bytes: what it declares must be
    // storable in what it is.
    Hid type(H5Dget_type(dataset.get()), H5Tclose);
    const std::size_t size = type.valid() ? H5Tget_size(type.get()) : 0;
    if (size == 0) read_error("table '/" + table + "'");
    check_declared(static_cast<double>(dims[0]) * static_cast<double>(size),
                   "table '/" + table + "' (" + std::to_string(dims[0]) + " rows)");
    return static_cast<std::size_t>(dims[0]);
  }

  // Deflate packs at most about 1032 bytes into one, so `bytes` of data need at least
  // bytes / 1032 of the file (plus a little for headers: MIN_BYTES).
  void check_declared(double bytes, const std::string& what) const {
    constexpr double MAX_PACKING = 1100.0;
    constexpr double MIN_BYTES = 1 << 20;
    if (bytes > MAX_PACKING * static_cast<double>(file_bytes_) + MIN_BYTES) {
      throw Error("trace '" + path_ + "': " + what + " declares more than a file of " + std::to_string(file_bytes_) +
                  " bytes can hold (a damaged or foreign file)");
    }
  }

  [[noreturn]] void variable_length_error(const std::string& what) const {
    throw Error("trace '" + path_ + "': " + what +
                " is a variable-length string, which gcsim does not read (written by an older gcsim or another "
                "tool; re-run its scenario with this gcsim)");
  }

  Member open_member(const std::string& table, const std::string& column) const {
    Member m;
    m.dataset = open_table(table);
    m.rows = row_count(m.dataset, table);
    Hid type(H5Dget_type(m.dataset.get()), H5Tclose);
    const int index = H5Tget_member_index(type.get(), column.c_str());
    if (index < 0) {
      detail::take_hdf5_error();
      throw Error("trace '" + path_ + "': table '/" + table + "' has no column '" + column + "'");
    }
    m.type = Hid(H5Tget_member_type(type.get(), static_cast<unsigned>(index)), H5Tclose);
    m.cls = H5Tget_member_class(type.get(), static_cast<unsigned>(index));
    if (!m.type.valid()) read_error(table + "." + column);
    return m;
  }

  [[noreturn]] void read_error(const std::string& what) const {
    throw Error(with_hdf5_detail("trace '" + path_ + "': cannot read " + what));
  }

  [[noreturn]] void type_error_attr(const std::string& name, hid_t type, const std::string& wanted) const {
    throw Error("trace '" + path_ + "': root attribute '" + name + "' is " + class_name(H5Tget_class(type)) +
                ", not " + wanted);
  }

  [[noreturn]] void type_error_column(const std::string& table, const std::string& column, H5T_class_t cls,
                                      const std::string& wanted) const {
    throw Error("trace '" + path_ + "': column '" + column + "' of table '/" + table + "' is " + class_name(cls) +
                ", not " + wanted);
  }

  std::string path_;
  std::uintmax_t file_bytes_ = 0;
  Hid file_;
};

}  // namespace

void TraceReader::read_blocks(const std::string& table, const std::vector<std::string>& columns,
                              const BlockVisitor& visit) const {
  Columns all = read_columns(table, columns);
  std::size_t n = 0;
  for (const auto& [name, v] : all.f64) n = v.size();
  for (const auto& [name, v] : all.ints) n = v.size();
  for (const auto& [name, v] : all.str) n = v.size();
  if (n > 0) visit(0, all);
}

std::unique_ptr<TraceReader> TraceReader::open(const std::string& path) {
  return std::make_unique<Hdf5TraceReader>(path);
}

}  // namespace gcsim::trace
