// Internal to sim/trace (not a public API): ownership of HDF5 identifiers and the error
// plumbing shared by the HDF5 writer and reader. The C API is used rather than HDF5's C++
// wrapper because the things we need for reproducible, checksummed files (object time
// tracking, file format bounds, filters, fixed-width UTF-8 strings inside packed compounds,
// enums) are plain C calls.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <utility>

namespace gcsim::trace::detail {

// Owns one HDF5 identifier and closes it with the matching H5?close function.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);

  Hid() = default;
  Hid(hid_t id, Closer close) : id_(id), close_(close) {}
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  ~Hid() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false when HDF5 reported a failure (e.g. a failed final flush).
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && close_ != nullptr) ok = close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

// HDF5 prints its whole error stack to stderr by default; we turn failures into
// gcsim::Error messages instead, so the printing is switched off (per thread).
void silence_hdf5_errors();
// silence_hdf5_errors() once on the calling thread (cheap after the first call).
void silence_hdf5_errors_here();

// The most specific message on HDF5's current error stack ("" if none), then clears it.
std::string take_hdf5_error();

// "<what>: <detail>" or just "<what>" when HDF5 left no message.
std::string with_hdf5_detail(const std::string& what);

// A fixed-length, null-padded UTF-8 string type of `bytes` bytes (at least 1).
Hid make_fixed_string_type(std::size_t bytes);

}  // namespace gcsim::trace::detail
