// Names (see names.hpp).
#include "sim/config/names.hpp"

#include "sim/config/reader.hpp"

namespace gcsim::config {

void check_name_length(const ConfigNode& n, const std::string& name) {
  if (name.size() > MAX_NAME_BYTES)
    n.fail(ErrorCode::OutOfRange, "a name of " + std::to_string(name.size()) + " bytes; names are at most " +
                                      std::to_string(MAX_NAME_BYTES) + " bytes");
}

std::string read_name(const ConfigNode& n) {
  std::string s = read_string(n);
  check_name_length(n, s);
  for (char c : s) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      n.fail(ErrorCode::OutOfRange, "names may not contain '/', '\\' or control characters");
  }
  return s;
}

}  // namespace gcsim::config
