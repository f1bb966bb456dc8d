// HDF5 error plumbing for sim/trace: silencing the library's stderr output and turning
// its error stack into a short message for gcsim::Error.
#include "sim/trace/hdf5_support.hpp"

#include "sim/errors.hpp"

namespace gcsim::trace::detail {

void silence_hdf5_errors() {
  // HDF5 closes whatever is still open from an atexit handler. A file whose close failed
  // (a full disk, a file-size limit: its final flush could not be written) stays in the
  // library's table, and HDF5 1.10's close callback then crashes on it at exit
  // (H5F__close_cb), turning a clear error and exit code 2 into a segmentation fault. gcsim
  // closes every file it opens itself and throws away a file whose close failed, so the
  // handler has nothing to do: it is turned off, once, before any other HDF5 call (as
  // H5dont_atexit requires; every HDF5 use in gcsim starts here).
  static const bool no_atexit = H5dont_atexit() >= 0;
  (void)no_atexit;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

namespace {

// HDF5's POSIX driver describes a failed read or write with a dump of its arguments
// ("file write failed: time = ..., filename = ..., errno = 27, error message = 'File too
// large', buf = 0x..."): only the operation and the system's reason are kept.
std::string short_io_error(const std::string& desc) {
  const std::string key = "error message = '";
  const auto at = desc.find(key);
  const auto colon = desc.find(':');
  if (at == std::string::npos || colon == std::string::npos || colon > at) return desc;
  const auto end = desc.find('\'', at + key.size());
  if (end == std::string::npos) return desc;
  return desc.substr(0, colon) + ": " + desc.substr(at + key.size(), end - at - key.size());
}

herr_t take_first(unsigned /*n*/, const H5E_error2_t* err, void* client) {
  auto* out = static_cast<std::string*>(client);
  if (out->empty() && err != nullptr && err->desc != nullptr) *out = short_io_error(err->desc);
  return 0;
}

}  // namespace

void silence_hdf5_errors_here() {
  // HDF5's automatic error printing is a setting of each thread (thread-safe HDF5 keeps an
  // error stack per thread): a reader used from a second thread silences it there too.
  thread_local const bool silenced = [] {
    silence_hdf5_errors();
    return true;
  }();
  (void)silenced;
}

std::string take_hdf5_error() {
  std::string message;
  // Upward walk starts at the function that detected the failure: its description
  // ("unable to open file", "no such file or directory"...) is the useful one.
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_first, &message);
  H5Eclear2(H5E_DEFAULT);
  return message;
}

std::string with_hdf5_detail(const std::string& what) {
  const std::string detail = take_hdf5_error();
  return detail.empty() ? what : what + ": " + detail;
}

Hid make_fixed_string_type(std::size_t bytes) {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.get(), bytes) < 0 || H5Tset_strpad(type.get(), H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) {
    throw Error(with_hdf5_detail("cannot create an HDF5 string type"));
  }
  return type;
}

}  // namespace gcsim::trace::detail
