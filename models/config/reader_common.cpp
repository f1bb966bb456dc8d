// The shared small readers (see reader_common.hpp).
#include "models/config/reader_common.hpp"

#include "sim/config/reader.hpp"

namespace gcsim::models {

std::string read_name(const config::ConfigNode& n) {
  std::string s = config::read_string(n);
  for (char c : s) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      n.fail(ErrorCode::OutOfRange, "names may not contain '/', '\\' or control characters");
  }
  return s;
}

Precision read_precision(const config::ConfigNode& n) {
  return parse_precision(config::read_enum(n, precision_names()));
}

}  // namespace gcsim::models
