// HDF5 error plumbing for sim/trace: silencing the library's stderr output and turning
// its error stack into a short message for gcsim::Error.
#include "sim/trace/hdf5_support.hpp"

#include "sim/errors.hpp"

namespace gcsim::trace::detail {

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

namespace {

herr_t take_first(unsigned /*n*/, const H5E_error2_t* err, void* client) {
  auto* out = static_cast<std::string*>(client);
  if (out->empty() && err != nullptr && err->desc != nullptr) *out = err->desc;
  return 0;
}

}  // namespace

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
