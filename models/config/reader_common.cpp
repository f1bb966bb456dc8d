// The shared small readers (see reader_common.hpp).
#include "models/config/reader_common.hpp"

#include "models/trace/schema.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

// Names are written into fixed-width trace columns (models/trace/schema.hpp).
void check_name_length(const config::ConfigNode& n, const std::string& name) {
  if (name.size() > trace::schema::MAX_NAME_BYTES)
    n.fail(ErrorCode::OutOfRange, "a name of " + std::to_string(name.size()) + " bytes; names are at most " +
                                      std::to_string(trace::schema::MAX_NAME_BYTES) + " bytes");
}

std::string read_name(const config::ConfigNode& n) {
  std::string s = config::read_string(n);
  check_name_length(n, s);
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
