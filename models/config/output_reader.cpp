// The `output:` section reader (see output_reader.hpp).
#include "models/config/output_reader.hpp"

#include "models/config/reader_common.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

OutputSpec read_output(const config::ConfigNode* node, const std::string& scenario_name) {
  OutputSpec out;
  out.trace = scenario_name + ".h5";
  if (!node) return out;
  config::MapReader o(*node, OUTPUT_KEYS);
  if (const config::ConfigNode* trace = o.optional("trace")) out.trace = read_name(*trace);
  if (const config::ConfigNode* flows = o.optional("flows")) out.flows = config::read_bool(*flows);
  return out;
}

}  // namespace gcsim::models
