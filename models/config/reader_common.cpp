// The shared small readers (see reader_common.hpp).
#include "models/config/reader_common.hpp"

#include "sim/config/reader.hpp"

namespace gcsim::models {

Precision read_precision(const config::ConfigNode& n) {
  return parse_precision(config::read_enum(n, precision_names()));
}

}  // namespace gcsim::models
